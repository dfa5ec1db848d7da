//! Replays of dead-lettered webhook batches, as operators request them and the webhooks' sinks
//! carry them out (table `webhook_replays`).

use time::OffsetDateTime;

/// Where a replay stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayState {
    /// Waiting for its URL's sink on some node, or being tried.
    Pending,
    /// The receiver took the batch again.
    Delivered,
    /// Every attempt failed again: the batch is dead-lettered anew (a new delivery row, which
    /// may be replayed in turn).
    Dead,
    /// Its events were no longer stored when the sink came to it (the events' retention).
    Expired,
}

impl ReplayState {
    /// As stored and shown: `pending`, `delivered`, `dead`, `expired`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Dead => "dead",
            Self::Expired => "expired",
        }
    }

    /// Reads a stored state.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(Self::Pending),
            "delivered" => Some(Self::Delivered),
            "dead" => Some(Self::Dead),
            "expired" => Some(Self::Expired),
            _ => None,
        }
    }
}

/// A replay of one dead-lettered batch to its webhook URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookReplay {
    /// The replay's id.
    pub id: i64,
    /// The dead letter's delivery row.
    pub delivery: i64,
    /// The receiver's URL.
    pub url: String,
    /// The relay positions of the batch's first and last events.
    pub positions: (i64, i64),
    /// Where it stands.
    pub state: ReplayState,
    /// Its failed attempts so far.
    pub failures: u32,
    /// When it is tried again after a failure.
    pub retry_at: Option<OffsetDateTime>,
    /// Its last failure, or why it expired.
    pub error: Option<String>,
    /// When an operator asked for it.
    pub requested: OffsetDateTime,
    /// When it last changed.
    pub updated: OffsetDateTime,
}

/// What became of a request to replay a dead letter
/// ([`EventStore::request_webhook_replay`](super::EventStore::request_webhook_replay)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayRequested {
    /// The replay is pending: the URL's sink delivers the batch again.
    Requested(WebhookReplay),
    /// A replay of this dead letter is pending already; nothing was written.
    AlreadyPending,
    /// Some of the batch's events are no longer stored (the events' retention deleted them);
    /// nothing was written.
    EventsGone,
}

/// How a sink's attempt at a replay ended, to be written to it
/// ([`EventStore::settle_webhook_replay`](super::EventStore::settle_webhook_replay)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// The replay ended: delivered, dead again, or expired (with why, for the last two).
    Finished(ReplayState, Option<String>),
    /// The attempt failed; it is tried again.
    Failed {
        /// Failed attempts so far, this one included.
        failures: u32,
        /// When to try again.
        retry_at: OffsetDateTime,
        /// What went wrong.
        error: String,
    },
}
