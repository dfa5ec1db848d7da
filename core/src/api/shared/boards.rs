//! What the boards' errors are to a client.

use crate::http::{ApiError, ErrorCode};
use crate::leaderboard::BoardsError;

/// The API's answer when the boards cannot answer.
pub(crate) fn boards_error(error: BoardsError) -> ApiError {
    match error {
        BoardsError::Loading { loaded } => ApiError::Loading {
            code: ErrorCode::LeaderboardsLoading,
            message: format!(
                "this server is still loading its leaderboards ({loaded} results so far); \
                 try again shortly"
            ),
            retry_after_secs: 1,
        },
        BoardsError::Store(error) => error.into(),
    }
}
