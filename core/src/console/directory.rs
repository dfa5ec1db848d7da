//! `GET /operator/console/players/list?list=&search=&after=`: players found by the start of a
//! friend code or a name, or listed (the newest, by last sign-in, the banned), a page at a
//! time (the API's players list).

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, response};
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::directory::{PlayerRow, Players};

/// One page of players.
#[derive(Template)]
#[template(path = "console/players_list.html")]
struct PlayersPage {
    frame: Frame,
    title: String,
    players: Vec<PlayerRow>,
    /// The console's address of the next page.
    next: Option<String>,
    error: Option<String>,
}

/// The page the query names.
pub(super) async fn players(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let text = |name: &str| {
        incoming
            .query
            .optional(name)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let (list, search) = (text("list"), text("search"));
    let title = match (list.as_str(), search.as_str()) {
        ("name", search) if !search.is_empty() => format!("Names starting with “{search}”"),
        (_, search) if !search.is_empty() => format!("Friend codes starting with “{search}”"),
        ("banned", _) => "Banned players".to_owned(),
        ("last_sign_in", _) => "Players by last sign-in".to_owned(),
        _ => "Newest players".to_owned(),
    };
    let answer = state
        .api
        .read_request::<Players>(session.secret(), &incoming)
        .await;
    let (status, players, next, error) = match answer {
        Ok(page) => {
            let next = page.next.map(|after| {
                let query = form_urlencoded::Serializer::new(String::new())
                    .append_pair("list", &list)
                    .append_pair("search", &search)
                    .append_pair("after", &after)
                    .finish();
                format!("{PREFIX}/players/list?{query}")
            });
            (StatusCode::OK, page.players, next, None)
        }
        Err(failure) => (failure.status, Vec::new(), None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &PlayersPage {
            frame: Frame::of(&session, &incoming),
            title,
            players,
            next,
            error,
        },
    ))
}
