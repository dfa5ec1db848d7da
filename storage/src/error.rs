//! Turning sqlx errors into [`StoreError`]s, and records that break their rules into sqlx
//! errors.

use safezone_core::store::StoreError;
use sqlx::error::DatabaseError;
use sqlx::postgres::PgDatabaseError;
use sqlx::sqlite::SqliteError;

/// Connection, pool-timeout and I/O failures (and databases refusing work for lack of
/// resources or locks) are [`StoreError::Unavailable`]; everything else is
/// [`StoreError::Internal`].
pub(crate) fn store_error(err: sqlx::Error) -> StoreError {
    if is_unavailable(&err) {
        StoreError::Unavailable(err.to_string())
    } else {
        StoreError::Internal(err.to_string())
    }
}

/// A stored record that breaks its rules (corrupt data met in a query), as the sqlx error that
/// ends the operation reading it.
pub(crate) fn decode(error: StoreError) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(error))
}

/// Whether `err` is a connection, pool-timeout or I/O failure, or a database refusing work for
/// lack of resources or locks (or shutting down): trying again later may work.
pub(crate) fn is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => database_unavailable(db.as_ref()),
        _ => false,
    }
}

/// Whether a statement failed because a unique constraint or index rejected it.
pub(crate) fn is_unique_violation(err: &sqlx::Error) -> bool {
    err.as_database_error()
        .is_some_and(|db| db.is_unique_violation())
}

/// Whether a transaction failed only because a concurrent one got in its way, so that trying
/// it again may succeed: a unique violation, or PostgreSQL's deadlock (40P01) and serialization
/// failure (40001).
pub(crate) fn is_retryable_conflict(err: &sqlx::Error) -> bool {
    if is_unique_violation(err) {
        return true;
    }
    err.as_database_error()
        .and_then(|db| db.try_downcast_ref::<PgDatabaseError>())
        .is_some_and(|pg| matches!(pg.code(), "40P01" | "40001"))
}

/// PostgreSQL connection exceptions (class 08), insufficient resources (53) and shutdowns
/// (57P); SQLite's `BUSY` and `LOCKED` (after the busy timeout ran out).
fn database_unavailable(err: &dyn DatabaseError) -> bool {
    if let Some(pg) = err.try_downcast_ref::<PgDatabaseError>() {
        let code = pg.code();
        return ["08", "53", "57P"]
            .iter()
            .any(|class| code.starts_with(class));
    }
    if err.try_downcast_ref::<SqliteError>().is_some() {
        const SQLITE_BUSY: i32 = 5;
        const SQLITE_LOCKED: i32 = 6;
        let extended = err.code().and_then(|code| code.parse::<i32>().ok());
        return extended.is_some_and(|code| matches!(code & 0xff, SQLITE_BUSY | SQLITE_LOCKED));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_trouble_is_unavailable() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        for err in [
            sqlx::Error::Io(refused),
            sqlx::Error::PoolTimedOut,
            sqlx::Error::PoolClosed,
        ] {
            assert!(matches!(store_error(err), StoreError::Unavailable(_)));
        }
    }

    #[test]
    fn other_failures_are_internal() {
        let err = sqlx::Error::ColumnNotFound("coins".to_owned());
        assert!(matches!(store_error(err), StoreError::Internal(why) if why.contains("coins")));
    }
}
