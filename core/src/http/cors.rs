//! CORS: the configured web origins (the auth file's `web_origins` and `--cors-origin`) may
//! call the API from a browser; no other origin, never `*`.

use std::sync::Arc;
use std::time::Duration;

use http::header::{AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The CORS layer for `origins` (`https://play.example.com`, no trailing slash); `*` or an
/// origin that is not a valid header value is left out, with a warning.
pub(crate) fn cors_layer<'a>(origins: impl IntoIterator<Item = &'a String>) -> CorsLayer {
    let origins: Vec<HeaderValue> = origins
        .into_iter()
        .filter_map(|origin| {
            let value = HeaderValue::from_str(origin.trim_end_matches('/'))
                .ok()
                .filter(|value| value != "*");
            if value.is_none() {
                tracing::warn!(%origin, "not a valid origin; left out of CORS");
            }
            value
        })
        .collect();
    // A predicate over a shared list rather than `AllowOrigin::list`: the layer is cloned for
    // every request, and a list would be copied each time.
    let origins: Arc<[HeaderValue]> = origins.into();
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            origins.contains(origin)
        }))
        .allow_methods([Method::GET, Method::HEAD, Method::POST])
        .allow_headers([
            AUTHORIZATION,
            CONTENT_TYPE,
            HeaderName::from_static("idempotency-key"),
        ])
        .expose_headers([HeaderName::from_static("x-request-id"), RETRY_AFTER])
        .max_age(PREFLIGHT_MAX_AGE)
}
