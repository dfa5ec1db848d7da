//! `GET /operator/api/players`: an account found by friend code, id or sign-in identity, with
//! its holdings, ledger, keys, recent results and reward-track progress.

use serde_json::json;

use super::{OperatorState, auth, views};
use crate::domain::{DEVICE_PROVIDER, DeviceId, FriendCode};
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{Account, AccountId};

/// How many of the newest results the answer shows.
const RECENT_RESULTS: u32 = 20;

parameters! {
    /// The player of `GET /operator/api/players`: exactly one of the friend code, the id, the
    /// device id, or the provider with the subject.
    struct PlayerQuery {
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

/// The account (by friend code, id, device id, or provider and subject), its items and
/// packs, its ledger (oldest first, with the coin and gem balances after each row), its key
/// generation (how many times all its keys were revoked), its newest results and its
/// reward-track progress; 404 `unknown_user` for no such account.
pub(super) async fn player(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = PlayerQuery::read(&incoming)?;
    let account = find(&state, query).await?.ok_or_else(unknown_account)?;
    let store = state.app.store.as_ref();
    let holdings = store.holdings(account.id).await?;
    let ledger = store.ledger(account.id).await?;
    let key_generation = store.key_generation(account.id).await?.unwrap_or_default();
    let results = store.recent_results(account.id, RECENT_RESULTS).await?;
    let progress = store.progress(&[account.id]).await?;
    let published = state.app.content.current();
    let content = &published.content;
    let (items, packs) = views::holdings(&content.catalog, &holdings);
    let tracks = progress
        .first()
        .map_or_else(Vec::new, |(_, progress)| views::tracks(content, progress));
    Ok(Reply::success(&json!({
        "account": views::account(&account),
        "items": items,
        "packs": packs,
        "ledger": views::ledger(&ledger),
        "keyGeneration": key_generation,
        "matches": views::results(&results),
        "tracks": tracks,
    })))
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
