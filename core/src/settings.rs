//! Operator settings that are not content: lifetimes and limits.

use std::time::Duration;

/// How the service behaves, independently of the content file.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long a new user key stays valid.
    pub key_lifetime: time::Duration,
    /// The largest request body accepted, in bytes.
    pub body_limit: usize,
    /// The longest a request may take before it is answered 503 `timeout`.
    pub request_timeout: Duration,
    /// The credential game servers present to report matches (`Authorization: Bearer ...`);
    /// without one, match reports are answered 501.
    pub game_server_token: Option<ServerToken>,
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
    /// Keys live 30 days, bodies up to 64 KiB, requests up to 30 seconds; no game-server
    /// credential.
    fn default() -> Self {
        Self {
            key_lifetime: time::Duration::days(30),
            body_limit: 64 * 1024,
            request_timeout: Duration::from_secs(30),
            game_server_token: None,
        }
    }
}
