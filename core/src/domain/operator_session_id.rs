//! Console session ids: what a signed-in browser presents instead of the operator token's
//! secret, and the hash the database keeps instead.

use std::fmt;

use super::secret_hex;

/// What starts every session id, so that the operator API tells one from a token's secret.
const PREFIX: &str = "session_";

/// The id of one console session: `session_` and 24 random bytes as 48 lower-case hex
/// characters. The browser keeps it in the console's cookie; the database keeps only its
/// SHA-256, with the session's token and expiry.
///
/// ```
/// use safezone_core::domain::{OperatorSecret, OperatorSessionId};
/// let id = OperatorSessionId::generate();
/// assert!(id.as_str().starts_with("session_"));
/// assert_eq!(OperatorSessionId::parse(id.as_str()), Some(id.clone()));
/// let secret = OperatorSecret::generate();
/// assert_eq!(OperatorSessionId::parse(secret.as_str()), None);
/// assert_eq!(id.hash().len(), 64);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OperatorSessionId(String);

impl OperatorSessionId {
    /// A fresh id from the operating system's cryptographic random source.
    pub fn generate() -> Self {
        Self(format!("{PREFIX}{}", secret_hex::generate()))
    }

    /// Accepts exactly `session_` and 48 lower-case hex characters.
    pub fn parse(text: &str) -> Option<Self> {
        text.strip_prefix(PREFIX)
            .is_some_and(secret_hex::is_well_formed)
            .then(|| Self(text.to_owned()))
    }

    /// The id as the browser presents it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its SHA-256 in lower-case hex: all the database ever sees.
    pub fn hash(&self) -> String {
        secret_hex::sha256_hex(&self.0)
    }
}

/// Never print a session id by accident: debug output shows only that there is one.
impl fmt::Debug for OperatorSessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorSessionId(..)")
    }
}
