//! `GET /operator/console/leaderboards?mode=&window=&category=&friendCode=`: any live board,
//! and a player's place with the rows around it (the API's leaderboard read).

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, response};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::Failure;
use crate::operator_api::leaderboards::{BoardAnswer, BoardChoices, BoardQuery, Leaderboard};

/// The board page: the choices as given, and the board or why not.
#[derive(Template)]
#[template(path = "console/leaderboards.html")]
struct BoardsPage {
    frame: Frame,
    modes: Vec<String>,
    windows: Vec<String>,
    categories: Vec<String>,
    mode: String,
    window: String,
    category: String,
    friend_code: String,
    board: Option<BoardAnswer>,
    error: Option<String>,
}

/// The board the query names (the first one, the content's first mode for all time by wins,
/// when it names none).
pub(super) async fn leaderboards(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let query = if incoming.query.optional("mode").is_some() {
        BoardQuery::from_request(&incoming)
    } else {
        Ok(BoardQuery::first())
    };
    let (query, answer) = match query {
        Ok(query) => {
            let answer = state
                .api
                .read::<Leaderboard>(session.secret(), &query)
                .await;
            (Some(query), answer)
        }
        Err(error) => (None, Err(Failure::from(error))),
    };
    let choices = BoardChoices::of(query.as_ref(), answer.as_ref().ok());
    let (status, board, error) = match answer {
        Ok(board) => (StatusCode::OK, Some(board), None),
        Err(failure) => (failure.status, None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &BoardsPage {
            frame: Frame::of(&session, &incoming),
            modes: choices.modes,
            windows: choices.windows,
            categories: choices.categories,
            mode: choices.mode,
            window: choices.window,
            category: choices.category,
            friend_code: incoming
                .query
                .optional("friendCode")
                .unwrap_or_default()
                .trim()
                .to_owned(),
            board,
            error,
        },
    ))
}
