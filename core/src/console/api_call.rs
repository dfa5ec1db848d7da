//! The console's one way to the operator API: a request built in-process with the operator's
//! console session (or, to open one, the token's secret) as bearer, handed to
//! [`OperatorApi::answer`], and its JSON answer read.

use std::fmt;

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::http::BodyError;
use crate::operator_api::{self, OperatorApi};

/// What a path segment keeps unencoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_');

/// Why the API did not do what was asked: its status, `code` and `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    /// The API's HTTP status.
    pub status: StatusCode,
    /// The API's error code (`operator_read_only`, `unknown_user`, ...).
    pub code: String,
    /// The API's message, for a person.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{} ({})", self.message, self.code)
    }
}

impl Failure {
    /// A failure of the console itself (not the API's answer).
    fn console(message: String) -> Self {
        Self {
            status: StatusCode::BAD_GATEWAY,
            code: "console_error".to_owned(),
            message,
        }
    }

    /// Whether the API did not know the token (missing, malformed, unknown or revoked).
    pub fn is_unauthorized(&self) -> bool {
        self.status == StatusCode::UNAUTHORIZED
    }
}

/// `path` (under `/operator/api`) with the `query` pairs that have a value.
pub(super) fn with_query(path: &str, query: &[(&str, &str)]) -> String {
    let mut pairs = form_urlencoded::Serializer::new(String::new());
    let mut any = false;
    for (name, value) in query.iter().filter(|(_, value)| !value.is_empty()) {
        pairs.append_pair(name, value);
        any = true;
    }
    if any {
        format!("{path}?{}", pairs.finish())
    } else {
        path.to_owned()
    }
}

/// `text` as one path segment, percent-encoded.
pub(super) fn segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

/// `GET /operator/api{path}` with `bearer` (a session's id, or a token's secret): the success
/// answer, or why not.
pub(super) async fn get(api: &OperatorApi, bearer: &str, path: &str) -> Result<Value, Failure> {
    call(api, bearer, Method::GET, path, None).await
}

/// `POST /operator/api{path}` with the JSON `body` and `bearer`.
pub(super) async fn post(
    api: &OperatorApi,
    bearer: &str,
    path: &str,
    body: &Value,
) -> Result<Value, Failure> {
    call(api, bearer, Method::POST, path, Some(body)).await
}

/// `answer` read as `T` (the console's view of an API answer).
pub(super) fn read<T: DeserializeOwned>(answer: Value) -> Result<T, Failure> {
    serde_json::from_value(answer).map_err(|error| {
        Failure::console(format!(
            "the console could not read the operator API's answer: {error}"
        ))
    })
}

/// One in-process call.
async fn call(
    api: &OperatorApi,
    bearer: &str,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, Failure> {
    let bytes = body.map(Value::to_string).unwrap_or_default();
    let request = Request::builder()
        .method(method)
        .uri(format!("{}{path}", operator_api::PREFIX))
        .header(header::AUTHORIZATION, format!("Bearer {bearer}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(
            Full::new(Bytes::from(bytes))
                .map_err(|never| -> BodyError { match never {} })
                .boxed_unsync(),
        )
        .map_err(|_| Failure {
            status: StatusCode::UNAUTHORIZED,
            code: "invalid_operator_token".to_owned(),
            message: "the operator token cannot be sent: it is not a token".to_owned(),
        })?;
    let response = api.answer(request).await;
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .unwrap_or_default();
    let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status.is_success() && answer["status"] == "success" {
        return Ok(answer);
    }
    let text = |field: &str| answer[field].as_str().map(str::to_owned);
    let code = text("code").unwrap_or_else(|| "unknown".to_owned());
    let message = text("message")
        .unwrap_or_else(|| format!("the operator API answered {status} without a message"));
    Err(Failure {
        status,
        code,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_keep_only_given_values_and_segments_are_encoded() {
        assert_eq!(
            with_query(
                "/players",
                &[("friendCode", "Sneeza#0001"), ("accountId", "")]
            ),
            "/players?friendCode=Sneeza%230001"
        );
        assert_eq!(with_query("/audit", &[("token", "")]), "/audit");
        assert_eq!(segment("12/../x y"), "12%2F%2E%2E%2Fx%20y");
        assert_eq!(segment("WELCOME-CUP"), "WELCOME-CUP");
    }
}
