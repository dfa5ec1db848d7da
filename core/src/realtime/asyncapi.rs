//! The realtime channel's machine-readable description: an AsyncAPI 3.0 document (served at
//! `GET /api/asyncapi.json`, written by the `asyncapi` command), whose message payload schemas
//! are the messages' own ([`messages`](super::messages), utoipa's `ToSchema`), each with an
//! example written from the same types.

use serde::Serialize;
use serde_json::{Map, Value, json};
use time::macros::datetime;
use utoipa::ToSchema;

use super::RealtimeSettings;
use super::close::CloseCode;
use super::messages::{ContentMessage, EventMessage, Ping, Pong, Reset, Welcome};
use crate::events::{DomainEvent, EventPayload, Price, RelayedEvent};
use crate::store::{AccountId, Currency, Granted};

/// One message of the channel as the document describes it.
struct Described {
    /// Its `type` tag, and its name among the document's messages.
    tag: &'static str,
    /// Its schema's name and the schema.
    schema: (String, Value),
    /// What it is for.
    summary: &'static str,
    /// An example, written from the message's own type.
    example: Value,
}

/// The schema of `T` with the constant `type` tag, and its name.
fn schema_of<T: ToSchema>(tag: &str) -> (String, Value) {
    let mut schema = serde_json::to_value(T::schema()).unwrap_or(Value::Null);
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert("type".to_owned(), json!({"type": "string", "const": tag}));
    }
    (T::name().into_owned(), schema)
}

/// A message's example as JSON.
fn example<T: Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// The server's messages, in the order a channel may send them.
fn server_messages() -> Vec<Described> {
    let grant = RelayedEvent {
        position: 1207,
        event: DomainEvent {
            id: 98_311,
            at: datetime!(2026-11-23 12:00 UTC),
            account: Some(AccountId(42)),
            payload: EventPayload::HoldingsChanged {
                reason: "grant".to_owned(),
                reference: "grant:7".to_owned(),
                price: Vec::<Price>::new(),
                granted: vec![Granted::Currency {
                    currency: Currency::Coins,
                    amount: 500,
                }],
            },
        },
    };
    let ping_secs = RealtimeSettings::default().ping_every.as_secs();
    vec![
        Described {
            tag: "welcome",
            schema: schema_of::<Welcome>("welcome"),
            summary: "First message, once: the account, the relay head, the content served and \
                      the ping interval.",
            example: example(&Welcome::new(42, 1200, 3, false, ping_secs)),
        },
        Described {
            tag: "event",
            schema: schema_of::<EventMessage<'static>>("event"),
            summary: "One of the player's domain events (its own, or one naming it) at its relay \
                      position: keep the last position and reconnect with `after=<it>`.",
            example: example(&EventMessage::new(&grant)),
        },
        Described {
            tag: "reset",
            schema: schema_of::<Reset>("reset"),
            summary: "The events after the client's `after` are no longer kept: reload the \
                      state; the stream goes on after `position`.",
            example: example(&Reset::new(1200)),
        },
        Described {
            tag: "content",
            schema: schema_of::<ContentMessage>("content"),
            summary: "Live content was published (sent to every player).",
            example: example(&ContentMessage::new(4, false)),
        },
        Described {
            tag: "pong",
            schema: schema_of::<Pong>("pong"),
            summary: "The answer to a client's `{\"type\":\"ping\"}`.",
            example: example(&Pong::new()),
        },
    ]
}

/// The client's messages.
fn client_messages() -> Vec<Described> {
    vec![Described {
        tag: "ping",
        schema: schema_of::<Ping>("ping"),
        summary: "A ping, answered `{\"type\":\"pong\"}`; anything else a client sends is \
                  ignored.",
        example: example(&Ping {
            kind: "ping".to_owned(),
        }),
    }]
}

