//! The statements of polls, tournaments, whitelists and clans.

/// Whether an account is banned; no row without the account. Binds: account id.
pub(crate) const IS_BANNED: &str = "SELECT is_banned FROM accounts WHERE id = $1";

/// Locks an account's row for the rest of the transaction (a no-op update) and answers whether
/// it is banned; no row without the account. The clan transactions, whitelist edits, votes,
/// tournament joins and account deletion lock account rows first, in id order, and only then a
/// clan or tournament row (deletion: its clan's, then its tournaments' in code order): so they
/// never deadlock, and while an account's row is locked no clan gains it as a member or an
/// invitee, no whitelist, poll or tournament gains it, and no deletion takes it away.
/// Binds: account id.
pub(crate) const LOCK_ACCOUNT: &str =
    "UPDATE accounts SET is_banned = is_banned WHERE id = $1 RETURNING is_banned";

/// The id of the account with a friend code (the name in any letter case). Binds: name, digits.
pub(crate) const ACCOUNT_ID_BY_FRIEND_CODE: &str =
    "SELECT id FROM accounts WHERE lower(friend_name) = lower($1) AND friend_digits = $2";

// ---------------------------------------------------------------------------------------------
// Polls

/// Creates a poll; returns its id. Binds: question, opens, closes, now.
pub(crate) const INSERT_POLL: &str = "\
    INSERT INTO polls (question, opens, closes, created) VALUES ($1, $2, $3, $4) RETURNING id";

/// Creates an option of a poll; returns its id. Binds: poll id, position, name, colour.
pub(crate) const INSERT_POLL_OPTION: &str = "\
    INSERT INTO poll_options (poll_id, position, name, color_code) VALUES ($1, $2, $3, $4) \
    RETURNING id";

/// Closes a poll unless it is closed. Binds: poll id, now.
pub(crate) const CLOSE_POLL: &str =
    "UPDATE polls SET closed_at = $2 WHERE id = $1 AND closed_at IS NULL";

/// Whether a poll exists. Binds: poll id.
pub(crate) const POLL_EXISTS: &str = "SELECT id FROM polls WHERE id = $1";

/// The select of polls with their options and votes per option, one row per option, in the
/// shape of [`PollRow`](crate::row::PollRow); a condition and an order follow.
macro_rules! select_polls {
    ($condition:literal) => {
        concat!(
            "SELECT p.id AS poll_id, p.question, p.opens, p.closes, p.closed_at, ",
            "o.id AS option_id, o.name, o.color_code, ",
            "o.votes ",
            "FROM polls p JOIN poll_options o ON o.poll_id = p.id WHERE ",
            $condition,
            " ORDER BY p.id, o.position"
        )
    };
}

/// One poll, in the shape of [`PollRow`](crate::row::PollRow). Binds: poll id.
pub(crate) const POLL: &str = select_polls!("p.id = $1");

/// The newest polls, in the shape of [`PollRow`](crate::row::PollRow) (oldest first).
/// Binds: the most polls.
pub(crate) const NEWEST_POLLS: &str =
    select_polls!("p.id IN (SELECT id FROM polls ORDER BY id DESC LIMIT $1)");

/// Locks a poll's row for the rest of the transaction (a no-op update); returns its id, no row
/// without the poll. Binds: poll id.
pub(crate) const LOCK_POLL: &str =
    "UPDATE polls SET question = question WHERE id = $1 RETURNING id";

/// Sets a poll's question and closing time. Binds: poll id, question, closes.
pub(crate) const UPDATE_POLL: &str = "UPDATE polls SET question = $2, closes = $3 WHERE id = $1";

/// The polls open at an instant in which an account has not voted, in the shape of
/// [`PollRow`](crate::row::PollRow). Binds: account id, now.
pub(crate) const POLLS_TO_VOTE: &str = select_polls!(
    "p.closed_at IS NULL AND p.opens <= $2 AND p.closes > $2 \
     AND NOT EXISTS (SELECT 1 FROM poll_votes v WHERE v.poll_id = p.id AND v.account_id = $1)"
);

