//! What the database holds after the run, read directly with sqlx.

use sqlx::postgres::{PgPool, PgRow};
use sqlx::sqlite::{SqlitePool, SqliteRow};

/// The database, read directly with sqlx.
pub(super) enum Database {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Database {
    pub(super) async fn connect(url: &str) -> Self {
        if url.starts_with("sqlite:") {
            Self::Sqlite(
                SqlitePool::connect(url)
                    .await
                    .expect("the SQLite file opens"),
            )
        } else {
            Self::Postgres(PgPool::connect(url).await.expect("PostgreSQL connects"))
        }
    }

    /// Every row of `sql`.
    async fn all<T>(&self, sql: &'static str) -> Vec<T>
    where
        T: Send + Unpin + for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow>,
    {
        let rows = match self {
            Self::Sqlite(pool) => sqlx::query_as(sql).fetch_all(pool).await,
            Self::Postgres(pool) => sqlx::query_as(sql).fetch_all(pool).await,
        };
        rows.unwrap_or_else(|err| panic!("`{sql}` fails: {err}"))
    }

    /// SQLite's own check of the file finds nothing wrong (PostgreSQL recovers by itself).
    async fn assert_intact(&self) {
        if let Self::Sqlite(pool) = self {
            let verdict: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
                .fetch_all(pool)
                .await
                .expect("the integrity check runs");
            assert_eq!(verdict, ["ok"], "the SQLite file is damaged");
        }
    }

    /// Runs `sql`, one statement or (SQLite and PostgreSQL alike) several without parameters.
    pub(super) async fn execute(&self, sql: String) {
        let done = match self {
            Self::Sqlite(pool) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()))
                .execute(pool)
                .await
                .map(drop),
            Self::Postgres(pool) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()))
                .execute(pool)
                .await
                .map(drop),
        };
        done.unwrap_or_else(|err| panic!("`{sql}` fails: {err}"));
    }

    /// The whole number `sql` answers.
    pub(super) async fn number(&self, sql: &'static str) -> i64 {
        let number = match self {
            Self::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
            Self::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
        };
        number.unwrap_or_else(|err| panic!("`{sql}` fails: {err}"))
    }

    pub(super) async fn close(self) {
        match self {
            Self::Sqlite(pool) => pool.close().await,
            Self::Postgres(pool) => pool.close().await,
        }
    }
}

/// A ledger row: account, currency, delta, balance after, reason, reference.
type LedgerRow = (i64, String, i64, i64, String, String);

/// The tables the checks read, every row.
pub(super) struct Stored {
    /// Account id, coins, gems.
    pub(super) accounts: Vec<(i64, i64, i64)>,
    /// Account id, experience, level.
    pub(super) levels: Vec<(i64, i64, i64)>,
    /// In id order.
    pub(super) ledger: Vec<LedgerRow>,
    /// Account, key, fingerprint, what the change granted (JSON).
    pub(super) keys: Vec<(i64, String, String, String)>,
    /// Account, item, quantity.
    pub(super) licenses: Vec<(i64, i64, i64)>,
    /// Account, pack, quantity.
    pub(super) packs: Vec<(i64, i64, i64)>,
    /// Account, claim key.
    pub(super) claims: Vec<(i64, String)>,
    /// Account, track.
    pub(super) passes: Vec<(i64, i64)>,
    /// Account, counter, value.
    pub(super) progress: Vec<(i64, String, i64)>,
    /// The domain events' outbox in id order: account, kind, payload (JSON).
    pub(super) events: Vec<(Option<i64>, String, String)>,
    /// The operator audit in id order: action, reason, result.
    pub(super) audit: Vec<(String, String, String)>,
}

impl Stored {
    /// Every row the checks need, after checking that the SQLite file is not corrupt.
    pub(super) async fn read(url: &str) -> Self {
        let database = Database::connect(url).await;
        database.assert_intact().await;
        let stored = Self {
            accounts: database
                .all("SELECT id, coins, gems FROM accounts ORDER BY id")
                .await,
            levels: database
                .all("SELECT id, experience, level FROM accounts ORDER BY id")
                .await,
            ledger: database
                .all(
                    "SELECT account_id, currency, delta, balance_after, reason, reference \
                     FROM ledger ORDER BY id",
                )
                .await,
            keys: database
                .all("SELECT account_id, idem_key, fingerprint, granted FROM idempotency_keys")
                .await,
            licenses: database
                .all("SELECT account_id, item_id, quantity FROM licenses")
                .await,
            packs: database
                .all("SELECT account_id, pack_id, quantity FROM pack_stock")
                .await,
            claims: database
                .all("SELECT account_id, claim_key FROM claims")
                .await,
            passes: database
                .all("SELECT account_id, track_id FROM track_passes")
                .await,
            progress: database
                .all("SELECT account_id, counter, value FROM progress")
                .await,
            events: database
                .all("SELECT account_id, kind, payload FROM events ORDER BY id")
                .await,
            audit: database
                .all("SELECT action, reason, result FROM operator_audit ORDER BY id")
                .await,
        };
        database.close().await;
        stored
    }
}
