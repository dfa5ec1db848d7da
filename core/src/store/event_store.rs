//! The domain events' outbox, as the relay reads and marks it, and the webhooks' delivery log.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::StoreError;
use crate::events::{DeliveryError, DomainEvent};

/// What the relay does with a batch of events inside the store's round
/// ([`EventStore::relay_events`]): hands them to every sink.
#[async_trait]
pub trait EventDelivery: Send + Sync {
    /// Delivers `events` (in id order); an error leaves them to be relayed again.
    async fn deliver(&self, events: &[DomainEvent]) -> Result<(), DeliveryError>;
}

/// How one relay round ended.
#[derive(Debug)]
pub enum RelayRound {
    /// Another node holds the relay now; nothing was read.
    Held,
    /// These many events were delivered and marked relayed (0: none was waiting).
    Delivered(usize),
    /// Delivery failed; the events stay unrelayed and are read again next round.
    Failed(DeliveryError),
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

/// The domain events' outbox and the webhooks' delivery log. The events themselves are written
/// by the other stores' changes, in their transactions.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// One relay round: reads up to `limit` events not yet relayed, in id order, hands them to
    /// `delivery` and, when it succeeds, marks exactly them relayed. Only one node relays at a
    /// time (on PostgreSQL an advisory lock held by the round's transaction; a node that
    /// cannot take it answers [`RelayRound::Held`]).
    async fn relay_events(
        &self,
        limit: u32,
        delivery: &dyn EventDelivery,
    ) -> Result<RelayRound, StoreError>;

    /// The events after id `after`, in id order, at most `limit`, each with whether it was
    /// relayed.
    async fn events(&self, after: i64, limit: u32) -> Result<Vec<(DomainEvent, bool)>, StoreError>;

    /// Appends webhook delivery attempts to the delivery log.
    async fn record_webhook_attempts(&self, attempts: &[WebhookAttempt]) -> Result<(), StoreError>;

    /// The newest logged webhook attempts, newest first, at most `limit`; only those with
    /// `outcome` when given (`Dead`: the dead-lettered batches).
    async fn webhook_deliveries(
        &self,
        outcome: Option<WebhookOutcome>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, StoreError>;
}
