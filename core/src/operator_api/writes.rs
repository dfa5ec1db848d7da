//! The operator API's changes of one account, each `POST
//! /operator/api/players/{accountId}/<action>` with a JSON body that gives the operator's
//! `reason`: grant, refund, remove, ban (and unban), revoke-keys, delete, remove-results.
//! Money and holdings move through the same change and ledger as the game (the ledger rows'
//! reason is the operator's, their reference `operator:<token>:<action>`); every call with a
//! valid token appends one audit row, refused ones too.

use http::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::OperatorState;
use super::change_call::{ReasonBody, Reasoned, Write, reasoned};
use super::endpoint::{Changes, Endpoint};
use super::players::{existing, unknown_account};
use super::views::AccountView;
use crate::api::shared::change::refused;
use crate::http::params::{PositiveId, request_parameters};
use crate::http::{ApiError, ErrorCode};
use crate::operator::{self, Attribution, Grant, GrantError};
use crate::store::{Account, AccountId, Currency, Refusal, Step};

request_parameters! {
    /// The account an operator's change is for.
    pub(crate) struct AccountPath {
        /// The account's id
        id: PositiveId = Path "accountId",
    }
}

impl AccountPath {
    /// The account it names.
    fn account(&self) -> AccountId {
        AccountId(self.id.0)
    }
}

/// One change of an account: who asks, on which account, with which body and audit row.
type Call<B> = Write<AccountPath, B>;

impl<B: Reasoned> Call<B> {
    /// How the ledger rows of this call's change read.
    fn attribution(&self, action: &str) -> Attribution {
        Attribution {
            reason: self.body.reason().trim().to_owned(),
            reference: format!("operator:{}:{action}", self.token.name),
        }
    }
}

/// A change that was not made, as the operator API answers it: an unknown account is a 404,
/// a removal below zero a 409 `balance_too_low`, the rest as the public API answers them.
fn grant_error(state: &OperatorState, error: GrantError) -> ApiError {
    match error {
        GrantError::Empty => ApiError::InvalidBody {
            reason: "moves nothing: name positive coins, gems, items or packs".to_owned(),
        },
        GrantError::UnknownSku(sku) => ApiError::NotFound {
            code: ErrorCode::NotInCatalog,
            message: format!("no item or pack has the SKU `{sku}`"),
        },
        GrantError::UnknownAccount(_) | GrantError::Refused(Refusal::NoAccount) => {
            unknown_account()
        }
        GrantError::Refused(Refusal::InsufficientFunds {
            currency,
            needed,
            balance,
        }) => ApiError::Conflict {
            code: ErrorCode::BalanceTooLow,
            message: format!(
                "removing {needed} {} would take the balance of {balance} below zero; nothing \
                 was removed",
                currency.as_str()
            ),
        },
        GrantError::Refused(refusal) => {
            refused(&state.app.content.current().content.catalog, refusal)
        }
        GrantError::Store(error) => error.into(),
    }
}

/// The account after a change of its holdings, and how many holdings the change moved.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct Moved {
    /// The account after the change.
    pub account: AccountView,
    /// How many grants or movements the change made.
    pub moved: usize,
}

impl Moved {
    /// `account` after a change that moved `moved`.
    fn of(account: &Account, moved: usize) -> Self {
        Self {
            account: AccountView::of(account),
            moved,
        }
    }
}

/// What a grant or a removal names: coins, gems, items and packs.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HoldingsBody {
    /// Coins.
    #[serde(default)]
    pub coins: i64,
    /// Gems.
    #[serde(default)]
    pub gems: i64,
    /// Items, by SKU.
    #[serde(default)]
    pub items: Vec<String>,
    /// Packs, each `sku` or `sku:count`.
    #[serde(default)]
    pub packs: Vec<String>,
    /// Why, for the audit and the ledger.
    pub reason: String,
}

