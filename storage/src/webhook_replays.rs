//! The replays of dead-lettered webhook batches (table `webhook_replays`), written once for
//! both stores; [`EventStore`](safezone_core::store::EventStore)'s replay methods
//! ([`events`](crate::events)) call them.
//!
//! A request is one transaction with its audit row: the batch's events are counted (all still
//! stored, or refused) and the pending row written unless one of the same dead letter is
//! pending (a partial unique index). A node's replay task first reads whether a replay is due
//! for it, and only then takes the lease by a conditional update, as the sinks' cursors are
//! leased; the attempt's outcome is written by another, if the node still holds it.

use safezone_core::store::StoreError;

use crate::micros::from_micros;

/// A `webhook_replays` row, in the columns of
/// [`webhook_replays`](crate::statements::webhook_replays).
#[derive(sqlx::FromRow)]
pub(crate) struct ReplayRow {
    id: i64,
    delivery_id: i64,
    url: String,
    first_position: i64,
    last_position: i64,
    state: String,
    failures: i32,
    retry_at: Option<i64>,
    error: Option<String>,
    requested: i64,
    updated: i64,
}

impl ReplayRow {
    /// The replay.
    pub(crate) fn into_replay(self) -> Result<safezone_core::store::WebhookReplay, StoreError> {
        use safezone_core::store::{ReplayState, WebhookReplay};
        let state = ReplayState::parse(&self.state)
            .ok_or_else(|| StoreError::Internal(format!("webhook replay {}: state", self.id)))?;
        Ok(WebhookReplay {
            id: self.id,
            delivery: self.delivery_id,
            url: self.url,
            positions: (self.first_position, self.last_position),
            state,
            failures: u32::try_from(self.failures).unwrap_or(0),
            retry_at: self.retry_at.map(from_micros).transpose()?,
            error: self.error,
            requested: from_micros(self.requested)?,
            updated: from_micros(self.updated)?,
        })
    }
}

/// Implements the replays' store methods for `$store` (see
/// [`impl_store`](crate::impl_store)), in a child module `webhook_replays` of the calling one
/// (which also needs the `operator` module of [`impl_operator`](crate::operator::impl_operator)
/// and the `accounts` module's `delete_batch`).
macro_rules! impl_webhook_replays {
    ($store:ident) => {
        mod webhook_replays {
            use safezone_core::store::{
                NewAuditEntry, ReplayOutcome, ReplayRequested, StoreError, WebhookDelivery,
                WebhookReplay,
            };
            use time::OffsetDateTime;

            use super::{operator, $store};
            use crate::error::store_error;
            use crate::micros::to_micros;
            use crate::statements::webhook_replays as sql;
            use crate::webhook_replays::ReplayRow;

            impl $store {
                /// See [`EventStore::request_webhook_replay`]; a delivery without positions
                /// is answered [`ReplayRequested::EventsGone`].
                ///
                /// [`EventStore::request_webhook_replay`]: safezone_core::store::EventStore::request_webhook_replay
                pub(super) async fn request_replay(
                    &self,
                    delivery: &WebhookDelivery,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<ReplayRequested, StoreError> {
                    let Some((first, last)) = delivery.attempt.positions else {
                        return Ok(ReplayRequested::EventsGone);
                    };
                    let requested = async {
                        let mut tx = self.begin().await?;
                        let stored: i64 = sqlx::query_scalar(sql::STORED_BETWEEN)
                            .bind(first)
                            .bind(last)
                            .fetch_one(&mut *tx)
                            .await?;
                        if stored != last - first + 1 {
                            tx.rollback().await?;
                            return Ok(None);
                        }
                        let row = sqlx::query_as::<_, ReplayRow>(sql::INSERT_REPLAY)
                            .bind(delivery.id)
                            .bind(&delivery.attempt.url)
                            .bind(first)
                            .bind(last)
                            .bind(to_micros(now))
                            .fetch_optional(&mut *tx)
                            .await?;
                        if row.is_some() {
                            operator::audited(&mut tx, audit).await?;
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(Some(row))
                    };
                    match requested.await.map_err(store_error)? {
                        None => Ok(ReplayRequested::EventsGone),
                        Some(None) => Ok(ReplayRequested::AlreadyPending),
                        Some(Some(row)) => row.into_replay().map(ReplayRequested::Requested),
                    }
                }

                /// See [`EventStore::claim_webhook_replay`]: a read first, so that a node with
                /// nothing due takes no write transaction.
                ///
                /// [`EventStore::claim_webhook_replay`]: safezone_core::store::EventStore::claim_webhook_replay
                pub(super) async fn claim_replay(
                    &self,
                    url: &str,
                    holder: &str,
                    now: OffsetDateTime,
                    lease_until: OffsetDateTime,
                ) -> Result<Option<WebhookReplay>, StoreError> {
                    let due: bool = sqlx::query_scalar(sql::ANY_DUE)
                        .bind(url)
                        .bind(holder)
                        .bind(to_micros(now))
                        .fetch_one(&self.pool)
                        .await
                        .map_err(store_error)?;
                    if !due {
                        return Ok(None);
                    }
                    let claimed = async {
                        let mut tx = self.begin().await?;
                        let row = sqlx::query_as::<_, ReplayRow>(sql::CLAIM)
                            .bind(url)
                            .bind(holder)
                            .bind(to_micros(now))
                            .bind(to_micros(lease_until))
                            .fetch_optional(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(row)
                    };
                    claimed
                        .await
                        .map_err(store_error)?
                        .map(ReplayRow::into_replay)
                        .transpose()
                }

                /// See [`EventStore::settle_webhook_replay`].
                ///
                /// [`EventStore::settle_webhook_replay`]: safezone_core::store::EventStore::settle_webhook_replay
                pub(super) async fn settle_replay(
                    &self,
                    id: i64,
                    holder: &str,
                    outcome: ReplayOutcome,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let (state, failures, retry_at, error) = match outcome {
                        ReplayOutcome::Finished(state, error) => (state, None, None, error),
                        ReplayOutcome::Failed {
                            failures,
                            retry_at,
                            error,
                        } => (
                            safezone_core::store::ReplayState::Pending,
                            Some(i32::try_from(failures).unwrap_or(i32::MAX)),
                            Some(to_micros(retry_at)),
                            Some(error),
                        ),
                    };
                    let settled = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::SETTLE)
                            .bind(id)
                            .bind(holder)
                            .bind(state.as_str())
                            .bind(failures)
                            .bind(retry_at)
                            .bind(error)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done == 1)
                    };
                    settled.await.map_err(store_error)
                }

                /// See [`EventStore::webhook_replays`].
                ///
                /// [`EventStore::webhook_replays`]: safezone_core::store::EventStore::webhook_replays
                pub(super) async fn replays(
                    &self,
                    limit: u32,
                ) -> Result<Vec<WebhookReplay>, StoreError> {
                    sqlx::query_as::<_, ReplayRow>(sql::REPLAYS)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(ReplayRow::into_replay)
                        .collect()
                }

                /// See [`EventStore::delete_webhook_replays`].
                ///
                /// [`EventStore::delete_webhook_replays`]: safezone_core::store::EventStore::delete_webhook_replays
                pub(super) async fn delete_finished_replays(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_batch(sql::DELETE_FINISHED, before, limit).await
                }
            }
        }
    };
}

pub(crate) use impl_webhook_replays;
