//! The console's one stylesheet, compiled into the binary.

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, Response};
use http_body_util::Full;

use super::ConsoleState;
use crate::http::{ApiError, Incoming, Reply};

/// The stylesheet.
const STYLESHEET: &str = include_str!("../../assets/console/console.css");

/// `GET /assets/console.css`.
pub(super) async fn stylesheet(_: ConsoleState, _: Incoming) -> Result<Reply, ApiError> {
    let mut response = Response::new(Full::new(Bytes::from_static(STYLESHEET.as_bytes())));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    Ok(Reply::from(response))
}
