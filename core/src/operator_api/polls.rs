//! The polls under `/operator/api/polls`: the newest with their votes, one with its votes,
//! and, audited, creating, editing (question and closing time, before it ends) and closing.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::change_call::{ReasonBody, Write, reasoned};
use super::endpoint::{Changes, Endpoint, NoBody, Read, Reads};
use super::fields::{ListQuery, invalid, optional_time, time};
use super::views::When;
use crate::http::params::{NoParams, PositiveId, request_parameters};
use crate::http::{ApiError, ErrorCode};
use crate::store::{
    Closing, NewPoll, NewPollOption, NotOpen, PollEdit, PollEditRefusal, PollId, PollResults,
};

request_parameters! {
    /// The poll of the path.
    pub(crate) struct PollPath {
        /// The poll's id
        id: PositiveId = Path "pollId",
    }
}

/// An option of a poll, with its votes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct PollOptionView {
    /// The option's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its colour, `#rrggbb`.
    pub colour: String,
    /// Its votes.
    pub votes: i64,
}

/// A poll as operators see it: its window, its state now, and the votes of each option.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct PollView {
    /// The poll's id.
    pub id: i64,
    /// Its question.
    pub question: String,
    /// When it opens.
    pub opens: When,
    /// When it closes.
    pub closes: When,
    /// When an operator closed it (`null`: not closed).
    pub closed: Option<When>,
    /// `open`, `upcoming`, `ended` or `closed`.
    pub state: String,
    /// Its options with their votes.
    pub options: Vec<PollOptionView>,
    /// All its votes.
    pub votes: i64,
}

impl PollView {
    /// Whether it still changes (upcoming or open): an edit or a closing is worth offering.
    pub fn changes(&self) -> bool {
        matches!(self.state.as_str(), "upcoming" | "open")
    }

    /// A poll with its votes, as it stands at `now`.
    fn of(results: &PollResults, now: time::OffsetDateTime) -> Self {
        let poll = &results.poll;
        let state = match poll.window.check(now) {
            Ok(()) => "open",
            Err(NotOpen::Upcoming { .. }) => "upcoming",
            Err(NotOpen::Ended { .. }) => "ended",
            Err(NotOpen::Closed { .. }) => "closed",
        };
        Self {
            id: poll.id.0,
            question: poll.question.clone(),
            opens: poll.window.opens.into(),
            closes: poll.window.closes.into(),
            closed: poll.window.closed_at.map(When::from),
            state: state.to_owned(),
            options: poll
                .options
                .iter()
                .zip(&results.votes)
                .map(|(option, votes)| PollOptionView {
                    id: option.id.0,
                    name: option.name.clone(),
                    colour: option.color_code.clone(),
                    votes: *votes,
                })
                .collect(),
            votes: results.votes.iter().sum(),
        }
    }
}

/// 404 `unknown_poll`.
fn unknown(poll: PollId) -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownPoll,
        message: format!("there is no poll {}", poll.0),
    }
}

/// The poll with its votes, as operators see it; 404 `unknown_poll`.
async fn results(state: &OperatorState, poll: PollId) -> Result<PollView, ApiError> {
    let results = state
        .app
        .store
        .poll_results(poll)
        .await?
        .ok_or_else(|| unknown(poll))?;
    Ok(PollView::of(&results, state.app.clock.now()))
}

/// The newest polls.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct PollsAnswer {
    /// Newest first, with their votes.
    pub polls: Vec<PollView>,
}

/// `GET /polls`.
pub(crate) struct Polls;

impl Endpoint for Polls {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/polls";
    const ID: &'static str = "polls";
    const TAG: &'static str = "polls";
    const ABOUT: &'static str =
        "The newest polls (100 unless `limit`), newest first, with their votes.";
    type Params = ListQuery;
    type Answer = PollsAnswer;
}

impl Reads for Polls {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<ListQuery>) -> Result<PollsAnswer, ApiError> {
        let now = state.app.clock.now();
        let polls = state
            .app
            .store
            .polls(call.params.most())
            .await?
            .iter()
            .map(|results| PollView::of(results, now))
            .collect();
        Ok(PollsAnswer { polls })
    }
}

/// One poll.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct PollAnswer {
    /// The poll with its votes.
    pub poll: PollView,
}

/// `GET /polls/{pollId}`.
pub(crate) struct ShowPoll;

impl Endpoint for ShowPoll {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/polls/{pollId}";
    const ID: &'static str = "poll";
    const TAG: &'static str = "polls";
    const ABOUT: &'static str = "The poll with its votes per option; 404 `unknown_poll`.";
    type Params = PollPath;
    type Answer = PollAnswer;
}

impl Reads for ShowPoll {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<PollPath>) -> Result<PollAnswer, ApiError> {
        let poll = results(&state, PollId(call.params.id.0)).await?;
        Ok(PollAnswer { poll })
    }
}

/// An option of `create`'s body.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OptionBody {
    /// The option's name.
    pub name: String,
    /// Its colour, `#rrggbb`.
    pub colour: String,
}

