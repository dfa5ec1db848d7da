//! The statements of clans, their members and invitations.

/// The clan an account is a member of; no row when none. Binds: account id.
pub(crate) const CLAN_OF_ACCOUNT: &str = "SELECT clan_id FROM clan_members WHERE account_id = $1";

/// Creates a clan unless its tag is taken (in any letter case); returns its id, no row when
/// taken. Binds: tag, name, description, creator id, most members, now.
pub(crate) const INSERT_CLAN: &str = "\
    INSERT INTO clans (tag, name, description, creator_id, max_members, created, updated) \
    VALUES ($1, $2, $3, $4, $5, $6, $6) \
    ON CONFLICT DO NOTHING \
    RETURNING id";

/// Makes an account a member unless it is a member of a clan. Binds: clan id, account id, now.
pub(crate) const INSERT_MEMBER: &str = "\
    INSERT INTO clan_members (clan_id, account_id, joined) VALUES ($1, $2, $3) \
    ON CONFLICT DO NOTHING";

/// Locks a clan's row for the rest of the transaction; returns its most members, no row
/// without the clan. Binds: clan id, now.
pub(crate) const LOCK_CLAN: &str =
    "UPDATE clans SET updated = $2 WHERE id = $1 RETURNING max_members";

/// Locks the row of the clan an account is a member of for the rest of the transaction (a
/// no-op update); no row when it is in none. With the account's row locked first, the
/// membership can then only end by the account's deletion in this transaction. Binds: account
/// id.
pub(crate) const LOCK_CLAN_OF_ACCOUNT: &str = "\
    UPDATE clans SET max_members = max_members \
    WHERE id = (SELECT clan_id FROM clan_members WHERE account_id = $1) RETURNING id";

/// Records an invitation unless there is one. Binds: clan id, account id, inviter id, now.
pub(crate) const INSERT_INVITE: &str = "\
    INSERT INTO clan_invites (clan_id, account_id, invited_by, created) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (clan_id, account_id) DO NOTHING";

/// Uses up an invitation. Binds: clan id, account id.
pub(crate) const DELETE_INVITE: &str =
    "DELETE FROM clan_invites WHERE clan_id = $1 AND account_id = $2";

/// How many members a clan has. Binds: clan id.
pub(crate) const MEMBER_COUNT: &str =
    "SELECT CAST(COUNT(*) AS BIGINT) FROM clan_members WHERE clan_id = $1";

/// Takes an account out of a clan; the `clan_member_left` trigger hands the clan on or
/// dissolves it. Like every removal of a member (this one, and the cascade of an account's
/// deletion), it runs with the clan's row locked: on PostgreSQL each statement of the trigger
/// then sees every earlier change of the clan's members committed, never a stale count.
/// Binds: clan id, account id.
pub(crate) const DELETE_MEMBER: &str =
    "DELETE FROM clan_members WHERE clan_id = $1 AND account_id = $2";

/// Whether a clan exists. Binds: clan id.
pub(crate) const CLAN_EXISTS: &str = "SELECT id FROM clans WHERE id = $1";

/// The select of clans with their members, one row per member, in the shape of
/// [`ClanRow`](crate::clans::ClanRow); a condition and an order follow. Every clan has a member
/// (the last one leaving dissolves it), so the inner joins drop none.
macro_rules! select_clans {
    ($condition:literal, $order:literal) => {
        concat!(
            "SELECT c.id AS clan_id, c.creator_id, c.tag, c.name AS clan_name, c.description, ",
            "c.max_members, c.created, a.id AS account_id, a.friend_name, a.friend_digits, ",
            "a.avatar, a.status ",
            "FROM clans c JOIN clan_members m ON m.clan_id = c.id ",
            "JOIN accounts a ON a.id = m.account_id WHERE ",
            $condition,
            " ORDER BY ",
            $order
        )
    };
}

/// One clan, in the shape of [`ClanRow`](crate::clans::ClanRow). Binds: clan id.
pub(crate) const CLAN: &str = select_clans!("c.id = $1", "m.id");

/// The clan of an account, in the shape of [`ClanRow`](crate::clans::ClanRow).
/// Binds: account id.
pub(crate) const CLAN_OF: &str = select_clans!(
    "c.id = (SELECT clan_id FROM clan_members WHERE account_id = $1)",
    "m.id"
);

/// The clan of an account and the clans that invited it, its own first, in the shape of
/// [`ClanRow`](crate::clans::ClanRow). Binds: account id.
pub(crate) const CLANS_FOR_ACCOUNT: &str = select_clans!(
    "c.id IN (SELECT clan_id FROM clan_members WHERE account_id = $1 \
     UNION SELECT clan_id FROM clan_invites WHERE account_id = $1)",
    "CASE WHEN c.id IN (SELECT clan_id FROM clan_members WHERE account_id = $1) THEN 0 ELSE 1 END, \
     c.id, m.id"
);

/// The largest clans (at most the bound limit), most members first, in the shape of
/// [`ClanRow`](crate::clans::ClanRow). Binds: limit.
pub(crate) const LARGEST_CLANS: &str = select_clans!(
    "c.id IN (SELECT clan_id FROM clan_members GROUP BY clan_id \
     ORDER BY COUNT(*) DESC, clan_id LIMIT $1)",
    "(SELECT COUNT(*) FROM clan_members x WHERE x.clan_id = c.id) DESC, c.id, m.id"
);
