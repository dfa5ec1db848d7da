//! The statements of the replays of dead-lettered webhook batches (`webhook_replays`).

/// The columns of a replay, in the shape of [`ReplayRow`](crate::webhook_replays::ReplayRow).
macro_rules! replay_columns {
    () => {
        "id, delivery_id, url, first_position, last_position, state, failures, retry_at, error, \
         requested, updated"
    };
}

/// How many of the events between two relay positions (both included) are stored. Binds:
/// first, last.
pub(crate) const STORED_BETWEEN: &str =
    "SELECT COUNT(*) FROM events WHERE position >= $1 AND position <= $2";

/// Writes a pending replay of a dead letter, unless one of it is pending; answers the row.
/// Binds: delivery id, url, first position, last position, now.
pub(crate) const INSERT_REPLAY: &str = concat!(
    "INSERT INTO webhook_replays \
     (delivery_id, url, first_position, last_position, state, requested, updated) \
     VALUES ($1, $2, $3, $4, 'pending', $5, $5) \
     ON CONFLICT (delivery_id) WHERE state = 'pending' DO NOTHING RETURNING ",
    replay_columns!()
);

/// What makes a pending replay to a URL due for a node: its retry time passed and no other
/// node's lease runs. Binds: url ($1), holder ($2), now ($3).
macro_rules! due {
    () => {
        "url = $1 AND state = 'pending' AND (retry_at IS NULL OR retry_at <= $3) \
         AND (lease_until IS NULL OR lease_until <= $3 OR holder = $2)"
    };
}

/// Whether a replay to a URL is due for a node: `true` or `false`. Binds: url, holder, now.
pub(crate) const ANY_DUE: &str = concat!(
    "SELECT EXISTS (SELECT 1 FROM webhook_replays WHERE ",
    due!(),
    ")"
);

/// Leases the oldest replay to a URL that is due for a node, until a time; answers it (the
/// conditions are checked again on the row itself, so two nodes never both take it). Binds:
/// url, holder, now, lease until.
pub(crate) const CLAIM: &str = concat!(
    "UPDATE webhook_replays SET holder = $2, lease_until = $4, updated = $3 \
     WHERE id = (SELECT id FROM webhook_replays WHERE ",
    due!(),
    " ORDER BY id LIMIT 1) AND ",
    due!(),
    " RETURNING ",
    replay_columns!()
);

/// Writes how a node's attempt at a pending replay it holds ended, and lets go of it. Binds:
/// id, holder, state, failures (null: as they were), retry at, error, now.
pub(crate) const SETTLE: &str = "\
    UPDATE webhook_replays SET state = $3, failures = COALESCE($4, failures), retry_at = $5, \
    error = $6, holder = NULL, lease_until = NULL, updated = $7 \
    WHERE id = $1 AND holder = $2 AND state = 'pending'";

/// The newest replays. Binds: limit.
pub(crate) const REPLAYS: &str = concat!(
    "SELECT ",
    replay_columns!(),
    " FROM webhook_replays ORDER BY id DESC LIMIT $1"
);

/// Deletes, oldest first, finished replays last changed before a time. Binds: time, limit.
pub(crate) const DELETE_FINISHED: &str = "\
    DELETE FROM webhook_replays WHERE id IN \
        (SELECT id FROM webhook_replays WHERE state <> 'pending' AND updated < $1 \
         ORDER BY id LIMIT $2)";
