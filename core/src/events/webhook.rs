//! Signed outbound webhooks: each batch of events is POSTed as JSON to every configured URL,
//! signed with the URL's secret, tried again with exponential backoff, and given up
//! (dead-lettered) after the last attempt. Each URL is a sink of its own, with its own cursor
//! and retries: a receiver that fails or never answers holds back no other. Every attempt is written to the delivery log
//! ([`EventStore::record_webhook_attempts`](crate::store::EventStore::record_webhook_attempts)),
//! which operators read at `GET /operator/api/webhooks`, and from which they may ask for a
//! dead letter to be delivered again (`POST /operator/api/webhooks/{deliveryId}/replay`).
//!
//! The body is `{"events": [...]}`; the header
//! `Safezone-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` lets the
//! receiver check that Safezone sent it ([`verify`]) and when (to refuse replays).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use time::OffsetDateTime;

use super::{Backoff, Delivered, DeliveryError, RelayedEvent, Sink};
use crate::store::{Store, WebhookAttempt, WebhookOutcome};

/// The header that carries a delivery's signature.
pub const SIGNATURE_HEADER: &str = "Safezone-Signature";

/// One webhook receiver: where events are POSTed and the secret they are signed with.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSettings {
    /// The receiver's URL (`https://studio.example/safezone-events`).
    pub url: String,
    /// The shared secret of the signature. Its `Debug` never shows it.
    pub secret: String,
}

impl fmt::Debug for WebhookSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookSettings")
            .field("url", &self.url)
            .field("secret", &"..")
            .finish()
    }
}

/// How a batch is tried: at most `attempts` times, waiting `first_backoff` after the first
/// failure and twice as long after each next one, at most `max_backoff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookRetries {
    /// The most attempts per batch and URL (at least 1).
    pub attempts: u32,
    /// The wait after the first failed attempt.
    pub first_backoff: Duration,
    /// The longest wait between attempts.
    pub max_backoff: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for WebhookRetries {
    /// 5 attempts, waiting 0.25 s, 0.5 s, 1 s and 2 s between them (at most 4 s), 10 s each.
    fn default() -> Self {
        Self {
            attempts: 5,
            first_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(4),
            timeout: Duration::from_secs(10),
        }
    }
}

impl WebhookRetries {
    /// The wait after failed attempt `attempt` (from 1).
    fn backoff(&self, attempt: u32) -> Duration {
        Backoff {
            first: self.first_backoff,
            max: self.max_backoff,
        }
        .after(attempt)
    }
}

/// The signature header's value for `body` sent at `timestamp` (Unix seconds):
/// `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under secret>`.
///
/// ```
/// use safezone_core::events::webhook::{signature, verify};
///
/// let header = signature(b"s3cret", 1_700_000_000, br#"{"events":[]}"#);
/// assert!(header.starts_with("t=1700000000,v1="));
/// assert!(verify(b"s3cret", &header, br#"{"events":[]}"#, 1_700_000_010, 300));
/// assert!(!verify(b"other", &header, br#"{"events":[]}"#, 1_700_000_010, 300));
/// ```
pub fn signature(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac(secret, timestamp, body))
    )
}

/// Whether `header` is a valid signature of `body` under `secret`, made at most `tolerance`
/// seconds from `now` (Unix seconds): what a receiver checks. The comparison takes the same
/// time however much of the signature matches.
pub fn verify(secret: &[u8], header: &str, body: &[u8], now: i64, tolerance: i64) -> bool {
    let mut timestamp = None;
    let mut signed = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signed = hex::decode(value).ok(),
            _ => {}
        }
    }
    let (Some(timestamp), Some(signed)) = (timestamp, signed) else {
        return false;
    };
    if (now - timestamp).abs() > tolerance {
        return false;
    }
    let Ok(mut check) = Hmac::<Sha256>::new_from_slice(secret) else {
        return false;
    };
    check.update(format!("{timestamp}.").as_bytes());
    check.update(body);
    check.verify_slice(&signed).is_ok()
}

/// HMAC-SHA256 of `"<timestamp>.<body>"`.
fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        return Vec::new();
    };
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

/// A delivery's body: `{"events": [...]}`, the events without their relay positions.
struct Batch<'a> {
    events: &'a [RelayedEvent],
}

impl Serialize for Batch<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;

        struct Events<'a>(&'a [RelayedEvent]);
        impl Serialize for Events<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.iter().map(|relayed| &relayed.event))
            }
        }
        let mut batch = serializer.serialize_struct("Batch", 1)?;
        batch.serialize_field("events", &Events(self.events))?;
        batch.end()
    }
}

