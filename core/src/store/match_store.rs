//! The matches' part of the storage contract: the progress plans are made from, match reports,
//! statistics, the match log and the players the leaderboards show.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    AccountId, BoardPlayer, Change, MatchApplied, MatchId, MatchLogEntry, MatchRecord,
    NewAuditEntry, Progress, RecordedMatch, RemovedResults, StoreError,
};
use crate::domain::GameMode;

/// Matches and progress: the progress a plan is made from, match reports applied atomically,
/// statistics by the hour, the match log and the players the leaderboards show.
#[async_trait]
pub trait MatchStore: Send + Sync {
    /// The progress of each of `accounts` that exists, in the order asked (missing accounts
    /// are left out), and whether it is banned: one read tells which of a match's players
    /// exist and which are banned, however many.
    async fn progress(
        &self,
        accounts: &[AccountId],
    ) -> Result<Vec<(AccountId, Progress)>, StoreError>;

    /// Records a finished match and applies every player's change, in one transaction: all of
    /// it or none. A match id recorded before changes nothing and answers the first report.
    async fn report_match(
        &self,
        record: &MatchRecord,
        changes: &[Change],
    ) -> Result<MatchApplied, StoreError>;

    /// The stored answer of a match id already reported, if it was.
    async fn recorded_match(&self, id: &MatchId) -> Result<Option<RecordedMatch>, StoreError>;

    /// Sums of an account's statistics in `mode` for matches that ended at or after `since`
    /// (by the hour), by stat key; stats never moved are absent.
    async fn stat_totals(
        &self,
        account: AccountId,
        mode: GameMode,
        since: OffsetDateTime,
    ) -> Result<std::collections::BTreeMap<String, i64>, StoreError>;

    /// Deletes, oldest first, at most `limit` hourly statistics buckets whose hour ended at or
    /// before `before`; answers how many went (the retention sweep). [`stat_totals`] sums only
    /// what is kept.
    ///
    /// [`stat_totals`]: MatchStore::stat_totals
    async fn delete_stat_hours(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;

    /// Up to `limit` entries of the match log after position `after` (0 for the start), in
    /// order.
    async fn match_log(&self, after: i64, limit: u32) -> Result<Vec<MatchLogEntry>, StoreError>;

    /// Those of `accounts` that exist, as the leaderboards show them (in no particular order).
    async fn board_players_of(
        &self,
        accounts: &[AccountId],
    ) -> Result<Vec<BoardPlayer>, StoreError>;

    /// The account's entries of the match log after position `after` up to `through`
    /// (included), in order: the results a board that removed the account's earlier results
    /// counts again.
    async fn results_of(
        &self,
        account: AccountId,
        after: i64,
        through: i64,
    ) -> Result<Vec<MatchLogEntry>, StoreError>;

    /// The account's newest `limit` entries of the match log, newest first.
    async fn recent_results(
        &self,
        account: AccountId,
        limit: u32,
    ) -> Result<Vec<MatchLogEntry>, StoreError>;

    /// Removes the account's results from every leaderboard, in one transaction: deletes its
    /// match log entries and appends [`AccountChange::ResultsRemoved`](super::AccountChange)
    /// to the account log, which every node's boards follow (nothing is appended when it has
    /// no results). `now` is the account row's update time. `None` when there is no such
    /// account. With `audit` (an operator's removal), its audit row (and `operator_action`
    /// event) is appended in the same transaction when the account exists.
    async fn remove_results(
        &self,
        account: AccountId,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Option<RemovedResults>, StoreError>;
}
