//! [`OperatorSessionStore`](safezone_core::store::OperatorSessionStore), written once for both
//! stores: the operator console's sessions (table `operator_sessions`), each looked up joined
//! to its token so that a revoked token's sessions stop at once.

/// Implements [`OperatorSessionStore`](safezone_core::store::OperatorSessionStore) for `$store`
/// (see [`impl_store`](crate::impl_store)), in a child module `operator_sessions` of the calling
/// one.
macro_rules! impl_operator_sessions {
    ($store:ident) => {
        mod operator_sessions {
            use async_trait::async_trait;
            use safezone_core::store::{
                NewOperatorSession, OperatorSessionStore, OperatorToken, StoreError,
            };
            use time::OffsetDateTime;

            use super::$store;
            use crate::error::store_error;
            use crate::micros::to_micros;
            use crate::operator::{OperatorTokenRow, operator_token};
            use crate::statements::operator_sessions as sql;

            #[async_trait]
            impl OperatorSessionStore for $store {
                async fn open_operator_session(
                    &self,
                    session: NewOperatorSession,
                ) -> Result<bool, StoreError> {
                    let opened = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::OPEN_SESSION)
                            .bind(&session.id_hash)
                            .bind(session.token)
                            .bind(to_micros(session.created_at))
                            .bind(to_micros(session.expires_at))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected() == 1)
                    };
                    opened.await.map_err(store_error)
                }

                async fn operator_session_token(
                    &self,
                    id_hash: &str,
                    now: OffsetDateTime,
                ) -> Result<Option<OperatorToken>, StoreError> {
                    sqlx::query_as::<_, OperatorTokenRow>(sql::SESSION_TOKEN)
                        .bind(id_hash)
                        .bind(to_micros(now))
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(operator_token)
                        .transpose()
                }

                async fn end_operator_session(
                    &self,
                    id_hash: &str,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let ended = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::END_SESSION)
                            .bind(id_hash)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected() == 1)
                    };
                    ended.await.map_err(store_error)
                }

                async fn delete_finished_operator_sessions(
                    &self,
                    now: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::DELETE_FINISHED)
                            .bind(to_micros(now))
                            .bind(i64::from(limit))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected())
                    };
                    deleted.await.map_err(store_error)
                }
            }
        }
    };
}

pub(crate) use impl_operator_sessions;
