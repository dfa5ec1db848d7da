//! `GET /api/poll/available` and `POST /api/poll/vote/{pollId}`: the operator's polls.
//!
//! The list holds the polls open now in which the caller may still vote: a poll the caller
//! voted in is left out (a banned account, which may not vote, gets an empty list).

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::community::{banned, not_open_message};
use super::shared::session;
use crate::App;
use crate::domain::ApiDate;
use crate::http::params::{PositiveId, WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{Done, ErrorBody, KeyMismatch, Success, UserKeyRequired};
use crate::store::{NotOpen, Poll, PollId, PollOptionId, Vote, VoteRefusal};

/// `{status, poll: [...]}`: the key is the singular `poll`, holding an array.
#[derive(Serialize, ToSchema)]
struct PollsAnswer<'a> {
    /// The polls open now in which the caller may still vote, oldest first.
    poll: Vec<PollView<'a>>,
}

/// A poll: `{id, question, options: [{id, name, color_code}], ends}`.
#[derive(Serialize, ToSchema)]
struct PollView<'a> {
    /// The poll's id (`pollId` of the vote).
    #[schema(minimum = 1)]
    id: i64,
    question: &'a str,
    options: Vec<OptionView<'a>>,
    /// When voting closes.
    ends: ApiDate,
}

/// One answer of a poll.
#[derive(Serialize, ToSchema)]
struct OptionView<'a> {
    /// The option's id (`optionId` of the vote).
    #[schema(minimum = 1)]
    id: i64,
    name: &'a str,
    /// The colour clients show it in.
    color_code: &'a str,
}

impl<'a> PollView<'a> {
    fn new(poll: &'a Poll) -> Self {
        Self {
            id: poll.id.0,
            question: &poll.question,
            options: poll
                .options
                .iter()
                .map(|option| OptionView {
                    id: option.id.0,
                    name: &option.name,
                    color_code: &option.color_code,
                })
                .collect(),
            ends: ApiDate(poll.window.closes),
        }
    }
}

/// `GET /api/poll/available` (key required): the polls open now in which the caller has not
/// voted, oldest first.
#[utoipa::path(
    get,
    path = "/api/poll/available",
    tag = "polls",
    description = "The polls open now in which the caller may still vote, oldest first (empty \
        for a banned account).",
    responses(
        (status = 200, description = "The polls", body = Success<PollsAnswer>),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
    )
)]
pub(super) async fn available(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let polls = if session.account.is_banned {
        Vec::new()
    } else {
        app.store
            .polls_to_vote(session.account.id, app.clock.now())
            .await?
    };
    Ok(Reply::success(&PollsAnswer {
        poll: polls.iter().map(PollView::new).collect(),
    }))
}

parameters! {
    /// The parameters of `POST /api/poll/vote/{pollId}`.
    struct VoteParams {
        /// The poll
        poll: PositiveId = Path "pollId",
        /// The option voted for
        option: WholeNumber<1, { i64::MAX }> = Query "optionId",
    }
}

/// `POST /api/poll/vote/{pollId}?optionId=` (key required): records the caller's one vote in
/// the poll; `{status}`.
#[utoipa::path(
    post,
    path = "/api/poll/vote/{pollId}",
    tag = "polls",
    description = "Records the caller's one vote in a poll.",
    params(VoteParams),
    responses(
        (status = 200, description = "The vote was recorded", body = Done),
        (status = 400, description = "A missing or invalid `pollId` or `optionId`", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The account is banned from voting (`account_banned`), or \
            keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such poll (`unknown_poll`) or option \
            (`unknown_option`)", body = ErrorBody),
        (status = 409, description = "The poll is not open yet (`poll_not_open`), has closed \
            (`poll_closed`), or the account already voted (`already_voted`)", body = ErrorBody),
    )
)]
pub(super) async fn vote(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let VoteParams { poll, option } = VoteParams::read(&incoming)?;
    let (poll, option) = (PollId(poll.0), PollOptionId(option.0));
    let vote = Vote {
        account: session.account.id,
        poll,
        option,
        now: app.clock.now(),
    };
    match app.store.vote(vote).await? {
        Ok(()) => Ok(Reply::done()),
        Err(refusal) => Err(refused(refusal, poll, option)),
    }
}

fn refused(refusal: VoteRefusal, poll: PollId, option: PollOptionId) -> ApiError {
    let what = format!("poll {}", poll.0);
    match refusal {
        VoteRefusal::NoAccount => ApiError::InvalidUserKey,
        VoteRefusal::Banned => banned("voting"),
        VoteRefusal::UnknownPoll => ApiError::NotFound {
            code: ErrorCode::UnknownPoll,
            message: format!("there is no {what}"),
        },
        VoteRefusal::UnknownOption => ApiError::NotFound {
            code: ErrorCode::UnknownOption,
            message: format!("{what} has no option {}", option.0),
        },
        VoteRefusal::NotOpen(not_open @ NotOpen::Upcoming { .. }) => ApiError::Conflict {
            code: ErrorCode::PollNotOpen,
            message: not_open_message(&what, not_open),
        },
        VoteRefusal::NotOpen(not_open) => ApiError::Conflict {
            code: ErrorCode::PollClosed,
            message: not_open_message(&what, not_open),
        },
        VoteRefusal::AlreadyVoted => ApiError::Conflict {
            code: ErrorCode::AlreadyVoted,
            message: format!("this account has already voted in {what}"),
        },
    }
}
