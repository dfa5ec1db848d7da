//! Who is calling the operator API: the operator token its bearer names, by the token's secret
//! or by a console session of that token (`Bearer session_...`).

use super::OperatorState;
use crate::domain::{OperatorSecret, OperatorSessionId};
use crate::http::{ApiError, ErrorCode, Incoming};
use crate::store::OperatorToken;

/// What a caller presented as its bearer.
pub(crate) enum Credential {
    /// An operator token's secret.
    Secret(OperatorSecret),
    /// A console session's id.
    Session(OperatorSessionId),
}

/// The request's `Authorization: Bearer <secret or session id>`: 401
/// `operator_token_required` without one, `invalid_operator_token` for one that is neither.
pub(super) fn credential(incoming: &Incoming) -> Result<Credential, ApiError> {
    let Some(presented) = incoming.bearer() else {
        return Err(ApiError::Unauthorized {
            code: ErrorCode::OperatorTokenRequired,
            message: "an operator token is required: `Authorization: Bearer <secret>`".to_owned(),
        });
    };
    if let Some(session) = OperatorSessionId::parse(presented) {
        return Ok(Credential::Session(session));
    }
    OperatorSecret::parse(presented)
        .map(Credential::Secret)
        .ok_or_else(invalid_token)
}

/// The unrevoked token of the request's bearer: its secret's token, or the token of a console
/// session that still works (not ended, not expired); 401 `operator_token_required` without a
/// bearer, `invalid_operator_token` for a malformed, unknown or revoked token or a session that
/// no longer works.
pub(super) async fn caller(
    state: &OperatorState,
    incoming: &Incoming,
) -> Result<OperatorToken, ApiError> {
    let store = &state.app.store;
    match credential(incoming)? {
        Credential::Secret(secret) => store
            .operator_token_by_hash(&secret.hash())
            .await?
            .ok_or_else(invalid_token),
        Credential::Session(session) => store
            .operator_session_token(&session.hash(), state.app.clock.now())
            .await?
            .ok_or_else(|| ApiError::Unauthorized {
                code: ErrorCode::InvalidOperatorToken,
                message: "the console session is unknown, ended or expired, or its operator \
                          token was revoked"
                    .to_owned(),
            }),
    }
}

/// 401 `invalid_operator_token` for a token.
pub(super) fn invalid_token() -> ApiError {
    ApiError::Unauthorized {
        code: ErrorCode::InvalidOperatorToken,
        message: "the operator token is malformed, unknown or revoked".to_owned(),
    }
}