/// The body of `create`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreatePollBody {
    /// The question.
    pub question: String,
    /// The options.
    pub options: Vec<OptionBody>,
    /// When it opens, RFC 3339; now when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens: Option<String>,
    /// When it closes, RFC 3339.
    pub closes: String,
    /// Why, for the audit.
    pub reason: String,
}

/// `POST /polls`.
pub(crate) struct CreatePoll;

impl Endpoint for CreatePoll {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/polls";
    const ID: &'static str = "createPoll";
    const TAG: &'static str = "polls";
    const ABOUT: &'static str = "Creates the poll; audited `poll-create` on `poll:ID`.";
    type Params = NoParams;
    type Answer = PollAnswer;
}

impl Changes for CreatePoll {
    const ACTION: &'static str = "poll-create";
    const TARGET: &'static str = "poll";
    type Body = CreatePollBody;
    type Changed = PollId;

    async fn change(
        state: OperatorState,
        write: Write<NoParams, CreatePollBody>,
    ) -> Result<PollId, ApiError> {
        let now = state.app.clock.now();
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
        let created = state.app.store.create_poll(poll, write.audit()).await?;
        Ok(created.id)
    }

    async fn answer(state: OperatorState, poll: PollId) -> Result<PollAnswer, ApiError> {
        let poll = results(&state, poll).await?;
        Ok(PollAnswer { poll })
    }
}

/// The body of `edit`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditPollBody {
    /// A new question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// A new closing time, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes: Option<String>,
    /// Why, for the audit.
    pub reason: String,
}

/// `POST /polls/{pollId}`.
pub(crate) struct EditPoll;

impl Endpoint for EditPoll {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/polls/{pollId}";
    const ID: &'static str = "editPoll";
    const TAG: &'static str = "polls";
    const ABOUT: &'static str = "A new question or closing time, before the poll ends (409 \
        `poll_closed` after); audited `poll-edit`.";
    type Params = PollPath;
    type Answer = PollAnswer;
}

impl Changes for EditPoll {
    const ACTION: &'static str = "poll-edit";
    const TARGET: &'static str = "poll:{pollId}";
    type Body = EditPollBody;
    type Changed = PollId;

    async fn change(
        state: OperatorState,
        write: Write<PollPath, EditPollBody>,
    ) -> Result<PollId, ApiError> {
        let poll = PollId(write.path.id.0);
        let edit = PollEdit {
            poll,
            question: write.body.question.clone(),
            closes: optional_time("closes", write.body.closes.as_deref())?,
            now: state.app.clock.now(),
        };
        edit.check().map_err(|problem| ApiError::InvalidBody {
            reason: problem.to_string(),
        })?;
        if let Err(refusal) = state.app.store.edit_poll(edit, write.audit()).await? {
            return Err(match refusal {
                PollEditRefusal::Unknown => unknown(poll),
                PollEditRefusal::Over(_) => over(poll),
                PollEditRefusal::ClosesTooEarly { earliest } => invalid(
                    "closes",
                    format!("must be after {}", When::from(earliest).exact()),
                ),
            });
        }
        Ok(poll)
    }

    async fn answer(state: OperatorState, poll: PollId) -> Result<PollAnswer, ApiError> {
        let poll = results(&state, poll).await?;
        Ok(PollAnswer { poll })
    }
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

/// A poll closed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PollClosed {
    /// The poll as it stands.
    pub poll: PollView,
    /// `false` when it was closed already.
    pub closed_now: bool,
}

/// `POST /polls/{pollId}/close`.
pub(crate) struct ClosePoll;

impl Endpoint for ClosePoll {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/polls/{pollId}/close";
    const ID: &'static str = "closePoll";
    const TAG: &'static str = "polls";
    const ABOUT: &'static str = "The poll takes no more votes; answers it with `closedNow` \
        (false when it was closed already); audited `poll-close`.";
    type Params = PollPath;
    type Answer = PollClosed;
}

impl Changes for ClosePoll {
    const ACTION: &'static str = "poll-close";
    const TARGET: &'static str = "poll:{pollId}";
    type Body = ReasonBody;
    type Changed = (PollId, bool);

    async fn change(
        state: OperatorState,
        write: Write<PollPath, ReasonBody>,
    ) -> Result<(PollId, bool), ApiError> {
        let poll = PollId(write.path.id.0);
        let now = state.app.clock.now();
        let store = state.app.store.as_ref();
        let closed_now = match store.close_poll(poll, now, write.audit()).await? {
            Closing::Closed => true,
            Closing::AlreadyClosed => false,
            Closing::Unknown => return Err(unknown(poll)),
        };
        Ok((poll, closed_now))
    }

    async fn answer(
        state: OperatorState,
        (poll, closed_now): (PollId, bool),
    ) -> Result<PollClosed, ApiError> {
        let poll = results(&state, poll).await?;
        Ok(PollClosed { poll, closed_now })
    }
}

reasoned!(CreatePollBody, EditPollBody);
