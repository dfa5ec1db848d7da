//! The metrics listener, on an address of its own: `GET /metrics`, the liveness probe
//! `/healthz` and the readiness probe `/readyz`; 404 for anything else. [`MetricsService`] is
//! the same as a tower Service, for an embedder's own server. The operator API and console have
//! a listener of their own (`--operator-listen`), which this one never serves.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use tower::Service;

use super::{CONTENT_TYPE, Metrics};
use crate::ConnectionLimits;
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

/// The metrics and the probes as a tower Service (any request body; it is not read). Cheap to
/// clone.
#[derive(Clone)]
pub struct MetricsService {
    metrics: Arc<Metrics>,
}

impl MetricsService {
    /// The service answering from `metrics`.
    pub fn new(metrics: Arc<Metrics>) -> Self {
        Self { metrics }
    }
}

impl<B> Service<Request<B>> for MetricsService {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let metrics = Arc::clone(&self.metrics);
        let (head, _) = request.into_parts();
        Box::pin(async move { Ok(answer(metrics, &head.method, head.uri.path()).await) })
    }
}

/// Binds `addr` (port 0 picks a free port) and serves `metrics` at `GET /metrics`, `/healthz`
/// and `/readyz` in a task of the current Tokio runtime, plain HTTP/1.1
/// ([`serve`](crate::serve)), until stopped: 32 connections at most, 10 seconds to send a
/// request's head.
pub async fn serve(addr: SocketAddr, metrics: Arc<Metrics>) -> std::io::Result<MetricsServer> {
    let running =
        crate::serve::start(addr, MetricsService::new(metrics), LIMITS, STOP_PATIENCE).await?;
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
async fn answer(metrics: Arc<Metrics>, method: &Method, path: &str) -> Response<Full<Bytes>> {
    if let Some(response) = probe(&metrics, path).await {
        return response;
    }
    if path != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            Bytes::from_static(
                b"not found: the metrics are at /metrics, the probes at /healthz and /readyz\n",
            ),
        );
    }
    match *method {
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
