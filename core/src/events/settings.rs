//! How this node relays events and where to.

use std::time::Duration;

#[cfg(feature = "nats")]
use super::nats::NatsSettings;
use super::webhook::{WebhookRetries, WebhookSettings};

/// The relay's pace and its sinks besides the in-process subscription (which is always there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSettings {
    /// How often the relay looks for events not yet relayed (a full batch is followed by the
    /// next at once).
    pub relay_every: Duration,
    /// The most events one relay round hands over.
    pub relay_batch: u32,
    /// The webhook receivers, each sent every batch.
    pub webhooks: Vec<WebhookSettings>,
    /// How webhook deliveries are tried again.
    pub webhook_retries: WebhookRetries,
    /// The NATS JetStream server events are published to, if any (feature `nats`).
    #[cfg(feature = "nats")]
    pub nats: Option<NatsSettings>,
}

impl Default for EventSettings {
    /// Every 100 ms, up to 2,000 events a round; no webhook, no NATS.
    fn default() -> Self {
        Self {
            relay_every: Duration::from_millis(100),
            relay_batch: 2_000,
            webhooks: Vec::new(),
            webhook_retries: WebhookRetries::default(),
            #[cfg(feature = "nats")]
            nats: None,
        }
    }
}
