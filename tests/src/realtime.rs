//! The realtime channel as the tests see it: a real WebSocket client (tokio-tungstenite) on
//! `GET /api/realtime`, the messages it reads, and their check against the AsyncAPI document
//! with Python's `jsonschema` (installed with schemathesis, which the OpenAPI tests drive).

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::Method;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use crate::community::Player;
use crate::leaderboard::within;
use crate::{Answer, TestApp};

/// How long a test waits for a message the server should send.
pub const MESSAGE_WAIT: Duration = Duration::from_secs(10);

/// An open realtime channel: the socket, and every text message the server sent on it.
pub struct Channel {
    socket: WebSocketStream<TcpStream>,
    /// The welcome, the server's first message.
    pub welcome: Value,
    /// Every text message read, in order (the welcome first).
    pub received: Vec<Value>,
}

/// How a channel ended, as its client saw it.
#[derive(Debug)]
pub struct Closed {
    /// The close code of the server's close frame (`None`: the socket ended without one).
    pub code: Option<u16>,
    /// The text messages read before the close.
    pub messages: Vec<Value>,
}

/// The path of the channel with `key` and, when resuming, `after`.
pub fn channel_path(key: &str, after: Option<i64>) -> String {
    match after {
        Some(after) => format!("/api/realtime?userKey={key}&after={after}"),
        None => format!("/api/realtime?userKey={key}"),
    }
}

impl TestApp {
    /// Opens `key`'s channel (resuming after `after`) and reads its welcome.
    pub async fn open_channel(&self, key: &str, after: Option<i64>) -> Channel {
        let stream = TcpStream::connect(self.address)
            .await
            .expect("the server accepts");
        self.channel_over(stream, key, after).await
    }

    /// Opens `key`'s channel over a socket that takes little at a time (a small receive buffer
    /// and segment size), as a player on a slow link whose game stopped reading would.
    pub async fn open_slow_channel(&self, key: &str) -> Channel {
        let stream = slow_socket(self.address);
        self.channel_over(stream, key, None).await
    }

    /// Opens the channel over `stream` and reads its welcome.
    async fn channel_over(&self, stream: TcpStream, key: &str, after: Option<i64>) -> Channel {
        let url = format!("ws://{}{}", self.address, channel_path(key, after));
        let (socket, response) = tokio_tungstenite::client_async(url, stream)
            .await
            .expect("the channel opens");
        assert_eq!(response.status(), 101);
        let mut channel = Channel {
            socket,
            welcome: Value::Null,
            received: Vec::new(),
        };
        let welcome = channel.next_message().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        channel.welcome = welcome;
        channel
    }

    /// A new player whose sign-in events have their relay positions already: a channel opened
    /// now starts after them (a channel sends the events relayed after its welcome, those of
    /// a sign-in a moment before included).
    pub async fn relayed_player(&self) -> Player {
        let player = self.player().await;
        let relayed = within(MESSAGE_WAIT, || async {
            let events = self
                .store
                .account_events(player.id, 0, 10)
                .await
                .map_err(|error| error.to_string())?;
            if events
                .iter()
                .any(|relayed| relayed.event.payload.kind() == "signed_in")
            {
                Ok(())
            } else {
                Err(format!("{events:?}"))
            }
        })
        .await;
        assert!(relayed.is_ok(), "the sign-in was not relayed: {relayed:?}");
        player
    }

    /// `GET path` asking for a WebSocket upgrade, for the refusals answered before it: the
    /// JSON answer.
    pub async fn channel_refusal(&self, path: &str) -> Answer {
        self.send(
            Method::GET,
            path,
            &[
                ("connection", "Upgrade"),
                ("upgrade", "websocket"),
                ("sec-websocket-version", "13"),
                ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ],
            None,
        )
        .await
    }
}

/// A client socket to `address` with a small receive buffer and segment size, so that the
/// server's writes stop being taken after a few tens of kilobytes.
fn slow_socket(address: SocketAddr) -> TcpStream {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).expect("a socket");
    socket.set_recv_buffer_size(4096).expect("receive buffer");
    socket.set_tcp_mss(536).expect("segment size");
    socket.connect(&address.into()).expect("the server accepts");
    socket.set_nonblocking(true).expect("non-blocking");
    TcpStream::from_std(socket.into()).expect("a Tokio socket")
}

