//! Method + path -> handler, with JSON 404 and 405 answers and HEAD served like GET.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use http_body_util::{BodyExt, Empty, Full};

use super::body::declared_over;
use super::client_address::client_address;
use super::key_owner::KeyAccounts;
use super::{ApiError, EndpointGroup, Incoming, Query, RateLimiter, Reply, RequestBody, request};
use crate::settings::Settings;

/// The future a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Reply, ApiError>> + Send>>;

/// A type-erased handler: a plain async function over the state `S` (the application) and the
/// typed request.
pub type Handler<S> = Arc<dyn Fn(S, Incoming) -> HandlerFuture + Send + Sync>;

/// Wraps a plain `async fn(S, Incoming) -> Result<Reply, ApiError>` as a [`Handler`].
pub fn handler<S, F, Fut>(function: F) -> Handler<S>
where
    F: Fn(S, Incoming) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ApiError>> + Send + 'static,
{
    Arc::new(move |state, incoming| Box::pin(function(state, incoming)))
}

/// What the router needs of the state it hands to the handlers: the settings that bound a
/// request, the rate limits at work, and who tells the account a key names.
pub trait RouterState: Clone + Send + Sync + 'static {
    /// What resolves the keys that the account rate limits count by.
    type Accounts: KeyAccounts;

    /// The settings: the body limit and whether to trust `X-Forwarded-For`.
    fn settings(&self) -> &Settings;

    /// This node's rate limits at work.
    fn rate_limiter(&self) -> &RateLimiter;

    /// What resolves the keys that the account rate limits count by.
    fn key_accounts(&self) -> &Self::Accounts;

    /// Whether a request declaring a body over the limit still reaches its handler, whose
    /// reading of the body answers the 413 (as a body sent chunked past the limit does), rather
    /// than being refused before it: for handlers that must see every call, such as the
    /// operator API's changes, which audit the refusal. No by default.
    fn handlers_refuse_large_bodies(&self) -> bool {
        false
    }
}

/// A handler and the endpoint group whose rate limits it counts against.
type Routed<S> = (Handler<S>, EndpointGroup);

/// Handlers (with their groups) by method name (`GET`, `POST`, ...) for one path pattern.
type ByMethod<S> = BTreeMap<String, Routed<S>>;

/// The path pattern that answered a request (`/api/user/{userKey}`), as written in the routing
/// table: put in the response's extensions, for the layers that label requests by route
/// (metrics). A request that matched no route has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedRoute(pub Arc<str>);

/// One path pattern and its handlers (with their groups) by method name.
struct Route<S> {
    pattern: Arc<str>,
    by_method: ByMethod<S>,
}

/// The routing table as it is written: path patterns with their handlers (over the state `S`)
/// by method. [`build`](Self::build) freezes it into a [`Router`].
pub struct Routes<S>(Vec<(String, ByMethod<S>)>);

impl<S> Default for Routes<S> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<S> Routes<S> {
    /// Adds `handler` for `method` on the matchit pattern `path` (`/api/user/{userKey}`),
    /// counting its requests against the rate limits of `group`.
    pub fn route(
        mut self,
        method: &Method,
        path: &str,
        group: EndpointGroup,
        handler: Handler<S>,
    ) -> Self {
        let routed = (handler, group);
        match self.0.iter_mut().find(|(known, _)| known == path) {
            Some((_, by_method)) => {
                by_method.insert(method.to_string(), routed);
            }
            None => self.0.push((
                path.to_owned(),
                BTreeMap::from([(method.to_string(), routed)]),
            )),
        }
        self
    }

    /// The router over these routes.
    ///
    /// # Panics
    /// When two patterns conflict: a programming error found at start-up.
    pub fn build(self) -> Router<S> {
        let mut paths = matchit::Router::new();
        for (path, by_method) in self.0 {
            let route = Route {
                pattern: Arc::from(path.as_str()),
                by_method,
            };
            if let Err(conflict) = paths.insert(path.clone(), route) {
                panic!("route {path} conflicts: {conflict}");
            }
        }
        Router { paths }
    }
}