/// A poll's window, in the shape of [`WindowRow`](crate::row::WindowRow). Binds: poll id.
pub(crate) const POLL_WINDOW: &str = "SELECT opens, closes, closed_at FROM polls WHERE id = $1";

/// Whether an option belongs to a poll. Binds: poll id, option id.
pub(crate) const POLL_HAS_OPTION: &str =
    "SELECT id FROM poll_options WHERE poll_id = $1 AND id = $2";

/// Counts a vote recorded for an option. Binds: poll id, option id.
pub(crate) const COUNT_VOTE: &str =
    "UPDATE poll_options SET votes = votes + 1 WHERE poll_id = $1 AND id = $2";

/// The options an account voted for, in id order. Binds: account id.
pub(crate) const OPTIONS_VOTED: &str =
    "SELECT option_id FROM poll_votes WHERE account_id = $1 ORDER BY option_id";

/// Takes a vote of an account about to go off its option's count. Binds: option id.
pub(crate) const UNCOUNT_VOTE: &str = "UPDATE poll_options SET votes = votes - 1 WHERE id = $1";

/// Records a vote unless the account voted in the poll. Binds: poll id, account id, option id,
/// now.
pub(crate) const INSERT_VOTE: &str = "\
    INSERT INTO poll_votes (poll_id, account_id, option_id, created) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (poll_id, account_id) DO NOTHING";

// ---------------------------------------------------------------------------------------------
// Tournaments

/// Creates a tournament unless the code is taken. Binds: code, mode, opens, closes, capacity,
/// whitelist only, now.
pub(crate) const INSERT_TOURNAMENT: &str = "\
    INSERT INTO tournaments (code, mode, opens, closes, capacity, whitelist_only, created) \
    VALUES ($1, $2, $3, $4, $5, $6, $7) \
    ON CONFLICT (code) DO NOTHING";

/// Closes a tournament unless it is closed. Binds: code, now.
pub(crate) const CLOSE_TOURNAMENT: &str =
    "UPDATE tournaments SET closed_at = $2 WHERE code = $1 AND closed_at IS NULL";

/// A tournament, in the shape of [`TournamentRow`](crate::row::TournamentRow). Binds: code.
pub(crate) const TOURNAMENT: &str = "\
    SELECT code, mode, opens, closes, closed_at, capacity, entrants, whitelist_only \
    FROM tournaments WHERE code = $1";

/// The newest tournaments, in the shape of [`TournamentRow`](crate::row::TournamentRow), the
/// last created first. Binds: the most tournaments.
pub(crate) const NEWEST_TOURNAMENTS: &str = "\
    SELECT code, mode, opens, closes, closed_at, capacity, entrants, whitelist_only \
    FROM tournaments ORDER BY created DESC, code LIMIT $1";

/// Sets what an operator may edit of a tournament. Binds: code, mode, opens, closes, capacity,
/// whitelist only.
pub(crate) const UPDATE_TOURNAMENT: &str = "\
    UPDATE tournaments SET mode = $2, opens = $3, closes = $4, capacity = $5, \
    whitelist_only = $6 WHERE code = $1";

/// A tournament's entrants as friend-code parts (name, digits) with when they joined, in the
/// shape of [`EntrantRow`](crate::row::EntrantRow), in the order they joined. Binds: code.
pub(crate) const ENTRANTS: &str = "\
    SELECT a.friend_name, a.friend_digits, e.created FROM tournament_entries e \
    JOIN accounts a ON a.id = e.account_id WHERE e.code = $1 ORDER BY e.created, e.account_id";

/// Locks a tournament's row for the rest of the transaction (a no-op update); returns the
/// code, no row without the tournament. Binds: code.
pub(crate) const LOCK_TOURNAMENT: &str =
    "UPDATE tournaments SET capacity = capacity WHERE code = $1 RETURNING code";

/// Whether an account is on a tournament's whitelist. Binds: code, account id.
pub(crate) const IS_WHITELISTED: &str =
    "SELECT account_id FROM tournament_whitelist WHERE code = $1 AND account_id = $2";

