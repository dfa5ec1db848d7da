//! The statements of match reports, progress, statistics and the match log. A statement that
//! reads a batch of rows is written in two parts around them ([`crate::bulk`]), which it calls
//! `u`.

use safezone_core::store::{BALANCE_MAX, PACKS_MAX};

/// Records a match id unless it is recorded, with no grants yet; the summary is kept deflated
/// (`packed_summary`, [`crate::packed`]), the text columns empty. Binds: match id, mode,
/// started, ended, reported, packed summary.
pub(crate) const INSERT_MATCH: &str = "\
    INSERT INTO matches (id, mode, started, ended, reported, summary, granted, packed_summary) \
    VALUES ($1, $2, $3, $4, $5, '', '[]', $6) \
    ON CONFLICT (id) DO NOTHING";

/// A recorded match's summary and grants, as `(summary, granted, packed summary, packed
/// granted)`: a match recorded before they were packed has its texts and no packed values.
/// Binds: match id.
pub(crate) const MATCH_ANSWER: &str =
    "SELECT summary, granted, packed_summary, packed_granted FROM matches WHERE id = $1";

/// Stores what a match's changes granted, deflated. Binds: match id, packed grants.
pub(crate) const SAVE_MATCH_GRANTED: &str = "UPDATE matches SET packed_granted = $2 WHERE id = $1";

/// Takes the match log's append lock until the transaction ends and counts the entries
/// appended. Binds: how many entries.
pub(crate) const LOCK_MATCH_LOG: &str =
    "UPDATE match_log_appender SET appended = appended + $1 WHERE id = 1";

/// The start of the statement appending to the match log; the rows (`match_id`, `account`,
/// `mode`, `ended`, `placement`, `kills`, `time_alive`) and then [`FROM_ROWS_END`] follow.
pub(crate) const INSERT_MATCH_LOG: &str = "\
    INSERT INTO match_log (match_id, account_id, mode, ended, placement, kills, time_alive) \
    SELECT match_id, account, mode, ended, placement, kills, time_alive FROM ";

/// The end of a statement writing rows read `FROM` a batch of rows with nothing else to say
/// (`WHERE true` lets SQLite read an `ON CONFLICT` that may follow as the upsert's).
pub(crate) const FROM_ROWS_END: &str = " AS u WHERE true";

/// The start of the statement setting progress counters; the rows (`account`, `counter`,
/// `value`) and then [`SET_COUNTERS_END`] follow.
pub(crate) const SET_COUNTERS: &str = "\
    INSERT INTO progress (account_id, counter, value) SELECT account, counter, value FROM ";

/// The end of the statement setting progress counters: a counter already there is replaced.
pub(crate) const SET_COUNTERS_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, counter) DO UPDATE SET value = excluded.value";

/// The start of the statement adding statistics; the rows (`account`, `mode`, `hour`,
/// `stat_key`, `value`) and then [`ADD_STATS_END`] follow.
pub(crate) const ADD_STATS: &str = "\
    INSERT INTO stat_hours (account_id, mode, hour, stat_key, value) \
    SELECT account, mode, hour, stat_key, value FROM ";

/// The end of the statement adding statistics: a bucket already there is added to.
pub(crate) const ADD_STATS_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, mode, hour, stat_key) DO UPDATE \
    SET value = stat_hours.value + excluded.value";

/// The start of the statement locking the rows of accounts in id order and telling which
/// are banned, as `(id, is_banned)`; the condition on their ids, then [`LOCK_ACCOUNTS_END`]
/// and the database's locking clause follow.
pub(crate) const LOCK_ACCOUNTS: &str = "SELECT id, is_banned FROM accounts WHERE id";

/// The end of the statement locking accounts, before the locking clause.
pub(crate) const LOCK_ACCOUNTS_END: &str = " ORDER BY id";

/// The start of the statement recording claims, answering those recorded now as
/// `(account id, claim key)`; the rows (`account`, `claim_key`, `created`) and then
/// [`RECORD_CLAIMS_END`] follow.
pub(crate) const RECORD_CLAIMS: &str = "\
    INSERT INTO claims (account_id, claim_key, created) SELECT account, claim_key, created FROM ";

/// The end of the statement recording claims: a claim recorded before is left as it is.
pub(crate) const RECORD_CLAIMS_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, claim_key) DO NOTHING RETURNING account_id, claim_key";

