//! [`Store`] on PostgreSQL, for deployments with many stateless nodes on one database.
//!
//! [`Store`]: safezone_core::store::Store

use std::str::FromStr;

use safezone_core::DatabaseSettings;
use safezone_core::store::PoolStatus;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection, PgPool, Postgres, Transaction};

use crate::OpenError;
use crate::pools::pool_status;

static MIGRATOR: Migrator = sqlx::migrate!("./migrations/postgres");

/// The PostgreSQL store. Sign-ins run at READ COMMITTED: after `ON CONFLICT DO NOTHING` found a
/// concurrent sign-in's account, the next statement sees it committed.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to the `postgres://` or `postgresql://` URL of `database` and runs the
    /// migrations; the pool holds up to `database.max_connections`.
    pub async fn connect(database: &DatabaseSettings) -> Result<Self, OpenError> {
        // The URL is left out of messages: it may hold a password.
        let failed = |what: &str, err: &dyn std::fmt::Display| {
            OpenError(format!("could not {what} the PostgreSQL database: {err}"))
        };
        let options = PgConnectOptions::from_str(&database.url)
            .map_err(|err| failed("parse the URL of", &err))?;
        // Migrate on one direct connection first: a pool retries until its timeout and then
        // reports only that, where a connection tells why it failed (refused, no such database).
        let mut migrating = PgConnection::connect_with(&options)
            .await
            .map_err(|err| failed("connect to", &err))?;
        MIGRATOR
            .run(&mut migrating)
            .await
            .map_err(|err| failed("migrate", &err))?;
        // The schema is in place; a failed goodbye to the server changes nothing.
        let _ = migrating.close().await;
        let pool = crate::pools::options(database).connect_lazy_with(options);
        tracing::info!("PostgreSQL store open");
        Ok(Self { pool })
    }

    /// Opens a write transaction at the server's default isolation, READ COMMITTED.
    async fn begin(&self) -> Result<Transaction<'_, Postgres>, sqlx::Error> {
        self.pool.begin().await
    }

    /// The one pool (`main`).
    fn pool_statuses(&self) -> Vec<PoolStatus> {
        vec![pool_status("main", &self.pool)]
    }
}

crate::impl_store!(PostgresStore, sqlx::Postgres);