impl HoldingsBody {
    /// What it names, its packs read.
    fn grant(&self) -> Result<Grant, ApiError> {
        Ok(Grant {
            coins: self.coins,
            gems: self.gems,
            items: self.items.clone(),
            packs: packs(&self.packs)?,
        })
    }
}

/// `POST /players/{accountId}/grant`.
pub(crate) struct GrantPlayer;

impl Endpoint for GrantPlayer {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/grant";
    const ID: &'static str = "grant";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "Grants coins, gems, items (by SKU) and packs (`sku` or \
        `sku:count`) in one change with its ledger rows; 404 `unknown_user`, `not_in_catalog`.";
    type Params = AccountPath;
    type Answer = Moved;
}

impl Changes for GrantPlayer {
    const ACTION: &'static str = "grant";
    const TARGET: &'static str = "account:{accountId}";
    type Body = HoldingsBody;
    type Changed = Moved;

    async fn change(state: OperatorState, call: Call<HoldingsBody>) -> Result<Moved, ApiError> {
        let grant = call.body.grant()?;
        let published = state.app.content.current();
        let (account, granted) = operator::grant_account(
            state.app.store.as_ref(),
            &published.content,
            (call.path.account(), &grant),
            &call.attribution("grant"),
            state.app.clock.now(),
            call.audit(),
            &state.app.hooks,
        )
        .await
        .map_err(|error| grant_error(&state, error))?;
        Ok(Moved::of(&account, granted.len()))
    }

    async fn answer(_: OperatorState, moved: Moved) -> Result<Moved, ApiError> {
        Ok(moved)
    }
}

/// The body of `refund`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RefundBody {
    /// `coins` or `gems`.
    pub currency: String,
    /// How much, positive.
    pub amount: i64,
    /// Why, for the audit and the ledger.
    pub reason: String,
}

/// `POST /players/{accountId}/refund`.
pub(crate) struct Refund;

impl Endpoint for Refund {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/refund";
    const ID: &'static str = "refund";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "A credit of `amount` `coins` or `gems`, with its ledger row.";
    type Params = AccountPath;
    type Answer = Moved;
}

impl Changes for Refund {
    const ACTION: &'static str = "refund";
    const TARGET: &'static str = "account:{accountId}";
    type Body = RefundBody;
    type Changed = Moved;

    async fn change(state: OperatorState, call: Call<RefundBody>) -> Result<Moved, ApiError> {
        let currency = match call.body.currency.as_str() {
            "coins" => Currency::Coins,
            "gems" => Currency::Gems,
            _ => {
                return Err(ApiError::InvalidBody {
                    reason: "`currency` must be `coins` or `gems`".to_owned(),
                });
            }
        };
        let amount = positive("amount", call.body.amount)?;
        let steps = vec![Step::Credit { currency, amount }];
        move_currencies(&state, &call, "refund", steps).await
    }

    async fn answer(_: OperatorState, moved: Moved) -> Result<Moved, ApiError> {
        Ok(moved)
    }
}

/// `POST /players/{accountId}/remove`.
pub(crate) struct Remove;

impl Endpoint for Remove {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/remove";
    const ID: &'static str = "remove";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "Debits and removals in one change, refused (409, nothing \
        written) when the account holds less than any of them (`balance_too_low`, \
        `not_owned`, `not_enough_packs`).";
    type Params = AccountPath;
    type Answer = Moved;
}

impl Changes for Remove {
    const ACTION: &'static str = "remove";
    const TARGET: &'static str = "account:{accountId}";
    type Body = HoldingsBody;
    type Changed = Moved;

    async fn change(state: OperatorState, call: Call<HoldingsBody>) -> Result<Moved, ApiError> {
        let removal = call.body.grant()?;
        let published = state.app.content.current();
        let steps = operator::removal_steps(&published.content, &removal)
            .map_err(|error| grant_error(&state, error))?;
        move_currencies(&state, &call, "remove", steps).await
    }

