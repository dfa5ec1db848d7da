//! The polls under `/operator/api/polls`: the newest with their votes, one with its votes,
//! and, audited, creating, editing (question and closing time, before it ends) and closing.

use serde::Deserialize;
use serde_json::{Value, json};

use super::audited::{self, Audit, Reasoned, Write};
use super::fields::{ListQuery, invalid, optional_time, time};
use super::{OperatorState, auth, views};
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{
    Closing, NewPoll, NewPollOption, NotOpen, PollEdit, PollEditRefusal, PollId, PollResults,
};

parameters! {
    /// The poll of the path.
    struct PollPath {
        /// The poll's id
        id: PositiveId = Path "pollId",
    }
}

/// A poll as operators see it: its window, its state now, and the votes of each option.
fn view(results: &PollResults, now: time::OffsetDateTime) -> Value {
    let poll = &results.poll;
    let state = match poll.window.check(now) {
        Ok(()) => "open",
        Err(NotOpen::Upcoming { .. }) => "upcoming",
        Err(NotOpen::Ended { .. }) => "ended",
        Err(NotOpen::Closed { .. }) => "closed",
    };
    let options: Vec<Value> = poll
        .options
        .iter()
        .zip(&results.votes)
        .map(|(option, votes)| {
            json!({
                "id": option.id.0,
                "name": option.name,
                "colour": option.color_code,
                "votes": votes,
            })
        })
        .collect();
    json!({
        "id": poll.id.0,
        "question": poll.question,
        "opens": views::rfc3339(poll.window.opens),
        "closes": views::rfc3339(poll.window.closes),
        "closed": poll.window.closed_at.map(views::rfc3339),
        "state": state,
        "options": options,
        "votes": results.votes.iter().sum::<i64>(),
    })
}

/// 404 `unknown_poll`.
fn unknown(poll: PollId) -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownPoll,
        message: format!("there is no poll {}", poll.0),
    }
}

/// The poll with its votes, as operators see it; 404 `unknown_poll`.
async fn results(state: &OperatorState, poll: PollId) -> Result<Value, ApiError> {
    let results = state
        .app
        .store
        .poll_results(poll)
        .await?
        .ok_or_else(|| unknown(poll))?;
    Ok(view(&results, state.app.clock.now()))
}

/// The answer of a change of `poll`: the poll as stored after it.
async fn answer(state: OperatorState, poll: PollId) -> Result<Value, ApiError> {
    Ok(json!({ "poll": results(&state, poll).await? }))
}

/// `GET /polls?limit=`: the newest polls (100 unless `limit`), newest first, with their votes.
pub(super) async fn list(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = ListQuery::read(&incoming)?;
    let now = state.app.clock.now();
    let polls: Vec<Value> = state
        .app
        .store
        .polls(query.most())
        .await?
        .iter()
        .map(|results| view(results, now))
        .collect();
    Ok(Reply::success(&json!({ "polls": polls })))
}

/// `GET /polls/{pollId}`: the poll with its votes per option.
pub(super) async fn show(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let poll = PollId(PollPath::read(&incoming)?.id.0);
    Ok(Reply::success(
        &json!({ "poll": results(&state, poll).await? }),
    ))
}

/// An option of `create`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionBody {
    name: String,
    /// `#rrggbb`.
    colour: String,
}

/// The body of `create`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    question: String,
    options: Vec<OptionBody>,
    /// RFC 3339; now when left out.
    opens: Option<String>,
    /// RFC 3339.
    closes: String,
    reason: String,
}

