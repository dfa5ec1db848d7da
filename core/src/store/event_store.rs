//! The domain events' outbox, as the relay sequences it and the sinks follow it with their own
//! cursors, and the webhooks' delivery log.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, NewAuditEntry, ReplayOutcome, ReplayRequested, StoreError, WebhookReplay};
use crate::events::{DomainEvent, RelayedChange, RelayedEvent};

/// How one sequencing round ended ([`EventStore::sequence_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceRound {
    /// Another node sequences now; nothing was read.
    Held,
    /// These many events were given their relay positions (0: none was waiting).
    Sequenced(usize),
}

/// A sink's cursor over the relayed events (table `event_consumers`): how far it has delivered,
/// its failures since, and which node delivers for it until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventConsumer {
    /// The sink's name (`webhook https://...`, `nats safezone.events`).
    pub name: String,
    /// The relay position it has delivered up to (every event at or below it was taken or
    /// given up).
    pub position: i64,
    /// Its failed attempts since its last delivery.
    pub failures: u32,
    /// When it tries again after a failure.
    pub retry_at: Option<OffsetDateTime>,
    /// Its last failure.
    pub error: Option<String>,
    /// The node that delivers for it, while its lease runs.
    pub holder: Option<String>,
    /// When that node's lease runs out.
    pub lease_until: Option<OffsetDateTime>,
}

/// How a sink's delivery attempt of the events after `from` ended, to be written to its cursor
/// ([`EventStore::settle_event_consumer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// The sink took the events (or gave them up) up to this position: its cursor moves there
    /// and its failures are forgotten.
    Advanced(i64),
    /// The attempt failed: the sink's failures so far, when it tries again, and why.
    Failed {
        /// Failed attempts since the last delivery, this one included.
        failures: u32,
        /// When to try again.
        retry_at: OffsetDateTime,
        /// What went wrong.
        error: String,
    },
}

/// What became of one webhook delivery attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookOutcome {
    /// The receiver answered 2xx.
    Delivered,
    /// It failed and will be tried again.
    Failed,
    /// The last attempt failed: the batch is given up (dead-lettered).
    Dead,
}

impl WebhookOutcome {
    /// As stored and shown: `delivered`, `failed`, `dead`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delivered => "delivered",
            Self::Failed => "failed",
            Self::Dead => "dead",
        }
    }

    /// Reads a stored outcome.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "delivered" => Some(Self::Delivered),
            "failed" => Some(Self::Failed),
            "dead" => Some(Self::Dead),
            _ => None,
        }
    }
}

/// One webhook delivery attempt of a batch of events, for the delivery log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAttempt {
    /// The receiver's URL.
    pub url: String,
    /// The batch's first and last event ids.
    pub first_event: i64,
    /// See `first_event`.
    pub last_event: i64,
    /// How many events the batch held.
    pub events: i64,
    /// The relay positions of the batch's first and last events (`None` in rows logged before
    /// they were recorded: those batches cannot be replayed).
    pub positions: Option<(i64, i64)>,
    /// The attempt's number, from 1.
    pub attempt: i32,
    /// How it ended.
    pub outcome: WebhookOutcome,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<i32>,
    /// What went wrong, when something did.
    pub error: Option<String>,
    /// When it was tried.
    pub at: OffsetDateTime,
}

/// A logged webhook attempt with its id (growing with each row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookDelivery {
    /// The row's id.
    pub id: i64,
    /// The attempt.
    pub attempt: WebhookAttempt,
}

/// The relay positions the outbox keeps: the events after [`head`](Self::head) are still to
/// come, and those from [`oldest`](Self::oldest) to the head are there to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptPositions {
    /// The oldest position still kept; `None` when the outbox is empty.
    pub oldest: Option<i64>,
    /// The highest position given (0 before any).
    pub head: i64,
}

impl KeptPositions {
    /// Whether every event after position `after` is still kept (or still to come): `after` is
    /// at most the head, and no event after it was deleted.
    pub fn keeps_after(&self, after: i64) -> bool {
        after <= self.head && self.oldest.is_none_or(|oldest| oldest <= after + 1)
    }
}

