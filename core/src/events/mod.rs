//! Domain events: what happened to accounts, written by the store in the transaction of the
//! change itself (a transactional outbox) and relayed to the sinks at least once.
//!
//! A committed change has its events in the store's `events` table; a refused or rolled-back
//! one has none. The relay reads the events not yet relayed in id order, hands them
//! to every sink (the in-process [`subscription`](crate::SafezoneService::subscribe_events), signed [`webhook`]s, a [`nats`] JetStream
//! stream) and then marks them relayed. A crash between the two delivers them again:
//! consumers deduplicate by [`DomainEvent::id`]. One account's events have ids in the order
//! their changes committed (each is written after the account's row was locked by its
//! transaction); events of different accounts may be relayed out of id order by a transaction
//! that committed late.

mod derive;
mod kinds;
#[cfg(feature = "nats")]
pub mod nats;
pub(crate) mod relay;
mod settings;
mod sink;
pub mod subscription;
pub mod webhook;

pub use derive::{change_events, match_events, operator_event};
pub use kinds::{DomainEvent, Drop, EventPayload, Price};
pub use settings::EventSettings;
pub use sink::{DeliveryError, Sink};
