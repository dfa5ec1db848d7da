//! Operator token secrets: what an operator presents to the operator API, and the hash the
//! database keeps instead.

use std::fmt;

use rand::RngCore;
use sha2::{Digest, Sha256};

/// Number of random bytes in a secret.
const SECRET_BYTES: usize = 24;

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
        let mut bytes = [0u8; SECRET_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    /// Accepts exactly 48 lower-case hex characters.
    pub fn parse(text: &str) -> Option<Self> {
        let well_formed = text.len() == SECRET_BYTES * 2
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        well_formed.then(|| Self(text.to_owned()))
    }

    /// The secret as the operator presents it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its SHA-256 in lower-case hex: all the database ever sees.
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}

/// Never print a secret by accident: debug output shows only that there is one.
impl fmt::Debug for OperatorSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorSecret(..)")
    }
}
