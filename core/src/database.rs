//! What administering a database takes, which `safezone-storage` provides for SQLite and
//! PostgreSQL and the command line uses: opening the store (migrating or refusing a schema that
//! is behind), the migrations applied and pending, applying them, and an online copy.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use crate::DatabaseSettings;
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
