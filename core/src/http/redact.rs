//! Paths as they may be logged: every credential replaced.

use percent_encoding::percent_decode_str;

/// Path prefixes (as segments) whose next segment is a user key.
const KEY_AFTER: [&[&str]; 2] = [&["api", "user"], &["user"]];

/// The routes under `/user/` whose next segment is not a key.
const NOT_KEYS: [&str; 3] = ["login", "logout", "validate"];

/// Path prefixes (as segments) after which everything is a credential (a device id, a token,
/// a code; a token may hold slashes).
const SECRET_AFTER: [&[&str]; 4] = [
    &["api", "validate", "device"],
    &["api", "validate", "chat"],
    &["api", "validate", "idpone"],
    &["api", "validate", "idptwo"],
];

/// The path with user keys and other credentials replaced by `{redacted}`: the segment after
/// each key-bearing prefix, every segment after a token-bearing prefix, and any segment that
/// looks like a user key (48 hex characters, any case, percent-encoded or not) wherever it
/// stands. Prefixes are recognised whatever their letter case and with empty segments
/// (`//`) between them, so that a request that matches no route is redacted like one that
/// does. Queries are never logged at all.
///
/// ```
/// use safezone_core::http::redact_path;
/// let key = "0123456789abcdef0123456789abcdef0123456789abcdef";
/// assert_eq!(redact_path(&format!("/api/user/{key}/buy")), "/api/user/{redacted}/buy");
/// assert_eq!(redact_path("/user/logout"), "/user/logout");
/// ```
pub fn redact_path(path: &str) -> String {
    let mut redacted = String::with_capacity(path.len());
    // The first non-empty segments, for the prefixes.
    let mut head = [""; 3];
    let mut depth = 0;
    let mut rest_is_secret = false;
    for (index, segment) in path.split('/').enumerate() {
        if index > 0 {
            redacted.push('/');
        }
        if segment.is_empty() {
            continue;
        }
        let after = &head[..depth.min(head.len())];
        let is_prefix = |prefix: &&[&str]| {
            depth == prefix.len()
                && prefix
                    .iter()
                    .zip(after)
                    .all(|(known, seen)| known.eq_ignore_ascii_case(seen))
        };
        rest_is_secret = rest_is_secret || SECRET_AFTER.iter().any(is_prefix);
        let is_key_place = KEY_AFTER.iter().any(is_prefix)
            && !NOT_KEYS
                .iter()
                .any(|route| route.eq_ignore_ascii_case(segment));
        let secret = rest_is_secret || is_key_place || looks_like_key(segment);
        redacted.push_str(if secret { "{redacted}" } else { segment });
        if let Some(slot) = head.get_mut(depth) {
            *slot = segment;
        }
        depth += 1;
    }
    redacted
}

/// Whether `segment` is 48 hex characters, before or after percent-decoding.
fn looks_like_key(segment: &str) -> bool {
    let is_key = |text: &str| text.len() == 48 && text.bytes().all(|b| b.is_ascii_hexdigit());
    is_key(segment)
        || (segment.contains('%') && is_key(&percent_decode_str(segment).decode_utf8_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn redacts_credentials_only() {
        assert_eq!(
            redact_path("/api/validate/device/ios-123"),
            "/api/validate/device/{redacted}"
        );
        assert_eq!(
            redact_path("/api/validate/chat/tok"),
            "/api/validate/chat/{redacted}"
        );
        assert_eq!(redact_path("/api/config"), "/api/config");
        assert_eq!(redact_path("/user/abc"), "/user/{redacted}");
        assert_eq!(redact_path("/user/login/idpone"), "/user/login/idpone");
        assert_eq!(
            redact_path("/user/validate/idpone"),
            "/user/validate/idpone"
        );
        assert_eq!(
            redact_path("/api/profile/Ann%231234"),
            "/api/profile/Ann%231234"
        );
        let upper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
        assert_eq!(redact_path(&format!("/x/{upper}")), "/x/{redacted}");
    }

    #[test]
    fn paths_that_match_no_route_are_redacted_too() {
        assert_eq!(
            redact_path("/api//validate/device//ios-123"),
            "/api//validate/device//{redacted}"
        );
        assert_eq!(
            redact_path("/API/User/not-a-key/buy"),
            "/API/User/{redacted}/buy"
        );
        assert_eq!(
            redact_path("/api/validate/chat/token/with/slashes"),
            "/api/validate/chat/{redacted}/{redacted}/{redacted}"
        );
        let encoded: String = KEY.bytes().map(|byte| format!("%{byte:02X}")).collect();
        assert_eq!(redact_path(&format!("/x/{encoded}")), "/x/{redacted}");
        assert_eq!(redact_path(&format!("/x/{KEY}/y")), "/x/{redacted}/y");
    }
}