/// The domain events' outbox and the webhooks' delivery log. The events themselves are written
/// by the other stores' changes, in their transactions.
///
/// Relaying is in two steps. The relay (one node at a time) *sequences* the committed events
/// that have no relay position yet: each gets the next position, in id order, in one short
/// transaction. Each sink then follows positions with its own cursor ([`EventConsumer`]):
/// event ids do not commit in id order (no appender lock), positions do, so a cursor over
/// positions never skips an event that committed late.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Gives up to `limit` committed events without a relay position the next positions, in id
    /// order. Only one node sequences at a time (on PostgreSQL an advisory lock held by the
    /// round's short transaction; a node that cannot take it answers [`SequenceRound::Held`]).
    async fn sequence_events(&self, limit: u32) -> Result<SequenceRound, StoreError>;

    /// The highest relay position given so far (0 before any).
    async fn relay_head(&self) -> Result<i64, StoreError>;

    /// When the oldest committed event without a relay position was appended, if any waits.
    async fn oldest_unsequenced(&self) -> Result<Option<OffsetDateTime>, StoreError>;

    /// The events with a relay position above `after`, in position order, at most `limit`.
    async fn relayed_events(&self, after: i64, limit: u32)
    -> Result<Vec<RelayedEvent>, StoreError>;

    /// What the relay's follower counts of the events with a relay position above `after`
    /// when no subscriber needs the events themselves: each one's position and the accounts
    /// it names, in position order, at most `limit`. By default, the events read whole.
    async fn relayed_changes(
        &self,
        after: i64,
        limit: u32,
    ) -> Result<Vec<RelayedChange>, StoreError> {
        let relayed = self.relayed_events(after, limit).await?;
        Ok(relayed.iter().map(RelayedChange::of).collect())
    }

    /// The events of `account` with a relay position above `after`, in position order, at most
    /// `limit`: its own and those whose payload names it (a match report's players, a clan
    /// invite's invitee), each once. Read through indexes, however large the outbox.
    async fn account_events(
        &self,
        account: AccountId,
        after: i64,
        limit: u32,
    ) -> Result<Vec<RelayedEvent>, StoreError>;

    /// The relay positions the outbox still keeps ([retention](Self::delete_delivered_events)
    /// deletes the oldest).
    async fn kept_positions(&self) -> Result<KeptPositions, StoreError>;

    /// The events after id `after`, in id order, at most `limit`, each with its relay position
    /// (`None`: not sequenced yet).
    async fn events(
        &self,
        after: i64,
        limit: u32,
    ) -> Result<Vec<(DomainEvent, Option<i64>)>, StoreError>;

    /// The cursor of the sink `name`, created at the current [relay head](Self::relay_head) the
    /// first time (a new sink gets the events relayed from then on) at `now`.
    async fn event_consumer(
        &self,
        name: &str,
        now: OffsetDateTime,
    ) -> Result<EventConsumer, StoreError>;

    /// Takes (or renews) the lease of the sink `name` for the node `holder` until
    /// `lease_until`, if its cursor is still at `position` and no other node's lease runs at
    /// `now`. Answers whether it did.
    async fn lease_event_consumer(
        &self,
        name: &str,
        holder: &str,
        position: i64,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Writes how `holder`'s attempt for the sink `name` from position `from` ended, if the
    /// node still holds the lease and the cursor is still at `from`. Answers whether it did.
    async fn settle_event_consumer(
        &self,
        name: &str,
        holder: &str,
        from: i64,
        settlement: Settlement,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Every sink's cursor, by name.
    async fn event_consumers(&self) -> Result<Vec<EventConsumer>, StoreError>;

    /// Ends the leases `holder` holds, on sinks and on replays of dead letters (a node that
    /// stops), so that another node takes them over at once instead of when they run out.
    /// Answers how many were ended.
    async fn release_event_leases(&self, holder: &str) -> Result<u64, StoreError>;

    /// Appends webhook delivery attempts to the delivery log.
    async fn record_webhook_attempts(&self, attempts: &[WebhookAttempt]) -> Result<(), StoreError>;

    /// Deletes, oldest first, at most `limit` events created before `before` that every sink
    /// has delivered (each sink that moved since `before`; the others are gone from every
    /// node's settings) and no pending replay needs (each that changed since `before`); answers
    /// how many went. Each call is one short transaction. The newest relayed event is always
    /// kept: the relay head never goes back, so no position is ever given twice.
    async fn delete_delivered_events(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;

    /// Deletes, oldest first, at most `limit` webhook delivery attempts logged before `before`;
    /// answers how many went.
    async fn delete_webhook_deliveries(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;

    /// The newest logged webhook attempts, newest first, at most `limit`; only those with
    /// `outcome` when given (`Dead`: the dead-lettered batches).
    async fn webhook_deliveries(
        &self,
        outcome: Option<WebhookOutcome>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, StoreError>;

    /// One logged webhook attempt, by its id.
    async fn webhook_delivery(&self, id: i64) -> Result<Option<WebhookDelivery>, StoreError>;

    /// Asks for the dead-lettered batch of `delivery` (which has its positions) to be delivered
    /// again to its URL, at `now`, in one transaction with `audit` when given: refused, with
    /// nothing written, while a replay of it is pending or when some of its events are no
    /// longer stored.
    async fn request_webhook_replay(
        &self,
        delivery: &WebhookDelivery,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<ReplayRequested, StoreError>;

    /// Takes the oldest pending replay to `url` that is due at `now` (its retry time passed)
    /// and that no other node's lease holds, for the node `holder` until `lease_until`.
    async fn claim_webhook_replay(
        &self,
        url: &str,
        holder: &str,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> Result<Option<WebhookReplay>, StoreError>;

    /// Writes how `holder`'s attempt at the replay `id` ended, if it is still pending and the
    /// node still holds it. Answers whether it did.
    async fn settle_webhook_replay(
        &self,
        id: i64,
        holder: &str,
        outcome: ReplayOutcome,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// The newest replays, newest first, at most `limit`.
    async fn webhook_replays(&self, limit: u32) -> Result<Vec<WebhookReplay>, StoreError>;

    /// Deletes, oldest first, at most `limit` finished replays last changed before `before`;
    /// answers how many went.
    async fn delete_webhook_replays(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;
}
