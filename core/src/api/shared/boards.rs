//! What the boards' errors are to a client, and which boards the content serves.

use crate::content::GameModes;
use crate::domain::GameMode;
use crate::http::{ApiError, ErrorCode};
use crate::leaderboard::{BoardId, BoardsError, Category, TimeWindow};

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

/// The board of `mode` (the content's first mode when `None`), `window` and `category`, when
/// the content has it; otherwise the parameter it lacks, named (`mode`, `time`, `category`),
/// with the names it has.
pub(crate) fn served_board(
    served: &GameModes,
    mode: Option<GameMode>,
    window: TimeWindow,
    category: Category,
) -> Result<BoardId, ApiError> {
    let mode = mode.unwrap_or_else(|| served.first());
    if !served.has(mode) {
        return Err(ApiError::invalid("mode", served.unknown_mode()));
    }
    if !served.windows().contains(&window) {
        return Err(ApiError::invalid("time", served.unknown_window()));
    }
    if !served.categories().contains(&category) {
        return Err(ApiError::invalid("category", served.unknown_category()));
    }
    Ok(BoardId {
        mode,
        window,
        category,
    })
}
