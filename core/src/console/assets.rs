//! The console's files, compiled into the binary: its one stylesheet and its icon.

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, Response};
use http_body_util::Full;

use super::ConsoleState;
use crate::http::{ApiError, Incoming, Reply};

/// The stylesheet.
const STYLESHEET: &str = include_str!("../../assets/console/console.css");

/// The icon browsers show in the tab.
const ICON: &str = include_str!("../../assets/console/icon.svg");

/// `body` as a file of `content_type`, cached for five minutes.
fn file(body: &'static str, content_type: &'static str) -> Reply {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    Reply::from(response)
}

/// `GET /assets/console.css`.
pub(super) async fn stylesheet(_: ConsoleState, _: Incoming) -> Result<Reply, ApiError> {
    Ok(file(STYLESHEET, "text/css; charset=utf-8"))
}

/// `GET /assets/icon.svg`.
pub(super) async fn icon(_: ConsoleState, _: Incoming) -> Result<Reply, ApiError> {
    Ok(file(ICON, "image/svg+xml"))
}
