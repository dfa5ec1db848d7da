//! [`Store`] on SQLite: one file in WAL mode, created on first start.
//!
//! [`Store`]: safezone_core::store::Store

use std::str::FromStr;
use std::time::Duration;

use safezone_core::DatabaseSettings;
use safezone_core::store::PoolStatus;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::OpenError;
use crate::pools::pool_status;

static MIGRATOR: Migrator = sqlx::migrate!("./migrations/sqlite");

/// How long a writer waits for another to finish before the database counts as unavailable.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many rows a connection's worker thread may hand over before the task reading them takes
/// any (sqlx's default is 50). A statement's rows cross from the worker thread to the task
/// through this queue; when it is full the worker waits for the reader, and the two threads then
/// take turns row by row, a context switch each. Room for a match report's progress rows (a few
/// per player) keeps the worker running to the end of its statement.
const ROW_BUFFER_SIZE: usize = 4096;

/// The SQLite store. SQLite takes one writer at a time: write transactions go through one
/// dedicated connection, so concurrent writers wait their turn in order for that connection
/// (instead of polling SQLite's busy handler, whose growing sleeps let a waiting writer starve),
/// and open with `BEGIN IMMEDIATE`. Reads use a pool of their own, of up to
/// `max_connections` connections.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating it if missing) the database file of the `sqlite://path` or `sqlite:path`
    /// URL of `database` and runs the migrations.
    pub async fn connect(database: &DatabaseSettings) -> Result<Self, OpenError> {
        let url = database.url.as_str();
        let failed = |what: &str, err: &dyn std::fmt::Display| {
            OpenError(format!(
                "could not {what} the SQLite database `{url}`: {err}"
            ))
        };
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|err| failed("parse the URL of", &err))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT)
            .row_buffer_size(ROW_BUFFER_SIZE);
        let pool = crate::pools::options(database)
            .connect_with(options.clone())
            .await
            .map_err(|err| failed("open", &err))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|err| failed("migrate", &err))?;
        let writer = crate::pools::options(database)
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(|err| failed("open", &err))?;
        tracing::info!(url, "SQLite store open");
        Ok(Self { pool, writer })
    }

    /// Opens a write transaction on the writer connection with `BEGIN IMMEDIATE`: it takes the
    /// write lock at once, so it never fails when it would upgrade from reading to writing.
    async fn begin(&self) -> Result<Transaction<'_, Sqlite>, sqlx::Error> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    /// The readers' pool (`main`) and the writer's (`writer`).
    fn pool_statuses(&self) -> Vec<PoolStatus> {
        vec![
            pool_status("main", &self.pool),
            pool_status("writer", &self.writer),
        ]
    }
}

crate::impl_store!(SqliteStore, sqlx::Sqlite);
