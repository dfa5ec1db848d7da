//! The NATS JetStream publisher: each event is published on `<prefix>.<kind>`
//! (`safezone.events.purchase`) with its id as `Nats-Msg-Id`, so JetStream drops a repeat
//! within its duplicate window; a batch is published whole and then its acknowledgements
//! awaited. A batch JetStream does not acknowledge is published again after a backoff
//! ([`EventSettings::retry_backoff`](super::EventSettings)); meanwhile the other sinks go on.

use async_nats::jetstream::{self, message::PublishMessage};
use async_trait::async_trait;
use tokio::sync::Mutex;

use std::time::Duration;

use super::{Backoff, Delivered, DeliveryError, RelayedEvent, Sink};

/// The most publications awaiting their acknowledgements at once (below the client's limit).
const IN_FLIGHT: usize = 1_000;

/// Where events are published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NatsSettings {
    /// The server (`nats://127.0.0.1:4222`).
    pub url: String,
    /// The subjects' prefix: an event goes to `<prefix>.<kind>`.
    pub subject_prefix: String,
    /// A stream to create (or keep) over `<prefix>.>` when the publisher connects; `None`
    /// when the studio manages its streams itself.
    pub stream: Option<String>,
}

impl NatsSettings {
    /// The default subjects' prefix.
    pub const DEFAULT_PREFIX: &str = "safezone.events";

    /// Publishing to the server at `url` under [`Self::DEFAULT_PREFIX`], without creating a
    /// stream.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            subject_prefix: Self::DEFAULT_PREFIX.to_owned(),
            stream: None,
        }
    }
}

/// The JetStream publisher; it connects on its first batch (and again after a failed
/// connection).
pub(crate) struct Nats {
    settings: NatsSettings,
    backoff: Backoff,
    context: Mutex<Option<jetstream::Context>>,
}

impl Nats {
    /// The publisher for `settings`, not connected yet, waiting `backoff` after failures.
    pub(crate) fn new(settings: NatsSettings, backoff: Backoff) -> Self {
        Self {
            settings,
            backoff,
            context: Mutex::new(None),
        }
    }

    /// The JetStream context, connecting (and creating the stream) first if needed.
    async fn context(&self) -> Result<jetstream::Context, DeliveryError> {
        let mut context = self.context.lock().await;
        if let Some(connected) = context.as_ref() {
            return Ok(connected.clone());
        }
        let client = async_nats::connect(&self.settings.url)
            .await
            .map_err(|error| DeliveryError(format!("connecting: {error}")))?;
        let connected = jetstream::new(client);
        if let Some(stream) = &self.settings.stream {
            connected
                .get_or_create_stream(jetstream::stream::Config {
                    name: stream.clone(),
                    subjects: vec![format!("{}.>", self.settings.subject_prefix)],
                    ..Default::default()
                })
                .await
                .map_err(|error| DeliveryError(format!("stream {stream}: {error}")))?;
        }
        *context = Some(connected.clone());
        Ok(connected)
    }
}

#[async_trait]
impl Sink for Nats {
    fn name(&self) -> String {
        format!("nats {}", self.settings.subject_prefix)
    }

    async fn deliver(&self, events: &[RelayedEvent], _: u32) -> Result<Delivered, DeliveryError> {
        let context = self.context().await?;
        for chunk in events.chunks(IN_FLIGHT) {
            let mut acks = Vec::with_capacity(chunk.len());
            for RelayedEvent { event, .. } in chunk {
                let payload = serde_json::to_vec(event)
                    .map_err(|error| DeliveryError(format!("event {}: {error}", event.id)))?;
                let subject = format!("{}.{}", self.settings.subject_prefix, event.payload.kind());
                let publish = PublishMessage::build()
                    .payload(payload.into())
                    .message_id(event.id.to_string());
                let ack = context
                    .send_publish(subject, publish)
                    .await
                    .map_err(|error| DeliveryError(format!("publishing {}: {error}", event.id)))?;
                acks.push((event.id, ack));
            }
            for (id, ack) in acks {
                ack.await
                    .map_err(|error| DeliveryError(format!("acknowledging {id}: {error}")))?;
            }
        }
        Ok(Delivered::Taken)
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.backoff.after(attempt)
    }
}
