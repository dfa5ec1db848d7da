//! [`EventStore`](safezone_core::store::EventStore), written once for both stores: the domain
//! events' outbox (appended by the other areas' transactions, relayed and marked here) and the
//! webhooks' delivery log (the replays of its dead letters are in
//! [`webhook_replays`](crate::webhook_replays)).
//!
//! An event is appended in the transaction of the change it tells, after the account's row
//! was written or locked by it, so one account's events get ids in the order their changes
//! commit. There is no appender lock (it would make every commit wait for the one before):
//! a transaction with a smaller id may commit after one with a larger id. So the relay
//! sequences: it gives the committed rows without a relay position, whatever their ids, the
//! next positions (one relay at a time, in a short transaction), and the sinks follow
//! positions with their own cursors (`event_consumers`), which never skip a row.

use safezone_core::store::{AccountId, StoreError};
use sqlx::{Postgres, Sqlite};

use crate::micros::from_micros;

/// How a database keeps the relay to one node at a time.
pub(crate) trait RelayLock: sqlx::Database {
    /// The statement answering whether this round's transaction took the relay's lock; `None`
    /// where one writer at a time is all there is (SQLite).
    const TRY_LOCK: Option<&'static str>;
}

impl RelayLock for Postgres {
    const TRY_LOCK: Option<&'static str> = Some(crate::statements::events::TRY_RELAY_LOCK);
}

impl RelayLock for Sqlite {
    const TRY_LOCK: Option<&'static str> = None;
}

/// Who writes the `event_mentions` rows of appended events (the accounts a payload names
/// besides its own, [`EventPayload::NAMING_KINDS`](safezone_core::events::EventPayload::NAMING_KINDS)).
pub(crate) trait MentionWriter: sqlx::Database {
    /// The statement writing the mentions of the events the appending transaction appended
    /// from an id on (binds: that id), run when one of them is of a naming kind; `None` where
    /// a trigger on `events` writes them (PostgreSQL).
    const APPENDED_MENTIONS: Option<&'static str>;
}

impl MentionWriter for Postgres {
    const APPENDED_MENTIONS: Option<&'static str> = None;
}

impl MentionWriter for Sqlite {
    const APPENDED_MENTIONS: Option<&'static str> =
        Some(crate::statements::events::SQLITE_APPENDED_MENTIONS);
}

/// How a database finds one account's events after a relay position.
pub(crate) trait AccountEvents: sqlx::Database {
    /// The statement (as [`ACCOUNT_EVENTS_AFTER`](crate::statements::events::ACCOUNT_EVENTS_AFTER)).
    const AFTER: &'static str;
}

impl AccountEvents for Postgres {
    const AFTER: &'static str = crate::statements::events::ACCOUNT_EVENTS_AFTER;
}

impl AccountEvents for Sqlite {
    const AFTER: &'static str = crate::statements::events::SQLITE_ACCOUNT_EVENTS_AFTER;
}

/// The events one transaction appended: their ids, in no particular order, and whether one
/// names an account besides its own.
pub(crate) struct Appended {
    ids: Vec<i64>,
    names_others: bool,
}

impl Appended {
    /// The events of `ids`, one of which names another account when `names_others`.
    pub(crate) fn new(ids: Vec<i64>, names_others: bool) -> Self {
        Self { ids, names_others }
    }

    /// The ids to note as told here
    /// ([`AccountChanges::told_here`](safezone_core::store::AccountChanges::told_here)) once
    /// the transaction has committed and moved its accounts' counters: all of them when none
    /// names another account (whose counter the transaction did not move), else none.
    pub(crate) fn told_by_own_accounts(&self) -> &[i64] {
        if self.names_others { &[] } else { &self.ids }
    }
}

/// An `events` row, as selected by [`EVENTS_AFTER`](crate::statements::events::EVENTS_AFTER)
/// and [`RELAYED_AFTER`](crate::statements::events::RELAYED_AFTER).
#[derive(sqlx::FromRow)]
pub(crate) struct EventRow {
    id: i64,
    account_id: Option<i64>,
    payload: String,
    created: i64,
    position: Option<i64>,
}

