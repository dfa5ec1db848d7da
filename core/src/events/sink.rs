//! Where the relay hands events: the sinks, each following the relayed events with a cursor
//! of its own ([`consumer`](super::consumer)).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;

use super::RelayedEvent;

/// A consumer of relayed events with a durable cursor: a webhook, a NATS stream.
#[async_trait]
pub trait Sink: Send + Sync {
    /// Its name, unique among the sinks: its cursor's name in the store and in logs
    /// (`webhook https://...`, `nats safezone.events`).
    fn name(&self) -> String;

    /// One attempt at a batch of events (consecutive relay positions), in id order;
    /// `attempt` counts from 1 and grows with each failure of the batch. An error leaves the
    /// batch to be tried again after [`Sink::backoff`]; [`Delivered::GivenUp`] moves on past it
    /// (a dead letter).
    async fn deliver(
        &self,
        events: &[RelayedEvent],
        attempt: u32,
    ) -> Result<Delivered, DeliveryError>;

    /// How long to wait after failed attempt `attempt` (from 1) before the next.
    fn backoff(&self, attempt: u32) -> Duration;

    /// The URL whose dead letters this sink delivers again when an operator asks for it (a
    /// webhook's); `None`, the default, for a sink that gives nothing up.
    fn replays(&self) -> Option<&str> {
        None
    }
}

/// What became of a batch a sink did not fail on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    /// The sink took it.
    Taken,
    /// The sink gave it up after its last attempt (a webhook's dead letter).
    GivenUp,
}

/// Capped exponential backoff: `first` after the first failure, twice as long after each next
/// one, at most `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait after the first failure.
    pub first: Duration,
    /// The longest wait.
    pub max: Duration,
}

impl Backoff {
    /// The wait after failed attempt `attempt` (from 1).
    ///
    /// ```
    /// use std::time::Duration;
    /// use safezone_core::events::Backoff;
    ///
    /// let backoff = Backoff { first: Duration::from_millis(250), max: Duration::from_secs(1) };
    /// let waits: Vec<u128> = (1..=4).map(|attempt| backoff.after(attempt).as_millis()).collect();
    /// assert_eq!(waits, [250, 500, 1_000, 1_000]);
    /// ```
    pub fn after(&self, attempt: u32) -> Duration {
        let factor = 2_u32.saturating_pow(attempt.saturating_sub(1).min(31));
        self.first.saturating_mul(factor).min(self.max)
    }
}

/// Why a sink could not take a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryError(pub String);

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeliveryError {}
