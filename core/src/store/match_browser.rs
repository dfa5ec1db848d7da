//! The recorded matches as the operator console browses them: the newest reported first, a
//! page at a time with a cursor; one match with every player's result; and an operator's
//! removal of one player's result from one match, which every node's leaderboards follow.

use std::fmt;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, MatchId, NewAuditEntry, StoreError};
use crate::domain::{FriendCode, GameMode};

/// The most matches one page holds.
pub const MATCH_PAGE_MAX: u32 = 100;

/// Where the next page starts: the last match shown, by the page order (reported, then id,
/// both descending). Its text form (`Display`, [`MatchCursor::parse`]) goes through a query
/// string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchCursor {
    /// When the last match was reported, in unix microseconds.
    pub reported_micros: i64,
    /// The last match's id.
    pub id: MatchId,
}

impl MatchCursor {
    /// Reads the text form `Display` writes (`reported.id`, the id after the first dot); `None`
    /// for anything else.
    ///
    /// ```
    /// use safezone_core::store::{MatchCursor, MatchId};
    ///
    /// let id = MatchId::parse("eu-1.match:7").unwrap();
    /// let cursor = MatchCursor { reported_micros: 1_700_000_000_000_000, id };
    /// assert_eq!(MatchCursor::parse(&cursor.to_string()), Some(cursor));
    /// assert_eq!(MatchCursor::parse("42"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let (reported, id) = text.split_once('.')?;
        Some(Self {
            reported_micros: reported.parse().ok()?,
            id: MatchId::parse(id)?,
        })
    }
}

impl fmt::Display for MatchCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.reported_micros, self.id.as_str())
    }
}

/// A recorded match as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchSummary {
    /// The game server's id for it.
    pub id: MatchId,
    /// The mode it was played in.
    pub mode: GameMode,
    /// When it started.
    pub started: OffsetDateTime,
    /// When it ended.
    pub ended: OffsetDateTime,
    /// When it was reported.
    pub reported: OffsetDateTime,
    /// How many players have a result in it now (results removed by an operator, and those of
    /// deleted accounts, are gone).
    pub players: u32,
}

/// One page of the recorded matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchPage {
    /// The matches, newest reported first (then by id, descending).
    pub matches: Vec<MatchSummary>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<MatchCursor>,
}

/// One player's result in a match, as the match log keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchResult {
    /// The player's account.
    pub account: AccountId,
    /// Its friend code now.
    pub friend_code: FriendCode,
    /// Final placement, 1 for the winner.
    pub placement: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive_secs: i64,
}

/// A recorded match with every player's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchResults {
    /// The match.
    pub summary: MatchSummary,
    /// Its players' results, best placement first (then by account id).
    pub results: Vec<MatchResult>,
}

/// What removing one player's result from one match did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultRemoval {
    /// The result left the match log, and the leaderboards count the player's other results
    /// again.
    Removed,
    /// The player has no result in the match (none was ever reported, or it was removed
    /// before): nothing changed but the audit row.
    NoSuchResult,
}

/// The recorded matches, browsed and corrected by operators; each page and each match one read
/// over an index, whatever the number of matches.
#[async_trait]
pub trait MatchBrowser: Send + Sync {
    /// Up to `limit` (at most [`MATCH_PAGE_MAX`]) recorded matches, newest reported first (then
    /// by id, descending), after `after` (the cursor of the page before; `None`: the first
    /// page).
    async fn recent_matches(
        &self,
        after: Option<&MatchCursor>,
        limit: u32,
    ) -> Result<MatchPage, StoreError>;

    /// The match `id` with every player's result, best placement first; `None` when no match
    /// has the id.
    async fn match_results(&self, id: &MatchId) -> Result<Option<MatchResults>, StoreError>;

    /// Removes `account`'s result from the match `id`, in one transaction: the account's row
    /// is locked (`now` is its update time), its match log entry of the match deleted and, when
    /// one was, [`AccountChange::ResultsRemoved`](super::AccountChange) with `through: 0`
    /// appended to the account log, so that every node's boards take the player off and count
    /// again the results it still has. With `audit` (an operator's removal), its audit row is
    /// appended in the same transaction whether a result was removed or not. `None` (nothing
    /// written) when there is no such account.
    async fn remove_result(
        &self,
        id: &MatchId,
        account: AccountId,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Option<ResultRemoval>, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl MatchBrowser for super::UnavailableStore {
    async fn recent_matches(
        &self,
        _: Option<&MatchCursor>,
        _: u32,
    ) -> Result<MatchPage, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }

    async fn match_results(&self, _: &MatchId) -> Result<Option<MatchResults>, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }

    async fn remove_result(
        &self,
        _: &MatchId,
        _: AccountId,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<Option<ResultRemoval>, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
