//! Deleting an account (personal-data erasure), in two steps: a page that shows whom, where
//! the operator types the account's friend code to confirm, and its action, which makes the
//! API's `POST /operator/api/players/{accountId}/delete {confirm, reason}` call (the API checks
//! the confirmation).

use askama::Template;
use http::StatusCode;

use super::api_call::segment;
use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::players::{self, PlayerAnswer};
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::{ApiError, Incoming, Reply, Routes};

/// The confirmation page.
#[derive(Template)]
#[template(path = "console/delete.html")]
struct DeletePage {
    frame: Frame,
    player: PlayerAnswer,
}

/// `GET` and `POST /players/{accountId}/delete`.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, "/players/{accountId}/delete", signed_in(page));
    post(routes, "/players/{accountId}/delete", checked(delete))
}

/// The console's address of the confirmation page of account `id`.
fn location(id: &str) -> String {
    format!("{PREFIX}/players/{}/delete", segment(id))
}

/// The confirmation page: whom, and the form.
async fn page(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let id = incoming.path("accountId")?;
    match players::lookup(&state, &session, id).await {
        Ok(player) => Ok(response::page(
            StatusCode::OK,
            &DeletePage {
                frame: Frame::of(&session, &incoming),
                player,
            },
        )),
        Err(failure) => Ok(response::failure_page(&failure)),
    }
}

/// The deletion: done, to the search page; refused (a confirmation that does not match, a
/// read-only token), back to the confirmation page with the API's answer.
async fn delete(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let id = incoming.path("accountId")?;
    let change = Change {
        path: format!("/players/{}/delete", segment(id)),
        body: Body::new(&incoming.query).text("confirm").reason().build(),
        label: "Deletion",
        next: format!("{PREFIX}/"),
    };
    let outcome = change.ask(&state, &session).await;
    let next = if outcome.is_ok() {
        change.next.clone()
    } else {
        location(id)
    };
    Ok(change.answer(&outcome, &next, &state, &incoming))
}
