//! Signed user keys: a user key that carries its account, its expiry and the account's key
//! generation, authenticated by a server secret, so that issuing one writes nothing.
//!
//! A signed key has the shape of every user key (24 bytes as 48 lower-case hex characters):
//!
//! | bytes | what |
//! |---|---|
//! | 0..5 | the account id, big-endian (ids below 2^40) |
//! | 5..9 | the expiry, unix seconds, big-endian |
//! | 9..12 | the account's key generation when the key was issued, big-endian |
//! | 12..15 | random, so that two keys issued to one account in one second differ |
//! | 15..24 | the first 9 bytes (72 bits) of HMAC-SHA256 of bytes 0..15 under the secret |
//!
//! A key from before signed keys (24 random bytes, kept by its hash in the database) fails the
//! check but for a chance of 2^-72, and is then looked up as before.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use time::OffsetDateTime;

use super::UserKey;

/// The number of key generations a key can tell apart: revoking every key of an account moves
/// its generation on, modulo this.
pub const KEY_GENERATIONS: u32 = 1 << 24;

/// The largest account id a signed key can carry (2^40 - 1).
const MAX_ACCOUNT: i64 = (1 << 40) - 1;
/// Bytes of a key that the MAC covers.
const SIGNED_BYTES: usize = 15;
/// Bytes of the MAC kept in a key.
const MAC_BYTES: usize = 9;

/// What a signed key says, once its MAC is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyClaims {
    /// The id of the account the key opens.
    pub account: i64,
    /// The account's key generation the key was issued under, below [`KEY_GENERATIONS`].
    pub generation: u32,
    /// When the key stops working (whole seconds).
    pub expires: OffsetDateTime,
}

/// A server secret for signed keys: 32 bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct KeySecret([u8; 32]);

impl KeySecret {
    /// A fresh secret from the operating system's cryptographic random source.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Self(bytes)
    }

    /// Reads 64 hex characters (either letter case); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text.trim(), &mut bytes).ok()?;
        Some(Self(bytes))
    }

    /// The secret as 64 lower-case hex characters.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// A secret's HMAC-SHA256 with the secret already absorbed: each key signed or checked starts
/// from a copy of it instead of keying a new one (two SHA-256 blocks fewer per key).
#[derive(Clone)]
struct KeyedMac(Hmac<Sha256>);

impl KeyedMac {
    fn new(secret: &KeySecret) -> Self {
        Self(
            <Hmac<Sha256> as Mac>::new_from_slice(&secret.0)
                .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length")),
        )
    }

    /// The HMAC-SHA256 of `signed` under the secret.
    fn of(&self, signed: &[u8]) -> Hmac<Sha256> {
        self.0.clone().chain_update(signed)
    }
}

/// Never print a secret's state by accident.
impl std::fmt::Debug for KeyedMac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyedMac(..)")
    }
}

/// Never print a secret by accident.
impl std::fmt::Debug for KeySecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeySecret(..)")
    }
}

/// Signs keys with the current secret and checks them against it and the previous one (kept
/// while keys signed with it may still be in use, so that the secret can be rotated).
///
/// ```
/// use safezone_core::domain::{KeyClaims, KeySecret, KeySigner};
/// let signer = KeySigner::new(KeySecret::generate(), None);
/// let claims = KeyClaims {
///     account: 42,
///     generation: 3,
///     expires: time::macros::datetime!(2030-01-01 0:00 UTC),
/// };
/// let key = signer.sign(&claims).expect("the id is in range");
/// assert_eq!(signer.verify(&key), Some(claims));
/// assert_eq!(KeySigner::new(KeySecret::generate(), None).verify(&key), None);
/// ```
#[derive(Debug, Clone)]
pub struct KeySigner {
    current: KeyedMac,
    previous: Option<KeyedMac>,
}

impl KeySigner {
    /// Signs with `current`; checks with `current` and `previous`.
    pub fn new(current: KeySecret, previous: Option<KeySecret>) -> Self {
        Self {
            current: KeyedMac::new(&current),
            previous: previous.as_ref().map(KeyedMac::new),
        }
    }

