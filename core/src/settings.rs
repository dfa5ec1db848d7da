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
}

impl Default for Settings {
    /// Keys live 30 days, bodies up to 64 KiB, requests up to 30 seconds.
    fn default() -> Self {
        Self {
            key_lifetime: time::Duration::days(30),
            body_limit: 64 * 1024,
            request_timeout: Duration::from_secs(30),
        }
    }
}
