//! The security headers every response carries, unless its handler set its own (the HTML
//! pages set their own `Content-Security-Policy`, see `page_policy`).

use std::sync::Arc;
use std::time::Duration;

use http::header::{
    CONTENT_SECURITY_POLICY, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use http::{HeaderMap, HeaderName, HeaderValue};

/// The policy of every answer that is not a page: JSON loads nothing and is framed nowhere.
pub const API_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The headers added to each response that lacks them (shared: the service is cloned for
/// every request).
#[derive(Debug, Clone)]
pub(crate) struct SecurityHeaders(Arc<[(HeaderName, HeaderValue)]>);

impl SecurityHeaders {
    /// `nosniff`, `DENY`, `no-referrer`, the API's content policy and, when `hsts_max_age` is
    /// given, `Strict-Transport-Security` (only where TLS reaches this server or its proxy).
    pub(crate) fn new(hsts_max_age: Option<Duration>) -> Self {
        let mut headers = vec![
            (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
            (
                CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
            ),
        ];
        if let Some(max_age) = hsts_max_age {
            let value = format!("max-age={}; includeSubDomains", max_age.as_secs());
            headers.push((
                STRICT_TRANSPORT_SECURITY,
                HeaderValue::from_str(&value)
                    .unwrap_or_else(|_| HeaderValue::from_static("max-age=0")),
            ));
        }
        Self(headers.into())
    }

    /// Adds each header that `headers` does not have yet.
    pub(crate) fn add_missing(&self, headers: &mut HeaderMap) {
        for (name, value) in self.0.iter() {
            if !headers.contains_key(name) {
                headers.insert(name.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_what_is_missing_and_keeps_what_is_set() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'self'"),
        );
        SecurityHeaders::new(None).add_missing(&mut headers);
        assert_eq!(headers[CONTENT_SECURITY_POLICY], "default-src 'self'");
        assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert_eq!(headers[X_FRAME_OPTIONS], "DENY");
        assert_eq!(headers[REFERRER_POLICY], "no-referrer");
        assert!(!headers.contains_key(STRICT_TRANSPORT_SECURITY));
        let mut headers = HeaderMap::new();
        SecurityHeaders::new(Some(Duration::from_secs(31_536_000))).add_missing(&mut headers);
        assert_eq!(
            headers[STRICT_TRANSPORT_SECURITY],
            "max-age=31536000; includeSubDomains"
        );
    }
}
