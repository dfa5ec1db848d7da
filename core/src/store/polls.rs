//! The records of polls: a poll to create and as stored, votes, the operator's edits and the
//! rules they follow (pure; the store applies them in one transaction).

use time::OffsetDateTime;

use super::{AccountId, NotOpen, Window};
use crate::domain::check_shown_text;

/// The database id of a poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PollId(pub i64);

/// The database id of a poll's option (unique across all polls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PollOptionId(pub i64);

/// The longest poll question, in characters.
pub const POLL_QUESTION_MAX_CHARS: usize = 200;
/// The longest option name, in characters.
pub const POLL_OPTION_MAX_CHARS: usize = 64;
/// The fewest options a poll has.
pub const POLL_OPTIONS_MIN: usize = 2;
/// The most options a poll has.
pub const POLL_OPTIONS_MAX: usize = 10;

/// A poll to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPoll {
    /// The question (1 to [`POLL_QUESTION_MAX_CHARS`] characters).
    pub question: String,
    /// The options, in display order ([`POLL_OPTIONS_MIN`] to [`POLL_OPTIONS_MAX`]).
    pub options: Vec<NewPollOption>,
    /// When votes are taken (`opens` before `closes`).
    pub opens: OffsetDateTime,
    /// When voting ends.
    pub closes: OffsetDateTime,
    /// When it is created.
    pub now: OffsetDateTime,
}

/// An option of a poll to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPollOption {
    /// The option's text (1 to [`POLL_OPTION_MAX_CHARS`] characters).
    pub name: String,
    /// Its colour, `#rrggbb`.
    pub color_code: String,
}

impl NewPoll {
    /// Checks the poll's texts, options, colours and window; the error says what is wrong.
    ///
    /// ```
    /// use safezone_core::store::{NewPoll, NewPollOption};
    /// use time::macros::datetime;
    /// let option = |name: &str, color: &str| NewPollOption {
    ///     name: name.to_owned(),
    ///     color_code: color.to_owned(),
    /// };
    /// let mut poll = NewPoll {
    ///     question: "Next map?".to_owned(),
    ///     options: vec![option("Desert", "#e0c080"), option("Jungle", "#20a040")],
    ///     opens: datetime!(2026-11-22 08:00 UTC),
    ///     closes: datetime!(2026-11-29 08:00 UTC),
    ///     now: datetime!(2026-11-20 08:00 UTC),
    /// };
    /// assert_eq!(poll.check(), Ok(()));
    /// poll.options[1].color_code = "green".to_owned();
    /// assert!(poll.check().is_err());
    /// poll.options[1].color_code = "#20a040".to_owned();
    /// poll.question = "Next map?\u{202E}".to_owned();
    /// assert!(poll.check().unwrap_err().contains("U+202E"));
    /// poll.question = "Next map?".to_owned();
    /// poll.options[0].name = "Des\u{200B}ert".to_owned();
    /// assert!(poll.check().unwrap_err().contains("U+200B"));
    /// ```
    pub fn check(&self) -> Result<(), String> {
        self.check_fields().map_err(|(_, problem)| problem)
    }

    /// [`NewPoll::check`] with the field at fault: `question`, `options` or `closes`.
    pub fn check_fields(&self) -> Result<(), (&'static str, String)> {
        let at = |field: &'static str| move |problem: String| (field, problem);
        check_text("the question", &self.question, POLL_QUESTION_MAX_CHARS)
            .map_err(at("question"))?;
        if !(POLL_OPTIONS_MIN..=POLL_OPTIONS_MAX).contains(&self.options.len()) {
            return Err(at("options")(format!(
                "a poll has {POLL_OPTIONS_MIN} to {POLL_OPTIONS_MAX} options, not {}",
                self.options.len()
            )));
        }
        for option in &self.options {
            check_text("an option's name", &option.name, POLL_OPTION_MAX_CHARS)
                .map_err(at("options"))?;
            if !is_color_code(&option.color_code) {
                return Err(at("options")(format!(
                    "option `{}`: `{}` is not a colour: write `#rrggbb` in hex",
                    option.name, option.color_code
                )));
            }
        }
        let mut names: Vec<String> = self
            .options
            .iter()
            .map(|option| option.name.to_lowercase())
            .collect();
        names.sort_unstable();
        if names.windows(2).any(|pair| pair[0] == pair[1]) {
            return Err(at("options")("two options have the same name".to_owned()));
        }
        if self.opens >= self.closes {
            return Err(at("closes")(
                "the poll must open before it closes".to_owned(),
            ));
        }
        Ok(())
    }
}

/// Whether `text` is `#rrggbb` in hex digits.
pub fn is_color_code(text: &str) -> bool {
    text.strip_prefix('#')
        .is_some_and(|hex| hex.len() == 6 && hex.bytes().all(|byte| byte.is_ascii_hexdigit()))
}