    /// A new key that says `claims`; `None` when they do not fit a key (an account id of 2^40
    /// or more, a generation of [`KEY_GENERATIONS`] or more, an expiry outside 1970 to 2106).
    pub fn sign(&self, claims: &KeyClaims) -> Option<UserKey> {
        if !(0..=MAX_ACCOUNT).contains(&claims.account) || claims.generation >= KEY_GENERATIONS {
            return None;
        }
        let expires = u32::try_from(claims.expires.unix_timestamp()).ok()?;
        let mut bytes = [0u8; SIGNED_BYTES + MAC_BYTES];
        bytes[..5].copy_from_slice(&claims.account.to_be_bytes()[3..]);
        bytes[5..9].copy_from_slice(&expires.to_be_bytes());
        bytes[9..12].copy_from_slice(&claims.generation.to_be_bytes()[1..]);
        rand::rng().fill_bytes(&mut bytes[12..15]);
        let mac = self
            .current
            .of(&bytes[..SIGNED_BYTES])
            .finalize()
            .into_bytes();
        bytes[SIGNED_BYTES..].copy_from_slice(&mac[..MAC_BYTES]);
        UserKey::parse(&hex::encode(bytes))
    }

    /// What `key` says when one of the secrets signed it; `None` for any other key.
    pub fn verify(&self, key: &UserKey) -> Option<KeyClaims> {
        let mut bytes = [0u8; SIGNED_BYTES + MAC_BYTES];
        hex::decode_to_slice(key.as_str(), &mut bytes).ok()?;
        let (signed, mac) = bytes.split_at(SIGNED_BYTES);
        let matches = |keyed: &KeyedMac| keyed.of(signed).verify_truncated_left(mac).is_ok();
        if !matches(&self.current) && !self.previous.as_ref().is_some_and(matches) {
            return None;
        }
        let mut account = [0u8; 8];
        account[3..].copy_from_slice(&signed[..5]);
        let mut expires = [0u8; 4];
        expires.copy_from_slice(&signed[5..9]);
        let mut generation = [0u8; 4];
        generation[1..].copy_from_slice(&signed[9..12]);
        Some(KeyClaims {
            account: i64::from_be_bytes(account),
            generation: u32::from_be_bytes(generation),
            expires: OffsetDateTime::from_unix_timestamp(i64::from(u32::from_be_bytes(expires)))
                .ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn claims() -> KeyClaims {
        KeyClaims {
            account: MAX_ACCOUNT,
            generation: KEY_GENERATIONS - 1,
            expires: datetime!(2099-12-31 23:59:59 UTC),
        }
    }

    #[test]
    fn a_signed_key_reads_back_at_the_edges_of_its_ranges() {
        let signer = KeySigner::new(KeySecret::generate(), None);
        let key = signer.sign(&claims()).expect("in range");
        assert_eq!(key.as_str().len(), 48);
        assert_eq!(signer.verify(&key), Some(claims()));
    }

    #[test]
    fn two_keys_of_the_same_claims_differ() {
        let signer = KeySigner::new(KeySecret::generate(), None);
        let first = signer.sign(&claims()).expect("in range");
        let second = signer.sign(&claims()).expect("in range");
        assert_ne!(first, second);
        assert_eq!(signer.verify(&second), Some(claims()));
    }

    #[test]
    fn claims_outside_a_key_are_not_signed() {
        let signer = KeySigner::new(KeySecret::generate(), None);
        let too_big = KeyClaims {
            account: MAX_ACCOUNT + 1,
            ..claims()
        };
        let old_generation = KeyClaims {
            generation: KEY_GENERATIONS,
            ..claims()
        };
        assert_eq!(signer.sign(&too_big), None);
        assert_eq!(signer.sign(&old_generation), None);
    }

    #[test]
    fn a_changed_byte_or_another_secret_is_refused_and_the_previous_secret_still_checks() {
        let old = KeySecret::generate();
        let key = KeySigner::new(old.clone(), None)
            .sign(&claims())
            .expect("in range");
        let mut tampered = key.as_str().to_owned();
        tampered.replace_range(0..1, if tampered.starts_with('0') { "1" } else { "0" });
        let tampered = UserKey::parse(&tampered).expect("still hex");
        let rotated = KeySigner::new(KeySecret::generate(), Some(old.clone()));
        assert_eq!(KeySigner::new(old, None).verify(&tampered), None);
        assert_eq!(rotated.verify(&key), Some(claims()));
        assert_eq!(
            KeySigner::new(KeySecret::generate(), None).verify(&key),
            None
        );
        assert_eq!(rotated.verify(&UserKey::generate()), None);
    }

    #[test]
    fn secrets_parse_from_64_hex_characters_only() {
        let secret = KeySecret::generate();
        assert_eq!(KeySecret::parse(&secret.to_hex()), Some(secret));
        assert_eq!(KeySecret::parse("abc"), None);
        assert_eq!(KeySecret::parse(&"g".repeat(64)), None);
    }
}
