//! The operator API called in-process through its declarations: a typed request (the
//! endpoint's parameters and body types) written into an HTTP request, handed to
//! [`OperatorApi::answer`] (so that every check, audit row and refusal is the API's own) and
//! its answer read back as the endpoint's answer type. What the console uses: no path string,
//! no answer declared twice.

use std::fmt;

use bytes::Bytes;
use http::{Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::endpoint::{Changes, Endpoint, NoBody, ReadBody, Reads, fill};
use super::{OperatorApi, PREFIX};
use crate::http::params::{Location, RequestParams};
use crate::http::{ApiError, BodyError, Incoming};

/// What a path segment keeps unencoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_');

/// Why the API did not do what was asked: its status, `code` and `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
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

impl From<ApiError> for Failure {
    /// What the API would answer: a request the caller could not even write (its parameters
    /// do not read) fails as the API would refuse it.
    fn from(error: ApiError) -> Self {
        Self {
            status: error.status(),
            code: error.wire_code().to_owned(),
            message: error.message(),
        }
    }
}

impl Failure {
    /// A failure of the caller's side (not the API's answer).
    fn client(status: StatusCode, code: &str, message: String) -> Self {
        Self {
            status,
            code: code.to_owned(),
            message,
        }
    }

    /// Whether the API did not know the token (missing, malformed, unknown or revoked).
    pub fn is_unauthorized(&self) -> bool {
        self.status == StatusCode::UNAUTHORIZED
    }
}

impl OperatorApi {
    /// Calls the read `E`, which takes no body, with `bearer` (a console session's id, or a
    /// token's secret).
    pub(crate) async fn read<E: Reads<Body = NoBody>>(
        &self,
        bearer: &str,
        params: &E::Params,
    ) -> Result<E::Answer, Failure> {
        self.call::<E>(bearer, params, None).await
    }

    /// Calls the read `E`, which takes no body, with the parameters `incoming` names as the API
    /// names them (a console page that takes the API's query): a request whose parameters do
    /// not read fails as the API would refuse it.
    pub(crate) async fn read_request<E: Reads<Body = NoBody>>(
        &self,
        bearer: &str,
        incoming: &Incoming,
    ) -> Result<E::Answer, Failure> {
        let params = E::Params::from_request(incoming)?;
        self.read::<E>(bearer, &params).await
    }

    /// Calls the read `E` with `bearer` and its `body`.
    pub(crate) async fn read_with<E: Reads>(
        &self,
        bearer: &str,
        params: &E::Params,
        body: &E::Body,
    ) -> Result<E::Answer, Failure> {
        self.call::<E>(bearer, params, body.to_text()).await
    }

    /// Calls the change `E` with `bearer` and a body as a person typed it (a form's fields as
    /// JSON): the API reads it as `E`'s body type and says what is wrong with it, so that a
    /// refused body is refused, and audited, by the API alone.
    pub(crate) async fn submit<E: Changes>(
        &self,
        bearer: &str,
        params: &E::Params,
        body: &Value,
    ) -> Result<E::Answer, Failure> {
        self.call::<E>(bearer, params, Some(body.to_string())).await
    }

    /// One in-process call of `E`.
    async fn call<E: Endpoint>(
        &self,
        bearer: &str,
        params: &E::Params,
        body: Option<String>,
    ) -> Result<E::Answer, Failure> {
        let request = Request::builder()
            .method(E::METHOD)
            .uri(uri::<E>(params))
            .header(header::AUTHORIZATION, format!("Bearer {bearer}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(
                Full::new(Bytes::from(body.unwrap_or_default()))
                    .map_err(|never| -> BodyError { match never {} })
                    .boxed_unsync(),
            )
            .map_err(|_| {
                Failure::client(
                    StatusCode::UNAUTHORIZED,
                    "invalid_operator_token",
                    "the operator token cannot be sent: it is not a token".to_owned(),
                )
            })?;
        let response = self.answer(request).await;
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .map(|collected| collected.to_bytes())
            .unwrap_or_default();
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() && answer["status"] == "success" {
            return read_answer(answer);
        }
        let text = |field: &str| answer[field].as_str().map(str::to_owned);
        Err(Failure {
            status,
            code: text("code").unwrap_or_else(|| "unknown".to_owned()),
            message: text("message")
                .unwrap_or_else(|| format!("the operator API answered {status} without a message")),
        })
    }
}

/// The request's path and query: `E`'s path with the path parameters, percent-encoded, and
/// the query parameters that have a value.
fn uri<E: Endpoint>(params: &E::Params) -> String {
    let sent = params.to_request();
    let path = fill(E::PATH, |name| {
        sent.iter()
            .find(|(location, wire, _)| *location == Location::Path && *wire == name)
            .map(|(_, _, text)| utf8_percent_encode(text, SEGMENT).to_string())
            .unwrap_or_default()
    });
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut any = false;
    for (_, name, text) in sent
        .iter()
        .filter(|(location, _, text)| *location == Location::Query && !text.is_empty())
    {
        query.append_pair(name, text);
        any = true;
    }
    if any {
        format!("{PREFIX}{path}?{}", query.finish())
    } else {
        format!("{PREFIX}{path}")
    }
}

/// The success envelope read as `T`.
fn read_answer<T: DeserializeOwned>(answer: Value) -> Result<T, Failure> {
    serde_json::from_value(answer).map_err(|error| {
        Failure::client(
            StatusCode::BAD_GATEWAY,
            "console_error",
            format!("the operator API's answer did not read as its declared type: {error}"),
        )
    })
}
