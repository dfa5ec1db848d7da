//! Operator settings that are not content: lifetimes and limits.

use std::num::NonZeroUsize;
use std::time::Duration;

use crate::events::EventSettings;
use crate::http::RateLimits;

/// How the service behaves, independently of the content file. Built with
/// [`Settings::builder`] (every setting has a default, [`Settings::default`] is the builder
/// with none set) or changed field by field; it is `#[non_exhaustive]`, so a setting added
/// later never breaks an embedder's code.
///
/// ```
/// use std::time::Duration;
/// use safezone_core::{ServerToken, Settings};
///
/// let settings = Settings::builder()
///     .key_lifetime(time::Duration::days(7))
///     .request_timeout(Duration::from_secs(10))
///     .game_server_token(ServerToken::parse("a-long-shared-secret").unwrap())
///     .build();
/// assert_eq!(settings.key_lifetime, time::Duration::days(7));
/// assert_eq!(settings.body_limit, Settings::default().body_limit);
///
/// let mut changed = Settings::default();
/// changed.trust_forwarded_for = true;
/// ```
#[derive(Debug, Clone, bon::Builder)]
#[non_exhaustive]
pub struct Settings {
    /// How long a new user key stays valid.
    #[builder(default = time::Duration::days(30))]
    pub key_lifetime: time::Duration,
    /// The secrets that sign user keys (the current one, and the previous one while its keys
    /// may still be in use); without them, a secret kept in the database.
    pub user_key_signer: Option<crate::domain::KeySigner>,
    /// How long an idempotency key is remembered: a repeat within this time of the first
    /// application replays it; the retention sweep forgets older keys.
    #[builder(default = time::Duration::days(7))]
    pub idempotency_retention: time::Duration,
    /// How long the per-player hourly statistics are kept (`MatchStore::stat_totals` sums
    /// only these); the retention sweep deletes older hours. No quest, challenge, track or
    /// board reads them (those count in the progress counters and the match log): 366 days
    /// keep the longest window Safezone names, the boards' year, for an embedder's own reads.
    #[builder(default = time::Duration::days(366))]
    pub stats_retention: time::Duration,
    /// How long a graceful stop of the command line's server may spend writing a snapshot of
    /// the boards (after the last request was answered), so that the next start reads little
    /// of the logs; past it the stop goes on, and the snapshot, incomplete, is never read.
    /// Zero: none.
    #[builder(default = Duration::from_secs(10))]
    pub stop_snapshot_within: Duration,
    /// How often this node's retention sweep deletes expired user keys and forgets idempotency
    /// keys past their retention.
    #[builder(default = Duration::from_secs(10 * 60))]
    pub retention_sweep_every: Duration,
    /// How often the node asks the store whether a newer content file was published (every
    /// node serves it within about this time).
    #[builder(default = Duration::from_secs(1))]
    pub content_check_every: Duration,
    /// The content file the node was started with (`--content`), which the operator API's
    /// status names beside whether it is served; `None` for the shipped one (or an
    /// embedder's own).
    pub content_file: Option<String>,
    /// The largest request body accepted, in bytes.
    #[builder(default = 64 * 1024)]
    pub body_limit: usize,
    /// The longest a request may take before it is answered 503 `timeout`.
    #[builder(default = Duration::from_secs(30))]
    pub request_timeout: Duration,
    /// The credential game servers present to report matches (`Authorization: Bearer ...`);
    /// without one, match reports are answered 501.
    pub game_server_token: Option<ServerToken>,
    /// The rate limits per endpoint group and scope, counted by this node alone.
    #[builder(default)]
    pub rate_limits: RateLimits,
    /// Whether the right-most `X-Forwarded-For` entry (added by the proxy in front) is the
    /// client's address; only for a server reached through such a proxy alone.
    #[builder(default)]
    pub trust_forwarded_for: bool,
    /// Origins allowed by CORS besides the auth file's `web_origins`.
    #[builder(default)]
    pub cors_origins: Vec<String>,
    /// `Strict-Transport-Security: max-age=...` on every response, when set.
    pub hsts_max_age: Option<Duration>,
    /// The most requests this node handles at once; beyond it, 503 `overloaded` at once.
    pub max_in_flight: Option<usize>,
    /// The limits on open connections, for the server adapter that serves the service.
    #[builder(default)]
    pub connection_limits: ConnectionLimits,
    /// How the domain events are relayed, and to which webhooks and NATS server.
    #[builder(default)]
    pub events: EventSettings,
    /// The realtime channels' pace and limits (`GET /api/realtime`).
    #[builder(default)]
    pub realtime: crate::realtime::RealtimeSettings,
    /// The most accounts whose session and view this node keeps in memory
    /// ([`SessionCache`](crate::auth::SessionCache)); 0: none, every session is read.
    #[builder(default = 16_384)]
    pub session_cache_entries: usize,
}

/// What a server adapter limits per connection, before any request reaches the service.
/// The warp adapter applies them ([`serve::start`](crate::serve::start)); rocket 0.5 cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The most connections open at once; at the cap, no connection is accepted until one
    /// closes (the others wait in the kernel's backlog). `None`: no cap.
    pub max_connections: Option<NonZeroUsize>,
    /// How long a connection may take to send a request's head (request line and headers),
    /// counted from its opening or from its previous answer, so idle keep-alive connections
    /// included; then it is closed without an answer.
    pub header_read_timeout: Duration,
}

impl Default for ConnectionLimits {
    /// No cap on connections; 10 seconds to send a request's head.
    fn default() -> Self {
        Self {
            max_connections: None,
            header_read_timeout: Duration::from_secs(10),
        }
    }
}

/// The shortest game-server credential accepted.
pub const SERVER_TOKEN_MIN_CHARS: usize = 16;

/// A game server's shared secret. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerToken(String);

impl ServerToken {
    /// Checks a credential: at least [`SERVER_TOKEN_MIN_CHARS`] visible ASCII characters.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.len() < SERVER_TOKEN_MIN_CHARS || !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!(
                "must be at least {SERVER_TOKEN_MIN_CHARS} visible ASCII characters"
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// Whether `presented` is this credential. Compares digests, so the time taken says
    /// nothing about how much of the credential matched.
    pub fn matches(&self, presented: &str) -> bool {
        use sha2::{Digest, Sha256};
        Sha256::digest(self.0.as_bytes()) == Sha256::digest(presented.as_bytes())
    }
}

impl std::fmt::Debug for ServerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerToken(..)")
    }
}

impl Default for Settings {
    /// Keys live 30 days, idempotency keys are remembered 7 days and swept every 10 minutes,
    /// published content is looked for every second,
    /// bodies up to 64 KiB, requests up to 30 seconds; no game-server
    /// credential, no rate limits, no extra CORS origin, no HSTS, no cap on requests in
    /// flight nor on connections, 10 seconds to send a request's head; events relayed every
    /// 100 ms to the in-process subscription only; up to 16,384 accounts' sessions kept in
    /// memory.
    fn default() -> Self {
        Self::builder().build()
    }
}

impl Settings {
    /// How long the retention sweep keeps each kind of row past its use.
    pub(crate) fn retention_ages(&self) -> crate::retention::Ages {
        crate::retention::Ages {
            idempotency: self.idempotency_retention,
            delivered_events: self.events.retention,
            deliveries: self.events.deliveries_retention,
            stats: self.stats_retention,
        }
    }
}
