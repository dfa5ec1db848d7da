//! The content file (the API's `/operator/api/content` endpoints): the running version, the
//! newest published and the published ones (who published each, when and why), one version
//! with its text, a new file (the editor starts from the running text), its difference from the
//! running version, publishing it, and rolling back (to a version, or back one step). A file the
//! API refuses comes back with the API's errors (with their line numbers) and the text as it
//! was typed, to be fixed.

use askama::Template;
use http::StatusCode;

use super::change::Change;
use super::diff_lines::{DiffLine, diff_lines};
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::{NoParams, RequestParams};
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::Failure;
use crate::operator_api::content::{
    ContentAnswer, ContentStatus, Diff, DiffAnswer, DiffBody, Publish, Rollback,
};
use crate::operator_api::content_versions::{
    Running, Version, VersionAnswer, VersionDiff, VersionDiffAnswer, VersionDiffQuery, VersionPath,
    VersionView, Versions,
};
use crate::operator_api::endpoint::{Endpoint, Json};
use crate::operator_api::fields::ListQuery;

/// The content page.
#[derive(Template)]
#[template(path = "console/content.html")]
struct ContentPage {
    frame: Frame,
    listing: Option<ContentAnswer>,
    versions: Vec<VersionView>,
    error: Option<String>,
    text: String,
    diff: Option<DiffAnswer>,
}

impl ContentPage {
    /// A diff's lines, coloured.
    fn lines(&self, diff: &str) -> Vec<DiffLine> {
        diff_lines(diff)
    }
}

/// One version's page: who published it, when and why, its text, and its difference from
/// another version (the one before it unless the query names one).
#[derive(Template)]
#[template(path = "console/content_version.html")]
struct VersionPage {
    frame: Frame,
    /// The version as the path names it.
    id: String,
    found: Option<VersionAnswer>,
    /// The version compared with, as the form shows it.
    from: String,
    compared: Option<VersionDiffAnswer>,
    error: Option<String>,
}

impl VersionPage {
    /// A diff's lines, coloured.
    fn lines(&self, diff: &str) -> Vec<DiffLine> {
        diff_lines(diff)
    }
}

/// The content's routes.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, ContentStatus::PATH, signed_in(page));
    let routes = get(routes, Version::PATH, signed_in(version));
    let routes = post(routes, Diff::PATH, checked(diff));
    let routes = post(routes, Publish::PATH, checked(publish));
    post(routes, Rollback::PATH, checked(rollback))
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
    let listing = state.api.read::<ContentStatus>(secret, &NoParams).await;
    let versions = state
        .api
        .read::<Versions>(secret, &ListQuery::newest())
        .await;
    let text = if text.is_empty() {
        state
            .api
            .read::<Running>(secret, &NoParams)
            .await
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
    let secret = session.secret();
    let answer = async {
        let path = VersionPath::from_request(&incoming)?;
        let found = state.api.read::<Version>(secret, &path).await?;
        let query = if incoming.query.optional("from").is_some() {
            Some(VersionDiffQuery::from_request(&incoming)?)
        } else {
            let version = found.version.version;
            (version > 1).then(|| VersionDiffQuery::of(version, version - 1))
        };
        let compared = match query {
            Some(query) => Some(state.api.read::<VersionDiff>(secret, &query).await?),
            None => None,
        };
        Ok::<_, Failure>((found, compared))
    };
    let (status, found, compared, error) = match answer.await {
        Ok((found, compared)) => (StatusCode::OK, Some(found), compared, None),
        Err(failure) => (failure.status, None, None, Some(failure.to_string())),
    };
    let from = compared
        .as_ref()
        .map(|compared| compared.from.to_string())
        .unwrap_or_default();
    Ok(response::page(
        status,
        &VersionPage {
            frame: Frame::of(&session, &incoming),
            id,
            found,
            from,
            compared,
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
    let body = Json(DiffBody { text: text.clone() });
    let answer = state
        .api
        .read_with::<Diff>(session.secret(), &NoParams, &body)
        .await;
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
    let change = Change::<Publish> {
        params: NoParams,
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
    let change = Change::<Rollback> {
        params: NoParams,
        body: Body::new(&incoming.query).number("to").reason().build(),
        label: "Rollback",
        next: format!("{PREFIX}/content"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
