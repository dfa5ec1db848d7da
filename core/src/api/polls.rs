//! `GET /api/poll/available` and `POST /api/poll/vote/{pollId}`: the operator's polls.
//!
//! The list holds the polls open now in which the caller may still vote: a poll the caller
//! voted in is left out (a banned account, which may not vote, gets an empty list).

use serde::Serialize;

use super::community::{banned, not_open_message, path_id};
use super::session;
use crate::App;
use crate::domain::ApiDate;
use crate::http::{ApiError, Incoming, Reply};
use crate::store::{NotOpen, Poll, PollId, PollOptionId, Vote, VoteRefusal};

/// `{status, poll: [...]}`: the key is the singular `poll`, holding an array.
#[derive(Serialize)]
struct PollsAnswer<'a> {
    poll: Vec<PollView<'a>>,
}

/// A poll: `{id, question, options: [{id, name, color_code}], ends}`.
#[derive(Serialize)]
struct PollView<'a> {
    id: i64,
    question: &'a str,
    options: Vec<OptionView<'a>>,
    ends: ApiDate,
}

#[derive(Serialize)]
struct OptionView<'a> {
    id: i64,
    name: &'a str,
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

/// `POST /api/poll/vote/{pollId}?optionId=` (key required): records the caller's one vote in
/// the poll; `{status}`.
pub(super) async fn vote(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let poll = PollId(path_id(&incoming, "pollId")?);
    let option = PollOptionId(incoming.query.required_number("optionId", 1..=i64::MAX)?);
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
            code: "unknown_poll",
            message: format!("there is no {what}"),
        },
        VoteRefusal::UnknownOption => ApiError::NotFound {
            code: "unknown_option",
            message: format!("{what} has no option {}", option.0),
        },
        VoteRefusal::NotOpen(not_open @ NotOpen::Upcoming { .. }) => ApiError::Conflict {
            code: "poll_not_open",
            message: not_open_message(&what, not_open),
        },
        VoteRefusal::NotOpen(not_open) => ApiError::Conflict {
            code: "poll_closed",
            message: not_open_message(&what, not_open),
        },
        VoteRefusal::AlreadyVoted => ApiError::Conflict {
            code: "already_voted",
            message: format!("this account has already voted in {what}"),
        },
    }
}