/// The start of the statement giving items, answering those given now as
/// `(account id, item id)`; the rows (`account`, `item`, `created`) and then
/// [`GIVE_LICENSES_END`] follow.
pub(crate) const GIVE_LICENSES: &str = "\
    INSERT INTO licenses (account_id, item_id, quantity, created) \
    SELECT account, item, 1, created FROM ";

/// The end of the statement giving items: an item owned already is left as it is.
pub(crate) const GIVE_LICENSES_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, item_id) DO NOTHING RETURNING account_id, item_id";

/// The start of the statement giving unopened packs, answering the kinds given as
/// `(account id, pack id)`; the rows (`account`, `pack`, `quantity`) and then
/// [`give_packs_end`] follow.
pub(crate) const GIVE_PACKS: &str = "\
    INSERT INTO pack_stock (account_id, pack_id, quantity) SELECT account, pack, quantity FROM ";

/// The end of the statement giving packs: a kind is given only up to [`PACKS_MAX`] packs.
pub(crate) fn give_packs_end() -> String {
    format!(
        " AS u WHERE quantity <= {PACKS_MAX} \
        ON CONFLICT (account_id, pack_id) DO UPDATE \
        SET quantity = pack_stock.quantity + excluded.quantity \
        WHERE pack_stock.quantity + excluded.quantity <= {PACKS_MAX} \
        RETURNING account_id, pack_id"
    )
}

/// The quantity of a kind of unopened pack an account has (no row: none).
/// Binds: account id, pack id.
pub(crate) const PACK_STOCK: &str =
    "SELECT quantity FROM pack_stock WHERE account_id = $1 AND pack_id = $2";

/// The start of the statement giving track passes, answering those given as
/// `(account id, track id)`; the rows (`account`, `track`, `created`) and then
/// [`GIVE_PASSES_END`] follow.
pub(crate) const GIVE_PASSES: &str = "\
    INSERT INTO track_passes (account_id, track_id, created) SELECT account, track, created FROM ";

/// The end of the statement giving track passes: a pass owned already is left as it is.
pub(crate) const GIVE_PASSES_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id, track_id) DO NOTHING RETURNING account_id, track_id";

/// The start of the statement writing the accounts of a report, answering those written as
/// `(id, coins, gems)` after it; the rows (`account`, `touched`, `expected_version` or null,
/// `versions`, `experience_added`, `new_level` or null, `coins_added`, `gems_added`) and then
/// [`write_accounts_end`] follow.
pub(crate) const WRITE_ACCOUNTS: &str = "\
    UPDATE accounts SET updated = u.touched, \
        progress_version = progress_version + u.versions, \
        experience = experience + u.experience_added, \
        level = COALESCE(u.new_level, level), \
        coins = coins + u.coins_added, gems = gems + u.gems_added \
    FROM ";

/// The end of the statement writing accounts: an account is written only at the progress
/// version its plan requires and when no balance goes past [`BALANCE_MAX`] or below zero.
pub(crate) fn write_accounts_end() -> String {
    format!(
        " AS u WHERE id = u.account \
        AND (u.expected_version IS NULL OR progress_version = u.expected_version) \
        AND coins <= {BALANCE_MAX} - u.coins_added AND gems <= {BALANCE_MAX} - u.gems_added \
        AND coins >= -u.coins_added AND gems >= -u.gems_added \
        RETURNING id, coins, gems"
    )
}

/// An account's progress version, coins and gems. Binds: account id.
pub(crate) const ACCOUNT_CHECKED: &str =
    "SELECT progress_version, coins, gems FROM accounts WHERE id = $1";

/// The start of the statement writing ledger rows; the rows (`account`, `currency`, `delta`,
/// `balance_after`, `reason`, `reference`, `created`) and then [`FROM_ROWS_END`] follow.
pub(crate) const INSERT_LEDGER: &str = "\
    INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created) \
    SELECT account, currency, delta, balance_after, reason, reference, created FROM ";

/// An account's statistics in a mode summed by stat key, from an hour on, as
/// `(stat key, total)`. Binds: account id, mode, first hour.
pub(crate) const STAT_TOTALS: &str = "\
    SELECT stat_key, CAST(SUM(value) AS BIGINT) AS total FROM stat_hours \
    WHERE account_id = $1 AND mode = $2 AND hour >= $3 \
    GROUP BY stat_key ORDER BY stat_key";

