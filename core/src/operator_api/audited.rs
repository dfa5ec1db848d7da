//! One audited change of the operator API, whatever it changes (an account, a poll, a
//! tournament, the content): the caller's token, a full one, a JSON body with the operator's
//! `reason`, and one audit row of the outcome, refused calls too.

use std::future::Future;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{OperatorState, auth};
use crate::http::{ApiError, ErrorCode, Incoming, Reply, parse_json};
use crate::store::{NewAuditEntry, OperatorRole, OperatorToken};

/// The most characters an operator's reason has.
const REASON_MAX_CHARS: usize = 500;

/// What every change's body gives: why.
pub(super) trait Reasoned: DeserializeOwned {
    /// The operator's reason, as sent.
    fn reason(&self) -> &str;
}

/// One change, as its handler runs it: who asks, what its path names, and its body.
pub(super) struct Write<P, B> {
    /// The caller's token (a full one).
    pub token: OperatorToken,
    /// What the path names (an account, a poll, a tournament; `()` for none).
    pub path: P,
    /// The body, read and with its reason checked.
    pub body: B,
}

/// What a change answers, and the target its audit row names when known only once done (the
/// id of a created poll, the version of published content).
pub(super) struct Done {
    answer: Value,
    target: Option<String>,
}

impl Done {
    /// The answer `answer`, audited on `target` instead of the target known beforehand.
    pub fn on(target: String, answer: Value) -> Self {
        Self {
            answer,
            target: Some(target),
        }
    }
}

impl From<Value> for Done {
    fn from(answer: Value) -> Self {
        Self {
            answer,
            target: None,
        }
    }
}

/// How the audit names one call: its action and its target, from the body as sent (a body
/// that does not parse still gets its row) and the path.
pub(super) struct Audit {
    /// The action (`poll-create`; `ban` or `unban` by the body).
    pub action: &'static str,
    /// The target (`poll:7`, `tournament:spring-cup`, `content`).
    pub target: String,
}

/// Runs one change audited: authenticates (a missing or bad token is a 401 and not audited:
/// there is no one to attribute it to), refuses a read-only token (403 `operator_read_only`),
/// then what the path names (`path`, read by the caller from the request), the body and its
/// reason, runs `run`, and appends the audit row of the outcome (`done`, `refused: why`, or
/// `failed: why` when the server failed), on the target `audit` names unless `run` named one,
/// before answering it.
pub(super) async fn audited<P, B, F, Fut>(
    state: OperatorState,
    incoming: Incoming,
    audit: impl FnOnce(&Value) -> Audit,
    path: Result<P, ApiError>,
    run: F,
) -> Result<Reply, ApiError>
where
    B: Reasoned,
    F: FnOnce(OperatorState, Write<P, B>) -> Fut,
    Fut: Future<Output = Result<Done, ApiError>>,
{
    let token = auth::caller(&state, &incoming).await?;
    let bytes = incoming.body_bytes().await;
    let sent = bytes
        .as_ref()
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .unwrap_or(Value::Null);
    let Audit { action, target } = audit(&sent);
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
        let path = path?;
        let body: B = parse_json(&bytes?)?;
        check_reason(body.reason())?;
        let write = Write {
            token: token.clone(),
            path,
            body,
        };
        run(state.clone(), write).await
    }
    .await;
    let result = match &outcome {
        Ok(_) => "done".to_owned(),
        Err(error) if error.status().is_server_error() => format!("failed: {}", error.message()),
        Err(error) => format!("refused: {}", error.message()),
    };
    let (answer, target) = match outcome {
        Ok(done) => (Ok(done.answer), done.target.unwrap_or(target)),
        Err(error) => (Err(error), target),
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
    answer.map(|answer| Reply::success(&answer))
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
