//! [`Store`] on SQLite: one file in WAL mode, created on first start.
//!
//! [`Store`]: safezone_core::store::Store

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use safezone_core::DatabaseSettings;
use safezone_core::database::{DatabaseError, Migration, Migrations, Schema};
use safezone_core::store::{AccountChanges, PoolStatus};
use sqlx::migrate::{Migrate, Migrator};
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection, Sqlite, SqliteConnection, SqlitePool, Transaction};

use crate::OpenError;
use crate::pools::pool_status;
use crate::purchases::Purchases;
use crate::schema::{all_pending, database_error, migrate_error, migrations, newly_applied};
use crate::sign_in::{ExistingSignIns, FirstTries, NewAccounts};

static MIGRATOR: Migrator = sqlx::migrate!("./migrations/sqlite");

/// How long a writer waits for another to finish before the database counts as unavailable.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many pages the write-ahead log takes before a commit copies them back into the database
/// file (SQLite's default is 1,000, 4 MiB). A page many commits write (an account's, the last
/// page of an index or of the ledger) is written to the log by each of them but copied back once
/// per checkpoint: at 16,384 pages (64 MiB) a busy node copies it about 16 times less often.
const WAL_AUTOCHECKPOINT_PAGES: u32 = 16_384;

/// The size, in bytes, the write-ahead log's file is cut back to after a checkpoint: at most
/// what [`WAL_AUTOCHECKPOINT_PAGES`] lets it grow to, so the file stays bounded on disk.
const WAL_SIZE_LIMIT_BYTES: u64 = 64 * 1024 * 1024;

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
    /// The existing accounts' sign-ins waiting to be written together.
    existing_sign_ins: ExistingSignIns,
    /// The first sign-ins waiting to be written together.
    new_accounts: NewAccounts,
    /// Whether a sign-in unknown in memory tries creating its account or reading it first.
    first_tries: FirstTries,
    /// The purchases waiting to be applied together.
    purchases: Purchases,
    /// Moved on after each change of an account's view this store commits.
    changes: Arc<AccountChanges>,
}

impl SqliteStore {
    /// Opens (creating it if missing) the database file of the `sqlite://path` or `sqlite:path`
    /// URL of `database` and runs the migrations.
    pub async fn connect(database: &DatabaseSettings) -> Result<Self, OpenError> {
        Self::open(database, Schema::Migrate)
            .await
            .map_err(|err| OpenError(err.to_string()))
    }

    /// Opens the database file of `database`'s URL: with [`Schema::Migrate`], creating it if
    /// missing and running the migrations; with [`Schema::Current`], creating and changing
    /// nothing and refusing a missing file or pending migrations
    /// ([`DatabaseError::SchemaBehind`]).
    pub async fn open(database: &DatabaseSettings, schema: Schema) -> Result<Self, DatabaseError> {
        let url = database.url.as_str();
        let failed = |what: &str, err: &sqlx::Error| {
            database_error(
                &format!("could not {what} the SQLite database `{url}`"),
                err,
            )
        };
        let options = connect_options(url)?;
        let options = match schema {
            Schema::Migrate => options.create_if_missing(true),
            Schema::Current if !file_exists(&options) => {
                return Err(DatabaseError::SchemaBehind(all_pending(&MIGRATOR)));
            }
            Schema::Current => options,
        };
        let pool = crate::pools::options(database)
            .connect_with(options.clone())
            .await
            .map_err(|err| failed("open", &err))?;
        match schema {
            Schema::Migrate => MIGRATOR.run(&pool).await.map_err(|err| {
                migrate_error(
                    &format!("could not migrate the SQLite database `{url}`"),
                    &err,
                )
            })?,
            Schema::Current => {
                let mut connection = pool.acquire().await.map_err(|err| failed("open", &err))?;
                let pending = applied_migrations(&mut connection, url).await?.pending;
                if !pending.is_empty() {
                    return Err(DatabaseError::SchemaBehind(pending));
                }
            }
        }
        let writer = crate::pools::options(database)
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(|err| failed("open", &err))?;
        tracing::info!(url, "SQLite store open");
        Ok(Self {
            pool,
            writer,
            existing_sign_ins: ExistingSignIns::default(),
            new_accounts: NewAccounts::default(),
            first_tries: FirstTries::default(),
            purchases: Purchases::default(),
            changes: Arc::default(),
        })
    }

    /// The migrations applied to the database file of `database`'s URL and those pending,
    /// without creating or changing it (a missing file has every migration pending).
    pub(crate) async fn migrations(
        database: &DatabaseSettings,
    ) -> Result<Migrations, DatabaseError> {
        let url = database.url.as_str();
        let options = connect_options(url)?;
        if !file_exists(&options) {
            return Ok(migrations(&MIGRATOR, &[]));
        }
        let mut connection = SqliteConnection::connect_with(&options)
            .await
            .map_err(|err| {
                database_error(&format!("could not open the SQLite database `{url}`"), &err)
            })?;
        applied_migrations(&mut connection, url).await
    }