/// The sink of one webhook URL.
pub(crate) struct Webhook {
    settings: WebhookSettings,
    retries: WebhookRetries,
    client: reqwest::Client,
    store: Arc<dyn Store>,
}

impl Webhook {
    /// The sink POSTing to `settings`' URL, logging its attempts in `store`.
    pub(crate) fn new(
        settings: WebhookSettings,
        retries: WebhookRetries,
        store: Arc<dyn Store>,
    ) -> Result<Self, DeliveryError> {
        let client = reqwest::Client::builder()
            .timeout(retries.timeout)
            .build()
            .map_err(|error| DeliveryError(format!("webhook client: {error}")))?;
        Ok(Self {
            settings,
            retries,
            client,
            store,
        })
    }

    /// One attempt: the receiver's status when it answered, or what went wrong.
    async fn attempt(&self, body: &[u8]) -> (Option<u16>, Option<String>) {
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let signed = signature(self.settings.secret.as_bytes(), now, body);
        let sent = self
            .client
            .post(&self.settings.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signed)
            .body(body.to_vec())
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => {
                (Some(response.status().as_u16()), None)
            }
            Ok(response) => {
                let status = response.status();
                (
                    Some(status.as_u16()),
                    Some(format!("answered HTTP {status}")),
                )
            }
            Err(error) => (None, Some(error.to_string())),
        }
    }

    /// Writes one attempt to the delivery log; a failure to write it is only logged.
    async fn log(&self, events: &[RelayedEvent], attempt: WebhookAttempt) {
        if let Err(error) = self.store.record_webhook_attempts(&[attempt]).await {
            tracing::warn!(%error, events = events.len(), "could not log a webhook attempt");
        }
    }
}

#[async_trait]
impl Sink for Webhook {
    fn name(&self) -> String {
        format!("webhook {}", self.settings.url)
    }

    /// One attempt at the batch, logged; the last allowed attempt that fails dead-letters the
    /// batch (logged `dead`) and gives it up, so that it never holds the later events back.
    async fn deliver(
        &self,
        events: &[RelayedEvent],
        attempt: u32,
    ) -> Result<Delivered, DeliveryError> {
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            return Ok(Delivered::Taken);
        };
        let (first, last) = (&first.event, &last.event);
        let positions = events.iter().map(|event| event.position);
        let positions = positions.clone().min().zip(positions.max());
        let body = serde_json::to_vec(&Batch { events })
            .map_err(|error| DeliveryError(format!("webhook body: {error}")))?;
        let attempts = self.retries.attempts.max(1);
        let (status, error) = self.attempt(&body).await;
        let outcome = match (&error, attempt >= attempts) {
            (None, _) => WebhookOutcome::Delivered,
            (Some(_), false) => WebhookOutcome::Failed,
            (Some(_), true) => WebhookOutcome::Dead,
        };
        let logged = WebhookAttempt {
            url: self.settings.url.clone(),
            first_event: first.id,
            last_event: last.id,
            events: i64::try_from(events.len()).unwrap_or(i64::MAX),
            positions,
            attempt: i32::try_from(attempt).unwrap_or(i32::MAX),
            outcome,
            status: status.map(i32::from),
            error: error.clone(),
            at: OffsetDateTime::now_utc(),
        };
        self.log(events, logged).await;
        match (outcome, error) {
            (WebhookOutcome::Delivered, _) | (_, None) => Ok(Delivered::Taken),
            (WebhookOutcome::Dead, Some(error)) => {
                tracing::error!(
                    url = %self.settings.url,
                    first = first.id,
                    last = last.id,
                    %error,
                    "webhook batch dead-lettered after {attempts} attempts"
                );
                Ok(Delivered::GivenUp)
            }
            (WebhookOutcome::Failed, Some(error)) => Err(DeliveryError(error)),
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.retries.backoff(attempt)
    }

    fn replays(&self) -> Option<&str> {
        Some(&self.settings.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_maximum() {
        let retries = WebhookRetries::default();
        let waits: Vec<u64> = (1..=6)
            .map(|attempt| u64::try_from(retries.backoff(attempt).as_millis()).unwrap_or(0))
            .collect();
        assert_eq!(waits, [250, 500, 1_000, 2_000, 4_000, 4_000]);
    }

    #[test]
    fn a_signature_is_refused_when_tampered_or_stale() {
        let header = signature(b"k", 100, b"body");
        assert!(verify(b"k", &header, b"body", 100, 300));
        assert!(!verify(b"k", &header, b"bodY", 100, 300));
        assert!(!verify(b"k", &header, b"body", 1_000, 300));
        assert!(!verify(b"k", "t=100", b"body", 100, 300));
    }
}
