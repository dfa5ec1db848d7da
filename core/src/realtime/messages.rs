//! The realtime channel's messages: text frames, each one JSON object tagged by `type`. The
//! server's are written here once (each message's text), and their schemas, from the same
//! types, go in the AsyncAPI document ([`asyncapi`](super::asyncapi)).

use serde::Serialize;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{KnownFormat, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::events::{DomainEvent, RelayedEvent};

/// `{"type":"welcome", ...}`: the server's first message on a channel, once.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = RealtimeWelcome)]
pub struct Welcome {
    /// Always `welcome`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// The account whose events the channel carries.
    pub account: i64,
    /// The relay head when the channel opened: without `after`, the stream goes on after it.
    pub position: i64,
    /// The live content's published version served now (0: the one the node started with).
    pub content_version: i64,
    /// Whether the game is down for maintenance (the content's `maintenance`).
    pub maintenance: bool,
    /// How often the server sends a protocol Ping, in seconds; a client silent for two of
    /// these is closed (4000).
    pub ping_secs: u64,
}

/// `{"type":"event","position":P,"event":{...}}`: one of the player's domain events, as the
/// webhooks deliver it, at its relay position.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = RealtimeEvent)]
pub struct EventMessage<'a> {
    /// Always `event`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// The event's relay position: keep the last one and reconnect with `after=<it>`.
    pub position: i64,
    /// The domain event: `id`, `at`, `account`, `kind` and the kind's fields.
    #[schema(schema_with = domain_event_schema)]
    pub event: &'a DomainEvent,
}

/// `{"type":"reset","position":P}`: the events after the client's `after` are no longer kept
/// (or `after` is past the head); the client reloads its state, and the stream goes on after
/// `position`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = RealtimeReset)]
pub struct Reset {
    /// Always `reset`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// The relay position the stream goes on after.
    pub position: i64,
}

/// `{"type":"content","version":V,"maintenance":M}`: live content was published (sent to
/// every player).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = RealtimeContent)]
pub struct ContentMessage {
    /// Always `content`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
    /// The published version served now.
    pub version: i64,
    /// Whether the game is down for maintenance.
    pub maintenance: bool,
}

/// `{"type":"pong"}`: the answer to a client's `{"type":"ping"}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = RealtimePong)]
pub struct Pong {
    /// Always `pong`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: &'static str,
}

/// `{"type":"ping"}`: a client's ping, answered `{"type":"pong"}`. Anything else a client
/// sends is ignored.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
#[schema(as = RealtimePing)]
pub struct Ping {
    /// Always `ping`.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub kind: String,
}

impl Welcome {
    /// The welcome of `account`'s channel.
    pub fn new(
        account: i64,
        position: i64,
        content_version: i64,
        maintenance: bool,
        ping_secs: u64,
    ) -> Self {
        Self {
            kind: "welcome",
            account,
            position,
            content_version,
            maintenance,
            ping_secs,
        }
    }
}

impl<'a> EventMessage<'a> {
    /// The message of `relayed`.
    pub fn new(relayed: &'a RelayedEvent) -> Self {
        Self {
            kind: "event",
            position: relayed.position,
            event: &relayed.event,
        }
    }
}

impl Reset {
    /// A reset after which the stream goes on after `position`.
    pub fn new(position: i64) -> Self {
        Self {
            kind: "reset",
            position,
        }
    }
}

impl ContentMessage {
    /// The message of a publication of `version`.
    pub fn new(version: i64, maintenance: bool) -> Self {
        Self {
            kind: "content",
            version,
            maintenance,
        }
    }
}

impl Pong {
    /// The pong.
    pub fn new() -> Self {
        Self { kind: "pong" }
    }
}

impl Default for Pong {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a client's text frame is `{"type":"ping"}` (other fields are ignored).
pub fn is_ping(text: &str) -> bool {
    serde_json::from_str::<Ping>(text).is_ok_and(|ping| ping.kind == "ping")
}

/// A message's text frame. The messages are plain structs of numbers and strings, which always
/// serialize; a failure would be a bug, logged, and the message sent as `{}`.
pub fn text<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_else(|error| {
        tracing::error!(%error, "a realtime message did not serialize");
        "{}".to_owned()
    })
}

/// The schema of a [`DomainEvent`]: an object with its `id`, `at`, `account` and `kind`, and
/// the kind's own fields.
fn domain_event_schema() -> RefOr<Schema> {
    ObjectBuilder::new()
        .description(Some(
            "A domain event as the webhooks deliver it: `id` (consumers deduplicate by it), \
             `at`, `account` (null for an event of no account) and `kind` (`purchase`, \
             `holdings_changed`, `match_reported`, `clan_invited`, ...), with the kind's own \
             fields beside them.",
        ))
        .property("id", i64::schema())
        .property(
            "at",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))),
        )
        .property(
            "account",
            ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                Type::Integer,
                Type::Null,
            ])),
        )
        .property("kind", String::schema())
        .required("id")
        .required("at")
        .required("account")
        .required("kind")
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .into()
}
