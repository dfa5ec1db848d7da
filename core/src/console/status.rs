//! `GET /operator/console/status`: this node as the API reports it: version, content version,
//! leaderboards, database and its pools.

use askama::Template;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, response};
use crate::http::params::NoParams;
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::status::{Status, StatusAnswer};

/// The status page.
#[derive(Template)]
#[template(path = "console/status.html")]
struct StatusPage {
    frame: Frame,
    status: StatusAnswer,
}

/// The node's status.
pub(super) async fn status(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = state.api.read::<Status>(session.secret(), &NoParams).await;
    Ok(response::page_of(answer, |status| StatusPage {
        frame: Frame::of(&session, &incoming),
        status,
    }))
}
