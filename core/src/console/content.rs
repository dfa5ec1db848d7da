//! The content file (the API's `/operator/api/content` endpoints): the running version, the
//! newest published and the published ones (who published each, when and why), one version
//! with its text, a new file (the editor starts from the running text), its difference from the
//! running version, publishing it, and rolling back (to a version, or back one step). A file the
//! API refuses comes back with the API's errors (with their line numbers) and the text as it
//! was typed, to be fixed.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, Failure, segment};
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
}

/// `GET /content/versions`.
#[derive(Deserialize)]
struct VersionsAnswer {
    /// The newest published versions, newest first.
    versions: Vec<Version>,
}

/// One published version (`GET /content/versions/{version}` adds its text).
#[derive(Deserialize)]
struct Version {
    version: i64,
    published: String,
    /// The operator token that published it; `None`: the command line.
    by: Option<String>,
    reason: Option<String>,
    /// For a rollback, the version whose content it restores.
    restores: Option<i64>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    running: bool,
}

/// `GET /content/running`.
#[derive(Deserialize)]
struct RunningAnswer {
    text: String,
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
    versions: Vec<Version>,
    error: Option<String>,
    text: String,
    diff: Option<DiffAnswer>,
}

/// One version's page.
#[derive(Template)]
#[template(path = "console/content_version.html")]
struct VersionPage {
    frame: Frame,
    /// The version as the path names it.
    id: String,
    version: Option<Version>,
    error: Option<String>,
}

/// The content's routes.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, "/content", signed_in(page));
    let routes = get(routes, "/content/versions/{version}", signed_in(version));
    let routes = post(routes, "/content/diff", checked(diff));
    let routes = post(routes, "/content/publish", checked(publish));
    post(routes, "/content/rollback", checked(rollback))
}

/// The page: the versions (or why not), with `text` in the form (the running text when
/// empty), and `diff` or `error` when the last action gave them.
async fn render(
    state: &ConsoleState,
    session: &Session,
    incoming: &Incoming,
    (text, diff, error): (String, Option<DiffAnswer>, Option<Failure>),
) -> Reply {
    let secret = session.secret();
    let listing = api_call::get(&state.api, secret, "/content")
        .await
        .and_then(api_call::read::<ContentAnswer>);
    let versions = api_call::get(&state.api, secret, "/content/versions")
        .await
        .and_then(api_call::read::<VersionsAnswer>);
    let text = if text.is_empty() {
        api_call::get(&state.api, secret, "/content/running")
            .await
            .and_then(api_call::read::<RunningAnswer>)
            .map(|running| running.text)
            .unwrap_or_default()
    } else {
        text
    };
    let (status, listing, versions, error) = match (listing, versions, error) {
        (_, _, Some(failure)) => (failure.status, None, Vec::new(), Some(failure.to_string())),
        (Ok(listing), Ok(versions), None) => {
            (StatusCode::OK, Some(listing), versions.versions, None)
        }
        (Err(failure), _, None) | (_, Err(failure), None) => {
            (failure.status, None, Vec::new(), Some(failure.to_string()))
        }
    };
    response::page(
        status,
        &ContentPage {
            frame: Frame::of(session, incoming),
            listing,
            versions,
            error,
            text,
            diff,
        },
    )
}

/// `GET /content/versions/{version}`: who published it, when, why, and its text.
async fn version(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let id = incoming.path("version")?.to_owned();
    let path = format!("/content/versions/{}", segment(&id));
    let answer = api_call::get(&state.api, session.secret(), &path)
        .await
        .and_then(api_call::read::<Version>);
    let (status, version, error) = match answer {
        Ok(version) => (StatusCode::OK, Some(version), None),
        Err(failure) => (failure.status, None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &VersionPage {
            frame: Frame::of(&session, &incoming),
            id,
            version,
            error,
        },
    ))
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

/// `POST /content/rollback` `{to?, reason}`.
async fn rollback(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let change = Change {
        path: "/content/rollback".to_owned(),
        body: Body::new(&incoming.query).number("to").reason().build(),
        label: "Rollback",
        next: format!("{PREFIX}/content"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
