//! The form token: every console form carries one, and every POST must return it. It is
//! HMAC-SHA256 of a fixed label keyed by the console session's id, so it is the same on every
//! page of one sign-in, another after the next sign-in, needs no storage, and cannot be made
//! without the session's id (which the browser keeps `HttpOnly`).

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The form field that carries the token.
pub(super) const FIELD: &str = "csrf";

/// What the MAC is of.
const LABEL: &[u8] = b"safezone operator console: form token";

type HmacSha256 = Hmac<Sha256>;

/// The MAC keyed by `secret` (a session's id), before the label.
fn keyed(secret: &str) -> Option<HmacSha256> {
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).ok()?;
    mac.update(LABEL);
    Some(mac)
}

/// The form token of `secret`, as hex.
pub(super) fn token(secret: &str) -> String {
    keyed(secret)
        .map(|mac| hex::encode(mac.finalize().into_bytes()))
        .unwrap_or_default()
}

/// Whether `presented` is the form token of `secret` (compared in constant time).
pub(super) fn check(secret: &str, presented: Option<&str>) -> bool {
    let Some(presented) = presented.and_then(|text| hex::decode(text).ok()) else {
        return false;
    };
    keyed(secret).is_some_and(|mac| mac.verify_slice(&presented).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_secrets_own_token_passes() {
        let secret = "0123456789abcdef0123456789abcdef0123456789abcdef";
        let token = token(secret);
        assert_eq!(token.len(), 64);
        assert!(check(secret, Some(&token)));
        assert!(!check(secret, None));
        assert!(!check(secret, Some("")));
        assert!(!check(secret, Some("not hex")));
        assert!(!check(secret, Some(&token[..62])));
        assert!(!check(&secret.replace('0', "1"), Some(&token)));
    }
}