/// A stored poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poll {
    /// Its id.
    pub id: PollId,
    /// The question.
    pub question: String,
    /// The options, in display order.
    pub options: Vec<PollOption>,
    /// When votes are taken.
    pub window: Window,
}

/// An option of a stored poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollOption {
    /// Its id.
    pub id: PollOptionId,
    /// The option's text.
    pub name: String,
    /// Its colour, `#rrggbb`.
    pub color_code: String,
}

/// A poll with the number of votes of each option, for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollResults {
    /// The poll.
    pub poll: Poll,
    /// Votes per option, in the order of `poll.options`.
    pub votes: Vec<i64>,
}

/// A vote to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vote {
    /// Who votes.
    pub account: AccountId,
    /// In which poll.
    pub poll: PollId,
    /// For which of its options.
    pub option: PollOptionId,
    /// When.
    pub now: OffsetDateTime,
}

/// Why a vote was not recorded; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteRefusal {
    /// The account does not exist (any more).
    NoAccount,
    /// An operator banned the account.
    Banned,
    /// There is no such poll.
    UnknownPoll,
    /// The poll has no such option.
    UnknownOption,
    /// The poll does not take votes now.
    NotOpen(NotOpen),
    /// The account voted in this poll already.
    AlreadyVoted,
}

/// An edit of a poll that has not ended: a new question, a new closing time, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollEdit {
    /// The poll.
    pub poll: PollId,
    /// The new question, if it changes.
    pub question: Option<String>,
    /// The new closing time, if it changes.
    pub closes: Option<OffsetDateTime>,
    /// When.
    pub now: OffsetDateTime,
}

/// Why a poll was not edited; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollEditRefusal {
    /// There is no such poll.
    Unknown,
    /// The poll has ended or an operator closed it: it no longer changes.
    Over(NotOpen),
    /// The new closing time is not after `earliest` (the opening, or now if later).
    ClosesTooEarly {
        /// The instant the closing time must pass.
        earliest: OffsetDateTime,
    },
}

impl PollEdit {
    /// Checks what does not depend on the stored poll: something changes, and a new question
    /// is 1 to [`POLL_QUESTION_MAX_CHARS`] characters that players can see.
    pub fn check(&self) -> Result<(), String> {
        if self.question.is_none() && self.closes.is_none() {
            return Err("changes nothing: give `question` or `closes`".to_owned());
        }
        if let Some(question) = &self.question {
            check_text("the question", question, POLL_QUESTION_MAX_CHARS)?;
        }
        Ok(())
    }
}

impl Poll {
    /// The poll as `edit` leaves it, or why it may not change: only before it ends, and a new
    /// closing time after both its opening and now.
    ///
    /// ```
    /// use safezone_core::store::{Poll, PollEdit, PollEditRefusal, PollId, Window};
    /// use time::macros::datetime;
    /// let poll = Poll {
    ///     id: PollId(1),
    ///     question: "Next map?".to_owned(),
    ///     options: Vec::new(),
    ///     window: Window {
    ///         opens: datetime!(2026-11-22 08:00 UTC),
    ///         closes: datetime!(2026-11-29 08:00 UTC),
    ///         closed_at: None,
    ///     },
    /// };
    /// let mut edit = PollEdit {
    ///     poll: PollId(1),
    ///     question: None,
    ///     closes: Some(datetime!(2026-12-06 08:00 UTC)),
    ///     now: datetime!(2026-11-23 08:00 UTC),
    /// };
    /// assert_eq!(poll.edited(&edit).unwrap().window.closes, datetime!(2026-12-06 08:00 UTC));
    /// edit.closes = Some(datetime!(2026-11-23 07:00 UTC));
    /// assert!(matches!(poll.edited(&edit), Err(PollEditRefusal::ClosesTooEarly { .. })));
    /// edit.now = datetime!(2026-11-30 08:00 UTC);
    /// assert!(matches!(poll.edited(&edit), Err(PollEditRefusal::Over(_))));
    /// ```
    pub fn edited(&self, edit: &PollEdit) -> Result<Poll, PollEditRefusal> {
        self.window
            .check_not_over(edit.now)
            .map_err(PollEditRefusal::Over)?;
        let mut poll = self.clone();
        if let Some(closes) = edit.closes {
            let earliest = self.window.opens.max(edit.now);
            if closes <= earliest {
                return Err(PollEditRefusal::ClosesTooEarly { earliest });
            }
            poll.window.closes = closes;
        }
        if let Some(question) = &edit.question {
            poll.question.clone_from(question);
        }
        Ok(poll)
    }
}

/// Checks that `text` is 1 to `max` characters long, not blank and free of what
/// [`check_shown_text`] refuses.
fn check_text(what: &str, text: &str, max: usize) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if text.chars().count() > max {
        return Err(format!("{what} is longer than {max} characters"));
    }
    check_shown_text(text).map_err(|hidden| format!("{what} {hidden}"))?;
    Ok(())
}
