//! The tower layers every request passes, outermost first:
//! request id (a client's own kept only when short visible ASCII, see `request_id.rs`) ->
//! tracing (redacted path) -> request id echoed -> security headers -> panic
//! catch -> a target that is not a path refused (`request_target.rs`) -> CORS (answers preflights) -> cap on requests in flight (beyond it a JSON 503
//! `overloaded`, at once) -> timeout (as a JSON 503) -> router (which checks the rate limits
//! of the route it matched).
//! Body size is limited at routing (declared `Content-Length`) and while reading (streamed
//! bodies), so that every refusal is the JSON envelope.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tower::{
    Service, ServiceBuilder, ServiceExt, load_shed::error::Overloaded, timeout::TimeoutLayer,
    util::BoxCloneSyncService,
};
use tower_http::{
    catch_panic::CatchPanicLayer,
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer},
    trace::TraceLayer,
};

use super::body::{BoxError, RequestBody, ResponseBody};
use super::cors::cors_layer;
use super::request_id::without_unfit_client_id;
use super::request_target::PathTargetsLayer;
use super::security_headers::SecurityHeaders;
use super::shared_stack::SharedStack;
use super::{ApiError, Router, RouterState, redact_path};

/// Builds the whole stack around the router, which runs its handlers with `state`; the
/// browser origins allowed, besides the settings' own CORS origins, are `web_origins`.
pub(crate) fn service_stack<S: RouterState>(
    router: Arc<Router<S>>,
    state: S,
    web_origins: &[String],
) -> SharedStack {
    let settings = state.settings();
    let timeout = settings.request_timeout;
    let in_flight_cap = settings.max_in_flight.map(|most| {
        ServiceBuilder::new()
            .load_shed()
            .concurrency_limit(most)
            .into_inner()
    });
    let security_headers = SecurityHeaders::new(settings.hsts_max_age);
    let cors = cors_layer(web_origins.iter().chain(&settings.cors_origins));
    let answered = Answered {
        limited: BoxCloneSyncService::new(
            ServiceBuilder::new()
                .option_layer(in_flight_cap)
                .layer(TimeoutLayer::new(timeout))
                .service(Routed { router, state }),
        ),
    };
    let stack = ServiceBuilder::new()
        .map_response(box_body)
        .map_request(without_unfit_client_id::<RequestBody>)
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<RequestBody>| {
                    let request_id = request
                        .headers()
                        .get("x-request-id")
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default();
                    tracing::info_span!(
                        "request",
                        method = %request.method(),
                        path = %redact_path(request.uri().path()),
                        request_id = %request_id,
                    )
                })
                .on_response(log_answer),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .map_response(move |mut response: Response<_>| {
            security_headers.add_missing(response.headers_mut());
            response
        })
        .layer(CatchPanicLayer::custom(panic_reply))
        .layer(PathTargetsLayer)
        .layer(cors)
        .service(answered);
    SharedStack::new(BoxCloneSyncService::new(stack))
}

/// The router as a service: every request gets its response.
struct Routed<S> {
    router: Arc<Router<S>>,
    state: S,
}

impl<S: Clone> Clone for Routed<S> {
    fn clone(&self) -> Self {
        Self {
            router: Arc::clone(&self.router),
            state: self.state.clone(),
        }
    }
}

impl<S: RouterState> Service<Request<RequestBody>> for Routed<S> {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let router = Arc::clone(&self.router);
        let state = self.state.clone();
        Box::pin(async move { Ok(router.dispatch(state, request).await) })
    }
}

/// The timed router behind the cap on requests in flight, whose errors (time is up, too many
/// in flight) become JSON 503s.
#[derive(Clone)]
struct Answered {
    limited: BoxCloneSyncService<Request<RequestBody>, Response<Full<Bytes>>, BoxError>,
}

impl Service<Request<RequestBody>> for Answered {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let limited = self.limited.clone();
        Box::pin(async move { Ok(limited.oneshot(request).await.unwrap_or_else(error_reply)) })
    }
}

/// Erases the response body type that the layers built up.
fn box_body<B>(response: Response<B>) -> Response<ResponseBody>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    response.map(|body| body.map_err(Into::into).boxed_unsync())
}

/// The request's log line, in the request's span: its status and the time to its head. Its
/// target (`safezone_core::http::access`) lets `RUST_LOG` turn it off alone.
fn log_answer<B>(response: &Response<B>, latency: Duration, _span: &tracing::Span) {
    tracing::info!(
        target: "safezone_core::http::access",
        status = response.status().as_u16(),
        micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
        "answered"
    );
}

/// A handler panicked: log it and answer the JSON 500.
fn panic_reply(panic: Box<dyn Any + Send + 'static>) -> Response<Full<Bytes>> {
    let detail = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
        .unwrap_or_else(|| "panic without a message".to_owned());
    ApiError::Internal {
        detail: format!("handler panicked: {detail}"),
    }
    .into_reply()
    .into_response()
}

