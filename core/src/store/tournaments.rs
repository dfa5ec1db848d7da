//! The records of tournaments: a tournament to create and as stored, where an account stands
//! with it, joins, whitelists, entrants, the operator's edits and the rules they follow (pure;
//! the store applies them in one transaction).

use std::fmt;

use time::OffsetDateTime;

use super::{NotOpen, Window};
use crate::domain::{FriendCode, GameMode};

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
    ///     mode: GameMode::parse("solo").expect("a mode"),
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
    /// edit.mode = GameMode::parse("duo");
    /// assert_eq!(tournament.edited(&edit), Err(TournamentEditRefusal::Started { field: "mode" }));
    /// ```
    pub fn edited(&self, edit: &TournamentEdit) -> Result<Tournament, TournamentEditRefusal> {
        self.window
            .check_not_over(edit.now)
            .map_err(TournamentEditRefusal::Over)?;
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
