//! [`Store`] on SQLite: one file in WAL mode, created on first start.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use safezone_core::domain::{FriendCode, KeyHash};
use safezone_core::store::{
    Account, AccountId, KeySession, NewSignIn, SignedIn, Store, StoreError,
};
use sqlx::SqlitePool;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use time::OffsetDateTime;

use crate::error::{is_unique_violation, store_error};
use crate::micros::to_micros;
use crate::row::{AccountRow, SessionRow};
use crate::sign_in::{Attempt, sign_in_with};
use crate::{OpenError, sql};

static MIGRATOR: Migrator = sqlx::migrate!("./migrations/sqlite");

/// How long a writer waits for another to finish before the database counts as unavailable.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for a pooled connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// The SQLite store. Writes open with `BEGIN IMMEDIATE`, so concurrent writers queue on the
/// busy timeout instead of failing.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating it if missing) the database file of a `sqlite://path` or `sqlite:path`
    /// URL and runs the migrations.
    pub async fn connect(url: &str) -> Result<Self, OpenError> {
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
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(|err| failed("open", &err))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|err| failed("migrate", &err))?;
        tracing::info!(url, "SQLite store open");
        Ok(Self { pool })
    }

    /// One sign-in transaction, offering `code` if the identity has no account yet.
    async fn attempt(
        &self,
        sign_in: &NewSignIn,
        code: Option<&FriendCode>,
    ) -> Result<Attempt, sqlx::Error> {
        let now = to_micros(sign_in.now);
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let created = match code {
            Some(code) => {
                let inserted = sqlx::query_scalar::<_, i64>(sql::INSERT_ACCOUNT)
                    .bind(&sign_in.provider)
                    .bind(&sign_in.identifier)
                    .bind(&sign_in.name)
                    .bind(&sign_in.avatar)
                    .bind(&sign_in.email)
                    .bind(code.name())
                    .bind(i32::from(code.digits()))
                    .bind(now)
                    .fetch_optional(&mut *tx)
                    .await;
                match inserted {
                    Err(err) if is_unique_violation(&err) => {
                        tx.rollback().await?;
                        return Ok(Attempt::CodeTaken);
                    }
                    other => other?,
                }
            }
            None => None,
        };
        let id = match created {
            Some(id) => id,
            None => {
                let existing = sqlx::query_scalar::<_, i64>(sql::ACCOUNT_ID)
                    .bind(&sign_in.provider)
                    .bind(&sign_in.identifier)
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(id) = existing else {
                    tx.rollback().await?;
                    return Ok(Attempt::NoAccount);
                };
                id
            }
        };
        sqlx::query(sql::INSERT_KEY)
            .bind(sign_in.key_hash.as_str())
            .bind(id)
            .bind(now)
            .bind(to_micros(sign_in.key_expires))
            .execute(&mut *tx)
            .await?;
        let account = sqlx::query_as::<_, AccountRow>(sql::ACCOUNT_BY_ID)
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Attempt::SignedIn(Box::new(account), created.is_some()))
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query(sql::PING)
            .execute(&self.pool)
            .await
            .map_err(store_error)?;
        Ok(())
    }

    async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError> {
        sign_in_with(&sign_in.friend_code_candidates, |code| {
            self.attempt(&sign_in, code)
        })
        .await
    }

    async fn session(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError> {
        sqlx::query_as::<_, SessionRow>(sql::SESSION)
            .bind(key.as_str())
            .bind(to_micros(now))
            .fetch_optional(&self.pool)
            .await
            .map_err(store_error)?
            .map(SessionRow::into_session)
            .transpose()
    }

    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        sqlx::query_as::<_, AccountRow>(sql::ACCOUNT_BY_ID)
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await
            .map_err(store_error)?
            .map(AccountRow::into_account)
            .transpose()
    }

    async fn revoke_key(&self, key: &KeyHash) -> Result<bool, StoreError> {
        let done = sqlx::query(sql::DELETE_KEY)
            .bind(key.as_str())
            .execute(&self.pool)
            .await
            .map_err(store_error)?;
        Ok(done.rows_affected() > 0)
    }

    async fn revoke_all_keys(&self, account: AccountId) -> Result<u64, StoreError> {
        let done = sqlx::query(sql::DELETE_KEYS_OF_ACCOUNT)
            .bind(account.0)
            .execute(&self.pool)
            .await
            .map_err(store_error)?;
        Ok(done.rows_affected())
    }

    async fn delete_account(&self, account: AccountId) -> Result<bool, StoreError> {
        let done = sqlx::query(sql::DELETE_ACCOUNT)
            .bind(account.0)
            .execute(&self.pool)
            .await
            .map_err(store_error)?;
        Ok(done.rows_affected() > 0)
    }
}
