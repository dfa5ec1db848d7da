//! Domain events: what happened to accounts, written by the store in the transaction of the
//! change itself (a transactional outbox) and relayed to the sinks at least once.
//!
//! A committed change has its events in the store's `events` table; a refused or rolled-back
//! one has none. The relay (`relay.rs`) gives the committed events their relay positions (one
//! node at a time, in id order among those it finds); every sink follows positions on its own: each
//! webhook URL and NATS with a durable cursor, retries and backoff of its own (a dead receiver
//! delays no other), every node's in-process
//! [`subscription`](crate::SafezoneService::subscribe_events) with a cursor in memory. A crash
//! between a delivery and its cursor's move delivers it again: consumers deduplicate by
//! [`DomainEvent::id`]. One account's events have ids, and positions, in the order their
//! changes committed (each is written after the account's row was locked by its transaction);
//! events of different accounts may have positions out of id order (a transaction that
//! committed late).

mod consumer;
mod derive;
mod kinds;
#[cfg(feature = "nats")]
pub mod nats;
pub(crate) mod relay;
mod replay;
mod settings;
mod sink;
pub mod subscription;
pub mod webhook;

pub use derive::{change_events, match_events, operator_event};
pub use kinds::{DomainEvent, Drop, EventPayload, MatchPlayer, Price, RelayedChange, RelayedEvent};
pub use settings::EventSettings;
pub use sink::{Backoff, Delivered, DeliveryError, Sink};