impl Reasoned for CreateBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /polls` `{question, options: [{name, colour}], opens?, closes, reason}`: creates the
/// poll; audited `poll-create` on `poll:ID`.
pub(super) async fn create(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let audit = |_: &Value| Audit {
        action: "poll-create",
        target: "poll".to_owned(),
    };
    audited::audited(
        state,
        incoming,
        audit,
        Ok(()),
        |state, write: Write<(), CreateBody>| async move {
            let now = state.app.clock.now();
            let audit = write.audit();
            let body = &write.body;
            let poll = NewPoll {
                question: body.question.clone(),
                options: body
                    .options
                    .iter()
                    .map(|option| NewPollOption {
                        name: option.name.clone(),
                        color_code: option.colour.to_ascii_lowercase(),
                    })
                    .collect(),
                opens: optional_time("opens", body.opens.as_deref())?.unwrap_or(now),
                closes: time("closes", &body.closes)?,
                now,
            };
            poll.check_fields()
                .map_err(|(field, problem)| invalid(field, format!("is refused: {problem}")))?;
            let created = state.app.store.create_poll(poll, audit).await?;
            Ok(created.id)
        },
        answer,
    )
    .await
}

/// The body of `edit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditBody {
    question: Option<String>,
    /// RFC 3339.
    closes: Option<String>,
    reason: String,
}

impl Reasoned for EditBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// The poll of the path, and its audit on `poll:ID` as `action`.
fn poll_call(incoming: &Incoming, action: &'static str) -> (Result<PollId, ApiError>, Audit) {
    let target = format!("poll:{}", incoming.path("pollId").unwrap_or_default());
    let poll = PollPath::read(incoming).map(|path| PollId(path.id.0));
    (poll, Audit { action, target })
}

/// `POST /polls/{pollId}` `{question?, closes?, reason}`: a new question or closing time,
/// before the poll ends (409 `poll_closed` after); audited `poll-edit`.
pub(super) async fn edit(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let (poll, audit) = poll_call(&incoming, "poll-edit");
    audited::audited(
        state,
        incoming,
        |_| audit,
        poll,
        |state, write: Write<PollId, EditBody>| async move {
            let edit = PollEdit {
                poll: write.path,
                question: write.body.question.clone(),
                closes: optional_time("closes", write.body.closes.as_deref())?,
                now: state.app.clock.now(),
            };
            edit.check().map_err(|problem| ApiError::InvalidBody {
                reason: problem.to_string(),
            })?;
            if let Err(refusal) = state.app.store.edit_poll(edit, write.audit()).await? {
                return Err(match refusal {
                    PollEditRefusal::Unknown => unknown(write.path),
                    PollEditRefusal::Over(_) => over(write.path),
                    PollEditRefusal::ClosesTooEarly { earliest } => invalid(
                        "closes",
                        format!("must be after {}", views::rfc3339(earliest)),
                    ),
                });
            }
            Ok(write.path)
        },
        answer,
    )
    .await
}

/// 409 `poll_closed`.
fn over(poll: PollId) -> ApiError {
    ApiError::Conflict {
        code: ErrorCode::PollClosed,
        message: format!(
            "poll {} has ended or was closed: it no longer changes",
            poll.0
        ),
    }
}

/// The body of `close`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CloseBody {
    reason: String,
}

impl Reasoned for CloseBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /polls/{pollId}/close` `{reason}`: the poll takes no more votes; answers it with
/// `closedNow` (false when it was closed already); audited `poll-close`.
pub(super) async fn close(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let (poll, audit) = poll_call(&incoming, "poll-close");
    audited::audited(
        state,
        incoming,
        |_| audit,
        poll,
        |state, write: Write<PollId, CloseBody>| async move {
            let now = state.app.clock.now();
            let store = state.app.store.as_ref();
            let closed_now = match store.close_poll(write.path, now, write.audit()).await? {
                Closing::Closed => true,
                Closing::AlreadyClosed => false,
                Closing::Unknown => return Err(unknown(write.path)),
            };
            Ok((write.path, closed_now))
        },
        |state, (poll, closed_now)| async move {
            let poll = results(&state, poll).await?;
            Ok(json!({ "poll": poll, "closedNow": closed_now }))
        },
    )
    .await
}
