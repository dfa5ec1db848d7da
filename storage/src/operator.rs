//! [`OperatorStore`](safezone_core::store::OperatorStore), written once for both stores: the
//! operator tokens (tables `operator_tokens`) and their append-only audit (`operator_audit`).

use safezone_core::store::{OperatorRole, OperatorToken, StoreError};

use crate::micros::from_micros;

/// An operator token as read, by [`crate::operator`] and [`crate::operator_sessions`]: id, name,
/// role, created at, revoked at.
pub(crate) type OperatorTokenRow = (i64, String, String, i64, Option<i64>);

/// The token of an [`OperatorTokenRow`]; an unknown role is corrupt data.
pub(crate) fn operator_token(row: OperatorTokenRow) -> Result<OperatorToken, StoreError> {
    let (id, name, role, created_at, revoked_at) = row;
    Ok(OperatorToken {
        id,
        name,
        role: OperatorRole::parse(&role).ok_or_else(|| {
            StoreError::Internal(format!("operator token {id} has the role `{role}`"))
        })?,
        created_at: from_micros(created_at)?,
        revoked_at: revoked_at.map(from_micros).transpose()?,
    })
}

/// Implements [`OperatorStore`](safezone_core::store::OperatorStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `append` and `audited` (an audit
/// row inside a write transaction), in a child module `operator` of the calling one.
macro_rules! impl_operator {
    ($store:ident, $db:ty) => {
        mod operator {
            use async_trait::async_trait;
            use safezone_core::store::{
                AuditEntry, AuditFilter, NewAuditEntry, NewOperatorToken, OperatorStore,
                OperatorToken, StoreError,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::{events, $store};
            use crate::error::store_error;
            use crate::micros::{from_micros, to_micros};
            use crate::operator::{OperatorTokenRow, operator_token};
            use crate::statements::operator as sql;

            /// An audit row as read: id, token name, token id, at, action, target, reason,
            /// result.
            type AuditRow = (i64, String, i64, i64, String, String, String, String);

            fn audit_entry(row: AuditRow) -> Result<AuditEntry, StoreError> {
                let (id, token_name, token, at, action, target, reason, result) = row;
                Ok(AuditEntry {
                    id,
                    token_name,
                    entry: NewAuditEntry {
                        token,
                        at: from_micros(at)?,
                        action,
                        target,
                        reason,
                        result,
                    },
                })
            }

            /// Appends `entry` to the audit with its `operator_action` event, in the write
            /// transaction `tx`; answers the row's id. An operator's change calls it in its own
            /// transaction (through [`audited`]), so that the change and its row commit together.
            pub(super) async fn append(
                tx: &mut Transaction<'_, $db>,
                entry: &NewAuditEntry,
            ) -> Result<i64, sqlx::Error> {
                let id = sqlx::query_scalar::<_, i64>(sql::APPEND_AUDIT)
                    .bind(entry.token)
                    .bind(to_micros(entry.at))
                    .bind(&entry.action)
                    .bind(&entry.target)
                    .bind(&entry.reason)
                    .bind(&entry.result)
                    .fetch_one(&mut **tx)
                    .await?;
                let (account, event) = safezone_core::events::operator_event(entry);
                events::append(tx, entry.at, &[(account, event)]).await?;
                Ok(id)
            }

            /// Appends `audit`, when given, in `tx`: what every store method an operator's
            /// change goes through calls once the change is made, before committing.
            pub(super) async fn audited(
                tx: &mut Transaction<'_, $db>,
                audit: Option<&NewAuditEntry>,
            ) -> Result<(), sqlx::Error> {
                if let Some(entry) = audit {
                    append(tx, entry).await?;
                }
                Ok(())
            }

            #[async_trait]
            impl OperatorStore for $store {
                async fn create_operator_token(
                    &self,
                    new: NewOperatorToken,
                ) -> Result<Option<OperatorToken>, StoreError> {
                    let created = async {
                        let mut tx = self.begin().await?;
                        let id = sqlx::query_scalar::<_, i64>(sql::CREATE_TOKEN)
                            .bind(&new.name)
                            .bind(new.role.as_str())
                            .bind(&new.secret_hash)
                            .bind(to_micros(new.now))
                            .fetch_optional(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(id)
                    };
                    let id = created.await.map_err(store_error)?;
                    Ok(id.map(|id| OperatorToken {
                        id,
                        name: new.name,
                        role: new.role,
                        created_at: new.now,
                        revoked_at: None,
                    }))
                }

                async fn operator_token_by_hash(
                    &self,
                    secret_hash: &str,
                ) -> Result<Option<OperatorToken>, StoreError> {
                    sqlx::query_as::<_, OperatorTokenRow>(sql::TOKEN_BY_HASH)
                        .bind(secret_hash)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(operator_token)
                        .transpose()
                }

                async fn revoke_operator_token(
                    &self,
                    name: &str,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let revoked = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::REVOKE_TOKEN)
                            .bind(name)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected() == 1)
                    };
                    revoked.await.map_err(store_error)
                }

                async fn operator_tokens(&self) -> Result<Vec<OperatorToken>, StoreError> {
                    sqlx::query_as::<_, OperatorTokenRow>(sql::TOKENS)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(operator_token)
                        .collect()
                }

                async fn append_audit(&self, entry: NewAuditEntry) -> Result<i64, StoreError> {
                    let appended = async {
                        let mut tx = self.begin().await?;
                        let id = append(&mut tx, &entry).await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(id)
                    };
                    appended.await.map_err(store_error)
                }

                async fn audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
                    sqlx::query_as::<_, AuditRow>(sql::AUDIT)
                        .bind(filter.token_name.as_deref())
                        .bind(filter.action.as_deref())
                        .bind(filter.target.as_deref())
                        .bind(i64::from(filter.limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(audit_entry)
                        .collect()
                }
            }
        }
    };
}

pub(crate) use impl_operator;
