//! The records of the community features: polls, tournaments with their whitelists, and clans.
//!
//! Polls and tournaments are created and closed by the operator (the admin commands); players
//! vote and join through the API. Each state change is one store transaction that checks its
//! preconditions and answers the one that failed as a refusal enum.

use std::fmt;

use time::OffsetDateTime;

use super::AccountId;
use crate::domain::{FriendCode, GameMode, check_shown_text};

/// When something is open: from `opens` (inclusive) to `closes` (exclusive), unless an operator
/// closed it early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first instant it is open.
    pub opens: OffsetDateTime,
    /// The first instant it is no longer open.
    pub closes: OffsetDateTime,
    /// When an operator closed it, if one did.
    pub closed_at: Option<OffsetDateTime>,
}

/// Why a [`Window`] is not open at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOpen {
    /// It opens later.
    Upcoming {
        /// When it opens.
        opens: OffsetDateTime,
    },
    /// Its time is over.
    Ended {
        /// When it closed.
        closes: OffsetDateTime,
    },
    /// An operator closed it (this wins over the other two).
    Closed {
        /// When the operator closed it.
        at: OffsetDateTime,
    },
}

impl Window {
    /// `Ok` when open at `now`, otherwise why not.
    ///
    /// ```
    /// use safezone_core::store::{NotOpen, Window};
    /// use time::macros::datetime;
    /// let window = Window {
    ///     opens: datetime!(2026-11-22 08:00 UTC),
    ///     closes: datetime!(2026-11-23 08:00 UTC),
    ///     closed_at: None,
    /// };
    /// assert_eq!(window.check(datetime!(2026-11-22 08:00 UTC)), Ok(()));
    /// assert!(matches!(window.check(datetime!(2026-11-23 08:00 UTC)), Err(NotOpen::Ended { .. })));
    /// ```
    pub fn check(&self, now: OffsetDateTime) -> Result<(), NotOpen> {
        if let Some(at) = self.closed_at {
            Err(NotOpen::Closed { at })
        } else if now < self.opens {
            Err(NotOpen::Upcoming { opens: self.opens })
        } else if now >= self.closes {
            Err(NotOpen::Ended {
                closes: self.closes,
            })
        } else {
            Ok(())
        }
    }
}

/// How closing a poll or a tournament ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// It is closed now.
    Closed,
    /// An operator had closed it before; nothing changed.
    AlreadyClosed,
    /// There is no such poll or tournament.
    Unknown,
}

// ---------------------------------------------------------------------------------------------
// Polls

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

// ---------------------------------------------------------------------------------------------
// Tournaments

/// The longest tournament code.
pub const TOURNAMENT_CODE_MAX: usize = 32;

/// A tournament's code: 1 to [`TOURNAMENT_CODE_MAX`] ASCII letters, digits, `-` and `_`,
/// compared regardless of letter case (kept in lower case). The API and the operator's commands
/// also refuse a code that is a path segment of the API (`user`, `clan`, ...), which the routing
/// table decides.
///
/// ```
/// use safezone_core::store::TournamentCode;
/// assert_eq!(TournamentCode::parse("Spring-Cup").unwrap().as_str(), "spring-cup");
/// assert!(TournamentCode::parse("spring cup").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TournamentCode(String);

impl TournamentCode {
    /// Reads a code; the error completes "the tournament code ...".
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.is_empty() || text.len() > TOURNAMENT_CODE_MAX {
            return Err(format!(
                "must be 1 to {TOURNAMENT_CODE_MAX} characters long"
            ));
        }
        if !text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        {
            return Err("may hold only ASCII letters, digits, `-` and `_`".to_owned());
        }
        Ok(Self(text.to_ascii_lowercase()))
    }

    /// The code, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TournamentCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most entrants a tournament may take.
pub const TOURNAMENT_CAPACITY_MAX: i64 = 1_000_000;

/// A tournament to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTournament {
    /// Its code.
    pub code: TournamentCode,
    /// The mode it is played in.
    pub mode: GameMode,
    /// When joining opens.
    pub opens: OffsetDateTime,
    /// When joining closes (after `opens`).
    pub closes: OffsetDateTime,
    /// The most entrants (1 to [`TOURNAMENT_CAPACITY_MAX`]).
    pub capacity: i64,
    /// Whether only whitelisted accounts may join.
    pub whitelist_only: bool,
    /// When it is created.
    pub now: OffsetDateTime,
}

impl NewTournament {
    /// Checks the capacity and the window; the error says what is wrong.
    pub fn check(&self) -> Result<(), String> {
        self.check_fields().map_err(|(_, problem)| problem)
    }

    /// [`NewTournament::check`] with the field at fault: `capacity` or `closes`.
    pub fn check_fields(&self) -> Result<(), (&'static str, String)> {
        if !(1..=TOURNAMENT_CAPACITY_MAX).contains(&self.capacity) {
            return Err((
                "capacity",
                format!(
                    "the capacity must be 1 to {TOURNAMENT_CAPACITY_MAX}, not {}",
                    self.capacity
                ),
            ));
        }
        if self.opens >= self.closes {
            return Err((
                "closes",
                "the tournament must open before it closes".to_owned(),
            ));
        }
        Ok(())
    }
}

/// A stored tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    /// Its code.
    pub code: TournamentCode,
    /// The mode it is played in.
    pub mode: GameMode,
    /// When joining is open.
    pub window: Window,
    /// The most entrants.
    pub capacity: i64,
    /// How many accounts joined.
    pub entrants: i64,
    /// Whether only whitelisted accounts may join.
    pub whitelist_only: bool,
}

