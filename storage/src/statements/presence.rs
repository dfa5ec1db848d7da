//! The statements of presence: the nodes' heartbeats, the accounts with a realtime channel
//! open on each node, and when each account was last seen.

/// A node's heartbeat. Binds: node, now.
pub(crate) const HEARTBEAT: &str = "\
    INSERT INTO presence_nodes (node, heartbeat) VALUES ($1, $2) \
    ON CONFLICT (node) DO UPDATE SET heartbeat = excluded.heartbeat";

/// The start of the statement recording accounts online on a node; the rows (`account`,
/// `node`, `opened`) and then [`MARK_ONLINE_END`] follow.
pub(crate) const MARK_ONLINE: &str = "\
    INSERT INTO presence (account_id, node, opened_at) SELECT account, node, opened FROM ";

/// The end of [`MARK_ONLINE`]: accounts that no longer exist are left out, an account online
/// on the node already stays as it was.
pub(crate) const MARK_ONLINE_END: &str = " AS u \
    WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = u.account) \
    ON CONFLICT (account_id, node) DO NOTHING";

/// The start of the statement taking accounts off a node; the rows (`account`, `node`) and
/// then [`MARK_OFFLINE_END`] follow.
pub(crate) const MARK_OFFLINE: &str =
    "DELETE FROM presence WHERE (account_id, node) IN (SELECT account, node FROM ";

/// The end of [`MARK_OFFLINE`].
pub(crate) const MARK_OFFLINE_END: &str = " AS u WHERE true)";

/// What ends every statement writing when accounts were last seen: a later sighting replaces
/// an earlier one, never the other way round.
macro_rules! seen_end {
    () => {
        " ON CONFLICT (account_id) DO UPDATE SET seen = excluded.seen \
         WHERE last_seen.seen < excluded.seen"
    };
}

/// The start of the statement recording when accounts were last seen; the rows (`account`,
/// `seen`) and then [`SEEN_END`] follow.
pub(crate) const SEEN: &str = "INSERT INTO last_seen (account_id, seen) SELECT account, seen FROM ";

/// The end of [`SEEN`]: accounts that no longer exist are left out.
pub(crate) const SEEN_END: &str = concat!(
    " AS u WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = u.account)",
    seen_end!()
);

/// Every account on a node last seen at a time. Binds: node, time.
pub(crate) const SEEN_ALL_OF_NODE: &str = concat!(
    "INSERT INTO last_seen (account_id, seen) SELECT account_id, $2 FROM presence WHERE node = $1",
    seen_end!()
);

/// Takes every account off a node. Binds: node.
pub(crate) const DELETE_NODE_PRESENCE: &str = "DELETE FROM presence WHERE node = $1";

/// Forgets a node. Binds: node.
pub(crate) const DELETE_NODE: &str = "DELETE FROM presence_nodes WHERE node = $1";

/// Forgets a node unless it beat since a time; answers its last heartbeat, no row when it beat
/// since (or is gone). Binds: node, time.
pub(crate) const DELETE_DEAD_NODE: &str = "\
    DELETE FROM presence_nodes WHERE node = $1 AND heartbeat < $2 RETURNING heartbeat";

/// The nodes that last beat before a time, oldest first, as `(node)`. Binds: time, limit.
pub(crate) const DEAD_NODES: &str = "\
    SELECT node FROM presence_nodes WHERE heartbeat < $1 ORDER BY heartbeat LIMIT $2";

/// The start of the statement reading the heartbeats of the nodes accounts are on, as
/// `(account id, heartbeat)`; the accounts' ids
/// ([`push_one_of`](crate::bulk::BulkRows::push_one_of)) follow.
pub(crate) const HEARTBEATS: &str = "\
    SELECT p.account_id, n.heartbeat FROM presence p \
    JOIN presence_nodes n ON n.node = p.node WHERE p.account_id";

/// The start of the statement reading when accounts were last seen, as `(account id, seen)`;
/// the accounts' ids ([`push_one_of`](crate::bulk::BulkRows::push_one_of)) follow.
pub(crate) const LAST_SEEN: &str = "SELECT account_id, seen FROM last_seen WHERE account_id";
