//! SQLite and PostgreSQL implementations of Safezone's storage traits.
//!
//! [`open`] picks the implementation from the database URL and runs the migrations:
//! `sqlite://path` (or `sqlite:path`) for [`SqliteStore`], `postgres://...` (or
//! `postgresql://...`) for [`PostgresStore`].

mod account_log_impl;
mod bulk;
mod change_impl;
mod community_impl;
mod error;
mod match_batch;
mod match_impl;
mod micros;
mod pools;
mod postgres;
mod row;
mod sign_in;
mod sqlite;
mod statements;
mod store_impl;
#[cfg(feature = "test-support")]
pub mod test_support;

use std::sync::Arc;

use safezone_core::DatabaseSettings;
use safezone_core::store::Store;

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

/// The URL forms [`open`] accepts, for error messages.
const ACCEPTED: &str = "sqlite://PATH, sqlite:PATH, postgres://... or postgresql://...";

/// Opens the store named by a database URL (`sqlite://path` or `postgres://...`) with the
/// default pool limits ([`DatabaseSettings::new`]), creating the SQLite file on first start and
/// running the migrations.
pub async fn open(database_url: &str) -> Result<Arc<dyn Store>, OpenError> {
    open_with(&DatabaseSettings::new(database_url)).await
}

/// Opens the store that `database` names, with its pool limits, creating the SQLite file on
/// first start and running the migrations.
pub async fn open_with(database: &DatabaseSettings) -> Result<Arc<dyn Store>, OpenError> {
    let url = database.url.as_str();
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::connect(database).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PostgresStore::connect(database).await?))
    } else {
        // Only the scheme is shown: the rest of a URL may hold a password.
        let scheme = url.split_once(':').map_or("(none)", |(scheme, _)| scheme);
        Err(OpenError(format!(
            "unsupported database URL scheme `{scheme}`: expected {ACCEPTED}"
        )))
    }
}

/// Why a store could not be opened.
#[derive(Debug)]
pub struct OpenError(pub String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}
