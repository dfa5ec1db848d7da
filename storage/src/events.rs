//! [`EventStore`](safezone_core::store::EventStore), written once for both stores: the domain
//! events' outbox (appended by the other areas' transactions, relayed and marked here) and the
//! webhooks' delivery log.
//!
//! An event is appended in the transaction of the change it tells, after the account's row
//! was written or locked by it, so one account's events get ids in the order their changes
//! commit. There is no appender lock (it would make every commit wait for the one before):
//! a transaction with a smaller id may commit after one with a larger id, so the relay reads
//! the rows not yet relayed, whatever their ids, and marks exactly the ones it delivered.

use sqlx::{Postgres, Sqlite};

/// How a database keeps the relay to one node at a time.
pub(crate) trait RelayLock: sqlx::Database {
    /// The statement answering whether this round's transaction took the relay's lock; `None`
    /// where one writer at a time is all there is (SQLite), and the round reads outside a
    /// transaction so as not to hold the writer while the sinks work.
    const TRY_LOCK: Option<&'static str>;
}

impl RelayLock for Postgres {
    const TRY_LOCK: Option<&'static str> = Some(crate::statements::events::TRY_RELAY_LOCK);
}

impl RelayLock for Sqlite {
    const TRY_LOCK: Option<&'static str> = None;
}