    async fn answer(_: OperatorState, moved: Moved) -> Result<Moved, ApiError> {
        Ok(moved)
    }
}

/// The packs of a body, each `sku` or `sku:count`; a bad one is a 400 naming `packs`.
fn packs(texts: &[String]) -> Result<Vec<(String, i64)>, ApiError> {
    texts
        .iter()
        .map(|text| operator::parse_pack(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| ApiError::InvalidBody {
            reason: format!("`packs`: {reason}"),
        })
}

/// `amount` when positive, else a 400 naming `field`.
fn positive(field: &str, amount: i64) -> Result<i64, ApiError> {
    if amount > 0 {
        Ok(amount)
    } else {
        Err(ApiError::InvalidBody {
            reason: format!("`{field}` must be a positive whole number"),
        })
    }
}

/// Applies the credits or debits `steps` of `call` in one change.
async fn move_currencies<B: Reasoned>(
    state: &OperatorState,
    call: &Call<B>,
    action: &str,
    steps: Vec<Step>,
) -> Result<Moved, ApiError> {
    let (account, moved) = operator::apply(
        state.app.store.as_ref(),
        call.path.account(),
        steps,
        &call.attribution(action),
        state.app.clock.now(),
        call.audit(),
    )
    .await
    .map_err(|error| grant_error(state, error))?;
    Ok(Moved::of(&account, moved.len()))
}

/// An account after a change.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct AccountChanged {
    /// The account as it is now.
    pub account: AccountView,
}

/// The body of `ban`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BanBody {
    /// `true` bans, `false` lifts the ban.
    pub banned: bool,
    /// Why, for the audit.
    pub reason: String,
}

/// `POST /players/{accountId}/ban`.
pub(crate) struct Ban;

impl Endpoint for Ban {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/ban";
    const ID: &'static str = "ban";
    const TAG: &'static str = "players";
    const ABOUT: &'static str =
        "Bans the account (`banned: true`), or lifts its ban (audited as `unban`).";
    type Params = AccountPath;
    type Answer = AccountChanged;
}

impl Changes for Ban {
    const ACTION: &'static str = "ban";
    const TARGET: &'static str = "account:{accountId}";
    type Body = BanBody;
    type Changed = AccountId;

    fn action(sent: &Value) -> &'static str {
        if sent["banned"] == Value::Bool(false) {
            "unban"
        } else {
            "ban"
        }
    }

    async fn change(state: OperatorState, call: Call<BanBody>) -> Result<AccountId, ApiError> {
        let account = call.path.account();
        let store = state.app.store.as_ref();
        if !store
            .set_banned(account, call.body.banned, call.audit())
            .await?
        {
            return Err(unknown_account());
        }
        state.app.leaderboards.changed_here();
        Ok(account)
    }

    async fn answer(state: OperatorState, account: AccountId) -> Result<AccountChanged, ApiError> {
        let account = existing(&state, account).await?;
        Ok(AccountChanged {
            account: AccountView::of(&account),
        })
    }
}

/// The keys revoked.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct KeysRevoked {
    /// The account.
    pub account: AccountView,
    /// Whether the keys were revoked.
    pub revoked: bool,
}

/// `POST /players/{accountId}/revoke-keys`.
pub(crate) struct RevokeKeys;

impl Endpoint for RevokeKeys {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/revoke-keys";
    const ID: &'static str = "revokeKeys";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "Every user key of the account stops working.";
    type Params = AccountPath;
    type Answer = KeysRevoked;
}

impl Changes for RevokeKeys {
    const ACTION: &'static str = "revoke-keys";
    const TARGET: &'static str = "account:{accountId}";
    type Body = ReasonBody;
    type Changed = KeysRevoked;