impl EventRow {
    /// The event, and its relay position (`None`: not sequenced yet).
    pub(crate) fn into_event(
        self,
    ) -> Result<(safezone_core::events::DomainEvent, Option<i64>), StoreError> {
        let payload = safezone_core::events::EventPayload::from_json(&self.payload)
            .map_err(|err| StoreError::Internal(format!("event {}: {err}", self.id)))?;
        let event = safezone_core::events::DomainEvent {
            id: self.id,
            at: from_micros(self.created)?,
            account: self.account_id.map(AccountId),
            payload,
        };
        Ok((event, self.position))
    }

    /// The event with its relay position, which it must have.
    pub(crate) fn into_relayed(self) -> Result<safezone_core::events::RelayedEvent, StoreError> {
        let id = self.id;
        match self.into_event()? {
            (event, Some(position)) => Ok(safezone_core::events::RelayedEvent { position, event }),
            (_, None) => Err(StoreError::Internal(format!(
                "event {id}: no relay position"
            ))),
        }
    }
}

/// An `event_consumers` row, as selected by
/// [`CONSUMER`](crate::statements::events::CONSUMER).
#[derive(sqlx::FromRow)]
pub(crate) struct ConsumerRow {
    name: String,
    position: i64,
    failures: i32,
    retry_at: Option<i64>,
    error: Option<String>,
    holder: Option<String>,
    lease_until: Option<i64>,
}

impl ConsumerRow {
    /// The sink's cursor.
    pub(crate) fn into_consumer(self) -> Result<safezone_core::store::EventConsumer, StoreError> {
        Ok(safezone_core::store::EventConsumer {
            name: self.name,
            position: self.position,
            failures: u32::try_from(self.failures).unwrap_or(0),
            retry_at: self.retry_at.map(from_micros).transpose()?,
            error: self.error,
            holder: self.holder,
            lease_until: self.lease_until.map(from_micros).transpose()?,
        })
    }
}

/// A `webhook_deliveries` row, as selected by
/// [`WEBHOOK_DELIVERIES`](crate::statements::events::WEBHOOK_DELIVERIES) and
/// [`WEBHOOK_DELIVERY`](crate::statements::events::WEBHOOK_DELIVERY).
#[derive(sqlx::FromRow)]
pub(crate) struct WebhookRow {
    id: i64,
    url: String,
    first_event: i64,
    last_event: i64,
    events: i64,
    attempt: i32,
    outcome: String,
    status: Option<i32>,
    error: Option<String>,
    created: i64,
    first_position: Option<i64>,
    last_position: Option<i64>,
}

impl WebhookRow {
    /// The logged attempt.
    pub(crate) fn into_delivery(self) -> Result<safezone_core::store::WebhookDelivery, StoreError> {
        use safezone_core::store::{WebhookAttempt, WebhookDelivery, WebhookOutcome};
        let outcome = WebhookOutcome::parse(&self.outcome).ok_or_else(|| {
            StoreError::Internal(format!("webhook delivery {}: outcome", self.id))
        })?;
        Ok(WebhookDelivery {
            id: self.id,
            attempt: WebhookAttempt {
                url: self.url,
                first_event: self.first_event,
                last_event: self.last_event,
                events: self.events,
                positions: self.first_position.zip(self.last_position),
                attempt: self.attempt,
                outcome,
                status: self.status,
                error: self.error,
                at: from_micros(self.created)?,
            },
        })
    }
}