/// Method + path -> handler: a matchit tree of path patterns, each with its handlers (over the
/// state `S`) by method.
pub struct Router<S> {
    paths: matchit::Router<Route<S>>,
}

impl<S: RouterState> Router<S> {
    /// Routes one request and runs its handler with `state`; every outcome is a response.
    pub async fn dispatch(&self, state: S, request: Request<RequestBody>) -> Response<Full<Bytes>> {
        let is_head = request.method() == Method::HEAD;
        let mut matched = None;
        let reply = match self.run(state, request, &mut matched).await {
            Ok(reply) => reply,
            Err(error) => error.into_reply(),
        };
        let mut response = reply.into_response();
        if let Some(pattern) = matched {
            response.extensions_mut().insert(MatchedRoute(pattern));
        }
        if is_head {
            without_body(response)
        } else {
            response
        }
    }

    /// Runs the request's handler, noting the pattern it matched in `matched`.
    async fn run(
        &self,
        state: S,
        request: Request<RequestBody>,
        matched: &mut Option<Arc<str>>,
    ) -> Result<Reply, ApiError> {
        let body_limit = state.settings().body_limit;
        let (mut parts, body) = request.into_parts();
        let upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
        let raw_path = parts.uri.path();
        check_percent_encoding(raw_path)?;
        let found = self
            .paths
            .at(raw_path)
            .map_err(|_| ApiError::RouteNotFound)?;
        *matched = Some(Arc::clone(&found.value.pattern));
        let by_method = &found.value.by_method;
        let wanted = if parts.method == Method::HEAD && !by_method.contains_key("HEAD") {
            "GET"
        } else {
            parts.method.as_str()
        };
        let Some((handler, group)) = by_method.get(wanted) else {
            return Err(ApiError::MethodNotAllowed {
                allowed: allowed_methods(by_method),
            });
        };
        let too_large = declared_over(&parts.headers, body_limit);
        if too_large && (!state.handlers_refuse_large_bodies() || declares_form(&parts)) {
            return Err(ApiError::BodyTooLarge { limit: body_limit });
        }
        let params = found
            .params
            .iter()
            .map(|(name, raw)| Ok((name.to_owned(), percent_decode(raw)?)))
            .collect::<Result<Vec<_>, ApiError>>()?;
        let (query, body) = parameters(&parts, body, body_limit).await?;
        let address = client_address(
            &parts.headers,
            &parts.extensions,
            state.settings().trust_forwarded_for,
        );
        let incoming =
            Incoming::new(parts.headers, query, params, body, body_limit).with_upgrade(upgrade);
        state
            .rate_limiter()
            .admit(state.key_accounts(), *group, address, &incoming)
            .await?;
        handler(state, incoming).await
    }
}

/// The request's parameters (its query string, and the fields of a POST's form body) and the
/// body left for the handler: none after a form. A body declared a form that is one JSON
/// object (what `curl --data '{...}'` and Unity's `UnityWebRequest.Post(url, string)` send) is
/// JSON whatever its declared type: it is left to the handler whole.
async fn parameters(
    parts: &http::request::Parts,
    body: RequestBody,
    body_limit: usize,
) -> Result<(Query, RequestBody), ApiError> {
    let mut query = Query::parse(parts.uri.query());
    if !declares_form(parts) {
        return Ok((query, body));
    }
    let form = request::collect_body(body, body_limit).await?;
    if request::is_json_object(&form) {
        let whole = Full::new(form)
            .map_err(|never| match never {})
            .boxed_unsync();
        return Ok((query, whole));
    }
    query.add_form(&form)?;
    let emptied = Empty::new().map_err(|never| match never {}).boxed_unsync();
    Ok((query, emptied))
}

fn allowed_methods<S>(by_method: &ByMethod<S>) -> Vec<Method> {
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

/// Whether the request is a POST whose form body the router reads.
fn declares_form(parts: &http::request::Parts) -> bool {
    parts.method == Method::POST && request::declares_form(&parts.headers)
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
