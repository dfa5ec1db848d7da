//! SQLite and PostgreSQL implementations of Safezone's storage traits.
//!
//! [`open`] picks the implementation from the database URL and runs the migrations:
//! `sqlite://path` (or `sqlite:path`) for [`SqliteStore`], `postgres://...` (or
//! `postgresql://...`) for [`PostgresStore`].

mod account_log;
mod accounts;
mod bulk;
mod community;
mod content;
mod economy;
mod error;
mod health;
mod match_batch;
mod matches;
mod micros;
mod pools;
mod postgres;
mod row;
mod sign_in;
mod sqlite;
mod statements;
#[cfg(feature = "test-support")]
pub mod test_support;

use std::sync::Arc;

use safezone_core::DatabaseSettings;
use safezone_core::store::Store;

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

/// Implements every area's trait, and so [`Store`], for `$store` over the sqlx database `$db`:
/// [`AccountStore`](safezone_core::store::AccountStore) ([`accounts`]),
/// [`EconomyStore`](safezone_core::store::EconomyStore) ([`economy`]),
/// [`CommunityStore`](safezone_core::store::CommunityStore) ([`community`]),
/// [`MatchStore`](safezone_core::store::MatchStore) ([`matches`](mod@matches)),
/// [`AccountLogStore`](safezone_core::store::AccountLogStore) ([`account_log`]),
/// [`ContentStore`](safezone_core::store::ContentStore) ([`content`](mod@content)) and
/// [`HealthStore`](safezone_core::store::HealthStore) ([`health`]). `$store` is a type with a
/// `pool` field, a `fn pool_statuses(&self) -> Vec<PoolStatus>` and an
/// `async fn begin(&self) -> Result<sqlx::Transaction<'_, DB>, sqlx::Error>` that opens a write
/// transaction the way its database needs.
///
/// The statements are shared ([`statements`]) and only the sqlx database type differs, so the
/// macros stamp out the same code for each store instead of a generic version spelling out
/// every bound the queries need. Each area's code goes in a child module of the calling one
/// named after the area, so its imports do not clash with the caller's and it still reaches the
/// store's private `pool` and `begin`.
macro_rules! impl_store {
    ($store:ident, $db:ty) => {
        crate::accounts::impl_accounts!($store, $db);
        crate::economy::impl_economy!($store, $db);
        crate::community::impl_community!($store, $db);
        crate::matches::impl_matches!($store, $db);
        crate::account_log::impl_account_log!($store, $db);
        crate::content::impl_content!($store);
        crate::health::impl_health!($store);
    };
}

pub(crate) use impl_store;

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
