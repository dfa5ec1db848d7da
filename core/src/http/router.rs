//! Method + path -> handler, with JSON 404 and 405 answers and HEAD served like GET.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use http_body_util::Full;

use super::{ApiError, Incoming, Query, Reply, RequestBody};
use crate::App;

/// The future a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Reply, ApiError>> + Send>>;

/// A type-erased handler: a plain async function over the application and the typed request.
pub type Handler = Arc<dyn Fn(App, Incoming) -> HandlerFuture + Send + Sync>;

/// Wraps a plain `async fn(App, Incoming) -> Result<Reply, ApiError>` as a [`Handler`].
pub fn handler<F, Fut>(function: F) -> Handler
where
    F: Fn(App, Incoming) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ApiError>> + Send + 'static,
{
    Arc::new(move |app, incoming| Box::pin(function(app, incoming)))
}

/// Handlers by method name (`GET`, `POST`, ...) for one path pattern.
type ByMethod = BTreeMap<String, Handler>;

/// The routing table as it is written: path patterns with their handlers by method.
/// [`build`](Self::build) freezes it into a [`Router`].
#[derive(Default)]
pub struct Routes(Vec<(String, ByMethod)>);

impl Routes {
    /// Adds `handler` for `method` on the matchit pattern `path` (`/api/user/{userKey}`).
    pub fn route(mut self, method: Method, path: &str, handler: Handler) -> Self {
        match self.0.iter_mut().find(|(known, _)| known == path) {
            Some((_, by_method)) => {
                by_method.insert(method.to_string(), handler);
            }
            None => self.0.push((
                path.to_owned(),
                BTreeMap::from([(method.to_string(), handler)]),
            )),
        }
        self
    }

    /// The router over these routes.
    ///
    /// # Panics
    /// When two patterns conflict: a programming error found at start-up.
    pub fn build(self) -> Router {
        let mut paths = matchit::Router::new();
        for (path, by_method) in self.0 {
            if let Err(conflict) = paths.insert(path.clone(), by_method) {
                panic!("route {path} conflicts: {conflict}");
            }
        }
        Router { paths }
    }
}

/// Method + path -> handler: a matchit tree of path patterns, each with its handlers by method.
pub struct Router {
    paths: matchit::Router<ByMethod>,
}

impl Router {
    /// Routes one request and runs its handler; every outcome is a response.
    pub async fn dispatch(&self, app: App, request: Request<RequestBody>) -> Response<Full<Bytes>> {
        let is_head = request.method() == Method::HEAD;
        let reply = match self.run(app, request).await {
            Ok(reply) => reply,
            Err(error) => error.into_reply(),
        };
        let response = reply.into_response();
        if is_head {
            without_body(response)
        } else {
            response
        }
    }

    async fn run(&self, app: App, request: Request<RequestBody>) -> Result<Reply, ApiError> {
        let body_limit = app.settings.body_limit;
        let (parts, body) = request.into_parts();
        let raw_path = parts.uri.path();
        check_percent_encoding(raw_path)?;
        let matched = self
            .paths
            .at(raw_path)
            .map_err(|_| ApiError::RouteNotFound)?;
        let by_method = matched.value;
        let wanted = if parts.method == Method::HEAD && !by_method.contains_key("HEAD") {
            "GET"
        } else {
            parts.method.as_str()
        };
        let Some(handler) = by_method.get(wanted) else {
            return Err(ApiError::MethodNotAllowed {
                allowed: allowed_methods(by_method),
            });
        };
        if declared_length(&parts.headers).is_some_and(|length| length > body_limit) {
            return Err(ApiError::BodyTooLarge { limit: body_limit });
        }
        let params = matched
            .params
            .iter()
            .map(|(name, raw)| Ok((name.to_owned(), percent_decode(raw)?)))
            .collect::<Result<Vec<_>, ApiError>>()?;
        let query = Query::parse(parts.uri.query());
        let incoming = Incoming::new(parts.headers, query, params, body, body_limit);
        handler(app, incoming).await
    }
}

fn allowed_methods(by_method: &ByMethod) -> Vec<Method> {
    let mut allowed: Vec<Method> = by_method
        .keys()
        .filter_map(|name| Method::from_bytes(name.as_bytes()).ok())
        .collect();
    if allowed.contains(&Method::GET) && !allowed.contains(&Method::HEAD) {
        allowed.push(Method::HEAD);
    }
    allowed.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    allowed
}

fn declared_length(headers: &http::HeaderMap) -> Option<usize> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Rejects a `%` not followed by two hex digits anywhere in the path.
fn check_percent_encoding(path: &str) -> Result<(), ApiError> {
    let bytes = path.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let pair = bytes
                .get(at + 1..at + 3)
                .ok_or(ApiError::InvalidPathEncoding)?;
            if !pair.iter().all(u8::is_ascii_hexdigit) {
                return Err(ApiError::InvalidPathEncoding);
            }
            at += 3;
        } else {
            at += 1;
        }
    }
    Ok(())
}

fn percent_decode(raw: &str) -> Result<String, ApiError> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map(|text| text.into_owned())
        .map_err(|_| ApiError::InvalidPathEncoding)
}

/// A HEAD answer: GET's status and headers, with the length GET's body would have had.
fn without_body(response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    let (mut parts, body) = response.into_parts();
    let length = http_body::Body::size_hint(&body).exact().unwrap_or(0);
    parts
        .headers
        .insert(header::CONTENT_LENGTH, http::HeaderValue::from(length));
    Response::from_parts(parts, Full::new(Bytes::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_must_be_complete() {
        assert!(check_percent_encoding("/api/profile/Sneeza%230001").is_ok());
        assert!(check_percent_encoding("/api/profile/Sneeza%2").is_err());
        assert!(check_percent_encoding("/api/profile/%zz").is_err());
        assert_eq!(percent_decode("Sneeza%230001").unwrap(), "Sneeza#0001");
        assert!(percent_decode("%ff%fe").is_err());
    }
}
