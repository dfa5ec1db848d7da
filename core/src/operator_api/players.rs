//! `GET /operator/api/players`: an account found by friend code, id or sign-in identity, with
//! its holdings, ledger, keys, recent results and reward-track progress.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::views::{self, AccountView, Holding, LedgerRow, ResultRow, TrackRow};
use crate::domain::{DEVICE_PROVIDER, DeviceId, FriendCode};
use crate::http::params::{PositiveId, request_parameters};
use crate::http::{ApiError, ErrorCode};
use crate::store::{Account, AccountId, LEDGER_PAGE_MAX, LedgerFilter};

/// How many of the newest results the answer shows.
const RECENT_RESULTS: u32 = 20;

request_parameters! {
    /// The player of `GET /operator/api/players`: exactly one of the friend code, the id, the
    /// device id, or the provider with the subject.
    pub(crate) struct PlayerQuery {
        /// The account's friend code (`Sneeza#0001`, `#` as `%23`)
        code: Option<FriendCode> = Query "friendCode",
        /// The account's id
        id: Option<PositiveId> = Query "accountId",
        /// The device id the account signs in with (matched by its SHA-256)
        device: Option<DeviceId> = Query "deviceId",
        /// The sign-in provider (`idpone`, `chat`, ...), with `subject`
        provider: Option<String> = Query "provider",
        /// The account's id at that provider, with `provider`
        subject: Option<String> = Query "subject",
    }
}

impl PlayerQuery {
    /// The player with the id `account`.
    pub(crate) fn by_id(account: i64) -> Self {
        Self {
            code: None,
            id: Some(PositiveId(account)),
            device: None,
            provider: None,
            subject: None,
        }
    }
}

/// One player with what operators look at.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlayerAnswer {
    /// The account.
    pub account: AccountView,
    /// The items it holds.
    pub items: Vec<Holding>,
    /// The unopened packs it holds.
    pub packs: Vec<Holding>,
    /// Its newest ledger rows (at most 100), oldest first, with the balances after each row.
    pub ledger: Vec<LedgerRow>,
    /// Whether it has older ledger rows (`GET /players/{accountId}/ledger` pages through them
    /// all).
    pub ledger_more: bool,
    /// How many times all its keys were revoked.
    pub key_generation: i64,
    /// Its newest results.
    pub matches: Vec<ResultRow>,
    /// Its progress on each reward track.
    pub tracks: Vec<TrackRow>,
}

/// `GET /players`.
pub(crate) struct Player;

impl Endpoint for Player {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/players";
    const ID: &'static str = "player";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "The account (by friend code, id, device id, or provider and \
        subject), its items and packs, its newest ledger rows (at most 100, oldest first, \
        with the coin and gem balances after each row; `ledgerMore` when older ones exist), its key generation (how many times all its keys were \
        revoked), its newest results and its reward-track progress; 404 `unknown_user` for no \
        such account.";
    type Params = PlayerQuery;
    type Answer = PlayerAnswer;
}

impl Reads for Player {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<PlayerQuery>,
    ) -> Result<PlayerAnswer, ApiError> {
        let account = find(&state, call.params)
            .await?
            .ok_or_else(unknown_account)?;
        let store = state.app.store.as_ref();
        let holdings = store.holdings(account.id).await?;
        let newest = store
            .ledger_page(account.id, &LedgerFilter::default(), None, LEDGER_PAGE_MAX)
            .await?;
        let key_generation = i64::from(store.key_generation(account.id).await?.unwrap_or_default());
        let results = store.recent_results(account.id, RECENT_RESULTS).await?;
        let progress = store.progress(&[account.id]).await?;
        let published = state.app.content.current();
        let content = &published.content;
        let (items, packs) = views::holdings(&content.catalog, &holdings);
        let tracks = progress
            .first()
            .map_or_else(Vec::new, |(_, progress)| views::tracks(content, progress));
        Ok(PlayerAnswer {
            account: AccountView::of(&account),
            items,
            packs,
            ledger: views::ledger(&account, &newest.entries),
            ledger_more: newest.next.is_some(),
            key_generation,
            matches: views::results(&results),
            tracks,
        })
    }
}

/// The account the query names, if any; 400 unless it names exactly one way.
async fn find(state: &OperatorState, query: PlayerQuery) -> Result<Option<Account>, ApiError> {
    let store = state.app.store.as_ref();
    match query {
        PlayerQuery {
            code: Some(code),
            id: None,
            device: None,
            provider: None,
            subject: None,
        } => Ok(store.account_by_friend_code(&code).await?),
        PlayerQuery {
            code: None,
            id: Some(id),
            device: None,
            provider: None,
            subject: None,
        } => Ok(store.account(AccountId(id.0)).await?),
        PlayerQuery {
            code: None,
            id: None,
            device: Some(device),
            provider: None,
            subject: None,
        } => Ok(store
            .account_by_identity(DEVICE_PROVIDER, &device.stored_identifier())
            .await?),
        PlayerQuery {
            code: None,
            id: None,
            device: None,
            provider: Some(provider),
            subject: Some(subject),
        } => Ok(store.account_by_identity(&provider, &subject).await?),
        PlayerQuery {
            provider: Some(_),
            subject: None,
            ..
        } => Err(ApiError::invalid("subject", "is required with `provider`")),
        PlayerQuery {
            provider: None,
            subject: Some(_),
            ..
        } => Err(ApiError::invalid("provider", "is required with `subject`")),
        PlayerQuery {
            code,
            id,
            device,
            provider,
            ..
        } => {
            let given = [
                (code.is_some(), "friendCode"),
                (id.is_some(), "accountId"),
                (device.is_some(), "deviceId"),
                (provider.is_some(), "provider and subject"),
            ];
            Err(ApiError::ExactlyOneOf {
                names: &[
                    "friendCode",
                    "accountId",
                    "deviceId",
                    "provider and subject",
                ],
                given: given
                    .into_iter()
                    .filter(|(is, _)| *is)
                    .map(|(_, name)| name)
                    .collect(),
            })
        }
    }
}

/// 404 `unknown_user`.
pub(super) fn unknown_account() -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownUser,
        message: "no account has this friend code, id or identity".to_owned(),
    }
}

/// The account with `id`, or 404 `unknown_user`.
pub(super) async fn existing(state: &OperatorState, id: AccountId) -> Result<Account, ApiError> {
    state
        .app
        .store
        .account(id)
        .await?
        .ok_or_else(unknown_account)
}