    /// Applies the pending migrations to the database file of `database`'s URL (creating it
    /// if missing) and answers those applied.
    pub(crate) async fn migrate(
        database: &DatabaseSettings,
    ) -> Result<Vec<Migration>, DatabaseError> {
        let url = database.url.as_str();
        let options = connect_options(url)?.create_if_missing(true);
        let mut connection = SqliteConnection::connect_with(&options)
            .await
            .map_err(|err| {
                database_error(&format!("could not open the SQLite database `{url}`"), &err)
            })?;
        let before = applied_migrations(&mut connection, url).await?;
        MIGRATOR.run(&mut connection).await.map_err(|err| {
            migrate_error(
                &format!("could not migrate the SQLite database `{url}`"),
                &err,
            )
        })?;
        let after = applied_migrations(&mut connection, url).await?;
        Ok(newly_applied(before, &after))
    }

    /// Writes an online, consistent copy of the database file of `database`'s URL to the new
    /// file `to` with `VACUUM INTO` (SQLite refuses a file that exists and is not empty).
    pub(crate) async fn backup(
        database: &DatabaseSettings,
        to: &Path,
    ) -> Result<(), DatabaseError> {
        let url = database.url.as_str();
        let options = connect_options(url)?;
        if !file_exists(&options) {
            return Err(DatabaseError::Failed(format!(
                "there is no SQLite database at `{url}`"
            )));
        }
        let target = to.to_str().ok_or_else(|| {
            DatabaseError::Failed(format!("{} is not a UTF-8 path", to.display()))
        })?;
        let mut connection = SqliteConnection::connect_with(&options)
            .await
            .map_err(|err| {
                database_error(&format!("could not open the SQLite database `{url}`"), &err)
            })?;
        sqlx::query("VACUUM INTO ?1")
            .bind(target)
            .execute(&mut connection)
            .await
            .map_err(|err| {
                database_error(&format!("could not copy the SQLite database `{url}`"), &err)
            })?;
        Ok(())
    }

    /// Opens a write transaction on the writer connection with `BEGIN IMMEDIATE`: it takes the
    /// write lock at once, so it never fails when it would upgrade from reading to writing.
    async fn begin(&self) -> Result<Transaction<'_, Sqlite>, sqlx::Error> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    /// The writer connection, for a write of one statement (committed on its own), in turn
    /// with the write transactions.
    async fn write_connection(&self) -> Result<PoolConnection<Sqlite>, sqlx::Error> {
        self.writer.acquire().await
    }

    /// The readers' pool (`main`) and the writer's (`writer`).
    fn pool_statuses(&self) -> Vec<PoolStatus> {
        vec![
            pool_status("main", &self.pool),
            pool_status("writer", &self.writer),
        ]
    }
}

/// The connection options of the SQLite URL `url`, without creating a missing file.
fn connect_options(url: &str) -> Result<SqliteConnectOptions, DatabaseError> {
    let options = SqliteConnectOptions::from_str(url).map_err(|err| {
        DatabaseError::Failed(format!(
            "could not parse the URL of the SQLite database `{url}`: {err}"
        ))
    })?;
    Ok(sqlite_settings(options)
        .foreign_keys(true)
        .row_buffer_size(ROW_BUFFER_SIZE))
}

/// `options` with the settings every connection of Safezone's SQLite store has: a write-ahead
/// log copied back into the database file every 16,384 pages (64 MiB), synchronous `NORMAL` (a
/// commit survives a crash of the process; a power cut may lose the last ones, never corrupting
/// the file), a writer waiting up to 5 s for another, and temporary tables and sorts kept in
/// memory instead of files. Public so that the benchmarks' baselines open their databases the
/// same way.
pub fn sqlite_settings(options: SqliteConnectOptions) -> SqliteConnectOptions {
    options
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(BUSY_TIMEOUT)
        .pragma("wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES.to_string())
        .pragma("journal_size_limit", WAL_SIZE_LIMIT_BYTES.to_string())
        .pragma("temp_store", "memory")
}

/// Whether the file `options` name exists (an in-memory database always does).
fn file_exists(options: &SqliteConnectOptions) -> bool {
    let file = options.get_filename();
    file.as_os_str() == ":memory:" || file.exists()
}

/// The migrations applied to the database of `connection` (none without the migrations
/// table) and those pending.
async fn applied_migrations(
    connection: &mut SqliteConnection,
    url: &str,
) -> Result<Migrations, DatabaseError> {
    let context = format!("could not read the migrations of the SQLite database `{url}`");
    let table: &str = &MIGRATOR.table_name;
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
    )
    .bind(table)
    .fetch_one(&mut *connection)
    .await
    .map_err(|err| database_error(&context, &err))?;
    if !exists {
        return Ok(migrations(&MIGRATOR, &[]));
    }
    let applied = connection
        .list_applied_migrations(table)
        .await
        .map_err(|err| migrate_error(&context, &err))?;
    Ok(migrations(&MIGRATOR, &applied))
}

crate::impl_store!(SqliteStore, sqlx::Sqlite);
