//! One audited change of the operator API, whatever it changes (an account, a poll, a
//! tournament, the content): the caller's token, a full one, a JSON body with the operator's
//! `reason`, and exactly one audit row of the outcome, refused calls too. A change's row is
//! appended by the store in the change's own transaction (the store method it goes through
//! takes the row), so that the change never commits without its row, nor the row without the
//! change; a call that changed nothing appends its `refused: why` (or `failed: why`) row on its
//! own.

use serde_json::Value;

use super::change_call::{Reasoned, Write};
use super::endpoint::Changes;
use super::{OperatorState, auth};
use crate::http::params::RequestParams;
use crate::http::{ApiError, ErrorCode, Incoming, parse_json};
use crate::store::{NewAuditEntry, OperatorRole};

/// The most characters an operator's reason has.
const REASON_MAX_CHARS: usize = 500;

/// Runs one call of the change `E` audited: authenticates (a missing or bad token is a 401 and
/// not audited: there is no one to attribute it to), refuses a read-only token (403
/// `operator_read_only`), then reads the parameters, the body (413 past the operator API's
/// limit) and its reason, and runs [`Changes::change`], whose store call appends the audit row
/// (`done`, on the target `E` names) in the change's transaction. When the change fails,
/// nothing was changed: its row (`refused: why`, or `failed: why` when the server failed) is
/// appended on its own. Then [`Changes::answer`] reads what the answer shows of the change
/// made (a failure there answers an error, the change and its row stay).
pub(super) async fn audited<E: Changes>(
    state: OperatorState,
    incoming: Incoming,
) -> Result<E::Answer, ApiError> {
    let token = auth::caller(&state, &incoming).await?;
    let params = E::Params::from_request(&incoming);
    let path = incoming.path_params().to_vec();
    let bytes = incoming.body_bytes().await;
    let sent = bytes
        .as_ref()
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .unwrap_or(Value::Null);
    let entry = NewAuditEntry {
        token: token.id,
        at: state.app.clock.now(),
        action: E::action(&sent).to_owned(),
        target: E::target(&path, &sent),
        reason: sent["reason"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .to_owned(),
        result: "done".to_owned(),
    };
    let changed = async {
        if token.role == OperatorRole::Read {
            return Err(ApiError::Forbidden {
                code: ErrorCode::OperatorReadOnly,
                message: format!(
                    "the operator token {} is read-only; a change needs a full token",
                    token.name
                ),
            });
        }
        let path = params?;
        let body: E::Body = parse_json(&bytes?)?;
        check_reason(body.reason())?;
        let write = Write {
            token: token.clone(),
            path,
            body,
            audit: entry.clone(),
        };
        E::change(state.clone(), write).await
    }
    .await;
    match changed {
        Ok(changed) => E::answer(state, changed).await,
        Err(error) => {
            let result = if error.status().is_server_error() {
                format!("failed: {}", error.message())
            } else {
                format!("refused: {}", error.message())
            };
            let entry = NewAuditEntry { result, ..entry };
            state.app.store.append_audit(entry).await?;
            Err(error)
        }
    }
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
    }
}
