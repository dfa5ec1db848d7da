//! The in-process subscription: an embedder's tasks receive the events this node relays.

use async_trait::async_trait;
use tokio::sync::broadcast;

use super::{DeliveryError, DomainEvent, Sink};

/// How many events a subscriber may fall behind before it misses some
/// ([`broadcast::error::RecvError::Lagged`]).
pub const SUBSCRIPTION_CAPACITY: usize = 16_384;

/// The in-process sink: every relayed event goes to every current subscriber, in id order.
pub(crate) struct Subscription {
    sender: broadcast::Sender<DomainEvent>,
}

impl Subscription {
    /// A sink without subscribers yet.
    pub(crate) fn new() -> Self {
        Self {
            sender: broadcast::channel(SUBSCRIPTION_CAPACITY).0,
        }
    }

    /// A new subscriber, which receives the events relayed from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<DomainEvent> {
        self.sender.subscribe()
    }
}

#[async_trait]
impl Sink for Subscription {
    fn name(&self) -> String {
        "in-process subscription".to_owned()
    }

    /// Never fails: without subscribers the events are simply not kept.
    async fn deliver(&self, events: &[DomainEvent]) -> Result<(), DeliveryError> {
        for event in events {
            // An error only means that nobody subscribes now.
            let _ = self.sender.send(event.clone());
        }
        Ok(())
    }
}
