//! The operator API's changes, each `POST /operator/api/players/{accountId}/<action>` with a
//! JSON body that gives the operator's `reason`: grant, refund, remove, ban (and unban),
//! revoke-keys. Money and holdings move through the same change and ledger as the game (the
//! ledger rows' reason is the operator's, their reference `operator:<token>:<action>`); every
//! call with a valid token appends one audit row, refused ones too.

use std::future::Future;

use serde::Deserialize;
use serde_json::{Value, json};

use super::audited::{self, Audit, Reasoned, Write, as_is};
use super::players::{existing, unknown_account};
use super::{OperatorState, views};
use crate::api::shared::change::refused;
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::operator::{self, Attribution, Grant, GrantError};
use crate::store::{AccountId, Currency, Refusal, Step};

parameters! {
    /// The account an operator's change is for.
    struct AccountPath {
        /// The account's id
        id: PositiveId = Path "accountId",
    }
}

/// One change: who asks, on which account (its path), with which body and audit row.
type Call<B> = Write<AccountId, B>;

impl<B: Reasoned> Call<B> {
    /// How the ledger rows of this call's change read.
    fn attribution(&self, action: &str) -> Attribution {
        Attribution {
            reason: self.body.reason().trim().to_owned(),
            reference: format!("operator:{}:{action}", self.token.name),
        }
    }
}

/// Runs one change on the account of the path, named by `action_of` (from the body as sent) and
/// audited on `account:N`, then its answer ([`audited::audited`]).
async fn audited<B, T, F, Fut, G, GFut>(
    state: OperatorState,
    incoming: Incoming,
    action_of: fn(&Value) -> &'static str,
    change: F,
    answer: G,
) -> Result<Reply, ApiError>
where
    B: Reasoned,
    F: FnOnce(OperatorState, Call<B>) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
    G: FnOnce(OperatorState, T) -> GFut,
    GFut: Future<Output = Result<Value, ApiError>>,
{
    let target = format!("account:{}", incoming.path("accountId").unwrap_or_default());
    let account = AccountPath::read(&incoming).map(|path| AccountId(path.id.0));
    let audit = move |sent: &Value| Audit {
        action: action_of(sent),
        target,
    };
    audited::audited(state, incoming, audit, account, change, answer).await
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

/// The account after a change, and what the change moved.
fn changed(account: &crate::store::Account, moved: impl serde::Serialize) -> Value {
    json!({ "account": views::account(account), "moved": moved })
}

/// The body of `grant`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantBody {
    #[serde(default)]
    coins: i64,
    #[serde(default)]
    gems: i64,
    #[serde(default)]
    items: Vec<String>,
    /// `sku` or `sku:count`.
    #[serde(default)]
    packs: Vec<String>,
    reason: String,
}

impl Reasoned for GrantBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../grant` `{coins?, gems?, items?: [sku], packs?: [sku or sku:count], reason}`.
pub(super) async fn grant(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "grant",
        |state, call: Call<GrantBody>| async move {
            let grant = Grant {
                coins: call.body.coins,
                gems: call.body.gems,
                items: call.body.items.clone(),
                packs: packs(&call.body.packs)?,
            };
            let published = state.app.content.current();
            let (account, granted) = operator::grant_account(
                state.app.store.as_ref(),
                &published.content,
                call.path,
                &grant,
                &call.attribution("grant"),
                state.app.clock.now(),
                call.audit(),
            )
            .await
            .map_err(|error| grant_error(&state, error))?;
            Ok(changed(&account, granted.len()))
        },
        as_is,
    )
    .await
}

/// The body of `refund`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefundBody {
    /// `coins` or `gems`.
    currency: String,
    amount: i64,
    reason: String,
}

impl Reasoned for RefundBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../refund` `{currency: "coins"|"gems", amount, reason}`: a credit.
pub(super) async fn refund(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "refund",
        |state, call: Call<RefundBody>| async move {
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
        },
        as_is,
    )
    .await
}

/// The body of `remove`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveBody {
    #[serde(default)]
    coins: i64,
    #[serde(default)]
    gems: i64,
    #[serde(default)]
    items: Vec<String>,
    /// `sku` or `sku:count`.
    #[serde(default)]
    packs: Vec<String>,
    reason: String,
}

