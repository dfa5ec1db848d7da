//! Operator token secrets: what an operator presents to the operator API, and the hash the
//! database keeps instead.

use std::fmt;

use super::secret_hex;

/// An operator token's secret: 24 random bytes written as 48 lower-case hex characters, shown
/// once when the token is created; the database keeps only its SHA-256.
///
/// ```
/// use safezone_core::domain::OperatorSecret;
/// let secret = OperatorSecret::generate();
/// assert_eq!(OperatorSecret::parse(secret.as_str()), Some(secret.clone()));
/// assert_eq!(OperatorSecret::parse("ABC"), None);
/// assert_eq!(secret.hash().len(), 64);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OperatorSecret(String);

impl OperatorSecret {
    /// A fresh secret from the operating system's cryptographic random source.
    pub fn generate() -> Self {
        Self(secret_hex::generate())
    }

    /// Accepts exactly 48 lower-case hex characters.
    pub fn parse(text: &str) -> Option<Self> {
        secret_hex::is_well_formed(text).then(|| Self(text.to_owned()))
    }

    /// The secret as the operator presents it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its SHA-256 in lower-case hex: all the database ever sees.
    pub fn hash(&self) -> String {
        secret_hex::sha256_hex(&self.0)
    }
}

/// Never print a secret by accident: debug output shows only that there is one.
impl fmt::Debug for OperatorSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorSecret(..)")
    }
}
