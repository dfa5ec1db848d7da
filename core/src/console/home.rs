//! The console's first page: finding a player.

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, response};
use crate::http::{ApiError, Incoming, Reply};

/// The player search: by friend code, account id, device id, or provider and subject.
#[derive(Template)]
#[template(path = "console/home.html")]
pub(super) struct HomePage {
    /// The frame.
    pub frame: Frame,
    /// Why the last search found no one.
    pub error: Option<String>,
}

/// `GET /operator/console`: to the first page.
pub(super) async fn to_home(_: ConsoleState, _: Incoming) -> Result<Reply, ApiError> {
    Ok(response::see_other(&format!("{PREFIX}/")))
}

/// `GET /operator/console/`: the player search.
pub(super) async fn home(
    _: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    Ok(response::page(
        StatusCode::OK,
        &HomePage {
            frame: Frame::of(&session, &incoming),
            error: None,
        },
    ))
}