impl Channel {
    /// The next text message (within [`MESSAGE_WAIT`]), answering the server's pings on the
    /// way.
    pub async fn next_message(&mut self) -> Value {
        let message = tokio::time::timeout(MESSAGE_WAIT, self.next_text())
            .await
            .unwrap_or_else(|_| panic!("no message within {MESSAGE_WAIT:?}"))
            .unwrap_or_else(|closed| panic!("the channel closed: {closed:?}"));
        self.received.push(message.clone());
        message
    }

    /// The next text message, or how the channel closed.
    async fn next_text(&mut self) -> Result<Value, Closed> {
        loop {
            match self.socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    return Ok(serde_json::from_str(&text).expect("a JSON message"));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(Closed {
                        code: frame.map(|frame| u16::from(frame.code)),
                        messages: Vec::new(),
                    });
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => {
                    return Err(Closed {
                        code: None,
                        messages: Vec::new(),
                    });
                }
            }
        }
    }

    /// The next `event` message's event (failing on any other message).
    pub async fn next_event(&mut self) -> (i64, Value) {
        let message = self.next_message().await;
        assert_eq!(message["type"], "event", "{message}");
        let position = message["position"].as_i64().expect("a position");
        (position, message["event"].clone())
    }

    /// The events up to and including the first of `kind`, with their positions.
    pub async fn events_until(&mut self, kind: &str) -> Vec<(i64, Value)> {
        let mut events = Vec::new();
        loop {
            let (position, event) = self.next_event().await;
            let done = event["kind"] == kind;
            events.push((position, event));
            if done {
                return events;
            }
        }
    }

    /// Fails if a text message comes within `wait`.
    pub async fn assert_quiet_for(&mut self, wait: Duration) {
        if let Ok(message) = tokio::time::timeout(wait, self.next_text()).await {
            panic!("nothing was expected, got {message:?}");
        }
    }

    /// Sends a text frame.
    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::text(text))
            .await
            .expect("the frame is sent");
    }

    /// Sends a protocol Ping with `payload` and waits for its Pong.
    pub async fn ping_frame(&mut self, payload: &'static [u8]) {
        self.socket
            .send(Message::Ping(payload.into()))
            .await
            .expect("the ping is sent");
        let pong = tokio::time::timeout(MESSAGE_WAIT, async {
            loop {
                match self.socket.next().await {
                    Some(Ok(Message::Pong(answer))) => return answer,
                    Some(Ok(_)) => {}
                    other => panic!("the channel ended before the pong: {other:?}"),
                }
            }
        })
        .await
        .expect("a pong within the wait");
        assert_eq!(&pong[..], payload);
    }

    /// Reads until the server closes (within `wait`): its close code and the text messages
    /// read before.
    pub async fn closed_within(&mut self, wait: Duration) -> Closed {
        let mut messages = Vec::new();
        let closed = tokio::time::timeout(wait, async {
            loop {
                match self.next_text().await {
                    Ok(message) => messages.push(message),
                    Err(closed) => return closed,
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("the channel did not close within {wait:?}"));
        self.received.extend(messages.iter().cloned());
        Closed {
            code: closed.code,
            messages,
        }
    }

    /// Closes the channel from the client's side (1000).
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
        while self.socket.next().await.is_some() {}
    }
}

/// Checks every message of `messages` against the schema of its `type` in the AsyncAPI
/// `document` (Draft 2020-12, with the document's `$ref`s), with Python's `jsonschema`; and
/// the document's own examples. Panics naming the first message that does not validate.
pub async fn assert_messages_match_asyncapi(document: &Value, messages: &[Value]) {
    const CHECK: &str = r#"
import json, sys
import jsonschema
document, messages = json.load(sys.stdin)
examples = [m["examples"][0]["payload"] for m in document["components"]["messages"].values()]
failures = []
for message in messages + examples:
    described = document["components"]["messages"].get(message.get("type"))
    if described is None:
        failures.append(("no message of this type in the document", message))
        continue
    schema = dict(document)
    schema["$ref"] = described["payload"]["$ref"]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(message))
    if errors:
        failures.append(([error.message for error in errors], message))
print(json.dumps({"checked": len(messages) + len(examples), "failures": failures}))
sys.exit(1 if failures else 0)
"#;
    let input = serde_json::to_vec(&(document, messages)).expect("serializes");
    let output = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = std::process::Command::new("python3")
            .args(["-c", CHECK])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs (with jsonschema, which schemathesis installs)");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(&input).expect("written");
        drop(stdin);
        child.wait_with_output().expect("python3 ends")
    })
    .await
    .expect("the check runs");
    assert!(
        output.status.success(),
        "messages that do not match the AsyncAPI document: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