impl Reasoned for RemoveBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../remove` `{coins?, gems?, items?: [sku], packs?: [sku or sku:count], reason}`:
/// debits and removals in one change, refused (409, nothing written) when the account holds
/// less than any of them (`balance_too_low`, `not_owned`, `not_enough_packs`).
pub(super) async fn remove(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "remove",
        |state, call: Call<RemoveBody>| async move {
            let removal = Grant {
                coins: call.body.coins,
                gems: call.body.gems,
                items: call.body.items.clone(),
                packs: packs(&call.body.packs)?,
            };
            let published = state.app.content.current();
            let steps = operator::removal_steps(&published.content, &removal)
                .map_err(|error| grant_error(&state, error))?;
            move_currencies(&state, &call, "remove", steps).await
        },
        as_is,
    )
    .await
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
) -> Result<Value, ApiError> {
    let (account, moved) = operator::apply(
        state.app.store.as_ref(),
        call.path,
        steps,
        &call.attribution(action),
        state.app.clock.now(),
        call.audit(),
    )
    .await
    .map_err(|error| grant_error(state, error))?;
    Ok(changed(&account, moved.len()))
}

/// The account after a change, as the answer shows it.
async fn account_view(state: OperatorState, account: AccountId) -> Result<Value, ApiError> {
    let account = existing(&state, account).await?;
    Ok(json!({ "account": views::account(&account) }))
}

/// The body of `ban`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BanBody {
    banned: bool,
    reason: String,
}

impl Reasoned for BanBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../ban` `{banned, reason}`: bans the account, or lifts its ban (audited as `unban`).
pub(super) async fn ban(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let action_of = |sent: &Value| {
        if sent["banned"] == Value::Bool(false) {
            "unban"
        } else {
            "ban"
        }
    };
    audited(
        state,
        incoming,
        action_of,
        |state, call: Call<BanBody>| async move {
            let store = state.app.store.as_ref();
            if !store
                .set_banned(call.path, call.body.banned, call.audit())
                .await?
            {
                return Err(unknown_account());
            }
            state.app.leaderboards.changed_here();
            Ok(call.path)
        },
        account_view,
    )
    .await
}

/// The body of a change that gives only its reason: `revoke-keys`, `remove-results`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReasonBody {
    reason: String,
}

impl Reasoned for ReasonBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../revoke-keys` `{reason}`: every user key of the account stops working.
pub(super) async fn revoke_keys(
    state: OperatorState,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "revoke-keys",
        |state, call: Call<ReasonBody>| async move {
            let account = existing(&state, call.path).await?;
            let store = state.app.store.as_ref();
            let revoked = store.revoke_all_keys(account.id, call.audit()).await?;
            Ok(json!({ "account": views::account(&account), "revoked": revoked }))
        },
        as_is,
    )
    .await
}

/// The body of `delete`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteBody {
    /// The account's friend code, typed again: the confirmation step.
    confirm: String,
    reason: String,
}

impl Reasoned for DeleteBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../delete` `{confirm, reason}`: erases the account and its personal data, as the
/// player's own deletion does (its keys, holdings, ledger, progress and results go with it);
/// refused (400, nothing deleted) unless `confirm` is the account's friend code.
pub(super) async fn delete(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "delete",
        |state, call: Call<DeleteBody>| async move {
            let account = existing(&state, call.path).await?;
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
            Ok(json!({ "deleted": account.id.0, "friendCode": code }))
        },
        as_is,
    )
    .await
}

/// `POST .../remove-results` `{reason}`: the account's match results leave every leaderboard,
/// on every node (each follows the account log); its later results count afresh.
pub(super) async fn remove_results(
    state: OperatorState,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    audited(
        state,
        incoming,
        |_| "remove-results",
        |state, call: Call<ReasonBody>| async move {
            let now = state.app.clock.now();
            let removed = state
                .app
                .store
                .remove_results(call.path, now, call.audit())
                .await?
                .ok_or_else(unknown_account)?;
            state.app.leaderboards.changed_here();
            Ok((call.path, removed.removed))
        },
        |state, (account, removed)| async move {
            let account = existing(&state, account).await?;
            Ok(json!({ "account": views::account(&account), "removed": removed }))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_positive() {
        assert!(positive("amount", 1).is_ok());
        assert!(positive("amount", 0).is_err());
    }
}
