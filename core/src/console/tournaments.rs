//! Tournaments and their whitelists (the API's `/operator/api/tournaments` endpoints, being
//! added): the list with a form to create one, and one tournament with its standing, its
//! whitelist and the forms to edit it, close it and change the whitelist.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, segment};
use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::shown::Shown;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::{ApiError, Incoming, Reply, Routes};

/// A tournament as the API shows it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct TournamentView {
    code: String,
    name: String,
    mode: Shown,
    starts: Shown,
    ends: Shown,
    closed: bool,
    whitelist: Vec<String>,
    players: Shown,
}

/// `GET /tournaments`.
#[derive(Deserialize)]
struct TournamentsAnswer {
    tournaments: Vec<TournamentView>,
}

/// `GET /tournaments/{code}`.
#[derive(Deserialize)]
struct TournamentAnswer {
    tournament: TournamentView,
    #[serde(default)]
    standing: Vec<Shown>,
}

/// The list and the creation form.
#[derive(Template)]
#[template(path = "console/tournaments.html")]
struct TournamentsPage {
    frame: Frame,
    tournaments: Vec<TournamentView>,
    error: Option<String>,
}

/// One tournament.
#[derive(Template)]
#[template(path = "console/tournament.html")]
struct TournamentPage {
    frame: Frame,
    code: String,
    found: Option<TournamentAnswer>,
    error: Option<String>,
}

/// The tournaments' routes.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, "/tournaments", signed_in(list));
    let routes = post(routes, "/tournaments", checked(create));
    let routes = get(routes, "/tournaments/{code}", signed_in(one));
    let routes = post(routes, "/tournaments/{code}", checked(edit));
    let routes = post(routes, "/tournaments/{code}/close", checked(close));
    post(routes, "/tournaments/{code}/whitelist", checked(whitelist))
}

/// `GET /tournaments`.
async fn list(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = api_call::get(&state.api, session.secret(), "/tournaments")
        .await
        .and_then(api_call::read::<TournamentsAnswer>);
    let (status, tournaments, error) = match answer {
        Ok(answer) => (StatusCode::OK, answer.tournaments, None),
        Err(failure) => (failure.status, Vec::new(), Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &TournamentsPage {
            frame: Frame::of(&session, &incoming),
            tournaments,
            error,
        },
    ))
}

/// `GET /tournaments/{code}`.
async fn one(state: ConsoleState, session: Session, incoming: Incoming) -> Result<Reply, ApiError> {
    let code = incoming.path("code")?.to_owned();
    let path = format!("/tournaments/{}", segment(&code));
    let answer = api_call::get(&state.api, session.secret(), &path)
        .await
        .and_then(api_call::read::<TournamentAnswer>);
    let (status, found, error) = match answer {
        Ok(answer) => (StatusCode::OK, Some(answer), None),
        Err(failure) => (failure.status, None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &TournamentPage {
            frame: Frame::of(&session, &incoming),
            code,
            found,
            error,
        },
    ))
}

/// `POST /tournaments`: `{code, name, mode, starts, ends, reason}`.
async fn create(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let body = Body::new(&incoming.query)
        .text("code")
        .text("name")
        .text("mode")
        .text("starts")
        .text("ends")
        .reason()
        .build();
    let change = Change {
        path: "/tournaments".to_owned(),
        body,
        label: "Tournament creation",
        next: format!("{PREFIX}/tournaments"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /tournaments/{code}`: `{name?, starts?, ends?, reason}`.
async fn edit(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let code = segment(incoming.path("code")?);
    let body = Body::new(&incoming.query)
        .text("name")
        .text("starts")
        .text("ends")
        .reason()
        .build();
    let change = Change {
        path: format!("/tournaments/{code}"),
        body,
        label: "Tournament change",
        next: format!("{PREFIX}/tournaments/{code}"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /tournaments/{code}/close`: `{reason}`.
async fn close(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let code = segment(incoming.path("code")?);
    let body = Body::new(&incoming.query).reason().build();
    let change = Change {
        path: format!("/tournaments/{code}/close"),
        body,
        label: "Tournament closing",
        next: format!("{PREFIX}/tournaments/{code}"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /tournaments/{code}/whitelist`: `{add?: [friendCode], remove?: [friendCode], reason}`.
async fn whitelist(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let code = segment(incoming.path("code")?);
    let body = Body::new(&incoming.query)
        .list("add")
        .list("remove")
        .reason()
        .build();
    let change = Change {
        path: format!("/tournaments/{code}/whitelist"),
        body,
        label: "Whitelist change",
        next: format!("{PREFIX}/tournaments/{code}"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
