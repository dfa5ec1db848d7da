//! [`AccountLogStore`](safezone_core::store::AccountLogStore), written once for both stores:
//! the account log (renames, bans and deletions, which leaderboards follow next to the match
//! log), read and appended.
//!
//! A rename, ban or deletion also writes its domain event
//! ([`impl_events`](crate::events::impl_events)) in the same transaction.
//!
//! An entry is appended in the transaction of the change it records, after the account's row
//! was written (so locked), under a one-row lock held to the commit: log positions are then
//! handed out in commit order, and a reader following the log never misses an entry. Every
//! transaction takes its account row locks before this one, so they cannot deadlock over it.

use safezone_core::store::{AccountChange, AccountId, AccountLogEntry, StoreError};

use crate::row::friend_code;

/// An `account_log` row, as selected by
/// [`ACCOUNT_LOG`](crate::statements::account_log::ACCOUNT_LOG).
#[derive(sqlx::FromRow)]
pub(crate) struct AccountLogRow {
    seq: i64,
    account_id: i64,
    kind: String,
    friend_name: Option<String>,
    friend_digits: Option<i32>,
    banned: Option<bool>,
    results_through: Option<i64>,
}

impl AccountLogRow {
    /// The log entry; an unknown kind, or one without its values, is corrupt data.
    pub(crate) fn into_entry(self) -> Result<AccountLogEntry, StoreError> {
        let parts = (
            self.kind.as_str(),
            self.friend_name,
            self.friend_digits,
            self.banned,
            self.results_through,
        );
        let change = match parts {
            ("renamed", Some(name), Some(digits), _, _) => {
                AccountChange::Renamed(friend_code(&name, digits)?)
            }
            ("banned", _, _, Some(banned), _) => AccountChange::Banned(banned),
            ("deleted", _, _, _, _) => AccountChange::Deleted,
            ("results_removed", _, _, _, Some(through)) => {
                AccountChange::ResultsRemoved { through }
            }
            (kind, _, _, _, _) => {
                return Err(StoreError::Internal(format!(
                    "account log entry {} holds an invalid `{kind}` change",
                    self.seq
                )));
            }
        };
        Ok(AccountLogEntry {
            seq: self.seq,
            account: AccountId(self.account_id),
            change,
        })
    }
}

/// Implements [`AccountLogStore`](safezone_core::store::AccountLogStore) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), with `append` (one account log
/// entry, inside a write transaction) and `commit_logged`, in a child module `account_log` of
/// the calling one.
macro_rules! impl_account_log {
    ($store:ident, $db:ty) => {
        mod account_log {
            use async_trait::async_trait;
            use safezone_core::events::EventPayload;
            use safezone_core::store::{
                AccountChange, AccountId, AccountLogEntry, AccountLogStore, NewAuditEntry,
                StoreError,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::{events, operator, $store};
            use crate::account_log::AccountLogRow;
            use crate::error::store_error;
            use crate::statements::account_log as sql;

            #[async_trait]
            impl AccountLogStore for $store {
                async fn account_log(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<AccountLogEntry>, StoreError> {
                    let entries = async {
                        sqlx::query_as::<_, AccountLogRow>(sql::ACCOUNT_LOG)
                            .bind(after)
                            .bind(i64::from(limit))
                            .fetch_all(&self.pool)
                            .await?
                            .into_iter()
                            .map(|row| {
                                row.into_entry()
                                    .map_err(|err| sqlx::Error::Decode(Box::new(err)))
                            })
                            .collect::<Result<Vec<_>, sqlx::Error>>()
                    };
                    entries.await.map_err(store_error)
                }

                async fn account_log_head(&self) -> Result<i64, StoreError> {
                    sqlx::query_scalar::<_, i64>(sql::ACCOUNT_LOG_HEAD)
                        .fetch_one(&self.pool)
                        .await
                        .map_err(store_error)
                }
            }

            /// Ends a write transaction that changed `account` at `now` (when `changed`, that
            /// is, a row was written): appends `change` to the account log (and its event),
            /// then the operator's `audit` row when the change is an operator's, and commits;
            /// otherwise rolls back. Answers `changed`.
            pub(super) async fn commit_logged(
                mut tx: Transaction<'_, $db>,
                changed: bool,
                account: AccountId,
                change: &AccountChange,
                now: OffsetDateTime,
                audit: Option<&NewAuditEntry>,
            ) -> Result<bool, sqlx::Error> {
                if !changed {
                    tx.rollback().await?;
                    return Ok(false);
                }
                append(&mut tx, account, change, now).await?;
                operator::audited(&mut tx, audit).await?;
                tx.commit().await?;
                Ok(true)
            }

            /// Appends what happened to `account` at `now` to the account log, under the log's
            /// append lock (held until the transaction ends), and its domain event (a results
            /// removal has none: the operator's audit tells it). The caller has written (so
            /// locked) the account's row first.
            pub(super) async fn append(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
                change: &AccountChange,
                now: OffsetDateTime,
            ) -> Result<(), sqlx::Error> {
                let event = match change {
                    AccountChange::Renamed(code) => Some(EventPayload::Renamed {
                        friend_code: code.to_string(),
                    }),
                    AccountChange::Banned(banned) => Some(EventPayload::Banned { banned: *banned }),
                    AccountChange::Deleted => Some(EventPayload::Deleted),
                    AccountChange::ResultsRemoved { .. } => None,
                };
                events::append_for(tx, account, now, event.into_iter().collect()).await?;
                let (kind, name, digits, banned, through) = match change {
                    AccountChange::Renamed(code) => (
                        "renamed",
                        Some(code.name()),
                        Some(i32::from(code.digits())),
                        None,
                        None,
                    ),
                    AccountChange::Banned(banned) => ("banned", None, None, Some(*banned), None),
                    AccountChange::Deleted => ("deleted", None, None, None, None),
                    AccountChange::ResultsRemoved { through } => {
                        ("results_removed", None, None, None, Some(*through))
                    }
                };
                sqlx::query(sql::LOCK_ACCOUNT_LOG)
                    .execute(&mut **tx)
                    .await?;
                sqlx::query(sql::INSERT_ACCOUNT_LOG)
                    .bind(account.0)
                    .bind(kind)
                    .bind(name)
                    .bind(digits)
                    .bind(banned)
                    .bind(through)
                    .execute(&mut **tx)
                    .await?;
                Ok(())
            }
        }
    };
}

pub(crate) use impl_account_log;