    async fn change(state: OperatorState, call: Call<ReasonBody>) -> Result<KeysRevoked, ApiError> {
        let account = existing(&state, call.path.account()).await?;
        let store = state.app.store.as_ref();
        let revoked = store.revoke_all_keys(account.id, call.audit()).await?;
        Ok(KeysRevoked {
            account: AccountView::of(&account),
            revoked,
        })
    }

    async fn answer(_: OperatorState, revoked: KeysRevoked) -> Result<KeysRevoked, ApiError> {
        Ok(revoked)
    }
}

/// The body of `delete`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteBody {
    /// The account's friend code, typed again: the confirmation step.
    pub confirm: String,
    /// Why, for the audit.
    pub reason: String,
}

/// An account deleted.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Deleted {
    /// The deleted account's id.
    pub deleted: i64,
    /// The friend code it had.
    pub friend_code: String,
}

/// `POST /players/{accountId}/delete`.
pub(crate) struct Delete;

impl Endpoint for Delete {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/delete";
    const ID: &'static str = "deletePlayer";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "Erases the account and its personal data, as the player's own \
        deletion does (its keys, holdings, ledger, progress and results go with it); refused \
        (400, nothing deleted) unless `confirm` is the account's friend code.";
    type Params = AccountPath;
    type Answer = Deleted;
}

impl Changes for Delete {
    const ACTION: &'static str = "delete";
    const TARGET: &'static str = "account:{accountId}";
    type Body = DeleteBody;
    type Changed = Deleted;

    async fn change(state: OperatorState, call: Call<DeleteBody>) -> Result<Deleted, ApiError> {
        let account = existing(&state, call.path.account()).await?;
        let code = account.friend_code.to_string();
        if call.body.confirm.trim().to_lowercase() != code.to_lowercase() {
            return Err(ApiError::InvalidBody {
                reason: format!(
                    "`confirm` must be the account's friend code, {code}, to delete it"
                ),
            });
        }
        if !state
            .app
            .store
            .delete_account(account.id, call.audit())
            .await?
        {
            return Err(unknown_account());
        }
        state.app.leaderboards.changed_here();
        Ok(Deleted {
            deleted: account.id.0,
            friend_code: code,
        })
    }

    async fn answer(_: OperatorState, deleted: Deleted) -> Result<Deleted, ApiError> {
        Ok(deleted)
    }
}

/// Results removed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ResultsRemoved {
    /// The account.
    pub account: AccountView,
    /// How many results left the boards.
    pub removed: u64,
}

/// `POST /players/{accountId}/remove-results`.
pub(crate) struct RemoveResults;

impl Endpoint for RemoveResults {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/players/{accountId}/remove-results";
    const ID: &'static str = "removeResults";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "The account's match results leave every leaderboard, on every \
        node (each follows the account log); its later results count afresh.";
    type Params = AccountPath;
    type Answer = ResultsRemoved;
}

impl Changes for RemoveResults {
    const ACTION: &'static str = "remove-results";
    const TARGET: &'static str = "account:{accountId}";
    type Body = ReasonBody;
    type Changed = (AccountId, u64);

    async fn change(
        state: OperatorState,
        call: Call<ReasonBody>,
    ) -> Result<(AccountId, u64), ApiError> {
        let account = call.path.account();
        let now = state.app.clock.now();
        let removed = state
            .app
            .store
            .remove_results(account, now, call.audit())
            .await?
            .ok_or_else(unknown_account)?;
        state.app.leaderboards.changed_here();
        Ok((account, removed.removed))
    }

    async fn answer(
        state: OperatorState,
        (account, removed): (AccountId, u64),
    ) -> Result<ResultsRemoved, ApiError> {
        let account = existing(&state, account).await?;
        Ok(ResultsRemoved {
            account: AccountView::of(&account),
            removed,
        })
    }
}

reasoned!(HoldingsBody, RefundBody, BanBody, DeleteBody);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_positive() {
        assert!(positive("amount", 1).is_ok());
        assert!(positive("amount", 0).is_err());
    }
}
