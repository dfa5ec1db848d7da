//! Who is calling the operator API: the operator token its bearer secret names.

use super::OperatorState;
use crate::domain::OperatorSecret;
use crate::http::{ApiError, ErrorCode, Incoming};
use crate::store::OperatorToken;

/// The unrevoked token of the request's `Authorization: Bearer <secret>`: 401
/// `operator_token_required` without one, `invalid_operator_token` for a malformed, unknown or
/// revoked one.
pub(super) async fn caller(
    state: &OperatorState,
    incoming: &Incoming,
) -> Result<OperatorToken, ApiError> {
    let Some(presented) = incoming.bearer() else {
        return Err(ApiError::Unauthorized {
            code: ErrorCode::OperatorTokenRequired,
            message: "an operator token is required: `Authorization: Bearer <secret>`".to_owned(),
        });
    };
    let invalid = || ApiError::Unauthorized {
        code: ErrorCode::InvalidOperatorToken,
        message: "the operator token is malformed, unknown or revoked".to_owned(),
    };
    let secret = OperatorSecret::parse(presented).ok_or_else(invalid)?;
    state
        .app
        .store
        .operator_token_by_hash(&secret.hash())
        .await?
        .ok_or_else(invalid)
}
