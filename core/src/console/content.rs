//! The content file (the API's `/operator/api/content` endpoints): the running version, the
//! newest published and the published ones, a new file pasted in, its difference from the running
//! version, publishing it, and rolling back. A file the API refuses comes back with the API's
//! errors (with their line numbers) and the text as it was typed, to be fixed.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, Failure};
use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::{ApiError, Incoming, Reply, Routes};

/// `GET /content`.
#[derive(Deserialize)]
struct ContentAnswer {
    /// The version this node serves (0: the file it started with).
    running: i64,
    /// The newest published version (0: none yet).
    newest: i64,
    /// The newest published versions, newest first.
    versions: Vec<Version>,
}

/// One published version.
#[derive(Deserialize)]
struct Version {
    version: i64,
    published: String,
}

/// `POST /content/diff`.
#[derive(Deserialize)]
struct DiffAnswer {
    /// The unified diff from the running content; `None` when the same.
    diff: Option<String>,
    valid: bool,
    errors: Vec<Problem>,
}

/// One error of the content check.
#[derive(Deserialize)]
struct Problem {
    /// The file's line at fault (from 1), when it has one.
    line: Option<u64>,
    message: String,
}

/// The content page.
#[derive(Template)]
#[template(path = "console/content.html")]
struct ContentPage {
    frame: Frame,
    listing: Option<ContentAnswer>,
    error: Option<String>,
    text: String,
    diff: Option<DiffAnswer>,
}

/// The content's routes.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, "/content", signed_in(page));
    let routes = post(routes, "/content/diff", checked(diff));
    let routes = post(routes, "/content/publish", checked(publish));
    post(routes, "/content/rollback", checked(rollback))
}

/// The page: the versions (or why not), with `text` in the form, and `diff` or `error` when
/// the last action gave them.
async fn render(
    state: &ConsoleState,
    session: &Session,
    incoming: &Incoming,
    (text, diff, error): (String, Option<DiffAnswer>, Option<Failure>),
) -> Reply {
    let listing = api_call::get(&state.api, session.secret(), "/content")
        .await
        .and_then(api_call::read::<ContentAnswer>);
    let (status, listing, error) = match (listing, error) {
        (_, Some(failure)) => (failure.status, None, Some(failure.to_string())),
        (Ok(listing), None) => (StatusCode::OK, Some(listing), None),
        (Err(failure), None) => (failure.status, None, Some(failure.to_string())),
    };
    response::page(
        status,
        &ContentPage {
            frame: Frame::of(session, incoming),
            listing,
            error,
            text,
            diff,
        },
    )
}

/// `GET /content`.
async fn page(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    Ok(render(&state, &session, &incoming, (String::new(), None, None)).await)
}

/// The file of the form.
fn text_of(incoming: &Incoming) -> String {
    incoming
        .query
        .optional("text")
        .unwrap_or_default()
        .to_owned()
}

/// `POST /content/diff` `{text}`: the page with the difference (a read: no redirect).
async fn diff(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let text = text_of(&incoming);
    let body = serde_json::json!({ "text": text });
    let answer = api_call::post(&state.api, session.secret(), "/content/diff", &body)
        .await
        .and_then(api_call::read::<DiffAnswer>);
    let shown = match answer {
        Ok(diff) => (text, Some(diff), None),
        Err(failure) => (text, None, Some(failure)),
    };
    Ok(render(&state, &session, &incoming, shown).await)
}

/// `POST /content/publish` `{text, reason}`: published, back to the page with the new version;
/// refused, the page with the API's errors and the text kept.
async fn publish(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let text = text_of(&incoming);
    let change = Change {
        path: "/content/publish".to_owned(),
        body: Body::new(&incoming.query)
            .set("text", text.as_str())
            .reason()
            .build(),
        label: "Publication",
        next: format!("{PREFIX}/content"),
    };
    match change.ask(&state, &session).await {
        Err(failure) if !failure.status.is_server_error() => {
            Ok(render(&state, &session, &incoming, (text, None, Some(failure))).await)
        }
        outcome => Ok(change.answer(&outcome, &change.next, &state, &incoming)),
    }
}

/// `POST /content/rollback` `{reason}`.
async fn rollback(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let change = Change {
        path: "/content/rollback".to_owned(),
        body: Body::new(&incoming.query).reason().build(),
        label: "Rollback",
        next: format!("{PREFIX}/content"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
