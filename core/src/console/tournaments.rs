//! Tournaments and their whitelists (the API's `/operator/api/tournaments` endpoints): the
//! list with a form to create one, and one tournament with its whitelist, its entrants and the
//! forms to edit it, close it and change the whitelist. Times are typed in `datetime-local`
//! inputs, in UTC, and sent as RFC 3339; an edit sends only the fields filled in.

use askama::Template;
use http::StatusCode;

use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::{NoParams, RequestParams};
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::endpoint::Endpoint;
use crate::operator_api::fields::ListQuery;
use crate::operator_api::tournaments::{
    CloseTournament, CreateTournament, EditTournament, EditWhitelist, ShowTournament,
    TournamentAnswer, TournamentCodePath, TournamentView, Tournaments,
};

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

/// The tournaments' routes, at the API's paths.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, Tournaments::PATH, signed_in(list));
    let routes = post(routes, CreateTournament::PATH, checked(create));
    let routes = get(routes, ShowTournament::PATH, signed_in(one));
    let routes = post(routes, EditTournament::PATH, checked(edit));
    let routes = post(routes, CloseTournament::PATH, checked(close));
    post(routes, EditWhitelist::PATH, checked(whitelist))
}

/// The console's page of the tournament of `path`.
fn location(path: &TournamentCodePath) -> String {
    format!("{PREFIX}/tournaments/{}", path.code.as_str())
}

/// `GET /tournaments`.
async fn list(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = state
        .api
        .read::<Tournaments>(session.secret(), &ListQuery::newest())
        .await;
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
    let code = incoming.path("tournamentCode")?.to_owned();
    let answer = state
        .api
        .read_request::<ShowTournament>(session.secret(), &incoming)
        .await;
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
    let change = Change::<CreateTournament> {
        params: NoParams,
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
    let params = TournamentCodePath::from_request(&incoming)?;
    let next = location(&params);
    let body = Body::new(&incoming.query)
        .text("mode")
        .time("opens")
        .time("closes")
        .number("capacity")
        .flag("whitelistOnly")
        .reason()
        .build();
    let change = Change::<EditTournament> {
        params,
        body,
        label: "Tournament change",
        next,
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /tournaments/{code}/close`: `{reason}`.
async fn close(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let params = TournamentCodePath::from_request(&incoming)?;
    let next = location(&params);
    let body = Body::new(&incoming.query).reason().build();
    let change = Change::<CloseTournament> {
        params,
        body,
        label: "Tournament closing",
        next,
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /tournaments/{code}/whitelist`: `{add?: [friendCode], remove?: [friendCode], reason}`.
async fn whitelist(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let params = TournamentCodePath::from_request(&incoming)?;
    let next = location(&params);
    let body = Body::new(&incoming.query)
        .list("add")
        .list("remove")
        .reason()
        .build();
    let change = Change::<EditWhitelist> {
        params,
        body,
        label: "Whitelist change",
        next,
    };
    Ok(change.make(&state, &session, &incoming).await)
}
