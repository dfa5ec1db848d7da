//! The statements of the boards' snapshots.

/// Claims the turn to write a snapshot unless one was begun after a time. Binds: now, the time
/// (both unix microseconds). One row changed: the turn is this caller's.
pub(crate) const CLAIM_SNAPSHOT: &str =
    "UPDATE board_snapshot_claim SET claimed_at = $1 WHERE id = 1 AND claimed_at <= $2";

/// Records an incomplete snapshot, answering its id. Binds: match log position, account log
/// position, now (unix microseconds).
pub(crate) const BEGIN_SNAPSHOT: &str = "\
    INSERT INTO board_snapshots (match_seq, account_seq, taken_at) VALUES ($1, $2, $3) \
    RETURNING id";

/// Stores one part of a snapshot's bytes. Binds: snapshot id, part, bytes.
pub(crate) const INSERT_PART: &str =
    "INSERT INTO board_snapshot_parts (snapshot_id, part, bytes) VALUES ($1, $2, $3)";

/// Marks a snapshot complete with its number of parts. Binds: snapshot id, parts.
pub(crate) const COMPLETE_SNAPSHOT: &str =
    "UPDATE board_snapshots SET parts = $2 WHERE id = $1 AND parts IS NULL";

/// The snapshots older than one that are not among the newest complete ones kept. Binds:
/// snapshot id, how many older complete ones are kept.
macro_rules! pruned {
    () => {
        "SELECT id FROM board_snapshots WHERE id < $1 AND id NOT IN (\
         SELECT id FROM board_snapshots WHERE id < $1 AND parts IS NOT NULL \
         ORDER BY id DESC LIMIT $2)"
    };
}

/// Deletes the parts of the snapshots [`pruned!`] names. Binds: as it.
pub(crate) const PRUNE_PARTS: &str = concat!(
    "DELETE FROM board_snapshot_parts WHERE snapshot_id IN (",
    pruned!(),
    ")"
);

/// Deletes the snapshots [`pruned!`] names (their parts first). Binds: as it.
pub(crate) const PRUNE_SNAPSHOTS: &str =
    concat!("DELETE FROM board_snapshots WHERE id IN (", pruned!(), ")");

/// The newest complete snapshot: id, positions, time, parts.
pub(crate) const NEWEST_SNAPSHOT: &str = "\
    SELECT id, match_seq, account_seq, taken_at, CAST(parts AS BIGINT) FROM board_snapshots \
    WHERE parts IS NOT NULL ORDER BY id DESC LIMIT 1";

/// One part of a snapshot's bytes. Binds: snapshot id, part.
pub(crate) const PART: &str =
    "SELECT bytes FROM board_snapshot_parts WHERE snapshot_id = $1 AND part = $2";
