//! The statements of match reports, progress, statistics and the match log, written once for
//! both databases (`$n` placeholders work in SQLite too).

/// Records a match id unless it is recorded, with no grants yet. Binds: match id, mode, started,
/// ended, reported, summary.
pub(crate) const INSERT_MATCH: &str = "\
    INSERT INTO matches (id, mode, started, ended, reported, summary, granted) \
    VALUES ($1, $2, $3, $4, $5, $6, '[]') \
    ON CONFLICT (id) DO NOTHING";

/// A recorded match's summary and grants. Binds: match id.
pub(crate) const MATCH_ANSWER: &str = "SELECT summary, granted FROM matches WHERE id = $1";

/// Stores what a match's changes granted. Binds: match id, grants.
pub(crate) const SAVE_MATCH_GRANTED: &str = "UPDATE matches SET granted = $2 WHERE id = $1";

/// Takes the match log's append lock until the transaction ends and counts the entries
/// appended. Binds: how many entries.
pub(crate) const LOCK_MATCH_LOG: &str =
    "UPDATE match_log_appender SET appended = appended + $1 WHERE id = 1";

/// The start of the statement appending to the match log, built with a `QueryBuilder`: the
/// `VALUES` list follows (match id, account id, mode, ended, placement, kills, seconds alive).
pub(crate) const INSERT_MATCH_LOG: &str = "\
    INSERT INTO match_log (match_id, account_id, mode, ended, placement, kills, time_alive) ";

/// The start of the statement setting progress counters, built with a `QueryBuilder`: the
/// `VALUES` list (account id, counter, value) and then [`SET_COUNTERS_END`] follow.
pub(crate) const SET_COUNTERS: &str = "INSERT INTO progress (account_id, counter, value) ";

/// The end of the statement setting progress counters: a counter already there is replaced.
pub(crate) const SET_COUNTERS_END: &str = " \
    ON CONFLICT (account_id, counter) DO UPDATE SET value = excluded.value";

/// The start of the statement adding statistics, built with a `QueryBuilder`: the `VALUES`
/// list (account id, mode, hour, stat key, value) and then [`ADD_STATS_END`] follow.
pub(crate) const ADD_STATS: &str =
    "INSERT INTO stat_hours (account_id, mode, hour, stat_key, value) ";

/// The end of the statement adding statistics: a bucket already there is added to.
pub(crate) const ADD_STATS_END: &str = " \
    ON CONFLICT (account_id, mode, hour, stat_key) DO UPDATE \
    SET value = stat_hours.value + excluded.value";

/// An account's statistics in a mode summed by stat key, from an hour on, as
/// `(stat key, total)`. Binds: account id, mode, first hour.
pub(crate) const STAT_TOTALS: &str = "\
    SELECT stat_key, CAST(SUM(value) AS BIGINT) AS total FROM stat_hours \
    WHERE account_id = $1 AND mode = $2 AND hour >= $3 \
    GROUP BY stat_key ORDER BY stat_key";

/// Match log entries after a position, in order, in the shape of
/// [`MatchLogRow`](crate::row::MatchLogRow). Binds: position, limit.
pub(crate) const MATCH_LOG: &str = "\
    SELECT seq, account_id, mode, ended, placement, kills, time_alive FROM match_log \
    WHERE seq > $1 ORDER BY seq LIMIT $2";

/// Accounts with at least one match log entry after an id, in id order, in the shape of
/// [`BoardPlayerRow`](crate::row::BoardPlayerRow). Binds: id, limit.
pub(crate) const BOARD_PLAYERS: &str = "\
    SELECT id, friend_name, friend_digits, is_banned FROM accounts \
    WHERE id > $1 AND EXISTS (SELECT 1 FROM match_log WHERE match_log.account_id = accounts.id) \
    ORDER BY id LIMIT $2";

/// The start of the query for named accounts in the shape of
/// [`BoardPlayerRow`](crate::row::BoardPlayerRow), built with a `QueryBuilder`: the list of
/// account ids follows.
pub(crate) const BOARD_PLAYERS_OF: &str =
    "SELECT id, friend_name, friend_digits, is_banned FROM accounts WHERE id IN (";

/// The start of the query for accounts' progress versions, experience, levels and bans as
/// `(id, version, experience, level, is_banned)`, built with a `QueryBuilder`: the list of account ids
/// follows, then `)`.
pub(crate) const PROGRESS_ACCOUNTS: &str =
    "SELECT id, progress_version, experience, level, is_banned FROM accounts WHERE id IN (";

/// The start of the query for accounts' progress counters as `(account id, counter, value)`;
/// the list of account ids follows, then `)`.
pub(crate) const PROGRESS_COUNTERS: &str =
    "SELECT account_id, counter, value FROM progress WHERE account_id IN (";

/// The start of the query for accounts' reward-track passes as `(account id, track id)`; the
/// list of account ids follows, then `)`.
pub(crate) const PROGRESS_TRACK_PASSES: &str =
    "SELECT account_id, track_id FROM track_passes WHERE account_id IN (";

/// The start of the query for accounts' owned items as `(account id, item id)`; the list of
/// account ids follows, then `)`.
pub(crate) const PROGRESS_ITEMS: &str =
    "SELECT account_id, item_id FROM licenses WHERE account_id IN (";
