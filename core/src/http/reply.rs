//! Responses: the JSON success envelope, JSON errors and HTML pages, with a full body.

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use serde::Serialize;

use super::ErrorCode;

/// The room a JSON body starts with: most answers fit, so their buffer never grows (each
/// doubling is a copy).
const JSON_CAPACITY: usize = 2048;

/// A finished response with its whole body in memory.
#[derive(Debug)]
pub struct Reply(Response<Full<Bytes>>);

/// The success envelope: `{"status":"success", ...fields}` with the fields at the top level.
#[derive(Serialize)]
struct Success<'a, T: Serialize> {
    status: &'static str,
    #[serde(flatten)]
    fields: &'a T,
}

impl Reply {
    /// `200` with `{"status":"success", ...fields}`; `fields` must serialize to an object.
    pub fn success<T: Serialize>(fields: &T) -> Self {
        Self::success_sized(fields, JSON_CAPACITY)
    }

    /// [`Reply::success`] for an answer of about `size` bytes, written without growing its
    /// buffer on the way (a large answer would otherwise be copied at each doubling).
    pub fn success_sized<T: Serialize>(fields: &T, size: usize) -> Self {
        Self::json_sized(
            StatusCode::OK,
            &Success {
                status: "success",
                fields,
            },
            size,
        )
    }

    /// The body [`Reply::success`] writes for `fields`, for an answer kept and sent again
    /// with [`Reply::success_bytes`]; when `fields` does not serialize, answer
    /// [`Reply::not_serialized`].
    pub fn success_body<T: Serialize>(fields: &T) -> Result<Bytes, serde_json::Error> {
        serialized(
            &Success {
                status: "success",
                fields,
            },
            JSON_CAPACITY,
        )
        .map(Bytes::from)
    }

    /// `200` with a body [`Reply::success_body`] wrote.
    pub fn success_bytes(body: Bytes) -> Self {
        Self::with_body(StatusCode::OK, "application/json", body)
    }

    /// `200` with `{"status":"success"}` and no other field.
    pub fn done() -> Self {
        Self::success(&serde_json::Map::new())
    }

    /// A JSON response with any status.
    pub fn json<T: Serialize>(status: StatusCode, body: &T) -> Self {
        Self::json_sized(status, body, JSON_CAPACITY)
    }

    /// [`Reply::json`] with room for `size` bytes from the start.
    fn json_sized<T: Serialize>(status: StatusCode, body: &T, size: usize) -> Self {
        match serialized(body, size) {
            Ok(bytes) => Self::with_body(status, "application/json", bytes),
            Err(error) => Self::not_serialized(&error),
        }
    }

    /// The JSON 500 for an answer that did not serialize; the error is logged.
    pub fn not_serialized(error: &serde_json::Error) -> Self {
        tracing::error!(%error, "response did not serialize");
        Self::with_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "application/json",
            format!(
                r#"{{"status":"error","code":"{}","message":"internal error; it has been logged"}}"#,
                ErrorCode::InternalError.as_str()
            )
            .into_bytes(),
        )
    }

    /// `302 Found` to `location`, with a short HTML body for clients that show it.
    pub fn redirect(location: &str) -> Self {
        let page = super::pages::page("Redirecting", "Redirecting…", None);
        Self::html(StatusCode::FOUND, page).with_header(header::LOCATION, location)
    }

    /// An HTML page, with a content policy that allows exactly its inline scripts and images.
    pub fn html(status: StatusCode, page: String) -> Self {
        let policy = super::page_policy::page_policy(&page);
        let mut reply = Self::with_body(status, "text/html; charset=utf-8", page.into_bytes());
        reply
            .0
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, policy);
        reply
    }

    /// An HTML page under its own content `policy`, for a page that loads scripts and styles
    /// of its own origin (which [`Reply::html`]'s policy, inline scripts by hash, never allows).
    pub fn html_under(status: StatusCode, page: &'static str, policy: &'static str) -> Self {
        let mut reply = Self::with_body(status, "text/html; charset=utf-8", page.as_bytes());
        reply.0.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(policy),
        );
        reply
    }

    /// `200` with a file compiled into the binary (a page's script or stylesheet), which
    /// browsers may keep for an hour.
    pub fn file(content_type: &'static str, body: &'static [u8]) -> Self {
        let mut reply = Self::with_body(StatusCode::OK, content_type, body);
        reply.0.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=3600"),
        );
        reply
    }

    fn with_body(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Self {
        let mut response = Response::new(Full::new(body.into()));
        *response.status_mut() = status;
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Self(response)
    }

    /// Adds a header; several values of one name are all kept (e.g. `Set-Cookie`).
    /// A value that is not a valid header value is dropped and logged.
    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        match HeaderValue::from_str(value) {
            Ok(value) => {
                self.0.headers_mut().append(name, value);
            }
            Err(_) => tracing::error!(header = %name, "dropped an invalid header value"),
        }
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.0.status()
    }

    /// The finished `http` response.
    pub fn into_response(self) -> Response<Full<Bytes>> {
        self.0
    }
}

impl From<Response<Full<Bytes>>> for Reply {
    /// A response its handler built whole (headers, status and body of its own choosing).
    fn from(response: Response<Full<Bytes>>) -> Self {
        Self(response)
    }
}

/// `body` as JSON in a buffer with room for `size` bytes from the start.
fn serialized<T: Serialize>(body: &T, size: usize) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = Vec::with_capacity(size);
    serde_json::to_writer(&mut bytes, body)?;
    Ok(bytes)
}
