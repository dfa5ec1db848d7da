//! The in-process subscription: every node follows the relayed events with a cursor of its own
//! (in memory, from the relay head when the node starts) and hands them to its subscribers, so
//! a subscriber on any node sees every event. A subscriber ([`EventSubscriber`]) that falls
//! behind the channel reads what it missed from the outbox, after the last relay position it
//! saw: it never loses an event.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};

use super::{DomainEvent, RelayedEvent};
use crate::store::Store;

/// How many events the channel keeps for a subscriber that is behind; one further behind
/// reads the events it missed from the outbox.
pub const SUBSCRIPTION_CAPACITY: usize = 16_384;

/// How many events a subscriber catching up reads from the outbox at once.
const CATCH_UP_BATCH: u32 = 1_000;

/// How long a subscriber catching up waits after the store failed to answer.
const CATCH_UP_RETRY: Duration = Duration::from_secs(1);

/// This node's channel of relayed events and how far it has followed them.
pub(crate) struct Subscription {
    sender: broadcast::Sender<RelayedEvent>,
    /// The relay position handed to subscribers up to.
    published: AtomicI64,
}

impl Subscription {
    /// A channel without subscribers, at position 0.
    pub(crate) fn new() -> Self {
        Self {
            sender: broadcast::channel(SUBSCRIPTION_CAPACITY).0,
            published: AtomicI64::new(0),
        }
    }

    /// The relay position followed up to.
    pub(crate) fn position(&self) -> i64 {
        self.published.load(Ordering::SeqCst)
    }

    /// Whether anyone subscribes now.
    pub(crate) fn is_watched(&self) -> bool {
        self.sender.receiver_count() > 0
    }

    /// Moves the position to `position` without handing anything over (nobody subscribes).
    pub(crate) fn skip_to(&self, position: i64) {
        self.published.fetch_max(position, Ordering::SeqCst);
    }

    /// Hands `events`, in relay order, to every current subscriber.
    pub(crate) fn publish(&self, events: Vec<RelayedEvent>) {
        for event in events {
            // The position first: a subscriber that reads it before this event is sent
            // receives the event and skips it, one that reads it after starts past it.
            self.published.store(event.position, Ordering::SeqCst);
            // An error only means that nobody subscribes now.
            let _ = self.sender.send(event);
        }
    }

    /// A subscriber that receives the events after relay position `after`, or (`None`) those
    /// relayed from now on.
    pub(crate) fn subscribe(&self, store: Arc<dyn Store>, after: Option<i64>) -> EventSubscriber {
        let receiver = self.sender.subscribe();
        EventSubscriber {
            receiver,
            store,
            position: after.unwrap_or_else(|| self.position()),
            backlog: VecDeque::new(),
            catching_up: after.is_some(),
        }
    }
}

/// A subscription to the domain events, in relay order
/// ([`SafezoneService::subscribe_events`](crate::SafezoneService::subscribe_events)). Its
/// [`recv`](Self::recv) never loses an event: when the subscriber falls more than
/// [`SUBSCRIPTION_CAPACITY`] events behind, it reads what it missed from the outbox.
pub struct EventSubscriber {
    receiver: broadcast::Receiver<RelayedEvent>,
    store: Arc<dyn Store>,
    /// The relay position of the last event received.
    position: i64,
    /// Events read from the outbox, to hand out before the channel's.
    backlog: VecDeque<RelayedEvent>,
    /// Whether the outbox is read before the channel (after a lag, or from a position).
    catching_up: bool,
}

impl EventSubscriber {
    /// The next event, in relay order; `None` once the service is gone. A store that fails
    /// while the subscriber catches up is asked again every second (logged), so an event is
    /// never skipped. Cancel-safe: a `recv` dropped before it answers loses nothing.
    pub async fn recv(&mut self) -> Option<DomainEvent> {
        self.recv_relayed().await.map(|relayed| relayed.event)
    }

    /// [`recv`](Self::recv) with the event's relay position.
    pub async fn recv_relayed(&mut self) -> Option<RelayedEvent> {
        loop {
            if let Some(next) = self.backlog.pop_front() {
                if next.position > self.position {
                    self.position = next.position;
                    return Some(next);
                }
                continue;
            }
            if self.catching_up {
                self.catch_up().await;
                continue;
            }
            match self.receiver.recv().await {
                Ok(next) if next.position <= self.position => {}
                Ok(next) => {
                    self.position = next.position;
                    return Some(next);
                }
                Err(RecvError::Lagged(_)) => self.catching_up = true,
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// The relay position of the last event received: keep it to resume after a restart with
    /// [`SafezoneService::subscribe_events_from`](crate::SafezoneService::subscribe_events_from).
    pub fn position(&self) -> i64 {
        self.position
    }

    /// Reads the next events after the position from the outbox; done when fewer than a full
    /// batch came (the channel holds the rest).
    async fn catch_up(&mut self) {
        match self
            .store
            .relayed_events(self.position, CATCH_UP_BATCH)
            .await
        {
            Ok(events) => {
                self.catching_up = events.len() >= CATCH_UP_BATCH as usize;
                self.backlog.extend(events);
            }
            Err(error) => {
                tracing::warn!(%error, "an event subscriber could not read the outbox; trying again");
                tokio::time::sleep(CATCH_UP_RETRY).await;
            }
        }
    }
}