/// Where one account stands with a tournament.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TournamentStanding {
    /// Whether the account is on the tournament's whitelist.
    pub whitelisted: bool,
    /// Whether the account joined.
    pub joined: bool,
}

/// Why an account may not join a tournament (or, for [`AlreadyJoined`](Self::AlreadyJoined),
/// need not); nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentRefusal {
    /// The account does not exist (any more).
    NoAccount,
    /// An operator banned the account.
    Banned,
    /// There is no tournament with this code.
    Unknown,
    /// Joining is not open now.
    NotOpen(NotOpen),
    /// Only whitelisted accounts may join and this one is not on the whitelist.
    NotWhitelisted,
    /// Every place is taken.
    Full {
        /// The tournament's capacity.
        capacity: i64,
    },
    /// The account joined before.
    AlreadyJoined,
}

impl Tournament {
    /// Whether an account standing as `standing` may join at `now`: the window, then the
    /// whitelist, then the capacity (an entrant is told [`TournamentRefusal::AlreadyJoined`]
    /// only after the window, since a closed tournament is closed for everyone).
    pub fn admits(
        &self,
        standing: TournamentStanding,
        now: OffsetDateTime,
    ) -> Result<(), TournamentRefusal> {
        self.window.check(now).map_err(TournamentRefusal::NotOpen)?;
        if standing.joined {
            return Err(TournamentRefusal::AlreadyJoined);
        }
        if self.whitelist_only && !standing.whitelisted {
            return Err(TournamentRefusal::NotWhitelisted);
        }
        if self.entrants >= self.capacity {
            return Err(TournamentRefusal::Full {
                capacity: self.capacity,
            });
        }
        Ok(())
    }
}

/// The most friend codes one whitelist edit may name.
pub const WHITELIST_EDIT_MAX: usize = 1_000;

/// A change of a tournament's whitelist, applied in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhitelistEdit {
    /// The tournament.
    pub code: TournamentCode,
    /// When true, the whitelist is emptied first, so that it becomes exactly `add`.
    pub replace: bool,
    /// Accounts to put on the whitelist.
    pub add: Vec<FriendCode>,
    /// Accounts to take off the whitelist.
    pub remove: Vec<FriendCode>,
    /// When.
    pub now: OffsetDateTime,
}

/// A whitelist after an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhitelistEdited {
    /// The friend codes on the whitelist now, in the order they were added.
    pub whitelist: Vec<FriendCode>,
    /// The friend codes of the edit that no account has; nothing was done for them.
    pub unknown: Vec<FriendCode>,
}

// ---------------------------------------------------------------------------------------------
// Clans

/// The database id of a clan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClanId(pub i64);

/// A clan to create, with its creator as the first member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClan {
    /// The creator.
    pub creator: AccountId,
    /// The tag: three ASCII letters, unique regardless of letter case.
    pub tag: String,
    /// The clan's name.
    pub name: String,
    /// What the clan is about, if the creator said.
    pub description: Option<String>,
    /// The most members it may have.
    pub max_members: i64,
    /// When.
    pub now: OffsetDateTime,
}

/// A stored clan with its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clan {
    /// Its id.
    pub id: ClanId,
    /// Who leads it: the creator, or the longest-standing member after the creator left.
    pub creator: AccountId,
    /// The tag.
    pub tag: String,
    /// The name.
    pub name: String,
    /// The description, if any.
    pub description: Option<String>,
    /// The most members it may have.
    pub max_members: i64,
    /// The members, longest-standing first.
    pub members: Vec<ClanMember>,
    /// When it was created.
    pub created: OffsetDateTime,
}

/// A member of a clan, with the public fields of the account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClanMember {
    /// The account.
    pub account: AccountId,
    /// Its friend code, whose name is the member's name.
    pub friend_code: FriendCode,
    /// Its avatar address.
    pub avatar: Option<String>,
    /// Its presence.
    pub status: String,
}

/// Why a clan operation was refused; nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClanRefusal {
    /// The calling account does not exist (any more).
    NoAccount,
    /// An operator banned the calling account.
    Banned,
    /// There is no such clan.
    UnknownClan,
    /// Another clan has this tag (in any letter case).
    TagTaken,
    /// The account is a member of a clan already (one clan per account).
    AlreadyInClan,
    /// The calling account is not a member of the clan.
    NotMember,
    /// The invited account does not exist.
    UnknownUser,
    /// The invited account is invited to this clan already.
    AlreadyInvited,
    /// The invited account is a member of this clan already.
    AlreadyMember,
    /// The account was not invited to the clan.
    NotInvited,
    /// The clan has its most members.
    Full,
}

/// How leaving a clan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClanLeft {
    /// The account left; the clan goes on (led by the longest-standing member if the leader
    /// left).
    Left,
    /// The account was the last member: the clan is dissolved.
    Dissolved,
}

/// Checks that `text` is 1 to `max` characters long, not blank and free of what
/// [`check_shown_text`] refuses.
pub(super) fn check_text(what: &str, text: &str, max: usize) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if text.chars().count() > max {
        return Err(format!("{what} is longer than {max} characters"));
    }
    check_shown_text(text).map_err(|hidden| format!("{what} {hidden}"))?;
    Ok(())
}
