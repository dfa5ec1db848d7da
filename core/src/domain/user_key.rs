//! User keys: the account tokens clients carry, and the hashes the database stores.

use std::fmt;

use super::secret_hex;

/// A user key: 24 random bytes written as 48 lower-case hex characters.
///
/// ```
/// use safezone_core::domain::UserKey;
/// let key = UserKey::generate();
/// assert_eq!(UserKey::parse(key.as_str()), Some(key.clone()));
/// assert_eq!(UserKey::parse("ABC"), None);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct UserKey(String);

impl UserKey {
    /// A fresh key from the operating system's cryptographic random source.
    pub fn generate() -> Self {
        Self(secret_hex::generate())
    }

    /// Accepts exactly 48 lower-case hex characters.
    pub fn parse(text: &str) -> Option<Self> {
        secret_hex::is_well_formed(text).then(|| Self(text.to_owned()))
    }

    /// The key as clients send it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The hash under which the database knows this key.
    pub fn hash(&self) -> KeyHash {
        KeyHash(secret_hex::sha256_hex(&self.0))
    }
}

/// Never print a key by accident: debug output shows only that there is one.
impl fmt::Debug for UserKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("UserKey(..)")
    }
}

/// The SHA-256 of a user key, as 64 lower-case hex characters: all the database ever sees.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyHash(String);

impl KeyHash {
    /// The hash as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
