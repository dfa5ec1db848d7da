//! The bodies every layer and handler passes, boxed: any request body as the stack reads it,
//! the service's response body, and whether a request declares a body over a limit.

use bytes::{Buf, Bytes};
use http::{Request, header};
use http_body_util::{BodyExt, combinators::UnsyncBoxBody};

/// Any error, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The request body type inside the stack: any body, boxed.
pub type RequestBody = UnsyncBoxBody<Bytes, BodyError>;

/// A failure to read the request body (the connection broke, the server's body limit, ...).
#[derive(Debug)]
pub struct BodyError(pub BoxError);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for BodyError {}

/// `request` with its body boxed as the stack reads it: any body whose data is bytes of any
/// kind, its errors as [`BodyError`].
pub fn boxed_request<B>(request: Request<B>) -> Request<RequestBody>
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    request.map(|body| {
        body.map_frame(|frame| frame.map_data(|mut data| data.copy_to_bytes(data.remaining())))
            .map_err(|error| BodyError(error.into()))
            .boxed_unsync()
    })
}

/// The response body type of the service.
pub type ResponseBody = UnsyncBoxBody<Bytes, BoxError>;

/// Whether the request's `Content-Length` is over `limit`.
pub(crate) fn declared_over(headers: &http::HeaderMap, limit: usize) -> bool {
    declared_length(headers).is_some_and(|length| length > limit)
}

fn declared_length(headers: &http::HeaderMap) -> Option<usize> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}
