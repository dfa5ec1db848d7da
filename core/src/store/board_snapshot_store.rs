//! The boards' snapshots' part of the storage contract: the leaderboards' whole state as bytes,
//! with the log positions it covers, kept in the database so that any node starts from it.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::StoreError;

/// A complete snapshot of the boards, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSnapshotInfo {
    /// The snapshot's id (newer snapshots have larger ids).
    pub id: i64,
    /// The last match log position it counts.
    pub match_seq: i64,
    /// The last account log position it applied.
    pub account_seq: i64,
    /// When it was begun.
    pub taken_at: OffsetDateTime,
    /// How many parts its bytes are cut into (read them from 0).
    pub parts: u32,
}

/// The boards' snapshots: written in parts by one node at a time, visible only once complete,
/// a bounded number kept.
#[async_trait]
pub trait BoardSnapshotStore: Send + Sync {
    /// Begins a snapshot covering the logs up to these positions, unless one was begun after
    /// `unless_since`: one statement claims the turn (so one node of many wins it), and the
    /// snapshot is recorded as incomplete. Answers its id, `None` when the turn was taken.
    async fn begin_board_snapshot(
        &self,
        match_seq: i64,
        account_seq: i64,
        now: OffsetDateTime,
        unless_since: OffsetDateTime,
    ) -> Result<Option<i64>, StoreError>;

    /// Stores part `part` (from 0) of an incomplete snapshot's bytes, in its own transaction.
    async fn write_board_snapshot_part(
        &self,
        id: i64,
        part: u32,
        bytes: &[u8],
    ) -> Result<(), StoreError>;

    /// Completes a snapshot of `parts` parts and, in the same transaction, deletes every older
    /// one but the `keep - 1` newest complete ones (an incomplete older one too: its writer
    /// stopped or lost the race). Answers `false` when the snapshot is gone (a newer one's
    /// completion deleted it): nothing changes then.
    async fn finish_board_snapshot(
        &self,
        id: i64,
        parts: u32,
        keep: u32,
    ) -> Result<bool, StoreError>;

    /// The newest complete snapshot, if there is one.
    async fn newest_board_snapshot(&self) -> Result<Option<BoardSnapshotInfo>, StoreError>;

    /// Part `part` of a snapshot's bytes; `None` when it is not stored (the snapshot was
    /// deleted meanwhile).
    async fn board_snapshot_part(&self, id: i64, part: u32) -> Result<Option<Vec<u8>>, StoreError>;
}
