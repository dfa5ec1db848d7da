//! SQLite and PostgreSQL implementations of Safezone's storage traits.
//!
//! [`open`] picks the implementation from the database URL and runs the migrations:
//! `sqlite://path` (or `sqlite:path`) for [`SqliteStore`], `postgres://...` (or
//! `postgresql://...`) for [`PostgresStore`].

mod account_log;
mod accounts;
mod activity;
mod board_snapshots;
mod bulk;
mod clans;
mod content;
mod economy;
mod error;
mod events;
mod friends;
mod group_commit;
mod health;
mod ledger_history;
mod match_batch;
mod match_browser;
mod matches;
mod micros;
mod operator;
mod operator_sessions;
mod packed;
mod player_directory;
mod polls;
mod pools;
mod postgres;
mod presence;
mod purchases;
mod refusable;
mod row;
mod schema;
mod sign_in;
mod sqlite;
mod statements;
#[cfg(feature = "test-support")]
pub mod test_support;
mod tournaments;
mod webhook_replays;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use safezone_core::DatabaseSettings;
use safezone_core::database::{Database, DatabaseError, Migration, Migrations, Schema};
use safezone_core::store::Store;

pub use postgres::PostgresStore;
pub use sqlite::{SqliteStore, sqlite_settings};

/// Implements every area's trait, and so [`Store`], for `$store` over the sqlx database `$db`:
/// [`AccountStore`](safezone_core::store::AccountStore) ([`accounts`]),
/// [`EconomyStore`](safezone_core::store::EconomyStore) ([`economy`], with [`purchases`]),
/// [`PollStore`](safezone_core::store::PollStore) ([`polls`]),
/// [`TournamentStore`](safezone_core::store::TournamentStore) ([`tournaments`]),
/// [`ClanStore`](safezone_core::store::ClanStore) ([`clans`]), with what the three share
/// ([`refusable`]),
/// [`MatchStore`](safezone_core::store::MatchStore) ([`matches`](mod@matches)),
/// [`AccountLogStore`](safezone_core::store::AccountLogStore) ([`account_log`]),
/// [`BoardSnapshotStore`](safezone_core::store::BoardSnapshotStore) ([`board_snapshots`]),
/// [`ContentStore`](safezone_core::store::ContentStore) ([`content`](mod@content)),
/// [`OperatorSessionStore`](safezone_core::store::OperatorSessionStore)
/// ([`operator_sessions`]),
/// [`EventStore`](safezone_core::store::EventStore) ([`events`](mod@events)),
/// [`HealthStore`](safezone_core::store::HealthStore) ([`health`]),
/// [`PlayerDirectory`](safezone_core::store::PlayerDirectory) ([`player_directory`]),
/// [`LedgerHistory`](safezone_core::store::LedgerHistory) ([`ledger_history`]),
/// [`ActivityStore`](safezone_core::store::ActivityStore) ([`activity`]) and
/// [`MatchBrowser`](safezone_core::store::MatchBrowser) ([`match_browser`]),
/// [`FriendStore`](safezone_core::store::FriendStore) ([`friends`]) and
/// [`PresenceStore`](safezone_core::store::PresenceStore) ([`presence`]). `$store` is a type with a
/// `pool` field, the `changes`, `existing_sign_ins`, `new_accounts` and `purchases` fields, a
/// `fn pool_statuses(&self) -> Vec<PoolStatus>` and an
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
        crate::refusable::impl_refusable!($db);
        crate::polls::impl_polls!($store, $db);
        crate::tournaments::impl_tournaments!($store, $db);
        crate::clans::impl_clans!($store, $db);
        crate::matches::impl_matches!($store, $db);
        crate::purchases::impl_purchases!($store, $db);
        crate::account_log::impl_account_log!($store, $db);
        crate::board_snapshots::impl_board_snapshots!($store);
        crate::content::impl_content!($store);
        crate::operator::impl_operator!($store, $db);
        crate::operator_sessions::impl_operator_sessions!($store);
        crate::events::impl_events!($store, $db);
        crate::webhook_replays::impl_webhook_replays!($store);
        crate::health::impl_health!($store);
        crate::player_directory::impl_player_directory!($store, $db);
        crate::ledger_history::impl_ledger_history!($store);
        crate::activity::impl_activity!($store, $db);
        crate::match_browser::impl_match_browser!($store);
        crate::friends::impl_friends!($store, $db);
        crate::presence::impl_presence!($store, $db);
    };
}

