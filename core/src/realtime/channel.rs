//! One realtime channel over its WebSocket: the welcome, the events the player missed (read
//! from the outbox after `after`), then the live ones the hub queued, each once and in
//! position order; pings, the client's silence, the key's validity and the closes.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode as WireCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Message};

use super::RealtimeSettings;
use super::close::CloseCode;
use super::hub::{Outgoing, Registration};
use super::messages::{EventMessage, Pong, Reset, Welcome, is_ping, text};
use crate::events::{EventPayload, RelayedEvent};
use crate::live_content::LiveContent;
use crate::store::{Store, StoreError};

/// How long the closing handshake may take (the close frame written and flushed).
const CLOSE_PATIENCE: Duration = Duration::from_secs(5);

/// The largest message a client may send (its pings are a few bytes).
const MAX_CLIENT_MESSAGE: usize = 4 * 1024;

/// What the socket reads at once: small, since a channel mostly writes (10,000 channels must
/// fit a node).
const READ_BUFFER: usize = 4 * 1024;

/// Whether the key a channel was opened with still opens its account.
#[async_trait]
pub(crate) trait KeyCheck: Send + Sync {
    /// `false` once the key is revoked or expired, or its account banned or deleted; `true`
    /// while it is valid, and when the store cannot tell now (asked again later).
    async fn still_valid(&self) -> bool;
}

/// A channel ready to run on an upgraded connection.
pub(crate) struct Channel {
    /// Its place in the hub (registered before the upgrade, so nothing is missed).
    pub(crate) registration: Registration,
    /// The last relay position the client saw, if it resumes.
    pub(crate) after: Option<i64>,
    /// Where the missed events are read.
    pub(crate) store: Arc<dyn Store>,
    /// The content served, for the welcome.
    pub(crate) content: Arc<LiveContent>,
    /// Its pace and limits.
    pub(crate) settings: RealtimeSettings,
    /// Whether its key is still valid.
    pub(crate) key: Arc<dyn KeyCheck>,
}

/// How the channel's exchange ended.
enum Ended {
    /// With this close code, sent to the client.
    Close(CloseCode),
    /// The client closed or the socket failed: nothing more to send.
    Gone,
}

impl From<tokio_tungstenite::tungstenite::Error> for Ended {
    fn from(error: tokio_tungstenite::tungstenite::Error) -> Self {
        tracing::debug!(%error, "a realtime channel's socket ended");
        Self::Gone
    }
}

