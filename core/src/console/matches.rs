//! The recorded matches (the API's `/operator/api/matches` endpoints): the newest reported
//! first, a page at a time, and one match with every player's result, each with a form to
//! remove that one result (a full token's).

use askama::Template;
use http::StatusCode;

use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::endpoint::Endpoint;
use crate::operator_api::matches::{
    MatchPlayerPath, MatchResultsAnswer, MatchRow, Matches, RemoveResult, ShowMatch,
};

/// One page of matches.
#[derive(Template)]
#[template(path = "console/matches.html")]
struct MatchesPage {
    frame: Frame,
    matches: Vec<MatchRow>,
    /// The console's address of the next page.
    next: Option<String>,
    error: Option<String>,
}

/// One match with its results.
#[derive(Template)]
#[template(path = "console/match.html")]
struct MatchPage {
    frame: Frame,
    id: String,
    found: Option<MatchResultsAnswer>,
    error: Option<String>,
}

/// The matches' routes, at the API's paths.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, Matches::PATH, signed_in(list));
    let routes = get(routes, ShowMatch::PATH, signed_in(one));
    post(routes, RemoveResult::PATH, checked(remove_result))
}

/// `GET /matches?after=&limit=`: a page of matches, newest reported first.
async fn list(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = state
        .api
        .read_request::<Matches>(session.secret(), &incoming)
        .await;
    let limit = incoming.query.optional("limit").unwrap_or_default().trim();
    let (status, matches, next, error) = match answer {
        Ok(page) => {
            let next = page.next.map(|after| {
                let mut query = form_urlencoded::Serializer::new(String::new());
                query.append_pair("after", &after);
                if !limit.is_empty() {
                    query.append_pair("limit", limit);
                }
                format!("{PREFIX}/matches?{}", query.finish())
            });
            (StatusCode::OK, page.matches, next, None)
        }
        Err(failure) => (failure.status, Vec::new(), None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &MatchesPage {
            frame: Frame::of(&session, &incoming),
            matches,
            next,
            error,
        },
    ))
}

/// `GET /matches/{matchId}`: the match with every player's result.
async fn one(state: ConsoleState, session: Session, incoming: Incoming) -> Result<Reply, ApiError> {
    let id = incoming.path("matchId")?.to_owned();
    let answer = state
        .api
        .read_request::<ShowMatch>(session.secret(), &incoming)
        .await;
    let (status, found, error) = match answer {
        Ok(found) => (StatusCode::OK, Some(found), None),
        Err(failure) => (failure.status, None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &MatchPage {
            frame: Frame::of(&session, &incoming),
            id,
            found,
            error,
        },
    ))
}

/// `POST /matches/{matchId}/players/{accountId}/remove-result`: `{reason}`, then back to the
/// match.
async fn remove_result(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let params = MatchPlayerPath::from_request(&incoming)?;
    // A match id's characters all go in a path as they are.
    let next = format!("{PREFIX}/matches/{}", params.id.as_str());
    let change = Change::<RemoveResult> {
        params,
        body: Body::new(&incoming.query).reason().build(),
        label: "Removal of a result",
        next,
    };
    Ok(change.make(&state, &session, &incoming).await)
}
