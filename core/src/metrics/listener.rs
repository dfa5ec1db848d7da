//! The operator listener, on an address of its own: `GET /metrics`, the liveness probe
//! `/healthz`, the readiness probe `/readyz`, and the operator API under `/operator/api/` with
//! its web console under `/operator/console/` when they are served
//! ([`serve_with_operator_api`]); 404 for anything else.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;

use super::{CONTENT_TYPE, Metrics};
use crate::ConnectionLimits;
use crate::console::Console;
use crate::http::BodyError;
use crate::operator_api::{self, OperatorApi};
use crate::serve::RunningServer;

/// How long a stop waits for scrapes in flight.
const STOP_PATIENCE: Duration = Duration::from_secs(5);

/// The operator's scrapers are few: a handful of connections, each quick to ask.
const LIMITS: ConnectionLimits = ConnectionLimits {
    max_connections: NonZeroUsize::new(32),
    header_read_timeout: Duration::from_secs(10),
};

/// A running metrics listener: its bound address, and how to stop it. Dropping it without
/// [`stop`](Self::stop) also stops it, without waiting.
pub struct MetricsServer {
    running: RunningServer,
}

impl MetricsServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.running.local_addr()
    }

    /// Stops accepting, lets scrapes in flight finish (5 s at most), and waits for the end.
    pub async fn stop(self) {
        self.running.stop().await;
    }
}

/// Binds `addr` (port 0 picks a free port) and serves `metrics` at `GET /metrics`, `/healthz`
/// and `/readyz` in a task of the current Tokio runtime, plain HTTP/1.1
/// ([`serve`](crate::serve)), until stopped: 32 connections at most, 10 seconds to send a
/// request's head.
pub async fn serve(addr: SocketAddr, metrics: Arc<Metrics>) -> std::io::Result<MetricsServer> {
    serve_listener(addr, metrics, None).await
}

/// [`serve`], and the operator API `api` under `/operator/api/`
/// ([`SafezoneService::operator_api`](crate::SafezoneService::operator_api)) with its web
/// console under `/operator/console/` ([`Console`]).
pub async fn serve_with_operator_api(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    api: OperatorApi,
) -> std::io::Result<MetricsServer> {
    let console = Console::new(api.clone());
    serve_listener(addr, metrics, Some(Arc::new((api, console)))).await
}

/// Serves `metrics`, and the operator API with its console when given.
async fn serve_listener(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    operator: Option<Arc<(OperatorApi, Console)>>,
) -> std::io::Result<MetricsServer> {
    let service = tower::service_fn(move |request: Request<Incoming>| {
        let metrics = Arc::clone(&metrics);
        let operator = operator.clone();
        async move {
            let path = request.uri().path();
            let under_api = path == operator_api::PREFIX
                || path
                    .strip_prefix(operator_api::PREFIX)
                    .is_some_and(|rest| rest.starts_with('/'));
            let under_console = Console::serves(path);
            let response = match operator {
                Some(operator) if under_api || under_console => {
                    let request = request
                        .map(|body| body.map_err(|error| BodyError(Box::new(error))))
                        .map(BodyExt::boxed_unsync);
                    if under_api {
                        operator.0.answer(request).await
                    } else {
                        operator.1.answer(request).await
                    }
                }
                _ => answer(metrics, &request).await,
            };
            Ok::<_, Infallible>(response)
        }
    });
    let running = crate::serve::start(addr, service, LIMITS, STOP_PATIENCE).await?;
    Ok(MetricsServer { running })
}

/// A response of `status` with `body` of `content_type`.
fn reply(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

/// The answer to a probe, whatever its method: 200 and `{"status":"ok"}` from `/healthz`
/// while the process serves; from `/readyz`, 200 when [`Metrics::readiness`] passes, else
/// 503, with the checks' results ([`Readiness::to_json`](super::Readiness::to_json)).
async fn probe(metrics: &Metrics, path: &str) -> Option<Response<Full<Bytes>>> {
    let (status, body) = match path {
        "/healthz" => (StatusCode::OK, serde_json::json!({"status": "ok"})),
        "/readyz" => {
            let readiness = metrics.readiness().await;
            let status = if readiness.is_ready() {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            (status, readiness.to_json())
        }
        _ => return None,
    };
    Some(reply(
        status,
        "application/json",
        Bytes::from(body.to_string()),
    ))
}

/// The exposition for `GET /metrics` (and `HEAD`), the probes at `/healthz` and `/readyz`,
/// 404 for any other path, 405 for any other method on `/metrics`.
async fn answer(metrics: Arc<Metrics>, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    if let Some(response) = probe(&metrics, request.uri().path()).await {
        return response;
    }
    if request.uri().path() != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            Bytes::from_static(
                b"not found: the metrics are at /metrics, the probes at /healthz and /readyz\n",
            ),
        );
    }
    match *request.method() {
        Method::GET => {
            // Off the runtime's workers: the boards' status waits for their lock while a
            // match's results are applied.
            match tokio::task::spawn_blocking(move || metrics.render()).await {
                Ok(text) => reply(StatusCode::OK, CONTENT_TYPE, Bytes::from(text)),
                Err(error) => {
                    tracing::error!(%error, "the metrics did not render");
                    reply(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "text/plain; charset=utf-8",
                        Bytes::from_static(b"the metrics did not render\n"),
                    )
                }
            }
        }
        Method::HEAD => reply(StatusCode::OK, CONTENT_TYPE, Bytes::new()),
        _ => {
            let mut response = reply(
                StatusCode::METHOD_NOT_ALLOWED,
                "text/plain; charset=utf-8",
                Bytes::from_static(b"only GET\n"),
            );
            response
                .headers_mut()
                .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
            response
        }
    }
}
