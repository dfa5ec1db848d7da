//! What administering a database takes, which `safezone-storage` provides for SQLite and
//! PostgreSQL and the command line uses: how a node opens its database ([`DatabaseSettings`]),
//! opening the store (migrating or refusing a schema that is behind), the migrations applied and
//! pending, applying them, and an online copy.

use std::fmt;
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::store::Store;

/// The databases a server binary can use. `safezone_storage::Databases` implements it for
/// SQLite and PostgreSQL. Its futures need not be `Send`: the command line awaits them on its
/// own task.
#[async_trait(?Send)]
pub trait Database {
    /// Opens the store `settings` names. With [`Schema::Migrate`] it applies the pending
    /// migrations first (creating a missing SQLite file); with [`Schema::Current`] it creates
    /// and changes nothing and fails with [`DatabaseError::SchemaBehind`] while migrations are
    /// pending.
    async fn open(
        &self,
        settings: &DatabaseSettings,
        schema: Schema,
    ) -> Result<Arc<dyn Store>, DatabaseError>;

    /// The migrations applied to the database and those pending, without changing it (a
    /// missing SQLite file has every migration pending).
    async fn migrations(&self, settings: &DatabaseSettings) -> Result<Migrations, DatabaseError>;

    /// Applies the pending migrations (creating a missing SQLite file) and answers those it
    /// applied, in order.
    async fn migrate(&self, settings: &DatabaseSettings) -> Result<Vec<Migration>, DatabaseError>;

    /// Writes an online, consistent copy of the database to the new file `to`.
    async fn backup(&self, settings: &DatabaseSettings, to: &Path) -> Result<(), DatabaseError>;
}

/// What opening the store does with the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// Apply the pending migrations first.
    Migrate,
    /// Change nothing; refuse a schema with migrations pending.
    Current,
}

/// One migration: its version and description (from its file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// The version, e.g. `1` for `0001_accounts.sql`.
    pub version: i64,
    /// The description, e.g. `accounts`.
    pub description: String,
}

impl fmt::Display for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04} {}", self.version, self.description)
    }
}

/// The migrations of a database, in version order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Migrations {
    /// Applied to the database (a version this binary does not know is described as such).
    pub applied: Vec<Migration>,
    /// Known to this binary and not applied yet.
    pub pending: Vec<Migration>,
}

/// Why a database could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseError {
    /// The database did not answer (refused, unreachable, starting up): trying again later
    /// may work.
    Unreachable(String),
    /// The schema is missing or behind: these migrations are pending.
    SchemaBehind(Vec<Migration>),
    /// Anything else (a bad URL, a failed statement, a refused backup).
    Failed(String),
}

impl fmt::Display for DatabaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unreachable(message) | Self::Failed(message) => f.write_str(message),
            Self::SchemaBehind(pending) => {
                write!(
                    f,
                    "the database schema is behind: {} migration(s) pending (",
                    pending.len()
                )?;
                for (index, migration) in pending.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{migration}")?;
                }
                f.write_str("); run `migrate apply` first")
            }
        }
    }
}

impl std::error::Error for DatabaseError {}

/// How a node opens its database: the URL and the limits of its connection pool.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseSettings {
    /// `sqlite://path` or `postgres://user@host/db` (may hold a password).
    pub url: String,
    /// The most connections the pool holds: PostgreSQL's pool, SQLite's readers (SQLite's
    /// writes always take its one writer connection).
    pub max_connections: NonZeroU32,
    /// How long a request waits for a pooled connection (or a new one) before the database
    /// counts as unavailable.
    pub acquire_timeout: Duration,
}

impl DatabaseSettings {
    /// The most pooled connections unless told: enough for the requests in flight of a node
    /// on a few cores, far below PostgreSQL's default `max_connections` of 100.
    pub const DEFAULT_MAX_CONNECTIONS: NonZeroU32 = NonZeroU32::new(16).expect("16 is not 0");

    /// The time to wait for a pooled connection unless told.
    pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

    /// The database at `url`, with the default pool limits.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            acquire_timeout: Self::DEFAULT_ACQUIRE_TIMEOUT,
        }
    }
}

impl std::fmt::Debug for DatabaseSettings {
    /// Shows the URL's scheme only: the rest may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.url.split_once(':').map_or("", |(scheme, _)| scheme);
        f.debug_struct("DatabaseSettings")
            .field("url", &format_args!("{scheme}:.."))
            .field("max_connections", &self.max_connections)
            .field("acquire_timeout", &self.acquire_timeout)
            .finish()
    }
}