/// The timeout's and the load shedding's errors become JSON 503s.
fn error_reply(error: BoxError) -> Response<Full<Bytes>> {
    let reply = if error.is::<tower::timeout::error::Elapsed>() {
        ApiError::Timeout
    } else if error.is::<Overloaded>() {
        ApiError::Overloaded
    } else {
        ApiError::Internal {
            detail: error.to_string(),
        }
    };
    reply.into_reply().into_response()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http::Method;
    use http_body_util::Empty;

    use super::*;
    use crate::clock::SystemClock;
    use crate::content::Content;
    use crate::http::{EndpointGroup, ErrorCode, Incoming, Reply, Routes, handler};
    use crate::store::{Store, UnavailableStore};
    use crate::{App, AppState, Settings};

    async fn panics(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
        panic!("handler exploded")
    }

    async fn sleeps(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(Reply::done())
    }

    fn stack() -> SharedStack {
        let router = Routes::default()
            .route(&Method::GET, "/panic", EndpointGroup::Read, handler(panics))
            .route(&Method::GET, "/slow", EndpointGroup::Read, handler(sleeps))
            .build();
        let store: Arc<dyn Store> = Arc::new(UnavailableStore);
        let clock: Arc<dyn crate::clock::Clock> = Arc::new(SystemClock);
        let content = Arc::new(crate::live_content::LiveContent::new(Content::shipped()));
        let app = Arc::new(AppState {
            metrics: Arc::new(crate::metrics::Metrics::new(
                Arc::clone(&store),
                crate::leaderboard::Leaderboards::new(Arc::clone(&store), Arc::clone(&clock)),
            )),
            leaderboards: crate::leaderboard::Leaderboards::new(
                Arc::clone(&store),
                Arc::clone(&clock),
            ),
            realtime: crate::realtime::hub::Hub::start(
                Arc::new(crate::events::subscription::Subscription::new()),
                Arc::clone(&store),
                &content,
                8,
                5,
            ),
            store,
            content,
            settings: Settings {
                request_timeout: Duration::from_millis(100),
                ..Settings::default()
            },
            clock,
            auth: crate::auth::Auth::new(crate::auth::AuthConfig::default()),
            recent_callers: crate::auth::RecentCallers::default(),
            user_keys: crate::auth::UserKeys::new(None),
            sessions: crate::auth::SessionCache::new(None, 0),
            rate_limiter: Arc::new(crate::http::RateLimiter::new(
                &Settings::default().rate_limits,
            )),
        });
        let web_origins = app.auth.config.web_origins.clone();
        service_stack(Arc::new(router), app, &web_origins)
    }

    async fn get(path: &str) -> (u16, http::HeaderMap, serde_json::Value) {
        send(Method::GET, path).await
    }

    async fn send(method: Method, target: &str) -> (u16, http::HeaderMap, serde_json::Value) {
        let body: RequestBody = Empty::new().map_err(|never| match never {}).boxed_unsync();
        let request = Request::builder()
            .method(method)
            .uri(target)
            .body(body)
            .unwrap();
        let Ok(response) = stack().oneshot(request).await;
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (
            parts.status.as_u16(),
            parts.headers,
            serde_json::from_slice(&bytes).unwrap(),
        )
    }

    #[tokio::test]
    async fn a_panicking_handler_is_a_json_500_with_a_request_id() {
        let (status, headers, body) = get("/panic").await;
        assert_eq!(status, 500);
        assert_eq!(body["code"], ErrorCode::InternalError.as_str());
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(
            !body["message"].as_str().unwrap().contains("exploded"),
            "{body}"
        );
        assert!(headers.contains_key("x-request-id"));
    }

    #[tokio::test]
    async fn a_slow_handler_is_a_json_503_timeout() {
        let started = std::time::Instant::now();
        let (status, headers, body) = get("/slow").await;
        assert_eq!(status, 503);
        assert_eq!(body["code"], ErrorCode::Timeout.as_str());
        assert!(headers.contains_key("x-request-id"));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the timeout did not cut in"
        );
    }

    #[tokio::test]
    async fn a_target_that_is_not_a_path_is_a_json_400_with_a_request_id() {
        for (method, target) in [
            (Method::OPTIONS, "*"),
            (Method::GET, "*"),
            (Method::CONNECT, "example.com:443"),
            (Method::GET, "api"),
        ] {
            let (status, headers, body) = send(method.clone(), target).await;
            assert_eq!(status, 400, "{method} {target}");
            assert_eq!(
                body["code"],
                ErrorCode::InvalidRequestTarget.as_str(),
                "{method} {target}"
            );
            assert!(headers.contains_key("x-request-id"));
            assert_eq!(headers["x-content-type-options"], "nosniff");
        }
        let (status, _, body) = send(Method::GET, "http://example.com/nowhere").await;
        assert_eq!(
            (status, &body["code"]),
            (404, &serde_json::json!(ErrorCode::NotFound.as_str()))
        );
    }
}
