//! The operator API's changes, each `POST /operator/api/players/{accountId}/<action>` with a
//! JSON body that gives the operator's `reason`: grant, refund, remove, ban (and unban),
//! revoke-keys. Money and holdings move through the same change and ledger as the game (the
//! ledger rows' reason is the operator's, their reference `operator:<token>:<action>`); every
//! call with a valid token appends one audit row, refused ones too.

use std::future::Future;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::players::{existing, unknown_account};
use super::{OperatorState, auth, views};
use crate::api::shared::change::refused;
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply, parse_json};
use crate::operator::{self, Attribution, Grant, GrantError};
use crate::store::{
    AccountId, Currency, NewAuditEntry, OperatorRole, OperatorToken, Refusal, Step,
};

/// The most characters an operator's reason has.
const REASON_MAX_CHARS: usize = 500;

parameters! {
    /// The account an operator's change is for.
    struct AccountPath {
        /// The account's id
        id: PositiveId = Path "accountId",
    }
}

/// What every change's body gives: why.
trait Reasoned: DeserializeOwned {
    /// The operator's reason, as sent.
    fn reason(&self) -> &str;
}

/// One change: who asks, on which account, what for, and with which body.
struct Call<B> {
    token: OperatorToken,
    account: AccountId,
    body: B,
}

impl<B: Reasoned> Call<B> {
    /// How the ledger rows of this call's change read.
    fn attribution(&self, action: &str) -> Attribution {
        Attribution {
            reason: self.body.reason().trim().to_owned(),
            reference: format!("operator:{}:{action}", self.token.name),
        }
    }
}

/// Runs one change named by `action_of` (from the body as sent), audited: authenticates (a
/// missing or bad token is a 401 and not audited: there is no one to attribute it to), refuses
/// a read-only token (403 `operator_read_only`), reads the account and the body, runs `run`,
/// and appends the audit row of the outcome (`done`, `refused: why`, or `failed: why` when the
/// server failed) before answering it.
async fn audited<B, F, Fut>(
    state: OperatorState,
    incoming: Incoming,
    action_of: fn(&Value) -> &'static str,
    run: F,
) -> Result<Reply, ApiError>
where
    B: Reasoned,
    F: FnOnce(OperatorState, Call<B>) -> Fut,
    Fut: Future<Output = Result<Value, ApiError>>,
{
    let token = auth::caller(&state, &incoming).await?;
    let target = format!("account:{}", incoming.path("accountId").unwrap_or_default());
    let account = AccountPath::read(&incoming).map(|path| AccountId(path.id.0));
    let bytes = incoming.body_bytes().await;
    let sent = bytes
        .as_ref()
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .unwrap_or(Value::Null);
    let action = action_of(&sent);
    let reason = sent["reason"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .to_owned();
    let outcome = async {
        if token.role == OperatorRole::Read {
            return Err(ApiError::Forbidden {
                code: ErrorCode::OperatorReadOnly,
                message: format!(
                    "the operator token {} is read-only; a change needs a full token",
                    token.name
                ),
            });
        }
        let account = account?;
        let body: B = parse_json(&bytes?)?;
        check_reason(body.reason())?;
        let call = Call {
            token: token.clone(),
            account,
            body,
        };
        run(state.clone(), call).await
    }
    .await;
    let result = match &outcome {
        Ok(_) => "done".to_owned(),
        Err(error) if error.status().is_server_error() => format!("failed: {}", error.message()),
        Err(error) => format!("refused: {}", error.message()),
    };
    state
        .app
        .store
        .append_audit(NewAuditEntry {
            token: token.id,
            at: state.app.clock.now(),
            action: action.to_owned(),
            target,
            reason,
            result,
        })
        .await?;
    outcome.map(|answer| Reply::success(&answer))
}

/// A reason is required: 1 to 500 characters, not only spaces.
fn check_reason(reason: &str) -> Result<(), ApiError> {
    let length = reason.trim().chars().count();
    if (1..=REASON_MAX_CHARS).contains(&length) {
        Ok(())
    } else {
        Err(ApiError::InvalidBody {
            reason: format!("`reason` must be 1 to {REASON_MAX_CHARS} characters"),
        })
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
                call.account,
                &grant,
                &call.attribution("grant"),
                state.app.clock.now(),
            )
            .await
            .map_err(|error| grant_error(&state, error))?;
            Ok(changed(&account, granted.len()))
        },
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
        call.account,
        steps,
        &call.attribution(action),
        state.app.clock.now(),
    )
    .await
    .map_err(|error| grant_error(state, error))?;
    Ok(changed(&account, moved.len()))
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
            if !store.set_banned(call.account, call.body.banned).await? {
                return Err(unknown_account());
            }
            state.app.leaderboards.changed_here();
            let account = existing(&state, call.account).await?;
            Ok(json!({ "account": views::account(&account) }))
        },
    )
    .await
}

/// The body of `revoke-keys`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeKeysBody {
    reason: String,
}

impl Reasoned for RevokeKeysBody {
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
        |state, call: Call<RevokeKeysBody>| async move {
            let account = existing(&state, call.account).await?;
            let revoked = state.app.store.revoke_all_keys(account.id).await?;
            Ok(json!({ "account": views::account(&account), "revoked": revoked }))
        },
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
            let account = existing(&state, call.account).await?;
            let code = account.friend_code.to_string();
            if call.body.confirm.trim().to_lowercase() != code.to_lowercase() {
                return Err(ApiError::InvalidBody {
                    reason: format!(
                        "`confirm` must be the account's friend code, {code}, to delete it"
                    ),
                });
            }
            if !state.app.store.delete_account(account.id).await? {
                return Err(unknown_account());
            }
            state.app.leaderboards.changed_here();
            Ok(json!({ "deleted": account.id.0, "friendCode": code }))
        },
    )
    .await
}

/// The body of `remove-results`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveResultsBody {
    reason: String,
}

impl Reasoned for RemoveResultsBody {
    fn reason(&self) -> &str {
        &self.reason
    }
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
        |state, call: Call<RemoveResultsBody>| async move {
            let now = state.app.clock.now();
            let removed = state
                .app
                .store
                .remove_results(call.account, now)
                .await?
                .ok_or_else(unknown_account)?;
            state.app.leaderboards.changed_here();
            let account = existing(&state, call.account).await?;
            Ok(json!({ "account": views::account(&account), "removed": removed.removed }))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_required_and_bounded() {
        assert!(check_reason("ticket 12").is_ok());
        assert!(check_reason(&"é".repeat(REASON_MAX_CHARS)).is_ok());
        assert!(check_reason("").is_err());
        assert!(check_reason("   ").is_err());
        assert!(check_reason(&"a".repeat(REASON_MAX_CHARS + 1)).is_err());
        assert!(positive("amount", 1).is_ok());
        assert!(positive("amount", 0).is_err());
    }
}
