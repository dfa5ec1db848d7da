//! `GET /operator/console/status`: this node as the API reports it: version, content version,
//! leaderboards, database and its pools.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call;
use super::frame::Frame;
use super::session::Session;
use super::shown::Shown;
use super::{ConsoleState, response};
use crate::http::{ApiError, Incoming, Reply};

/// The API's answer.
#[derive(Deserialize)]
struct StatusAnswer {
    version: Shown,
    content_version: Shown,
    leaderboards: Leaderboards,
    database: Database,
}

/// The node's leaderboards.
#[derive(Deserialize)]
struct Leaderboards {
    ready: bool,
    loaded_results: Shown,
    players: Shown,
}

/// The node's database.
#[derive(Deserialize)]
struct Database {
    reachable: bool,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    pools: Vec<Pool>,
}

/// One connection pool.
#[derive(Deserialize)]
struct Pool {
    name: Shown,
    open: Shown,
    idle: Shown,
    max: Shown,
}

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
    let answer = api_call::get(&state.api, session.secret(), "/status")
        .await
        .and_then(api_call::read::<StatusAnswer>);
    Ok(match answer {
        Ok(status) => response::page(
            StatusCode::OK,
            &StatusPage {
                frame: Frame::of(&session, &incoming),
                status,
            },
        ),
        Err(failure) => response::failure_page(&failure),
    })
}