/// Implements [`EventStore`](safezone_core::store::EventStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `append` (events, inside a
/// write transaction), in a child module `events` of the calling one. The calling module also
/// needs the `matches` module of [`impl_matches`](crate::matches::impl_matches).
macro_rules! impl_events {
    ($store:ident, $db:ty) => {
        mod events {
            use async_trait::async_trait;
            use safezone_core::events::{DomainEvent, EventPayload, RelayedChange, RelayedEvent};
            use safezone_core::store::{
                AccountId, EventConsumer, EventStore, KeptPositions, NewAuditEntry, ReplayOutcome,
                ReplayRequested, SequenceRound, Settlement, StoreError, WebhookAttempt,
                WebhookDelivery, WebhookOutcome, WebhookReplay,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::{matches, $store};
            use crate::bulk::Rows;
            use crate::error::store_error;
            use crate::events::{
                AccountEvents, Appended, ConsumerRow, EventRow, MentionWriter, RelayLock,
                WebhookRow,
            };
            use crate::micros::{from_micros, to_micros};
            use crate::statements::events as sql;

            /// Appends `events`, `(account, payload)`, all at `now`, in id order, with one
            /// statement (per batch the database takes): what was appended. The caller has
            /// written or locked each account's row in `tx` first.
            pub(super) async fn append(
                tx: &mut Transaction<'_, $db>,
                now: OffsetDateTime,
                events: &[(Option<AccountId>, EventPayload)],
            ) -> Result<Appended, sqlx::Error> {
                let timed: Vec<_> = events
                    .iter()
                    .map(|(account, payload)| (*account, now, payload))
                    .collect();
                append_timed(tx, &timed).await
            }

            /// Appends `events`, `(account, when, payload)`, in id order, with one statement
            /// (per batch the database takes), like [`append`], and their mentions where the
            /// transaction writes them ([`MentionWriter`]): what was appended.
            pub(super) async fn append_timed(
                tx: &mut Transaction<'_, $db>,
                events: &[(Option<AccountId>, OffsetDateTime, &EventPayload)],
            ) -> Result<Appended, sqlx::Error> {
                if events.is_empty() {
                    return Ok(Appended::new(Vec::new(), false));
                }
                let payloads = events
                    .iter()
                    .map(|(_, _, payload)| payload.to_json())
                    .collect::<Result<Vec<String>, _>>()
                    .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                let rows = Rows::new()
                    .maybe_int(
                        "account",
                        events
                            .iter()
                            .map(|(account, _, _)| account.map(|id| id.0))
                            .collect(),
                    )
                    .text(
                        "kind",
                        events
                            .iter()
                            .map(|(_, _, payload)| payload.kind())
                            .collect(),
                    )
                    .text("payload", payloads.iter().map(String::as_str).collect())
                    .int(
                        "created",
                        events.iter().map(|(_, when, _)| to_micros(*when)).collect(),
                    );
                let ids: Vec<i64> = matches::fetch_rows::<(i64,)>(
                    &mut **tx,
                    sql::INSERT_EVENTS,
                    &rows,
                    sql::APPENDED_IDS_END,
                )
                .await?
                .into_iter()
                .map(|(id,)| id)
                .collect();
                let names_others = events.iter().any(|(_, _, payload)| payload.names_others());
                if let Some(mentions) =
                    <$db as MentionWriter>::APPENDED_MENTIONS.filter(|_| names_others)
                    && let Some(first) = ids.iter().min()
                {
                    // The transaction holds the one writer: every event from the first id it
                    // appended on is its own.
                    sqlx::query(mentions).bind(first).execute(&mut **tx).await?;
                }
                Ok(Appended::new(ids, names_others))
            }

            /// Appends the events of one account, at `now`: what was appended.
            pub(super) async fn append_for(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
                now: OffsetDateTime,
                payloads: Vec<EventPayload>,
            ) -> Result<Appended, sqlx::Error> {
                let events: Vec<_> = payloads
                    .into_iter()
                    .map(|payload| (Some(account), payload))
                    .collect();
                append(tx, now, &events).await
            }

            impl $store {
                /// One sequencing round in a short write transaction, under the relay's lock
                /// where there is one.
                async fn sequence(&self, limit: u32) -> Result<SequenceRound, sqlx::Error> {
                    let waiting = sqlx::query_scalar::<_, bool>(sql::ANY_UNSEQUENCED)
                        .fetch_one(&self.pool)
                        .await?;
                    if !waiting {
                        return Ok(SequenceRound::Sequenced(0));
                    }
                    let mut tx = self.begin().await?;
                    if let Some(lock) = <$db as RelayLock>::TRY_LOCK {
                        let taken = sqlx::query_scalar::<_, bool>(lock)
                            .fetch_one(&mut *tx)
                            .await?;
                        if !taken {
                            tx.rollback().await?;
                            return Ok(SequenceRound::Held);
                        }
                    }
                    let sequenced = sqlx::query(sql::SEQUENCE)
                        .bind(i64::from(limit))
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    tx.commit().await?;
                    Ok(SequenceRound::Sequenced(
                        usize::try_from(sequenced).unwrap_or(usize::MAX),
                    ))
                }

                /// The cursor of the sink `name`, if it has one.
                async fn consumer(&self, name: &str) -> Result<Option<EventConsumer>, StoreError> {
                    sqlx::query_as::<_, ConsumerRow>(sql::CONSUMER)
                        .bind(name)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(ConsumerRow::into_consumer)
                        .transpose()
                }
            }

            #[async_trait]
            impl EventStore for $store {
                async fn sequence_events(&self, limit: u32) -> Result<SequenceRound, StoreError> {
                    self.sequence(limit).await.map_err(store_error)
                }

                async fn relay_head(&self) -> Result<i64, StoreError> {
                    sqlx::query_scalar::<_, i64>(sql::RELAY_HEAD)
                        .fetch_one(&self.pool)
                        .await
                        .map_err(store_error)
                }

                async fn oldest_unsequenced(&self) -> Result<Option<OffsetDateTime>, StoreError> {
                    let created = sqlx::query_scalar::<_, Option<i64>>(sql::OLDEST_UNSEQUENCED)
                        .fetch_one(&self.pool)
                        .await
                        .map_err(store_error)?;
                    created.map(from_micros).transpose()
                }

                async fn relayed_events(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<RelayedEvent>, StoreError> {
                    sqlx::query_as::<_, EventRow>(sql::RELAYED_AFTER)
                        .bind(after)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(EventRow::into_relayed)
                        .collect()
                }

                /// One query leaving out every payload but a match report's.
                async fn relayed_changes(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<RelayedChange>, StoreError> {
                    let rows = sqlx::query_as::<_, (i64, i64, Option<i64>, Option<String>)>(
                        sql::RELAYED_CHANGES_AFTER,
                    )
                    .bind(after)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await
                    .map_err(store_error)?;
                    rows.into_iter()
                        .map(|(id, position, account, payload)| {
                            let payload = payload
                                .map(|payload| EventPayload::from_json(&payload))
                                .transpose()
                                .map_err(|err| {
                                    StoreError::Internal(format!("event at {position}: {err}"))
                                })?;
                            Ok(RelayedChange::new(
                                id,
                                position,
                                account.map(AccountId),
                                payload.as_ref(),
                            ))
                        })
                        .collect()
                }

                async fn account_events(
                    &self,
                    account: AccountId,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<RelayedEvent>, StoreError> {
                    sqlx::query_as::<_, EventRow>(<$db as AccountEvents>::AFTER)
                        .bind(account.0)
                        .bind(after)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(EventRow::into_relayed)
                        .collect()
                }

                async fn kept_positions(&self) -> Result<KeptPositions, StoreError> {
                    let (oldest, head) =
                        sqlx::query_as::<_, (Option<i64>, i64)>(sql::KEPT_POSITIONS)
                            .fetch_one(&self.pool)
                            .await
                            .map_err(store_error)?;
                    Ok(KeptPositions { oldest, head })
                }

                async fn events(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<(DomainEvent, Option<i64>)>, StoreError> {
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

                async fn event_consumer(
                    &self,
                    name: &str,
                    now: OffsetDateTime,
                ) -> Result<EventConsumer, StoreError> {
                    if let Some(consumer) = self.consumer(name).await? {
                        return Ok(consumer);
                    }
                    let mut tx = self.begin().await.map_err(store_error)?;
                    sqlx::query(sql::NEW_CONSUMER)
                        .bind(name)
                        .bind(to_micros(now))
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?;
                    tx.commit().await.map_err(store_error)?;
                    self.consumer(name).await?.ok_or_else(|| {
                        StoreError::Internal(format!("the cursor of {name} was not created"))
                    })
                }

                async fn lease_event_consumer(
                    &self,
                    name: &str,
                    holder: &str,
                    position: i64,
                    now: OffsetDateTime,
                    lease_until: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let leased = async {
                        let mut tx = self.begin().await?;
                        let leased = sqlx::query(sql::LEASE_CONSUMER)
                            .bind(name)
                            .bind(holder)
                            .bind(position)
                            .bind(to_micros(now))
                            .bind(to_micros(lease_until))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(leased == 1)
                    };
                    leased.await.map_err(store_error)
                }

                async fn settle_event_consumer(
                    &self,
                    name: &str,
                    holder: &str,
                    from: i64,
                    settlement: Settlement,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let settled = async {
                        let mut tx = self.begin().await?;
                        let query = match &settlement {
                            Settlement::Advanced(to) => sqlx::query(sql::ADVANCE_CONSUMER)
                                .bind(name)
                                .bind(holder)
                                .bind(from)
                                .bind(*to)
                                .bind(to_micros(now)),
                            Settlement::Failed {
                                failures,
                                retry_at,
                                error,
                            } => sqlx::query(sql::FAIL_CONSUMER)
                                .bind(name)
                                .bind(holder)
                                .bind(from)
                                .bind(i32::try_from(*failures).unwrap_or(i32::MAX))
                                .bind(to_micros(*retry_at))
                                .bind(error.as_str())
                                .bind(to_micros(now)),
                        };
                        let settled = query.execute(&mut *tx).await?.rows_affected();
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(settled == 1)
                    };
                    settled.await.map_err(store_error)
                }

                async fn event_consumers(&self) -> Result<Vec<EventConsumer>, StoreError> {
                    sqlx::query_as::<_, ConsumerRow>(sql::CONSUMERS)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(ConsumerRow::into_consumer)
                        .collect()
                }

                async fn release_event_leases(&self, holder: &str) -> Result<u64, StoreError> {
                    let released = async {
                        let mut tx = self.begin().await?;
                        let mut ended = 0;
                        for statement in [sql::RELEASE_CONSUMERS, sql::RELEASE_REPLAYS] {
                            ended += sqlx::query(statement)
                                .bind(holder)
                                .execute(&mut *tx)
                                .await?
                                .rows_affected();
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(ended)
                    };
                    released.await.map_err(store_error)
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
                                .bind(attempt.positions.map(|(first, _)| first))
                                .bind(attempt.positions.map(|(_, last)| last))
                                .execute(&mut *tx)
                                .await?;
                        }
                        tx.commit().await
                    };
                    recorded.await.map_err(store_error)
                }

                async fn delete_delivered_events(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        let floor: i64 = sqlx::query_scalar(sql::RETENTION_FLOOR)
                            .bind(to_micros(before))
                            .fetch_one(&mut *tx)
                            .await?;
                        let oldest: Vec<(i64, i64)> = sqlx::query_as(sql::OLDEST_RELAYED)
                            .bind(i64::from(limit))
                            .fetch_all(&mut *tx)
                            .await?;
                        // The oldest events in position order, up to the first that is kept:
                        // every event before it goes, and only those.
                        let through = oldest
                            .iter()
                            .take_while(|(position, created)| {
                                *position <= floor && *created < to_micros(before)
                            })
                            .last()
                            .map(|(position, _)| *position);
                        let Some(through) = through else {
                            return Ok::<_, sqlx::Error>(0);
                        };
                        let done = sqlx::query(sql::DELETE_RELAYED_THROUGH)
                            .bind(through)
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok(done.rows_affected())
                    };
                    deleted.await.map_err(store_error)
                }

                async fn delete_webhook_deliveries(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_batch(sql::DELETE_WEBHOOK_DELIVERIES, before, limit)
                        .await
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

                async fn webhook_delivery(
                    &self,
                    id: i64,
                ) -> Result<Option<WebhookDelivery>, StoreError> {
                    sqlx::query_as::<_, WebhookRow>(sql::WEBHOOK_DELIVERY)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(WebhookRow::into_delivery)
                        .transpose()
                }

                async fn request_webhook_replay(
                    &self,
                    delivery: &WebhookDelivery,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<ReplayRequested, StoreError> {
                    self.request_replay(delivery, now, audit).await
                }

                async fn claim_webhook_replay(
                    &self,
                    url: &str,
                    holder: &str,
                    now: OffsetDateTime,
                    lease_until: OffsetDateTime,
                ) -> Result<Option<WebhookReplay>, StoreError> {
                    self.claim_replay(url, holder, now, lease_until).await
                }

                async fn settle_webhook_replay(
                    &self,
                    id: i64,
                    holder: &str,
                    outcome: ReplayOutcome,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    self.settle_replay(id, holder, outcome, now).await
                }

                async fn webhook_replays(
                    &self,
                    limit: u32,
                ) -> Result<Vec<WebhookReplay>, StoreError> {
                    self.replays(limit).await
                }

                async fn delete_webhook_replays(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_finished_replays(before, limit).await
                }
            }
        }
    };
}

pub(crate) use impl_events;
