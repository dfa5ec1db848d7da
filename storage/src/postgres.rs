//! [`Store`] on PostgreSQL, for deployments with many stateless nodes on one database.
//!
//! [`Store`]: safezone_core::store::Store

use std::str::FromStr;
use std::sync::Arc;

use safezone_core::DatabaseSettings;
use safezone_core::database::{DatabaseError, Migration, Migrations, Schema};
use safezone_core::store::{AccountChanges, PoolStatus};
use sqlx::migrate::{Migrate, Migrator};
use sqlx::pool::PoolConnection;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection, PgPool, Postgres, Transaction};

use crate::OpenError;
use crate::pools::pool_status;
use crate::purchases::Purchases;
use crate::schema::{database_error, migrate_error, migrations, newly_applied};
use crate::sign_in::{ExistingSignIns, FirstTries, NewAccounts};

static MIGRATOR: Migrator = sqlx::migrate!("./migrations/postgres");

/// The PostgreSQL store. Sign-ins run at READ COMMITTED: after `ON CONFLICT DO NOTHING` found a
/// concurrent sign-in's account, the next statement sees it committed.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
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

impl PostgresStore {
    /// Connects to the `postgres://` or `postgresql://` URL of `database` and runs the
    /// migrations; the pool holds up to `database.max_connections`.
    pub async fn connect(database: &DatabaseSettings) -> Result<Self, OpenError> {
        Self::open(database, Schema::Migrate)
            .await
            .map_err(|err| OpenError(err.to_string()))
    }

    /// Connects to the database of `database`'s URL: with [`Schema::Migrate`], running the
    /// migrations first; with [`Schema::Current`], changing nothing and refusing pending
    /// migrations ([`DatabaseError::SchemaBehind`]). The pool holds up to
    /// `database.max_connections`.
    pub async fn open(database: &DatabaseSettings, schema: Schema) -> Result<Self, DatabaseError> {
        let options = connect_options(database)?;
        // Check or migrate on one direct connection first: a pool retries until its timeout and
        // then reports only that, where a connection tells why it failed (refused, no such
        // database).
        let mut connection = direct_connection(&options).await?;
        match schema {
            Schema::Migrate => MIGRATOR
                .run(&mut connection)
                .await
                .map_err(|err| migrate_error("could not migrate the PostgreSQL database", &err))?,
            Schema::Current => {
                let pending = applied_migrations(&mut connection).await?.pending;
                if !pending.is_empty() {
                    return Err(DatabaseError::SchemaBehind(pending));
                }
            }
        }
        // The schema is in place; a failed goodbye to the server changes nothing.
        let _ = connection.close().await;
        let pool = crate::pools::options(database).connect_lazy_with(options);
        tracing::info!("PostgreSQL store open");
        Ok(Self {
            pool,
            existing_sign_ins: ExistingSignIns::default(),
            new_accounts: NewAccounts::default(),
            first_tries: FirstTries::default(),
            purchases: Purchases::default(),
            changes: Arc::default(),
        })
    }

    /// The migrations applied to the database of `database`'s URL and those pending, without
    /// changing it.
    pub(crate) async fn migrations(
        database: &DatabaseSettings,
    ) -> Result<Migrations, DatabaseError> {
        let mut connection = direct_connection(&connect_options(database)?).await?;
        let migrations = applied_migrations(&mut connection).await;
        // Read; a failed goodbye to the server changes nothing.
        let _ = connection.close().await;
        migrations
    }

    /// Applies the pending migrations to the database of `database`'s URL and answers those
    /// applied.
    pub(crate) async fn migrate(
        database: &DatabaseSettings,
    ) -> Result<Vec<Migration>, DatabaseError> {
        let mut connection = direct_connection(&connect_options(database)?).await?;
        let before = applied_migrations(&mut connection).await?;
        MIGRATOR
            .run(&mut connection)
            .await
            .map_err(|err| migrate_error("could not migrate the PostgreSQL database", &err))?;
        let after = applied_migrations(&mut connection).await?;
        // Migrated; a failed goodbye to the server changes nothing.
        let _ = connection.close().await;
        Ok(newly_applied(before, &after))
    }

    /// Opens a write transaction at the server's default isolation, READ COMMITTED.
    async fn begin(&self) -> Result<Transaction<'_, Postgres>, sqlx::Error> {
        self.pool.begin().await
    }

    /// A connection for a write of one statement (committed on its own).
    async fn write_connection(&self) -> Result<PoolConnection<Postgres>, sqlx::Error> {
        self.pool.acquire().await
    }

    /// The one pool (`main`).
    fn pool_statuses(&self) -> Vec<PoolStatus> {
        vec![pool_status("main", &self.pool)]
    }
}

/// The connection options of `database`'s URL. Messages leave the URL out: it may hold a
/// password.
fn connect_options(database: &DatabaseSettings) -> Result<PgConnectOptions, DatabaseError> {
    PgConnectOptions::from_str(&database.url).map_err(|err| {
        DatabaseError::Failed(format!(
            "could not parse the URL of the PostgreSQL database: {err}"
        ))
    })
}

/// One connection outside any pool. Its error names the server (host and port), the database
/// and the user, never the password.
async fn direct_connection(options: &PgConnectOptions) -> Result<PgConnection, DatabaseError> {
    PgConnection::connect_with(options).await.map_err(|err| {
        let context = format!(
            "could not connect to the PostgreSQL database `{}` at {}:{} as `{}`",
            options.get_database().unwrap_or(options.get_username()),
            options.get_host(),
            options.get_port(),
            options.get_username(),
        );
        database_error(&context, &err)
    })
}

/// The migrations applied to the database of `connection` (none without the migrations
/// table) and those pending.
async fn applied_migrations(connection: &mut PgConnection) -> Result<Migrations, DatabaseError> {
    let context = "could not read the migrations of the PostgreSQL database";
    let table: &str = &MIGRATOR.table_name;
    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(table)
        .fetch_one(&mut *connection)
        .await
        .map_err(|err| database_error(context, &err))?;
    if !exists {
        return Ok(migrations(&MIGRATOR, &[]));
    }
    let applied = connection
        .list_applied_migrations(table)
        .await
        .map_err(|err| migrate_error(context, &err))?;
    Ok(migrations(&MIGRATOR, &applied))
}

crate::impl_store!(PostgresStore, sqlx::Postgres);
