//! The statements of the activity rollup: its cursor (a row of `event_consumers`), its hourly
//! and daily counters (`activity_hours`, `activity_days`) and the accounts' last sign-ins
//! (`account_last_sign_in`).

/// Creates the rollup's cursor at position 0 unless it exists. Binds: name, updated.
pub(crate) const NEW_CURSOR: &str = "\
    INSERT INTO event_consumers (name, position, updated) VALUES ($1, 0, $2) \
    ON CONFLICT (name) DO NOTHING";

/// The rollup's cursor position. Binds: name.
pub(crate) const CURSOR: &str = "SELECT position FROM event_consumers WHERE name = $1";

/// Moves the rollup's cursor, if it is still where the batch was read from: the first statement
/// of a batch's transaction, so that a second node applying the same batch waits for the
/// first's commit here and then moves nothing. Binds: name, from, to, updated.
pub(crate) const MOVE_CURSOR: &str = "\
    UPDATE event_consumers SET position = $3, updated = $4 WHERE name = $1 AND position = $2";

/// The start of the statement adding to the hourly counters; the rows (`metric`, `hour`,
/// `subject`, `value`, one per counter) and then [`ADD_COUNTS_END`] follow.
pub(crate) const ADD_COUNTS: &str = "\
    INSERT INTO activity_hours (metric, hour, subject, value) \
    SELECT metric, hour, subject, value FROM ";

/// The end of [`ADD_COUNTS`].
pub(crate) const ADD_COUNTS_END: &str = " AS u WHERE true \
    ON CONFLICT (metric, hour, subject) DO UPDATE SET value = activity_hours.value + excluded.value";

/// The start of the statement keeping the accounts' last sign-ins; the rows (`account`, `at`,
/// one per account) and then [`SIGN_INS_END`] follow.
pub(crate) const SIGN_INS: &str = "\
    INSERT INTO account_last_sign_in (account_id, at) SELECT account, at FROM ";

/// The end of [`SIGN_INS`]: a stored later sign-in stays.
pub(crate) const SIGN_INS_END: &str = " AS u WHERE true \
    ON CONFLICT (account_id) DO UPDATE SET at = excluded.at \
    WHERE excluded.at > account_last_sign_in.at";

/// The start of the statement forgetting deleted accounts' last sign-ins; the rows
/// (`account`) and then [`FORGET_SIGN_INS_END`] follow.
pub(crate) const FORGET_SIGN_INS: &str = "\
    DELETE FROM account_last_sign_in WHERE account_id IN (SELECT account FROM ";

/// The end of [`FORGET_SIGN_INS`].
pub(crate) const FORGET_SIGN_INS_END: &str = " AS u)";

/// The start of the statement adding to the daily counters; the rows (`metric`, `day`,
/// `subject`, `value`, one per counter) and then [`ADD_DAYS_END`] follow.
pub(crate) const ADD_DAYS: &str = "\
    INSERT INTO activity_days (metric, day, subject, value) \
    SELECT metric, day, subject, value FROM ";

/// The end of [`ADD_DAYS`].
pub(crate) const ADD_DAYS_END: &str = " AS u WHERE true \
    ON CONFLICT (metric, day, subject) DO UPDATE SET value = activity_days.value + excluded.value";

/// A metric's hourly counters over a range of hours, by hour then subject. Binds: metric, first
/// hour, hour past the last.
pub(crate) const HOURS: &str = "\
    SELECT hour, subject, value FROM activity_hours \
    WHERE metric = $1 AND hour >= $2 AND hour < $3 ORDER BY hour, subject";

/// A metric's daily counters over a range of days, by day then subject. Binds: metric, first
/// day, day past the last.
pub(crate) const DAYS: &str = "\
    SELECT day, subject, value FROM activity_days \
    WHERE metric = $1 AND day >= $2 AND day < $3 ORDER BY day, subject";

/// Deletes, oldest first, hourly counters before an hour. Binds: hour, limit.
pub(crate) const DELETE_HOURS: &str = "\
    DELETE FROM activity_hours WHERE (metric, hour, subject) IN \
        (SELECT metric, hour, subject FROM activity_hours WHERE hour < $1 \
         ORDER BY hour LIMIT $2)";

/// Deletes, oldest first, daily counters before a day. Binds: day, limit.
pub(crate) const DELETE_DAYS: &str = "\
    DELETE FROM activity_days WHERE (metric, day, subject) IN \
        (SELECT metric, day, subject FROM activity_days WHERE day < $1 \
         ORDER BY day LIMIT $2)";
