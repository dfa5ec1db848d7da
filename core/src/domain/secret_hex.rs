//! What user keys and operator secrets share: 24 random bytes written as 48 lower-case hex
//! characters, known to the database only by their SHA-256.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// Number of random bytes in a secret.
const SECRET_BYTES: usize = 24;
/// Number of lower-case hex characters in a secret.
const SECRET_CHARS: usize = SECRET_BYTES * 2;

/// A fresh secret from the operating system's cryptographic random source.
pub(super) fn generate() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Whether `text` is exactly [`SECRET_CHARS`] lower-case hex characters.
pub(super) fn is_well_formed(text: &str) -> bool {
    text.len() == SECRET_CHARS
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The SHA-256 of `secret` in lower-case hex.
pub(super) fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}
