//! The console's cookies: `HttpOnly`, `SameSite=Strict`, sent only to `/operator/console`, and
//! `Secure` when the browser reached the console over HTTPS (as a trusted proxy says).

use http::HeaderMap;

use super::PREFIX;

/// `Set-Cookie` for `name=value` (a value of cookie characters only), kept `max_age` seconds.
pub(super) fn set(name: &str, value: &str, max_age: u32, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={value}; Path={PREFIX}; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}")
}

/// `Set-Cookie` that makes the browser forget the cookie `name`.
pub(super) fn expire(name: &str) -> String {
    format!(
        "{name}=; Path={PREFIX}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; \
         SameSite=Strict"
    )
}

/// Whether the browser reached the console over HTTPS: only when the proxy in front is trusted
/// (`trust_forwarded_for`), from the last `X-Forwarded-Proto` it added.
pub(super) fn over_https(headers: &HeaderMap, trust_proxy: bool) -> bool {
    trust_proxy
        && headers
            .get_all("x-forwarded-proto")
            .iter()
            .next_back()
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.rsplit(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_http_only_and_secure_only_behind_a_trusted_https_proxy() {
        assert_eq!(
            set("a", "b", 60, false),
            "a=b; Path=/operator/console; Max-Age=60; HttpOnly; SameSite=Strict"
        );
        assert!(set("a", "b", 60, true).ends_with("; Secure"));
        assert!(expire("a").starts_with("a=; Path=/operator/console; Max-Age=0"));
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-proto", "http, https".parse().unwrap());
        assert!(over_https(&headers, true));
        assert!(
            !over_https(&headers, false),
            "an untrusted proxy says nothing"
        );
        headers.insert("x-forwarded-proto", "http".parse().unwrap());
        assert!(!over_https(&headers, true));
        assert!(!over_https(&HeaderMap::new(), true));
    }
}
