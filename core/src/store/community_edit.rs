//! The operator's edits of polls and tournaments after their creation, and the entrants of a
//! tournament: the records the store exchanges, and the rules of what may still change (pure;
//! the store applies them in one transaction with the row locked).

use time::OffsetDateTime;

use super::community::{POLL_QUESTION_MAX_CHARS, check_text};
use super::{NotOpen, Poll, PollId, TOURNAMENT_CAPACITY_MAX, Tournament, TournamentCode};
use crate::domain::{FriendCode, GameMode};

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
        over(self.window.check(edit.now)).map_err(PollEditRefusal::Over)?;
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

/// `Err` when a window's check says it has ended or was closed; upcoming and open are fine.
fn over(check: Result<(), NotOpen>) -> Result<(), NotOpen> {
    match check {
        Err(over @ (NotOpen::Ended { .. } | NotOpen::Closed { .. })) => Err(over),
        Ok(()) | Err(NotOpen::Upcoming { .. }) => Ok(()),
    }
}

/// An edit of a tournament that has not ended. The mode, the opening and whether only the
/// whitelist may join change only before it opens; the closing time and the capacity until it
/// ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentEdit {
    /// The tournament.
    pub code: TournamentCode,
    /// The new mode.
    pub mode: Option<GameMode>,
    /// The new opening.
    pub opens: Option<OffsetDateTime>,
    /// The new closing.
    pub closes: Option<OffsetDateTime>,
    /// The new capacity (1 to [`TOURNAMENT_CAPACITY_MAX`], not below the entrants).
    pub capacity: Option<i64>,
    /// Whether only whitelisted accounts may join, if it changes.
    pub whitelist_only: Option<bool>,
    /// When.
    pub now: OffsetDateTime,
}

/// Why a tournament was not edited; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentEditRefusal {
    /// There is no tournament with this code.
    Unknown,
    /// The tournament has ended or an operator closed it: it no longer changes.
    Over(NotOpen),
    /// The tournament has opened: `field` (`mode`, `opens`, `whitelistOnly`) no longer changes.
    Started {
        /// The field, as the operator API names it.
        field: &'static str,
    },
    /// The window would not open before it closes, or would close before now.
    BadWindow,
    /// The capacity would be below the accounts that joined.
    BelowEntrants {
        /// How many joined.
        entrants: i64,
    },
}

impl TournamentEdit {
    /// Checks what does not depend on the stored tournament: something changes, and the
    /// capacity is 1 to [`TOURNAMENT_CAPACITY_MAX`].
    pub fn check(&self) -> Result<(), String> {
        if self.mode.is_none()
            && self.opens.is_none()
            && self.closes.is_none()
            && self.capacity.is_none()
            && self.whitelist_only.is_none()
        {
            return Err(
                "changes nothing: give `mode`, `opens`, `closes`, `capacity` or `whitelistOnly`"
                    .to_owned(),
            );
        }
        match self.capacity {
            Some(capacity) if !(1..=TOURNAMENT_CAPACITY_MAX).contains(&capacity) => Err(format!(
                "`capacity` must be 1 to {TOURNAMENT_CAPACITY_MAX}, not {capacity}"
            )),
            _ => Ok(()),
        }
    }
}

impl Tournament {
    /// The tournament as `edit` leaves it, or why it may not change.
    ///
    /// ```
    /// use safezone_core::domain::GameMode;
    /// use safezone_core::store::{Tournament, TournamentCode, TournamentEdit, TournamentEditRefusal, Window};
    /// use time::macros::datetime;
    /// let tournament = Tournament {
    ///     code: TournamentCode::parse("cup").unwrap(),
    ///     mode: GameMode::Solo,
    ///     window: Window {
    ///         opens: datetime!(2026-11-22 08:00 UTC),
    ///         closes: datetime!(2026-11-29 08:00 UTC),
    ///         closed_at: None,
    ///     },
    ///     capacity: 100,
    ///     entrants: 10,
    ///     whitelist_only: false,
    /// };
    /// let mut edit = TournamentEdit {
    ///     code: tournament.code.clone(),
    ///     mode: None,
    ///     opens: None,
    ///     closes: None,
    ///     capacity: Some(50),
    ///     whitelist_only: None,
    ///     now: datetime!(2026-11-23 08:00 UTC),
    /// };
    /// assert_eq!(tournament.edited(&edit).unwrap().capacity, 50);
    /// edit.capacity = Some(5);
    /// assert!(matches!(tournament.edited(&edit), Err(TournamentEditRefusal::BelowEntrants { entrants: 10 })));
    /// edit.capacity = None;
    /// edit.mode = Some(GameMode::Duo);
    /// assert_eq!(tournament.edited(&edit), Err(TournamentEditRefusal::Started { field: "mode" }));
    /// ```
    pub fn edited(&self, edit: &TournamentEdit) -> Result<Tournament, TournamentEditRefusal> {
        over(self.window.check(edit.now)).map_err(TournamentEditRefusal::Over)?;
        if edit.now >= self.window.opens {
            let started = [
                (edit.mode.is_some(), "mode"),
                (edit.opens.is_some(), "opens"),
                (edit.whitelist_only.is_some(), "whitelistOnly"),
            ];
            if let Some((_, field)) = started.into_iter().find(|(given, _)| *given) {
                return Err(TournamentEditRefusal::Started { field });
            }
        }
        let mut tournament = self.clone();
        tournament.mode = edit.mode.unwrap_or(self.mode);
        tournament.window.opens = edit.opens.unwrap_or(self.window.opens);
        tournament.window.closes = edit.closes.unwrap_or(self.window.closes);
        tournament.whitelist_only = edit.whitelist_only.unwrap_or(self.whitelist_only);
        tournament.capacity = edit.capacity.unwrap_or(self.capacity);
        if tournament.window.opens >= tournament.window.closes
            || tournament.window.closes <= edit.now
        {
            return Err(TournamentEditRefusal::BadWindow);
        }
        if tournament.capacity < self.entrants {
            return Err(TournamentEditRefusal::BelowEntrants {
                entrants: self.entrants,
            });
        }
        Ok(tournament)
    }
}

/// An account that joined a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    /// Its friend code.
    pub friend_code: FriendCode,
    /// When it joined.
    pub joined: OffsetDateTime,
}