/// The close codes, as the document's description lists them.
fn close_codes() -> String {
    [
        CloseCode::Normal,
        CloseCode::GoingAway,
        CloseCode::KeyInvalid,
        CloseCode::Idle,
        CloseCode::SlowConsumer,
    ]
    .iter()
    .map(|code| format!("`{}` {}", code.code(), code.reason()))
    .collect::<Vec<_>>()
    .join("; ")
}

/// The AsyncAPI 3.0 document of the realtime channel.
pub fn document() -> Value {
    let server = server_messages();
    let client = client_messages();
    let mut messages = Map::new();
    let mut schemas = Map::new();
    let mut channel_messages = Map::new();
    for described in server.iter().chain(&client) {
        let (name, schema) = &described.schema;
        schemas.insert(name.clone(), schema.clone());
        messages.insert(
            described.tag.to_owned(),
            json!({
                "name": described.tag,
                "summary": described.summary,
                "contentType": "application/json",
                "payload": {"$ref": format!("#/components/schemas/{name}")},
                "examples": [{"name": described.tag, "payload": described.example}],
            }),
        );
        channel_messages.insert(
            described.tag.to_owned(),
            json!({"$ref": format!("#/components/messages/{}", described.tag)}),
        );
    }
    let references = |described: &[Described]| -> Vec<Value> {
        described
            .iter()
            .map(|message| json!({"$ref": format!("#/channels/realtime/messages/{}", message.tag)}))
            .collect()
    };
    json!({
        "asyncapi": "3.0.0",
        "info": {
            "title": "Safezone realtime channel",
            "version": env!("CARGO_PKG_VERSION"),
            "description": format!(
                "One WebSocket per player (`GET /api/realtime`, RFC 6455): the player's domain \
                 events as they commit, live content publications and pings. Text frames, each \
                 one JSON object tagged by `type`. The server sends a protocol Ping every \
                 `pingSecs`; a client silent for two intervals is closed. Close codes: {}.",
                close_codes()
            ),
        },
        "defaultContentType": "application/json",
        "channels": {
            "realtime": {
                "address": "/api/realtime",
                "title": "A player's realtime channel",
                "description": "Opened with the user key (`userKey` query parameter, \
                    `Authorization: Bearer` or the `userKey` cookie) and optionally `after`, the \
                    last relay position seen: every event of the player after it is sent first, \
                    then the live ones, none lost or repeated. Refused before the upgrade with \
                    the API's JSON errors: 400 `invalid_parameter` (`after`), 400 \
                    `not_websocket_upgrade`, 401, 429 `rate_limited` or `too_many_channels`.",
                "messages": channel_messages,
                "bindings": {
                    "ws": {
                        "method": "GET",
                        "query": {
                            "type": "object",
                            "properties": {
                                "userKey": {"type": "string", "description": "The user key"},
                                "after": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "description": "The last relay position the client saw"
                                }
                            }
                        },
                        "bindingVersion": "0.1.0"
                    }
                }
            }
        },
        "operations": {
            "receiveFromServer": {
                "action": "send",
                "title": "What the server sends",
                "channel": {"$ref": "#/channels/realtime"},
                "messages": references(&server),
            },
            "pingTheServer": {
                "action": "receive",
                "title": "What the client may send",
                "channel": {"$ref": "#/channels/realtime"},
                "messages": references(&client),
            }
        },
        "components": {
            "messages": messages,
            "schemas": schemas,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_has_its_schema_and_an_example_of_its_type() {
        let document = document();
        for tag in ["welcome", "event", "reset", "content", "pong", "ping"] {
            let message = &document["components"]["messages"][tag];
            assert_eq!(message["examples"][0]["payload"]["type"], tag, "{tag}");
            let reference = message["payload"]["$ref"].as_str().expect("a reference");
            let name = reference.trim_start_matches("#/components/schemas/");
            let schema = &document["components"]["schemas"][name];
            assert_eq!(schema["properties"]["type"]["const"], tag, "{tag}");
        }
    }
}