/// Deletes, oldest first, the statistics buckets of hours before an hour. Binds: hour, limit.
pub(crate) const DELETE_STAT_HOURS: &str = "\
    DELETE FROM stat_hours WHERE (account_id, mode, hour, stat_key) IN \
        (SELECT account_id, mode, hour, stat_key FROM stat_hours WHERE hour < $1 \
         ORDER BY hour LIMIT $2)";

/// Match log entries after a position, in order, in the shape of
/// [`MatchLogRow`](crate::matches::MatchLogRow). Binds: position, limit.
pub(crate) const MATCH_LOG: &str = "\
    SELECT seq, account_id, mode, ended, placement, kills, time_alive FROM match_log \
    WHERE seq > $1 ORDER BY seq LIMIT $2";

/// An account's match log entries after a position up to another (included), in order, in the
/// shape of [`MatchLogRow`](crate::matches::MatchLogRow). Binds: account id, after, through.
pub(crate) const RESULTS_OF: &str = "\
    SELECT seq, account_id, mode, ended, placement, kills, time_alive FROM match_log \
    WHERE account_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq";

/// An account's newest match log entries, newest first, in the shape of
/// [`MatchLogRow`](crate::matches::MatchLogRow). Binds: account id, limit.
pub(crate) const RECENT_RESULTS: &str = "\
    SELECT seq, account_id, mode, ended, placement, kills, time_alive FROM match_log \
    WHERE account_id = $1 ORDER BY seq DESC LIMIT $2";

/// The position of an account's last match log entry, 0 when it has none. Binds: account id.
pub(crate) const LAST_RESULT_OF: &str =
    "SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) FROM match_log WHERE account_id = $1";

/// Deletes an account's match log entries up to a position. Binds: account id, through.
pub(crate) const DELETE_RESULTS_OF: &str =
    "DELETE FROM match_log WHERE account_id = $1 AND seq <= $2";

/// The start of the query for named accounts in the shape of
/// [`BoardPlayerRow`](crate::matches::BoardPlayerRow); the condition on their ids follows.
pub(crate) const BOARD_PLAYERS_OF: &str =
    "SELECT id, friend_name, friend_digits, is_banned FROM accounts WHERE id";

/// The start of the query for accounts' progress, a row per account, on SQLite: `(id,
/// version, experience, level, is_banned, counters, passes, items)`, its counters a JSON object
/// (`{"quest/12": 3}`) and its reward-track passes and owned items JSON arrays of ids, each
/// gathered by the database from its table's range of the account. The condition on the
/// accounts' ids follows.
pub(crate) const SQLITE_PROGRESS_OF: &str = "\
    SELECT id, progress_version, experience, level, is_banned, \
        (SELECT json_group_object(counter, value) FROM progress \
         WHERE progress.account_id = accounts.id) AS counters, \
        (SELECT json_group_array(track_id) FROM track_passes \
         WHERE track_passes.account_id = accounts.id) AS passes, \
        (SELECT json_group_array(item_id) FROM licenses \
         WHERE licenses.account_id = accounts.id) AS items \
    FROM accounts WHERE id";

/// The start of the query for accounts' progress versions, experience, levels and bans as
/// `(id, version, experience, level, is_banned)`; the condition on their ids follows.
pub(crate) const PROGRESS_ACCOUNTS: &str =
    "SELECT id, progress_version, experience, level, is_banned FROM accounts WHERE id";

/// The start of the query for accounts' progress counters as `(account id, counter, value)`;
/// the condition on their ids follows.
pub(crate) const PROGRESS_COUNTERS: &str =
    "SELECT account_id, counter, value FROM progress WHERE account_id";

/// The start of the query for accounts' reward-track passes as `(account id, track id)`; the
/// condition on their ids follows.
pub(crate) const PROGRESS_TRACK_PASSES: &str =
    "SELECT account_id, track_id FROM track_passes WHERE account_id";

/// The start of the query for accounts' owned items as `(account id, item id)`; the condition
/// on their ids follows.
pub(crate) const PROGRESS_ITEMS: &str = "SELECT account_id, item_id FROM licenses WHERE account_id";
