//! Deleting an account (personal-data erasure), in two steps: a page that shows whom, where
//! the operator types the account's friend code to confirm, and its action, which makes the
//! API's delete call `{confirm, reason}` (the API checks the confirmation).

use askama::Template;

use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::players;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::Failure;
use crate::operator_api::players::{PlayerAnswer, PlayerQuery};
use crate::operator_api::writes::{AccountPath, Delete};

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
fn location(id: i64) -> String {
    format!("{PREFIX}/players/{id}/delete")
}

/// The confirmation page: whom, and the form.
async fn page(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let player = match AccountPath::from_request(&incoming) {
        Ok(path) => players::lookup(&state, &session, &PlayerQuery::by_id(path.id.0)).await,
        Err(error) => Err(Failure::from(error)),
    };
    Ok(response::page_of(player, |player| DeletePage {
        frame: Frame::of(&session, &incoming),
        player,
    }))
}

/// The deletion: done, to the search page; refused (a confirmation that does not match, a
/// read-only token), back to the confirmation page with the API's answer.
async fn delete(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let path = AccountPath::from_request(&incoming)?;
    let id = path.id.0;
    let change = Change::<Delete> {
        params: path,
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
