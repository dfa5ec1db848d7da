//! Typed access to a request: decoded path parameters, query parameters, cookies and body.

use bytes::{Bytes, BytesMut};
use http::HeaderMap;
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use sync_wrapper::SyncWrapper;

use super::{ApiError, RequestBody, cookies};

/// The media type of a form body, whose parameters count as query parameters.
const FORM: &str = "application/x-www-form-urlencoded";

/// A routed request as handlers see it.
pub struct Incoming {
    /// The request headers.
    pub headers: HeaderMap,
    /// The query parameters.
    pub query: Query,
    params: Vec<(String, String)>,
    body: SyncWrapper<RequestBody>,
    body_limit: usize,
    /// Hyper's promise of the upgraded connection, when a hyper-based server serves it.
    upgrade: Option<hyper::upgrade::OnUpgrade>,
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
            upgrade: None,
        }
    }

    /// The request as routed, with hyper's promise of the upgraded connection if it came with
    /// one.
    pub(crate) fn with_upgrade(mut self, upgrade: Option<hyper::upgrade::OnUpgrade>) -> Self {
        self.upgrade = upgrade;
        self
    }

    /// Hyper's promise of the connection once upgraded by a `101 Switching Protocols` answer,
    /// when a hyper-based server serves the request (see [`UpgradeHandler`](super::UpgradeHandler)).
    pub fn take_upgrade(&mut self) -> Option<hyper::upgrade::OnUpgrade> {
        self.upgrade.take()
    }

    /// The head of a request outside Safezone's routes (an embedder's own), without path
    /// parameters or body: what is needed to tell its caller.
    pub(crate) fn of_head(head: &http::request::Parts) -> Self {
        let body = http_body_util::Empty::new()
            .map_err(|never| match never {})
            .boxed_unsync();
        Self::new(
            head.headers.clone(),
            Query::parse(head.uri.query()),
            Vec::new(),
            body,
            0,
        )
    }

    /// The route's percent-decoded path parameters, by name.
    pub fn path_params(&self) -> &[(String, String)] {
        &self.params
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

    /// The whole body, at most the configured limit (413 `body_too_large` beyond it, at once
    /// when its declared `Content-Length` is).
    pub async fn body_bytes(self) -> Result<Bytes, ApiError> {
        if super::body::declared_over(&self.headers, self.body_limit) {
            return Err(ApiError::BodyTooLarge {
                limit: self.body_limit,
            });
        }
        collect_body(self.body.into_inner(), self.body_limit).await
    }

    /// The body parsed as a JSON value of type `T`; an empty or malformed body is a 400. A form
    /// body that is not one JSON object was read as parameters: the 400 says so, naming the
    /// content type.
    pub async fn json_body<T: DeserializeOwned>(self) -> Result<T, ApiError> {
        let form = declares_form(&self.headers);
        let bytes = self.body_bytes().await?;
        if form && bytes.is_empty() {
            return Err(ApiError::InvalidBody {
                reason: format!(
                    "is required: send a JSON object (a body sent as `Content-Type: {FORM}` \
                     that is not one JSON object is read as form parameters)"
                ),
            });
        }
        parse_json(&bytes)
    }
}

/// A body parsed as a JSON value of type `T`; an empty or malformed body is a 400 naming the
/// field at fault.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.is_empty() {
        return Err(ApiError::InvalidBody {
            reason: "is required: send a JSON object".to_owned(),
        });
    }
    let mut json = serde_json::Deserializer::from_slice(bytes);
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

