//! The realtime channel (`GET /api/realtime`, a WebSocket): each player's domain events as
//! they commit, the live content's publications, pings; resumable after the last relay
//! position seen with nothing lost or repeated, on any node.
//!
//! The hub (`hub.rs`, one per node) follows the node's event subscription and queues each
//! event for the channels of the accounts it concerns; each channel (`channel.rs`) sends its
//! welcome, what its player missed (read from the outbox), then what the hub queued. The
//! messages are in [`messages`], their AsyncAPI document in [`asyncapi`].

pub mod asyncapi;
pub(crate) mod channel;
mod close;
pub(crate) mod hub;
pub mod messages;
mod settings;

pub use close::CloseCode;
pub use settings::RealtimeSettings;
