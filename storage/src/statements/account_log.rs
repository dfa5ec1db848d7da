//! The statements of the account log.

/// Takes the account log's append lock until the transaction ends and counts the entries
/// appended.
pub(crate) const LOCK_ACCOUNT_LOG: &str =
    "UPDATE account_log_appender SET appended = appended + 1 WHERE id = 1";

/// Appends one entry to the account log. Binds: account id, kind (`renamed`, `banned`,
/// `deleted` or `results_removed`), friend name and digits (a rename's, else null), banned (a
/// ban's, else null), results through (a results removal's, else null).
pub(crate) const INSERT_ACCOUNT_LOG: &str = "\
    INSERT INTO account_log (account_id, kind, friend_name, friend_digits, banned, \
    results_through) VALUES ($1, $2, $3, $4, $5, $6)";

/// Account log entries after a position, in order, in the shape of
/// [`AccountLogRow`](crate::account_log::AccountLogRow). Binds: position, limit.
pub(crate) const ACCOUNT_LOG: &str = "\
    SELECT seq, account_id, kind, friend_name, friend_digits, banned, results_through \
    FROM account_log \
    WHERE seq > $1 ORDER BY seq LIMIT $2";

/// The largest position of the account log, 0 when it is empty.
pub(crate) const ACCOUNT_LOG_HEAD: &str =
    "SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) FROM account_log";