/// The whole of `body`, at most `limit` bytes (413 `body_too_large` beyond it).
pub(crate) async fn collect_body(mut body: RequestBody, limit: usize) -> Result<Bytes, ApiError> {
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

/// The parameters of a request, decoded: those of the query string, then those of an
/// `application/x-www-form-urlencoded` body. Each accessor names the parameter in its error.
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

    /// Adds the parameters of a form body (`a=1&b=x+y`). A name that the query string gives
    /// a different (non-empty) value is a 400 naming it; the same value twice counts once.
    pub(crate) fn add_form(&mut self, form: &[u8]) -> Result<(), ApiError> {
        let mut added = Vec::new();
        for (name, value) in form_urlencoded::parse(form).into_owned() {
            match self.optional(&name) {
                Some(given) if !value.is_empty() && given != value => {
                    return Err(ApiError::ConflictingParameter { name });
                }
                Some(_) => {}
                None => added.push((name, value)),
            }
        }
        self.0.append(&mut added);
        Ok(())
    }

    /// The first non-empty value of `name`, if any: an empty value (`platform=`) counts as
    /// absent.
    pub fn optional(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, value)| key == name && !value.is_empty())
            .map(|(_, value)| value.as_str())
    }

    /// The first non-empty value of `name`; absent or empty is a 400 naming it.
    pub fn required(&self, name: &'static str) -> Result<&str, ApiError> {
        self.optional(name)
            .ok_or(ApiError::MissingParameter { name })
    }
}

/// Whether `headers` declare a form body (`Content-Type: application/x-www-form-urlencoded`,
/// any letter case, with or without a `charset`).
pub(crate) fn declares_form(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(FORM))
}

/// Whether `body` is one JSON object (surrounding white space allowed). A real form's fields
/// (`name=value&...`) never parse as one, so such a body is JSON sent with a form's type.
pub(crate) fn is_json_object(body: &[u8]) -> bool {
    body.trim_ascii().starts_with(b"{")
        && serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(body).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(raw: &str) -> Query {
        Query::parse(Some(raw))
    }

    #[test]
    fn empty_values_count_as_absent() {
        let query = query("platform=&version=1.2&userKey=");
        assert_eq!(query.optional("platform"), None);
        assert_eq!(query.optional("version"), Some("1.2"));
        assert!(matches!(
            query.required("platform"),
            Err(ApiError::MissingParameter { name: "platform" })
        ));
    }

    #[test]
    fn a_form_adds_parameters_and_may_not_contradict_the_query() {
        let mut both = query("tag=Abc&name=");
        both.add_form(b"name=Alpha+Squad&tag=Abc").unwrap();
        assert_eq!(both.optional("name"), Some("Alpha Squad"));
        assert_eq!(both.optional("tag"), Some("Abc"));
        let mut repeated = query("tag=Abc");
        repeated.add_form(b"name=First&name=Second").unwrap();
        assert_eq!(repeated.optional("name"), Some("First"));
        let mut contradicting = query("tag=Abc");
        let Err(ApiError::ConflictingParameter { name }) = contradicting.add_form(b"tag=Xyz")
        else {
            panic!("a contradiction was accepted");
        };
        assert_eq!(name, "tag");
    }

    #[test]
    fn a_form_is_declared_by_its_media_type() {
        let mut headers = HeaderMap::new();
        assert!(!declares_form(&headers));
        for value in [
            "application/x-www-form-urlencoded",
            "Application/X-WWW-Form-Urlencoded; charset=utf-8",
        ] {
            headers.insert(http::header::CONTENT_TYPE, value.parse().unwrap());
            assert!(declares_form(&headers), "{value}");
        }
        headers.insert(
            http::header::CONTENT_TYPE,
            "application/json".parse().unwrap(),
        );
        assert!(!declares_form(&headers));
    }

    #[test]
    fn a_json_object_is_told_from_a_form() {
        assert!(is_json_object(br#"{"receipt":"abc"}"#));
        assert!(is_json_object(b" \r\n{}\n"));
        assert!(!is_json_object(b"receipt=abc"));
        assert!(!is_json_object(br#"{"receipt":"abc""#));
        assert!(!is_json_object(b"[1,2]"));
        assert!(!is_json_object(b""));
    }
}
