//! The statements of friend requests, friendships and blocks. A friendship is stored once, as
//! the ordered pair `(low_id, high_id)`; callers bind the two accounts in id order.

/// Whether the first account blocked the second. Binds: blocker id, blocked id.
pub(crate) const IS_BLOCKED: &str =
    "SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2";

/// Whether two accounts are friends. Binds: lower id, higher id.
pub(crate) const ARE_FRIENDS: &str = "SELECT 1 FROM friendships WHERE low_id = $1 AND high_id = $2";

/// How many friends an account has. Binds: account id.
pub(crate) const FRIEND_COUNT: &str = "\
    SELECT CAST((SELECT COUNT(*) FROM friendships WHERE low_id = $1) \
              + (SELECT COUNT(*) FROM friendships WHERE high_id = $1) AS BIGINT)";

/// How many requests an account has sent and nobody answered. Binds: account id.
pub(crate) const REQUESTS_OUT: &str =
    "SELECT CAST(COUNT(*) AS BIGINT) FROM friend_requests WHERE from_id = $1";

/// Records a request unless there is one the same way. Binds: from id, to id, now.
pub(crate) const INSERT_REQUEST: &str = "\
    INSERT INTO friend_requests (from_id, to_id, created) VALUES ($1, $2, $3) \
    ON CONFLICT (from_id, to_id) DO NOTHING";

/// Takes a request away (answered, withdrawn, or ended by a block). Binds: from id, to id.
pub(crate) const DELETE_REQUEST: &str =
    "DELETE FROM friend_requests WHERE from_id = $1 AND to_id = $2";

/// Records a friendship unless there is one. Binds: lower id, higher id, now.
pub(crate) const INSERT_FRIENDSHIP: &str = "\
    INSERT INTO friendships (low_id, high_id, since) VALUES ($1, $2, $3) \
    ON CONFLICT (low_id, high_id) DO NOTHING";

/// Ends a friendship. Binds: lower id, higher id.
pub(crate) const DELETE_FRIENDSHIP: &str =
    "DELETE FROM friendships WHERE low_id = $1 AND high_id = $2";

/// Records a block unless there is one. Binds: blocker id, blocked id, now.
pub(crate) const INSERT_BLOCK: &str = "\
    INSERT INTO blocks (blocker_id, blocked_id, created) VALUES ($1, $2, $3) \
    ON CONFLICT (blocker_id, blocked_id) DO NOTHING";

/// Lifts a block. Binds: blocker id, blocked id.
pub(crate) const DELETE_BLOCK: &str =
    "DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2";

/// Deletes, oldest first, requests sent before a time. Binds: time, limit.
pub(crate) const EXPIRE_REQUESTS: &str = "\
    DELETE FROM friend_requests WHERE (from_id, to_id) IN \
        (SELECT from_id, to_id FROM friend_requests WHERE created < $1 \
         ORDER BY created LIMIT $2)";

/// The select of players on one of an account's lists, in the shape of
/// [`ListedRow`](crate::friends::ListedRow): `$listed` is a subquery of `(other_id, since)`
/// binding the account as `$1`, oldest first.
macro_rules! select_listed {
    ($listed:literal) => {
        concat!(
            "SELECT a.id AS account_id, a.friend_name, a.friend_digits, a.avatar, a.level, ",
            "c.id AS clan_id, c.tag AS clan_tag, c.name AS clan_name, l.since ",
            "FROM (",
            $listed,
            ") AS l JOIN accounts a ON a.id = l.other_id ",
            "LEFT JOIN clan_members m ON m.account_id = a.id ",
            "LEFT JOIN clans c ON c.id = m.clan_id ",
            "ORDER BY l.since, a.id"
        )
    };
}

/// An account's friends. Binds: account id.
pub(crate) const FRIENDS: &str = select_listed!(
    "SELECT high_id AS other_id, since FROM friendships WHERE low_id = $1 \
     UNION ALL SELECT low_id, since FROM friendships WHERE high_id = $1"
);

/// The requests others sent an account. Binds: account id.
pub(crate) const INCOMING: &str = select_listed!(
    "SELECT from_id AS other_id, created AS since FROM friend_requests WHERE to_id = $1"
);

/// The requests an account sent. Binds: account id.
pub(crate) const OUTGOING: &str = select_listed!(
    "SELECT to_id AS other_id, created AS since FROM friend_requests WHERE from_id = $1"
);

/// The players an account blocked. Binds: account id.
pub(crate) const BLOCKED: &str = select_listed!(
    "SELECT blocked_id AS other_id, created AS since FROM blocks WHERE blocker_id = $1"
);
