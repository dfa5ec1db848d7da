//! Where the relay hands events: the sinks.

use std::fmt;

use async_trait::async_trait;

use super::DomainEvent;

/// A consumer of relayed events: the in-process subscription, a webhook, a NATS stream.
#[async_trait]
pub trait Sink: Send + Sync {
    /// A short name for logs (`webhook https://...`, `nats`).
    fn name(&self) -> String;

    /// Delivers a batch of events, in id order. An error leaves the batch unrelayed: it is
    /// handed to every sink again in a later round (at least once).
    async fn deliver(&self, events: &[DomainEvent]) -> Result<(), DeliveryError>;
}

/// Why a sink could not take a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryError(pub String);

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeliveryError {}
