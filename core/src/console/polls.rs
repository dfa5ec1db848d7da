//! Polls (the API's `/operator/api/polls` endpoints): the list with a form to create one, and
//! one poll with its results and the forms to edit and close it. Times are typed in
//! `datetime-local` inputs, in UTC, and sent as RFC 3339.

use askama::Template;
use http::StatusCode;
use serde_json::{Value, json};

use super::change::Change;
use super::form::{Body, local_input};
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::endpoint::Endpoint;
use crate::operator_api::fields::ListQuery;
use crate::operator_api::polls::{
    ClosePoll, CreatePoll, EditPoll, PollPath, PollView, Polls, ShowPoll,
};

/// How many option rows the creation form has.
const OPTION_ROWS: usize = 6;

/// The list of polls and the creation form.
#[derive(Template)]
#[template(path = "console/polls.html")]
struct PollsPage {
    frame: Frame,
    polls: Vec<PollView>,
    error: Option<String>,
    option_rows: Vec<usize>,
}

/// One poll.
#[derive(Template)]
#[template(path = "console/poll.html")]
struct PollPage {
    frame: Frame,
    id: String,
    poll: Option<PollView>,
    error: Option<String>,
}

impl PollPage {
    /// The poll's closing time as a `datetime-local` value.
    fn closes_input(&self, poll: &PollView) -> String {
        local_input(poll.closes.exact())
    }
}

/// The polls' routes, at the API's paths.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, Polls::PATH, signed_in(list));
    let routes = post(routes, CreatePoll::PATH, checked(create));
    let routes = get(routes, ShowPoll::PATH, signed_in(one));
    let routes = post(routes, EditPoll::PATH, checked(edit));
    post(routes, ClosePoll::PATH, checked(close))
}

/// `GET /polls`: every poll, and the form to create one.
async fn list(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let answer = state
        .api
        .read::<Polls>(session.secret(), &ListQuery::newest())
        .await;
    let (status, polls, error) = match answer {
        Ok(answer) => (StatusCode::OK, answer.polls, None),
        Err(failure) => (failure.status, Vec::new(), Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &PollsPage {
            frame: Frame::of(&session, &incoming),
            polls,
            error,
            option_rows: (1..=OPTION_ROWS).collect(),
        },
    ))
}

/// `GET /polls/{pollId}`: the poll with its results.
async fn one(state: ConsoleState, session: Session, incoming: Incoming) -> Result<Reply, ApiError> {
    let id = incoming.path("pollId")?.to_owned();
    let answer = state
        .api
        .read_request::<ShowPoll>(session.secret(), &incoming)
        .await;
    let (status, poll, error) = match answer {
        Ok(answer) => (StatusCode::OK, Some(answer.poll), None),
        Err(failure) => (failure.status, None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &PollPage {
            frame: Frame::of(&session, &incoming),
            id,
            poll,
            error,
        },
    ))
}

/// `POST /polls`: `{question, options: [{name, colour}], opens?, closes, reason}`, the
/// options from the form's rows that have a name.
async fn create(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let form = &incoming.query;
    let options: Vec<Value> = (1..=OPTION_ROWS)
        .filter_map(|row| {
            let name = form.optional(&format!("option_name_{row}"))?.trim();
            let colour = form
                .optional(&format!("option_colour_{row}"))
                .unwrap_or_default()
                .trim();
            (!name.is_empty()).then(|| json!({ "name": name, "colour": colour }))
        })
        .collect();
    let body = Body::new(form)
        .text("question")
        .set("options", options)
        .time("opens")
        .time("closes")
        .reason()
        .build();
    let change = Change::<CreatePoll> {
        params: crate::http::params::NoParams,
        body,
        label: "Poll creation",
        next: format!("{PREFIX}/polls"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /polls/{pollId}`: `{question?, closes?, reason}`.
async fn edit(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let params = PollPath::from_request(&incoming)?;
    let id = params.id.0;
    let body = Body::new(&incoming.query)
        .text("question")
        .time("closes")
        .reason()
        .build();
    let change = Change::<EditPoll> {
        params,
        body,
        label: "Poll change",
        next: format!("{PREFIX}/polls/{id}"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}

/// `POST /polls/{pollId}/close`: `{reason}`.
async fn close(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let params = PollPath::from_request(&incoming)?;
    let id = params.id.0;
    let body = Body::new(&incoming.query).reason().build();
    let change = Change::<ClosePoll> {
        params,
        body,
        label: "Poll closing",
        next: format!("{PREFIX}/polls/{id}"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