/// Whether an account joined a tournament. Binds: code, account id.
pub(crate) const HAS_JOINED: &str =
    "SELECT account_id FROM tournament_entries WHERE code = $1 AND account_id = $2";

/// Records an entrant unless the account joined before. Binds: code, account id, now.
pub(crate) const INSERT_ENTRY: &str = "\
    INSERT INTO tournament_entries (code, account_id, created) VALUES ($1, $2, $3) \
    ON CONFLICT (code, account_id) DO NOTHING";

/// Takes a place while one is left; returns the new count, no row when full. The row lock it
/// takes makes concurrent joins of one tournament wait for each other. Binds: code.
pub(crate) const TAKE_PLACE: &str = "\
    UPDATE tournaments SET entrants = entrants + 1 WHERE code = $1 AND entrants < capacity \
    RETURNING entrants";

/// The codes of the tournaments an account entered, in code order. Binds: account id.
pub(crate) const TOURNAMENTS_ENTERED: &str =
    "SELECT code FROM tournament_entries WHERE account_id = $1 ORDER BY code";

/// Gives back the place of an entry about to go (with its account). Binds: code.
pub(crate) const FREE_PLACE: &str =
    "UPDATE tournaments SET entrants = entrants - 1 WHERE code = $1";

/// A tournament's whitelist as friend-code parts (name, digits), in the order added.
/// Binds: code.
pub(crate) const WHITELIST: &str = "\
    SELECT a.friend_name, a.friend_digits FROM tournament_whitelist w \
    JOIN accounts a ON a.id = w.account_id WHERE w.code = $1 ORDER BY w.added, w.account_id";

/// Empties a tournament's whitelist. Binds: code.
pub(crate) const CLEAR_WHITELIST: &str = "DELETE FROM tournament_whitelist WHERE code = $1";

/// Puts an account on a whitelist unless it is on it. Binds: code, account id, now.
pub(crate) const WHITELIST_ADD: &str = "\
    INSERT INTO tournament_whitelist (code, account_id, added) VALUES ($1, $2, $3) \
    ON CONFLICT (code, account_id) DO NOTHING";

/// Takes an account off a whitelist. Binds: code, account id.
pub(crate) const WHITELIST_REMOVE: &str =
    "DELETE FROM tournament_whitelist WHERE code = $1 AND account_id = $2";

// ---------------------------------------------------------------------------------------------
// Clans

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
/// [`ClanRow`](crate::row::ClanRow); a condition and an order follow. Every clan has a member
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

/// One clan, in the shape of [`ClanRow`](crate::row::ClanRow). Binds: clan id.
pub(crate) const CLAN: &str = select_clans!("c.id = $1", "m.id");

/// The clan of an account, in the shape of [`ClanRow`](crate::row::ClanRow).
/// Binds: account id.
pub(crate) const CLAN_OF: &str = select_clans!(
    "c.id = (SELECT clan_id FROM clan_members WHERE account_id = $1)",
    "m.id"
);

/// The clan of an account and the clans that invited it, its own first, in the shape of
/// [`ClanRow`](crate::row::ClanRow). Binds: account id.
pub(crate) const CLANS_FOR_ACCOUNT: &str = select_clans!(
    "c.id IN (SELECT clan_id FROM clan_members WHERE account_id = $1 \
     UNION SELECT clan_id FROM clan_invites WHERE account_id = $1)",
    "CASE WHEN c.id IN (SELECT clan_id FROM clan_members WHERE account_id = $1) THEN 0 ELSE 1 END, \
     c.id, m.id"
);

/// The largest clans (at most the bound limit), most members first, in the shape of
/// [`ClanRow`](crate::row::ClanRow). Binds: limit.
pub(crate) const LARGEST_CLANS: &str = select_clans!(
    "c.id IN (SELECT clan_id FROM clan_members GROUP BY clan_id \
     ORDER BY COUNT(*) DESC, clan_id LIMIT $1)",
    "(SELECT COUNT(*) FROM clan_members x WHERE x.clan_id = c.id) DESC, c.id, m.id"
);
