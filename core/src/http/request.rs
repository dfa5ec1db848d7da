//! Typed access to a request: decoded path parameters, query parameters, cookies and body.

use bytes::{Bytes, BytesMut};
use http::HeaderMap;
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use sync_wrapper::SyncWrapper;

use super::{ApiError, RequestBody, cookies};

/// A routed request as handlers see it.
pub struct Incoming {
    /// The request headers.
    pub headers: HeaderMap,
    /// The query parameters.
    pub query: Query,
    params: Vec<(String, String)>,
    body: SyncWrapper<RequestBody>,
    body_limit: usize,
}

impl Incoming {
    pub(crate) fn new(
        headers: HeaderMap,
        query: Query,
        params: Vec<(String, String)>,
        body: RequestBody,
        body_limit: usize,
    ) -> Self {
        Self {
            headers,
            query,
            params,
            body: SyncWrapper::new(body),
            body_limit,
        }
    }

    /// The percent-decoded path parameter `name` of the route.
    pub fn path(&self, name: &'static str) -> Result<&str, ApiError> {
        self.params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .ok_or(ApiError::MissingParameter { name })
    }

    /// The value of the cookie `name`, if sent.
    pub fn cookie(&self, name: &str) -> Option<String> {
        cookies::read(&self.headers, name)
    }

    /// The token of an `Authorization: Bearer <token>` header, if sent.
    pub fn bearer(&self) -> Option<&str> {
        let value = self
            .headers
            .get(http::header::AUTHORIZATION)?
            .to_str()
            .ok()?;
        let (scheme, token) = value.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    }

    /// The whole body, at most the configured limit (413 `body_too_large` beyond it).
    pub async fn body_bytes(self) -> Result<Bytes, ApiError> {
        let limit = self.body_limit;
        let mut body = self.body.into_inner();
        let mut collected = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| ApiError::InvalidBody {
                reason: format!("could not be read: {error}"),
            })?;
            if let Ok(data) = frame.into_data() {
                if collected.len() + data.len() > limit {
                    return Err(ApiError::BodyTooLarge { limit });
                }
                collected.extend_from_slice(&data);
            }
        }
        Ok(collected.freeze())
    }

    /// The body parsed as a JSON value of type `T`; an empty or malformed body is a 400.
    pub async fn json_body<T: DeserializeOwned>(self) -> Result<T, ApiError> {
        let bytes = self.body_bytes().await?;
        if bytes.is_empty() {
            return Err(ApiError::InvalidBody {
                reason: "is required: send a JSON object".to_owned(),
            });
        }
        let mut json = serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(&mut json).map_err(|error| {
            let path = error.path().to_string();
            let problem = error.into_inner();
            ApiError::InvalidBody {
                reason: if path == "." {
                    format!("is not the expected JSON: {problem}")
                } else {
                    format!("is not the expected JSON: `{path}`: {problem}")
                },
            }
        })
    }
}

/// The query parameters of a request, decoded. Each accessor names the parameter in its error.
#[derive(Debug, Default, Clone)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Parses a raw query string (`a=1&b=x%20y`); `None` is an empty query.
    pub fn parse(raw: Option<&str>) -> Self {
        let pairs = raw
            .map(|raw| {
                form_urlencoded::parse(raw.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        Self(pairs)
    }

    /// The first value of `name`, if present (an empty value counts as present).
    pub fn optional(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The first value of `name`; absent or empty is a 400 naming it.
    pub fn required(&self, name: &'static str) -> Result<&str, ApiError> {
        match self.optional(name) {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(ApiError::MissingParameter { name }),
        }
    }

    /// The whole number `name`, which must lie in `range`; absent, empty, not a number or out
    /// of range is a 400 naming it.
    pub fn required_number(
        &self,
        name: &'static str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<i64, ApiError> {
        let value = self.required(name)?;
        value
            .parse::<i64>()
            .ok()
            .filter(|number| range.contains(number))
            .ok_or_else(|| {
                ApiError::invalid(
                    name,
                    format!(
                        "must be a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                )
            })
    }

    /// `true` or `false` when present; any other text is a 400 naming it.
    pub fn optional_bool(&self, name: &'static str) -> Result<Option<bool>, ApiError> {
        match self.optional(name) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(_) => Err(ApiError::invalid(name, "must be `true` or `false`")),
        }
    }
}