pub(crate) use impl_store;

/// The URL forms [`open`] accepts, for error messages.
const ACCEPTED: &str = "sqlite://PATH, sqlite:PATH, postgres://... or postgresql://...";

/// Opens the store named by a database URL (`sqlite://path` or `postgres://...`) with the
/// default pool limits ([`DatabaseSettings::new`]), creating the SQLite file on first start and
/// running the migrations.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let directory = tempfile::tempdir().unwrap();
/// let url = format!("sqlite://{}", directory.path().join("game.db").display());
/// let store = safezone_storage::open(&url).await.unwrap();
/// store.ping().await.unwrap();
/// # });
/// ```
pub async fn open(database_url: &str) -> Result<Arc<dyn Store>, OpenError> {
    open_with(&DatabaseSettings::new(database_url)).await
}

/// Opens the store that `database` names, with its pool limits, creating the SQLite file on
/// first start and running the migrations.
pub async fn open_with(database: &DatabaseSettings) -> Result<Arc<dyn Store>, OpenError> {
    Databases
        .open(database, Schema::Migrate)
        .await
        .map_err(|err| OpenError(err.to_string()))
}

/// The databases the server binaries use, SQLite or PostgreSQL by the URL's scheme, as their
/// command line needs them ([`Database`]): opening the store, migrations, backups.
#[derive(Debug, Clone, Copy, Default)]
pub struct Databases;

/// The dialects a URL may name.
enum Dialect {
    Sqlite,
    Postgres,
}

/// The dialect of `url`'s scheme.
fn dialect(url: &str) -> Result<Dialect, DatabaseError> {
    if url.starts_with("sqlite:") {
        Ok(Dialect::Sqlite)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Dialect::Postgres)
    } else {
        // Only the scheme is shown: the rest of a URL may hold a password.
        let scheme = url.split_once(':').map_or("(none)", |(scheme, _)| scheme);
        Err(DatabaseError::Failed(format!(
            "unsupported database URL scheme `{scheme}`: expected {ACCEPTED}"
        )))
    }
}

#[async_trait(?Send)]
impl Database for Databases {
    async fn open(
        &self,
        settings: &DatabaseSettings,
        schema: Schema,
    ) -> Result<Arc<dyn Store>, DatabaseError> {
        Ok(match dialect(&settings.url)? {
            Dialect::Sqlite => Arc::new(SqliteStore::open(settings, schema).await?),
            Dialect::Postgres => Arc::new(PostgresStore::open(settings, schema).await?),
        })
    }

    async fn migrations(&self, settings: &DatabaseSettings) -> Result<Migrations, DatabaseError> {
        match dialect(&settings.url)? {
            Dialect::Sqlite => SqliteStore::migrations(settings).await,
            Dialect::Postgres => PostgresStore::migrations(settings).await,
        }
    }

    async fn migrate(&self, settings: &DatabaseSettings) -> Result<Vec<Migration>, DatabaseError> {
        match dialect(&settings.url)? {
            Dialect::Sqlite => SqliteStore::migrate(settings).await,
            Dialect::Postgres => PostgresStore::migrate(settings).await,
        }
    }

    async fn backup(&self, settings: &DatabaseSettings, to: &Path) -> Result<(), DatabaseError> {
        match dialect(&settings.url)? {
            Dialect::Sqlite => SqliteStore::backup(settings, to).await,
            Dialect::Postgres => Err(DatabaseError::Failed(
                "`backup` copies SQLite databases only: back PostgreSQL up with `pg_dump` \
                 (see the README's Operating chapter)"
                    .to_owned(),
            )),
        }
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
