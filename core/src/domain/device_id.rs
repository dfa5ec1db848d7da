//! Device identifiers of the mobile apps.

use sha2::{Digest, Sha256};

use super::Platform;

/// The sign-in provider of device accounts.
pub const DEVICE_PROVIDER: &str = "device";

/// Longest accepted device id.
const MAX_CHARS: usize = 128;

/// A device id as the apps send it: `{platform}-{uuid}`, e.g. `android-5f0c...`.
///
/// The spec does not enforce the uuid part; Safezone accepts 1 to 128 printable ASCII
/// characters, and reads the platform from the prefix when it names one.
///
/// ```
/// use safezone_core::domain::{DeviceId, Platform};
/// let id = DeviceId::parse("ios-0b7c4c1e-6d2a-4f43-9a57-0d4b2f0e8e11").unwrap();
/// assert_eq!(id.platform(), Some(Platform::Ios));
/// assert!(DeviceId::parse("").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceId(String);

impl DeviceId {
    /// The most characters of a device id.
    pub const MAX_CHARS: usize = MAX_CHARS;

    /// Accepts 1 to 128 printable ASCII characters; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        if text.is_empty() {
            return Err("must not be empty");
        }
        if text.len() > MAX_CHARS {
            return Err("must be at most 128 characters");
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("must be printable ASCII without spaces");
        }
        Ok(Self(text.to_owned()))
    }

    /// The platform named by the `{platform}-` prefix, if any.
    pub fn platform(&self) -> Option<Platform> {
        let (prefix, _) = self.0.split_once('-')?;
        Platform::parse(&prefix.to_ascii_lowercase())
    }

    /// The id as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The account identifier it is stored as: a device id is a long-lived credential, so
    /// only its SHA-256 is kept (lower-case hex).
    pub fn stored_identifier(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}
