//! How this node relays events and where to.

use std::time::Duration;

use super::Backoff;
#[cfg(feature = "nats")]
use super::nats::NatsSettings;
use super::webhook::{WebhookRetries, WebhookSettings};

/// The relay's pace and its sinks besides the in-process subscription (which is always there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSettings {
    /// How often the relay looks for events to sequence, and each sink for events after its
    /// cursor (a full batch is followed by the next at once).
    pub relay_every: Duration,
    /// The most events one relay round sequences, and one delivery hands a sink.
    pub relay_batch: u32,
    /// The webhook receivers, each sent every batch.
    pub webhooks: Vec<WebhookSettings>,
    /// How webhook deliveries are tried again.
    pub webhook_retries: WebhookRetries,
    /// How long a sink without retries of its own (NATS) waits after failures: each sink
    /// backs off on its own, the others go on.
    pub retry_backoff: Backoff,
    /// How long an event is kept once every sink has delivered it, for subscribers that
    /// resume from the outbox and for replays; the retention sweep deletes it then.
    pub retention: time::Duration,
    /// How long the webhooks' delivery log keeps an attempt (dead letters too).
    pub deliveries_retention: time::Duration,
    /// The NATS JetStream server events are published to, if any (feature `nats`).
    #[cfg(feature = "nats")]
    pub nats: Option<NatsSettings>,
}

impl Default for EventSettings {
    /// Every 100 ms, up to 2,000 events a round; no webhook, no NATS; a failing sink waits
    /// 0.25 s, then twice as long after each failure, at most 30 s; delivered events kept 7
    /// days, delivery attempts 30.
    fn default() -> Self {
        Self {
            relay_every: Duration::from_millis(100),
            relay_batch: 2_000,
            webhooks: Vec::new(),
            webhook_retries: WebhookRetries::default(),
            retry_backoff: Backoff {
                first: Duration::from_millis(250),
                max: Duration::from_secs(30),
            },
            retention: time::Duration::days(7),
            deliveries_retention: time::Duration::days(30),
            #[cfg(feature = "nats")]
            nats: None,
        }
    }
}
