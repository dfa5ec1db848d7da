//! The events' consumers: a webhook receiver (a small HTTP server checking each batch's
//! signature) and a NATS JetStream consumer of the nodes' stream. Each counts every event id it
//! receives (duplicates allowed: delivery is at least once) and the time from the event's `at`
//! to its arrival.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use time::OffsetDateTime;

use crate::stats::Histogram;

/// What one consumer received.
#[derive(Default)]
pub struct Received {
    /// How many times each event id arrived (index: the id).
    pub counts: Vec<u32>,
    /// Deliveries, duplicates included.
    pub deliveries: u64,
    /// Batches (webhook) or messages (NATS) that could not be read or whose signature failed.
    pub rejected: u64,
    /// From the event's `at` to its first arrival, since the measured run began.
    pub lag: Histogram,
    /// The same, in the current 10-second window.
    pub window_lag: Histogram,
}

impl Received {
    fn record(&mut self, id: i64, at: OffsetDateTime, now: OffsetDateTime) {
        let Ok(index) = usize::try_from(id) else {
            self.rejected += 1;
            return;
        };
        if self.counts.len() <= index {
            self.counts.resize(index + 1 + 4096, 0);
        }
        self.counts[index] += 1;
        self.deliveries += 1;
        if self.counts[index] == 1 {
            let lag = Duration::try_from(now - at).unwrap_or_default();
            self.lag.record(lag);
            self.window_lag.record(lag);
        }
    }

    /// Forgets the lags recorded so far (the seeding before the measured run).
    pub fn reset_lag(&mut self) {
        self.lag = Histogram::default();
        self.window_lag = Histogram::default();
    }

    /// Distinct events received.
    pub fn distinct(&self) -> u64 {
        self.counts.iter().filter(|&&count| count > 0).count() as u64
    }
}

/// A consumer's shared record.
pub type Shared = Arc<Mutex<Received>>;

/// What a consumer reads of an event.
#[derive(Deserialize)]
struct Head {
    id: i64,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
}

#[derive(Deserialize)]
struct Batch {
    events: Vec<Head>,
}

/// Serves the webhook receiver on a free port of 127.0.0.1; answers its URL. A batch is
/// accepted (204) when its `Safezone-Signature` verifies under `secret`, else refused (401).
pub async fn webhook(secret: String, received: Shared) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/events", listener.local_addr()?);
    let secret: Arc<[u8]> = secret.into_bytes().into();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (secret, received) = (Arc::clone(&secret), Arc::clone(&received));
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let (secret, received) = (Arc::clone(&secret), Arc::clone(&received));
                async move {
                    let signature = request
                        .headers()
                        .get("safezone-signature")
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    let body = request
                        .into_body()
                        .collect()
                        .await
                        .map(|body| body.to_bytes())
                        .unwrap_or_default();
                    let status = accept(&secret, &signature, &body, &received);
                    let mut response = hyper::Response::new(Full::new(Bytes::new()));
                    *response.status_mut() = status;
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(url)
}

/// Checks and records one webhook batch.
fn accept(secret: &[u8], signature: &str, body: &[u8], received: &Shared) -> http::StatusCode {
    let now = OffsetDateTime::now_utc();
    let verified =
        safezone_core::events::webhook::verify(secret, signature, body, now.unix_timestamp(), 300);
    let batch = serde_json::from_slice::<Batch>(body);
    let mut received = received.lock().expect("never poisoned");
    match (verified, batch) {
        (true, Ok(batch)) => {
            for event in batch.events {
                received.record(event.id, event.at, now);
            }
            http::StatusCode::NO_CONTENT
        }
        _ => {
            received.rejected += 1;
            http::StatusCode::UNAUTHORIZED
        }
    }
}

/// Creates the JetStream stream `stream` over `<prefix>.>` (the nodes keep it) and consumes it
/// with an ordered consumer from a task of its own, recording every event.
pub async fn nats(
    url: &str,
    stream: &str,
    prefix: &str,
    received: Shared,
) -> Result<(), Box<dyn std::error::Error>> {
    let client = async_nats::connect(url).await?;
    let jetstream = async_nats::jetstream::new(client);
    let stream = jetstream
        .get_or_create_stream(async_nats::jetstream::stream::Config {
            name: stream.to_owned(),
            subjects: vec![format!("{prefix}.>")],
            ..Default::default()
        })
        .await?;
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig::default())
        .await?;
    let mut messages = consumer.messages().await?;
    tokio::spawn(async move {
        while let Some(message) = messages.next().await {
            let Ok(message) = message else {
                continue;
            };
            let now = OffsetDateTime::now_utc();
            let mut received = received.lock().expect("never poisoned");
            match serde_json::from_slice::<Head>(&message.payload) {
                Ok(head) => received.record(head.id, head.at, now),
                Err(_) => received.rejected += 1,
            }
        }
    });
    Ok(())
}

/// Deletes the run's stream.
pub async fn delete_stream(url: &str, stream: &str) {
    if let Ok(client) = async_nats::connect(url).await {
        let _ = async_nats::jetstream::new(client)
            .delete_stream(stream)
            .await;
    }
}
