//! The tower layers every request passes, outermost first:
//! request id -> tracing (redacted path) -> request id echoed -> panic catch -> timeout (as a
//! JSON 503) -> router.
//! Body size is limited at routing (declared `Content-Length`) and while reading (streamed
//! bodies), so that every refusal is the JSON envelope.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full, combinators::UnsyncBoxBody};
use tower::{
    Service, ServiceBuilder, ServiceExt,
    timeout::{Timeout, TimeoutLayer},
    util::BoxCloneSyncService,
};
use tower_http::{
    catch_panic::CatchPanicLayer,
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer},
    trace::{DefaultOnResponse, TraceLayer},
};
use tracing::Level;

use super::{ApiError, Router, redact_path};
use crate::App;

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

/// The response body type of the service.
pub type ResponseBody = UnsyncBoxBody<Bytes, BoxError>;

/// The boxed, cloneable service with every layer in place.
pub(crate) type Stack =
    BoxCloneSyncService<Request<RequestBody>, Response<ResponseBody>, Infallible>;

/// Builds the whole stack around the router.
pub(crate) fn service_stack(router: Arc<Router>, app: App) -> Stack {
    let timeout = app.settings.request_timeout;
    let answered = Answered {
        timed: ServiceBuilder::new()
            .layer(TimeoutLayer::new(timeout))
            .service(Routed { router, app }),
    };
    let stack = ServiceBuilder::new()
        .map_response(box_body)
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
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(CatchPanicLayer::custom(panic_reply))
        .service(answered);
    BoxCloneSyncService::new(stack)
}

/// The router as a service: every request gets its response.
#[derive(Clone)]
struct Routed {
    router: Arc<Router>,
    app: App,
}

impl Service<Request<RequestBody>> for Routed {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let router = Arc::clone(&self.router);
        let app = Arc::clone(&self.app);
        Box::pin(async move { Ok(router.dispatch(app, request).await) })
    }
}

/// The timed router, whose only error (time is up) becomes the JSON 503.
#[derive(Clone)]
struct Answered {
    timed: Timeout<Routed>,
}

impl Service<Request<RequestBody>> for Answered {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let timed = self.timed.clone();
        Box::pin(async move { Ok(timed.oneshot(request).await.unwrap_or_else(error_reply)) })
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

/// The timeout layer's error (the only one it has) becomes the JSON 503.
fn error_reply(error: BoxError) -> Response<Full<Bytes>> {
    let reply = if error.is::<tower::timeout::error::Elapsed>() {
        ApiError::Timeout
    } else {
        ApiError::Internal {
            detail: error.to_string(),
        }
    };
    reply.into_reply().into_response()
}