impl Channel {
    /// Runs the channel on `stream` (the upgraded connection) until it closes.
    pub(crate) async fn run<S>(mut self, stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let config = WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER)
            .write_buffer_size(0)
            .max_message_size(Some(MAX_CLIENT_MESSAGE))
            .max_frame_size(Some(MAX_CLIENT_MESSAGE));
        let mut socket = WebSocketStream::from_raw_socket(stream, Role::Server, Some(config)).await;
        let ended = self.exchange(&mut socket).await;
        // Out of the hub before the closing handshake, which a stalled client may hold up.
        drop(self.registration);
        if let Ended::Close(code) = ended {
            let frame = CloseFrame {
                code: WireCode::from(code.code()),
                reason: code.reason().into(),
            };
            let closing = async {
                socket.close(Some(frame)).await?;
                // The client's answer to the close, read until the socket ends.
                while socket.next().await.is_some() {}
                Ok::<(), tokio_tungstenite::tungstenite::Error>(())
            };
            let _ = tokio::time::timeout(CLOSE_PATIENCE, closing).await;
        }
    }

    /// The welcome, the missed events, then the live ones, the pings and the client's
    /// messages, until a close.
    async fn exchange<S>(&mut self, socket: &mut WebSocketStream<S>) -> Ended
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut last = match self.start(socket).await {
            Ok(last) => last,
            Err(ended) => return ended,
        };
        let ping_every = self.settings.ping_every.max(Duration::from_millis(10));
        let mut pings = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut heard = Instant::now();
        let close = Arc::clone(&self.registration.close);
        loop {
            tokio::select! {
                code = close.wait() => return Ended::Close(code),
                outgoing = self.registration.queue.recv() => {
                    let Some(outgoing) = outgoing else {
                        return Ended::Close(CloseCode::GoingAway);
                    };
                    if let Err(ended) = self.forward(socket, outgoing, &mut last).await {
                        return ended;
                    }
                }
                received = socket.next() => {
                    heard = Instant::now();
                    match received {
                        Some(Ok(Message::Text(message))) if is_ping(&message) => {
                            let pong = Message::text(text(&Pong::new()));
                            if let Err(ended) = self.send(socket, pong).await {
                                return ended;
                            }
                        }
                        Some(Ok(Message::Close(_))) => return Ended::Close(CloseCode::Normal),
                        Some(Ok(_)) => {}
                        Some(Err(error)) => return error.into(),
                        None => return Ended::Gone,
                    }
                }
                _ = pings.tick() => {
                    if heard.elapsed() >= ping_every * 2 {
                        return Ended::Close(CloseCode::Idle);
                    }
                    if !self.key.still_valid().await {
                        return Ended::Close(CloseCode::KeyInvalid);
                    }
                    if let Err(ended) = self.send(socket, Message::Ping(Bytes::new())).await {
                        return ended;
                    }
                }
            }
        }
    }

    /// Sends the welcome and, when the client resumes, what it missed (or a reset when the
    /// outbox no longer keeps it); answers the position the live events go on after.
    async fn start<S>(&mut self, socket: &mut WebSocketStream<S>) -> Result<i64, Ended>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let kept = self.store_answer(self.store.kept_positions().await)?;
        let published = self.content.current();
        let welcome = Welcome::new(
            self.registration.account.0,
            kept.head,
            published.version,
            published.content.client.maintenance,
            self.settings.ping_every.as_secs(),
        );
        self.send(socket, Message::text(text(&welcome))).await?;
        let Some(after) = self.after else {
            return Ok(kept.head);
        };
        if !kept.keeps_after(after) {
            return self.reset(socket, kept.head).await;
        }
        let account = self.registration.account;
        let mut last = after;
        let mut first = true;
        loop {
            let batch = self.settings.resume_batch.max(1);
            let events = self.store.account_events(account, last, batch).await;
            let events = self.store_answer(events)?;
            if first {
                // Read after the events: retention that deleted some before they were read
                // has moved the oldest kept past `after` by now.
                let kept = self.store_answer(self.store.kept_positions().await)?;
                if !kept.keeps_after(after) {
                    return self.reset(socket, kept.head).await;
                }
                first = false;
            }
            let full = events.len() >= batch as usize;
            for relayed in &events {
                self.send_event(socket, relayed).await?;
                last = relayed.position;
            }
            if !full {
                return Ok(last);
            }
        }
    }

    /// Sends a reset: the stream goes on after `head`.
    async fn reset<S>(&mut self, socket: &mut WebSocketStream<S>, head: i64) -> Result<i64, Ended>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        self.send(socket, Message::text(text(&Reset::new(head))))
            .await?;
        Ok(head)
    }

    /// Sends what the hub queued, an event only when it is past `last` (the missed events
    /// read from the outbox may have been queued too); closes when the event tells that the
    /// key may no longer be valid and it is not.
    async fn forward<S>(
        &mut self,
        socket: &mut WebSocketStream<S>,
        outgoing: Outgoing,
        last: &mut i64,
    ) -> Result<(), Ended>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        match outgoing {
            Outgoing::Content(message) => self.send(socket, Message::Text(message)).await,
            Outgoing::Event { relayed, text } => {
                if relayed.position <= *last {
                    return Ok(());
                }
                *last = relayed.position;
                self.send(socket, Message::Text(text)).await?;
                self.check_key_after(&relayed).await
            }
        }
    }

    /// Sends one event read from the outbox, then checks the key as [`Self::forward`] does.
    async fn send_event<S>(
        &mut self,
        socket: &mut WebSocketStream<S>,
        relayed: &RelayedEvent,
    ) -> Result<(), Ended>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let message = Message::text(text(&EventMessage::new(relayed)));
        self.send(socket, message).await?;
        self.check_key_after(relayed).await
    }

    /// Closes (1008) after an event of the player's own that ends its key: a ban or a
    /// deletion always, a revocation when it took this key.
    async fn check_key_after(&self, relayed: &RelayedEvent) -> Result<(), Ended> {
        if relayed.event.account != Some(self.registration.account) {
            return Ok(());
        }
        let ends_key = match &relayed.event.payload {
            EventPayload::Banned { banned: true } | EventPayload::Deleted => true,
            EventPayload::KeysRevoked { .. } => !self.key.still_valid().await,
            _ => false,
        };
        if ends_key {
            Err(Ended::Close(CloseCode::KeyInvalid))
        } else {
            Ok(())
        }
    }

    /// Sends one message; a close asked meanwhile (the hub found the queue full while the
    /// socket did not take the message) wins.
    async fn send<S>(&self, socket: &mut WebSocketStream<S>, message: Message) -> Result<(), Ended>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let close = &self.registration.close;
        tokio::select! {
            sent = socket.send(message) => sent.map_err(Ended::from),
            code = close.wait() => Err(Ended::Close(code)),
        }
    }

    /// The store's answer, or the close of a channel that cannot start for want of it (1001:
    /// the client tries again later).
    fn store_answer<T>(&self, answer: Result<T, StoreError>) -> Result<T, Ended> {
        answer.map_err(|error| {
            tracing::warn!(%error, account = self.registration.account.0, "a realtime channel could not read the outbox");
            Ended::Close(CloseCode::GoingAway)
        })
    }
}
