//! Tournaments and their whitelists (the API's `/operator/api/tournaments` endpoints): the
//! list with a form to create one, and one tournament with its whitelist, its entrants and the
//! forms to edit it, close it and change the whitelist. Times are typed in `datetime-local`
//! inputs, in UTC, and sent as RFC 3339; an edit sends only the fields filled in.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, segment};
use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::shown::Shown;
use super::when::When;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::{ApiError, Incoming, Reply, Routes};

/// A tournament as the API shows it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TournamentView {
    code: String,
    mode: String,
    opens: When,
    closes: When,
    /// When an operator closed it.
    closed: Option<When>,
    /// `upcoming`, `open`, `ended` or `closed`.
    state: String,
    capacity: Shown,
    entrants: Shown,
    whitelist_only: bool,
}

impl TournamentView {
    /// Whether it still changes (an edit or a closing is worth offering).
    fn changes(&self) -> bool {
        matches!(self.state.as_str(), "upcoming" | "open")
    }
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
    /// Friend codes, in the order added.
    whitelist: Vec<String>,
    /// In the order they joined.
    entrants: Vec<Entrant>,
}

/// An account that joined.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entrant {
    friend_code: String,
    joined: When,
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

/// `POST /tournaments`: `{code, mode, opens?, closes, capacity, whitelistOnly?, reason}`.
async fn create(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let body = Body::new(&incoming.query)
        .text("code")
        .text("mode")
        .time("opens")
        .time("closes")
        .number("capacity")
        .flag("whitelistOnly")
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

/// `POST /tournaments/{code}`: `{mode?, opens?, closes?, capacity?, whitelistOnly?, reason}`,
/// the fields left empty not sent.
async fn edit(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let code = segment(incoming.path("code")?);
    let body = Body::new(&incoming.query)
        .text("mode")
        .time("opens")
        .time("closes")
        .number("capacity")
        .flag("whitelistOnly")
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
