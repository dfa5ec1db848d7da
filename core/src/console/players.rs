//! `GET /operator/console/players?...`: one player as the API shows it (account, holdings,
//! the ledger with running balances, key generation, recent matches, reward-track progress), with
//! the forms that change it for a full token.

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::home::HomePage;
use super::session::Session;
use super::{ConsoleState, PREFIX, response};
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::Failure;
use crate::operator_api::players::{Player, PlayerAnswer, PlayerQuery};

/// The player page.
#[derive(Template)]
#[template(path = "console/player.html")]
struct PlayerPage {
    frame: Frame,
    player: PlayerAnswer,
}

/// The console's address of the player page of account `id`.
pub(super) fn location(id: &str) -> String {
    format!(
        "{PREFIX}/players?{}",
        form_urlencoded::Serializer::new(String::new())
            .append_pair("accountId", id)
            .finish()
    )
}

/// The player `query` names, as the API shows it.
pub(super) async fn lookup(
    state: &ConsoleState,
    session: &Session,
    query: &PlayerQuery,
) -> Result<PlayerAnswer, Failure> {
    state.api.read::<Player>(session.secret(), query).await
}

/// The player the query names (as `GET /operator/api/players` takes it); when the API finds
/// no one, the search page again with its answer.
pub(super) async fn player(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = state
        .api
        .read_request::<Player>(session.secret(), &incoming)
        .await;
    let frame = Frame::of(&session, &incoming);
    match answer {
        Ok(mut player) => {
            player.ledger.reverse();
            Ok(response::page(
                StatusCode::OK,
                &PlayerPage { frame, player },
            ))
        }
        Err(failure) => Ok(response::page(
            failure.status,
            &HomePage {
                frame,
                error: Some(failure.to_string()),
            },
        )),
    }
}
