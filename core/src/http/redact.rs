//! Paths as they may be logged: every credential replaced.

/// Path prefixes whose next segment is a credential (user key, device id, token, code).
const SECRET_AFTER: [&str; 6] = [
    "/api/user/",
    "/user/",
    "/api/validate/device/",
    "/api/validate/chat/",
    "/api/validate/idpone/",
    "/api/validate/idptwo/",
];

/// The path with user keys and other credentials replaced by `{redacted}`: the segment after
/// each credential-bearing prefix, and any segment that looks like a user key (48 hex
/// characters, any case) wherever it stands. Queries are never logged at all.
///
/// ```
/// use safezone_core::http::redact_path;
/// let key = "0123456789abcdef0123456789abcdef0123456789abcdef";
/// assert_eq!(redact_path(&format!("/api/user/{key}/buy")), "/api/user/{redacted}/buy");
/// assert_eq!(redact_path("/user/logout"), "/user/logout");
/// ```
pub fn redact_path(path: &str) -> String {
    let mut redacted = String::with_capacity(path.len());
    let mut segments = path.split('/').peekable();
    let mut walked = String::new();
    while let Some(segment) = segments.next() {
        let secret = looks_like_key(segment)
            || (segment != "logout" && SECRET_AFTER.iter().any(|prefix| walked == *prefix));
        redacted.push_str(if secret && !segment.is_empty() {
            "{redacted}"
        } else {
            segment
        });
        walked.push_str(segment);
        if segments.peek().is_some() {
            redacted.push('/');
            walked.push('/');
        }
    }
    redacted
}

fn looks_like_key(segment: &str) -> bool {
    segment.len() == 48 && segment.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let upper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
        assert_eq!(redact_path(&format!("/x/{upper}")), "/x/{redacted}");
    }
}