/// Implements [`EventStore`](safezone_core::store::EventStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `append` (events, inside a
/// write transaction), in a child module `events` of the calling one. The calling module also
/// needs the `matches` module of [`impl_matches`](crate::matches::impl_matches).
macro_rules! impl_events {
    ($store:ident, $db:ty) => {
        mod events {
            use async_trait::async_trait;
            use safezone_core::events::{DomainEvent, EventPayload};
            use safezone_core::store::{
                AccountId, EventDelivery, EventStore, RelayRound, StoreError, WebhookAttempt,
                WebhookDelivery, WebhookOutcome,
            };
            use sqlx::{QueryBuilder, Transaction};
            use time::OffsetDateTime;

            use super::{matches, $store};
            use crate::bulk::{BulkRows, Rows};
            use crate::error::store_error;
            use crate::events::RelayLock;
            use crate::micros::to_micros;
            use crate::row::{EventRow, WebhookRow};
            use crate::statements::events as sql;
            use crate::statements::matches::FROM_ROWS_END;

            /// Appends `events`, `(account, payload)`, all at `now`, in id order, with one
            /// statement (per batch the database takes). The caller has written or locked each
            /// account's row in `tx` first.
            pub(super) async fn append(
                tx: &mut Transaction<'_, $db>,
                now: OffsetDateTime,
                events: &[(Option<AccountId>, EventPayload)],
            ) -> Result<(), sqlx::Error> {
                if events.is_empty() {
                    return Ok(());
                }
                let payloads = events
                    .iter()
                    .map(|(_, payload)| payload.to_json())
                    .collect::<Result<Vec<String>, _>>()
                    .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                let rows = Rows::new()
                    .maybe_int(
                        "account",
                        events
                            .iter()
                            .map(|(account, _)| account.map(|id| id.0))
                            .collect(),
                    )
                    .text(
                        "kind",
                        events.iter().map(|(_, payload)| payload.kind()).collect(),
                    )
                    .text("payload", payloads.iter().map(String::as_str).collect())
                    .int("created", vec![to_micros(now); events.len()]);
                matches::execute_rows(&mut **tx, sql::INSERT_EVENTS, &rows, FROM_ROWS_END).await
            }

            /// Appends the events of one account, at `now`.
            pub(super) async fn append_for(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
                now: OffsetDateTime,
                payloads: Vec<EventPayload>,
            ) -> Result<(), sqlx::Error> {
                let events: Vec<_> = payloads
                    .into_iter()
                    .map(|payload| (Some(account), payload))
                    .collect();
                append(tx, now, &events).await
            }

            /// Decodes read rows.
            fn decoded(rows: Vec<EventRow>) -> Result<Vec<DomainEvent>, sqlx::Error> {
                rows.into_iter()
                    .map(|row| {
                        row.into_event()
                            .map(|(event, _)| event)
                            .map_err(|err| sqlx::Error::Decode(Box::new(err)))
                    })
                    .collect()
            }

            /// The statement marking `events` relayed.
            fn mark(events: &[DomainEvent]) -> QueryBuilder<$db> {
                let ids: Vec<i64> = events.iter().map(|event| event.id).collect();
                let mut query = QueryBuilder::<$db>::new(sql::MARK_RELAYED);
                <$db as BulkRows>::push_one_of(&mut query, &ids);
                query
            }

            impl $store {
                /// A round under the relay's lock, in one transaction from the lock to the
                /// marks (PostgreSQL).
                async fn relay_locked(
                    &self,
                    lock: &'static str,
                    limit: u32,
                    delivery: &dyn EventDelivery,
                ) -> Result<RelayRound, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let taken = sqlx::query_scalar::<_, bool>(lock)
                        .fetch_one(&mut *tx)
                        .await?;
                    if !taken {
                        tx.rollback().await?;
                        return Ok(RelayRound::Held);
                    }
                    let events = decoded(
                        sqlx::query_as::<_, EventRow>(sql::UNRELAYED)
                            .bind(i64::from(limit))
                            .fetch_all(&mut *tx)
                            .await?,
                    )?;
                    if events.is_empty() {
                        tx.rollback().await?;
                        return Ok(RelayRound::Delivered(0));
                    }
                    if let Err(error) = delivery.deliver(&events).await {
                        tx.rollback().await?;
                        return Ok(RelayRound::Failed(error));
                    }
                    mark(&events).build().execute(&mut *tx).await?;
                    tx.commit().await?;
                    Ok(RelayRound::Delivered(events.len()))
                }

                /// A round where one writer at a time is all there is (SQLite): read, deliver,
                /// then mark in a short write transaction.
                async fn relay_single(
                    &self,
                    limit: u32,
                    delivery: &dyn EventDelivery,
                ) -> Result<RelayRound, sqlx::Error> {
                    let events = decoded(
                        sqlx::query_as::<_, EventRow>(sql::UNRELAYED)
                            .bind(i64::from(limit))
                            .fetch_all(&self.pool)
                            .await?,
                    )?;
                    if events.is_empty() {
                        return Ok(RelayRound::Delivered(0));
                    }
                    if let Err(error) = delivery.deliver(&events).await {
                        return Ok(RelayRound::Failed(error));
                    }
                    let mut tx = self.begin().await?;
                    for batch in events.chunks(<$db as BulkRows>::MAX_ROWS) {
                        mark(batch).build().execute(&mut *tx).await?;
                    }
                    tx.commit().await?;
                    Ok(RelayRound::Delivered(events.len()))
                }
            }

            #[async_trait]
            impl EventStore for $store {
                async fn relay_events(
                    &self,
                    limit: u32,
                    delivery: &dyn EventDelivery,
                ) -> Result<RelayRound, StoreError> {
                    let round = match <$db as RelayLock>::TRY_LOCK {
                        Some(lock) => self.relay_locked(lock, limit, delivery).await,
                        None => self.relay_single(limit, delivery).await,
                    };
                    round.map_err(store_error)
                }

                async fn events(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<(DomainEvent, bool)>, StoreError> {
                    sqlx::query_as::<_, EventRow>(sql::EVENTS_AFTER)
                        .bind(after)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(EventRow::into_event)
                        .collect()
                }

                async fn record_webhook_attempts(
                    &self,
                    attempts: &[WebhookAttempt],
                ) -> Result<(), StoreError> {
                    let recorded = async {
                        let mut tx = self.begin().await?;
                        for attempt in attempts {
                            sqlx::query(sql::INSERT_WEBHOOK_ATTEMPT)
                                .bind(&attempt.url)
                                .bind(attempt.first_event)
                                .bind(attempt.last_event)
                                .bind(attempt.events)
                                .bind(attempt.attempt)
                                .bind(attempt.outcome.as_str())
                                .bind(attempt.status)
                                .bind(&attempt.error)
                                .bind(to_micros(attempt.at))
                                .execute(&mut *tx)
                                .await?;
                        }
                        tx.commit().await
                    };
                    recorded.await.map_err(store_error)
                }

                async fn webhook_deliveries(
                    &self,
                    outcome: Option<WebhookOutcome>,
                    limit: u32,
                ) -> Result<Vec<WebhookDelivery>, StoreError> {
                    sqlx::query_as::<_, WebhookRow>(sql::WEBHOOK_DELIVERIES)
                        .bind(outcome.map(WebhookOutcome::as_str))
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(WebhookRow::into_delivery)
                        .collect()
                }
            }
        }
    };
}

pub(crate) use impl_events;
