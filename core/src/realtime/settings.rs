//! How this node runs the realtime channels: their pace and their limits.

use std::time::Duration;

/// The realtime channels' pace and limits on this node
/// ([`Settings::realtime`](crate::Settings::realtime)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealtimeSettings {
    /// How often the server sends a protocol Ping (the welcome's `pingSecs`); a client silent
    /// for two of these is closed (4000), and the key's expiry is checked as often.
    pub ping_every: Duration,
    /// The most messages a channel's queue holds while its socket is not taking them; a
    /// consumer further behind is closed (4008) and resumes with `after`.
    pub queue: usize,
    /// The most channels one account may have open on this node; one more is refused (429
    /// `too_many_channels`).
    pub per_account: usize,
    /// The most events a resuming channel reads from the outbox at once.
    pub resume_batch: u32,
}

impl Default for RealtimeSettings {
    /// A Ping every 20 s, 256 messages queued, 5 channels per account, 500 events a read.
    fn default() -> Self {
        Self {
            ping_every: Duration::from_secs(20),
            queue: 256,
            per_account: 5,
            resume_batch: 500,
        }
    }
}
