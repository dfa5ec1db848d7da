//! Finished matches as the game servers report them, and the progress a plan is made from.
//!
//! A match report is applied in one transaction
//! ([`MatchStore::report_match`](super::MatchStore::report_match)): the match id is recorded
//! once (a repeat answers the first result), every player's result is appended to the match log
//! and added to their hourly statistics, and every player's planned [`Change`](super::Change)
//! (experience, levels, quests, tracks, currency) is applied.

use std::collections::{BTreeMap, BTreeSet};

use time::OffsetDateTime;

use super::{AccountId, Granted, Refusal};
use crate::domain::{FriendCode, GameMode, ItemId, TrackId};

/// The most characters of a match id.
pub const MATCH_ID_MAX_CHARS: usize = 64;

/// A game server's id for a match: 1 to [`MATCH_ID_MAX_CHARS`] letters, digits, `-`, `_`, `.`
/// or `:`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MatchId(String);

impl MatchId {
    /// Checks a match id; `None` when it is empty, too long or holds another character.
    pub fn parse(text: &str) -> Option<Self> {
        let valid = !text.is_empty()
            && text.chars().count() <= MATCH_ID_MAX_CHARS
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
        valid.then(|| Self(text.to_owned()))
    }

    /// The id as the game server wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One player's result in a finished match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerResult {
    /// The player's account.
    pub account: AccountId,
    /// Final placement, 1 for the winner.
    pub placement: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds the player stayed alive.
    pub time_alive_secs: i64,
    /// Every statistic the match moved for the player, by stat key: the standard ones (`rounds`,
    /// `wins`, `top10`, `kills`, `time_alive`) and the game's named counters (`damage`, ...).
    pub stats: BTreeMap<String, i64>,
}

/// A finished match to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchRecord {
    /// The game server's id for the match; recorded once.
    pub id: MatchId,
    /// The mode it was played in.
    pub mode: GameMode,
    /// When it started.
    pub started: OffsetDateTime,
    /// When it ended; statistics are counted in the hour it ended.
    pub ended: OffsetDateTime,
    /// When it was reported.
    pub reported: OffsetDateTime,
    /// Every player's result, one per account.
    pub players: Vec<PlayerResult>,
    /// Core's summary of what the match gave each player, stored with the match and answered
    /// again for a repeated report.
    pub summary: String,
}

/// What a recorded match answered: the summary stored with it and what it granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMatch {
    /// The summary stored with the report.
    pub summary: String,
    /// What the report granted, per change.
    pub granted: Vec<Vec<Granted>>,
}

/// How [`MatchStore::report_match`](super::MatchStore::report_match) ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchApplied {
    /// The match was recorded; what each player's change granted, in the order of the changes.
    Done(Vec<Vec<Granted>>),
    /// The match id was recorded before: nothing changed now; the first report's summary and
    /// grants.
    Replayed {
        /// The summary stored with the first report.
        summary: String,
        /// What the first report granted, per change.
        granted: Vec<Vec<Granted>>,
    },
    /// One player's change was refused (their progress moved meanwhile, or they were banned or
    /// deleted); nothing of the report was written.
    Refused {
        /// Whose change.
        account: AccountId,
        /// Why.
        refusal: Refusal,
    },
}

/// An account's progress, as read to plan a change from it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Progress {
    /// The progress version; a plan made from it requires it unchanged
    /// ([`Step::RequireProgressVersion`](super::Step::RequireProgressVersion)).
    pub version: i64,
    /// Experience points.
    pub experience: i64,
    /// The stored level.
    pub level: i64,
    /// Progress counters by key (`quest/12`, `challenge/3`, `track/1/stars`); absent ones are 0.
    pub counters: BTreeMap<String, i64>,
    /// The reward tracks whose pass the account bought.
    pub track_passes: BTreeSet<TrackId>,
    /// The items the account owns.
    pub items: BTreeSet<ItemId>,
    /// Whether an operator banned the account: a match leaves a banned player out, and the
    /// store refuses a banned account's change.
    pub banned: bool,
}

impl Progress {
    /// A counter's value (0 when never set).
    pub fn counter(&self, key: &str) -> i64 {
        self.counters.get(key).copied().unwrap_or(0)
    }
}

/// One player's result in the append-only match log, which leaderboards follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchLogEntry {
    /// The entry's position in the log (increasing).
    pub seq: i64,
    /// The player's account.
    pub account: AccountId,
    /// The match's mode.
    pub mode: GameMode,
    /// When the match ended.
    pub ended: OffsetDateTime,
    /// Final placement.
    pub placement: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive_secs: i64,
}

/// A player as the leaderboards show them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPlayer {
    /// The account.
    pub account: AccountId,
    /// Its friend code (the code's name is the name on the boards).
    pub friend_code: FriendCode,
    /// Banned players are off the boards.
    pub is_banned: bool,
}

/// What an operator's removal of an account's results took off the leaderboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemovedResults {
    /// How many results (match log entries) were removed.
    pub removed: u64,
    /// The match log position of the last one removed (0 when none was).
    pub through: i64,
}

/// What happened to an account, in the append-only account log that leaderboards follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountChange {
    /// The account took this friend code (its name is the account's name on the boards).
    Renamed(FriendCode),
    /// An operator banned (`true`) or unbanned the account.
    Banned(bool),
    /// The account was deleted.
    Deleted,
    /// An operator removed the account's results from every leaderboard: its results up to
    /// this match log position (the last one removed) are gone from the log, and a board that
    /// counted them starts the account again from the results after it. `through: 0` (one
    /// result removed, [`MatchBrowser::remove_result`](super::MatchBrowser::remove_result)):
    /// the board counts again every result the account still has in the log.
    ResultsRemoved {
        /// The match log position of the last result removed; 0 to count every result left.
        through: i64,
    },
}

/// One entry of the append-only account log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountLogEntry {
    /// The entry's position in the log (increasing, in commit order).
    pub seq: i64,
    /// The account.
    pub account: AccountId,
    /// What happened to it.
    pub change: AccountChange,
}
