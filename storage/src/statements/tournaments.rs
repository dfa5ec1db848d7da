//! The statements of tournaments, their entrants and whitelists.

/// The id of the account with a friend code (the name in any letter case). Binds: name, digits.
pub(crate) const ACCOUNT_ID_BY_FRIEND_CODE: &str =
    "SELECT id FROM accounts WHERE lower(friend_name) = lower($1) AND friend_digits = $2";

/// Creates a tournament unless the code is taken. Binds: code, mode, opens, closes, capacity,
/// whitelist only, now.
pub(crate) const INSERT_TOURNAMENT: &str = "\
    INSERT INTO tournaments (code, mode, opens, closes, capacity, whitelist_only, created) \
    VALUES ($1, $2, $3, $4, $5, $6, $7) \
    ON CONFLICT (code) DO NOTHING";

/// Closes a tournament unless it is closed. Binds: code, now.
pub(crate) const CLOSE_TOURNAMENT: &str =
    "UPDATE tournaments SET closed_at = $2 WHERE code = $1 AND closed_at IS NULL";

/// A tournament, in the shape of [`TournamentRow`](crate::tournaments::TournamentRow). Binds: code.
pub(crate) const TOURNAMENT: &str = "\
    SELECT code, mode, opens, closes, closed_at, capacity, entrants, whitelist_only \
    FROM tournaments WHERE code = $1";

/// The newest tournaments, in the shape of [`TournamentRow`](crate::tournaments::TournamentRow), the
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
/// shape of [`EntrantRow`](crate::tournaments::EntrantRow), in the order they joined. Binds: code.
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
