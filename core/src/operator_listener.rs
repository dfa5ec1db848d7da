//! The operator's side on an address of its own (`--operator-listen`): the operator API under
//! `/operator/api/` and its web console under `/operator/console/`, apart from the metrics
//! listener, so that whoever may scrape `/metrics` cannot reach the write API.
//! [`OperatorService`] is the same as a tower Service, for an embedder's own server.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::Full;
use tower::Service;

use crate::ConnectionLimits;
use crate::console::Console;
use crate::http::{BoxError, RequestBody, boxed_request};
use crate::operator_api::{self, OperatorApi};
use crate::serve::RunningServer;

/// How long a stop waits for operators' requests in flight.
const STOP_PATIENCE: Duration = Duration::from_secs(5);

/// Operators are few: a handful of connections, each quick to send its head.
const LIMITS: ConnectionLimits = ConnectionLimits {
    max_connections: NonZeroUsize::new(32),
    header_read_timeout: Duration::from_secs(10),
};

/// The operator API and its console as one tower Service: requests under
/// [`operator_api::PREFIX`] go to the API, those under [`console::PREFIX`](crate::console::PREFIX)
/// to the console, any other gets 404. Cheap to clone.
#[derive(Clone)]
pub struct OperatorService {
    api: OperatorApi,
    console: Console,
}

impl OperatorService {
    /// The service answering with `api` and a console over it.
    pub fn new(api: OperatorApi) -> Self {
        let console = Console::new(api.clone());
        Self { api, console }
    }

    /// Answers one request.
    pub async fn answer(&self, request: Request<RequestBody>) -> Response<Full<Bytes>> {
        let path = request.uri().path();
        if serves_api(path) {
            self.api.answer(request).await
        } else if Console::serves(path) {
            self.console.answer(request).await
        } else {
            not_found()
        }
    }
}

impl<B> Service<Request<B>> for OperatorService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let request = boxed_request(request);
        let service = self.clone();
        Box::pin(async move { Ok(service.answer(request).await) })
    }
}

/// Whether `path` is the operator API's: its prefix or under it.
fn serves_api(path: &str) -> bool {
    path.strip_prefix(operator_api::PREFIX)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// 404 for a path that is neither the API's nor the console's.
fn not_found() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(
        b"not found: the operator API is under /operator/api/, the console under /operator/console/\n",
    )));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A running operator listener: its bound address, and how to stop it. Dropping it without
/// [`stop`](Self::stop) also stops it, without waiting.
pub struct OperatorServer {
    running: RunningServer,
}

impl OperatorServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.running.local_addr()
    }

    /// Stops accepting, lets requests in flight finish (5 s at most), and waits for the end.
    pub async fn stop(self) {
        self.running.stop().await;
    }
}

/// Binds `addr` (port 0 picks a free port) and serves `service` in a task of the current Tokio
/// runtime, plain HTTP/1.1 ([`serve`](crate::serve)), until stopped: 32 connections at most,
/// 10 seconds to send a request's head.
pub async fn serve(addr: SocketAddr, service: OperatorService) -> std::io::Result<OperatorServer> {
    let running = crate::serve::start(addr, service, LIMITS, STOP_PATIENCE).await?;
    Ok(OperatorServer { running })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_its_prefix_and_what_is_under_it() {
        assert!(serves_api("/operator/api"));
        assert!(serves_api("/operator/api/players"));
        assert!(!serves_api("/operator/apis"));
        assert!(!serves_api("/metrics"));
    }
}
