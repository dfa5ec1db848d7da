//! A plain HTTP/1.1 server for any `tower` service over hyper: the accept loop that the warp
//! adapter and the metrics listener share, with the [`ConnectionLimits`] and a graceful stop.
//!
//! A semaphore permit is taken before each `accept` and held until the connection closes, so
//! that at the cap no connection is accepted and the kernel's backlog holds the next ones.
//! Hyper closes a connection that has not sent a whole request head within the header-read
//! timeout (hyper's timer runs while a connection waits for a head, idle keep-alive ones too).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tower::{Service, ServiceExt};

use crate::ConnectionLimits;
use crate::http::{BoxError, ClientAddress};

/// How long the loop pauses after an `accept` that failed for want of resources (such as
/// file descriptors), so as not to spin.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Binds `listen` (port 0 picks a free port) and serves `service` in a task of the current
/// Tokio runtime, HTTP/1.1, each connection within `limits`. Every request carries its peer's
/// address as its [`ClientAddress`] extension.
///
/// On [`RunningServer::stop`], the listener closes, idle connections close, and requests in
/// flight are answered before their connection closes; the stop waits `stop_patience` at most
/// for them (connections still open then are no longer waited for). A connection upgraded by a
/// `101` answer (a WebSocket) is its protocol's from then on: the stop does not wait for it
/// (the realtime channels close on
/// [`SafezoneService::close_realtime_channels`](crate::SafezoneService::close_realtime_channels)).
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// use safezone_core::ConnectionLimits;
/// use std::time::Duration;
///
/// let hello = tower::service_fn(|_request: http::Request<hyper::body::Incoming>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(http_body_util::Full::new(
///         bytes::Bytes::from_static(b"hello"),
///     )))
/// });
/// let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
/// let limits = ConnectionLimits::default();
/// let server = safezone_core::serve::start(listen, hello, limits, Duration::from_secs(5)).await?;
/// server.stop().await;
/// # Ok(())
/// # }
/// ```
pub async fn start<S, B>(
    listen: SocketAddr,
    service: S,
    limits: ConnectionLimits,
    stop_patience: Duration,
) -> std::io::Result<RunningServer>
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let listener = TcpListener::bind(listen).await?;
    let local_addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let stopped = async {
        // An error only means that the `RunningServer` was dropped: that stops it too.
        let _ = stopped.await;
    };
    let task = tokio::spawn(accept(listener, service, limits, stopped, stop_patience));
    Ok(RunningServer::new(local_addr, stop, task))
}

/// Accepts connections within `limits` and serves each in a task of its own until `stopped`,
/// then waits up to `stop_patience` for the open connections to finish their requests.
async fn accept<S, B>(
    listener: TcpListener,
    service: S,
    limits: ConnectionLimits,
    stopped: impl Future<Output = ()>,
    stop_patience: Duration,
) where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let permits = limits
        .max_connections
        .map(|max| Arc::new(Semaphore::new(max.get())));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    // Each connection's task holds a clone of `open`: once they are all gone, every connection
    // has closed (or been upgraded: an upgraded connection is its protocol's to run and close).
    let (stopping, _) = watch::channel(false);
    let (open, mut all_closed) = mpsc::channel::<()>(1);
    let mut stopped = std::pin::pin!(stopped);
    loop {
        let (stream, peer, permit) = tokio::select! {
            biased;
            () = &mut stopped => break,
            next = next_connection(&listener, permits.as_ref()) => match next {
                Some(next) => next,
                None => continue,
            },
        };
        let service = service
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ClientAddress(peer.ip()));
                request
            });
        let connection = http
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .with_upgrades();
        let mut stop = stopping.subscribe();
        let open = open.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = async {
                    // An error only means that the accept loop has ended: a stop too.
                    let _ = stop.wait_for(|stopping| *stopping).await;
                } => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%error, %peer, "a connection ended in error");
            }
            drop(open);
            drop(permit);
        });
    }
    drop(listener);
    stopping.send_replace(true);
    drop(open);
    if tokio::time::timeout(stop_patience, all_closed.recv())
        .await
        .is_err()
    {
        tracing::warn!(
            patience = ?stop_patience,
            "connections still open at the stop were no longer waited for"
        );
    }
}

/// Waits for a free place under the cap (when there is one), then for a connection; `None`
/// after a failed `accept`, once the pause is over.
async fn next_connection(
    listener: &TcpListener,
    permits: Option<&Arc<Semaphore>>,
) -> Option<(TcpStream, SocketAddr, Option<OwnedSemaphorePermit>)> {
    let permit = match permits {
        // The semaphore is never closed: acquiring only waits.
        Some(permits) => Some(Arc::clone(permits).acquire_owned().await.ok()?),
        None => None,
    };
    match listener.accept().await {
        Ok((stream, peer)) => Some((stream, peer, permit)),
        Err(error) => {
            if !is_connection_error(&error) {
                tracing::warn!(%error, "could not accept a connection");
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
            }
            None
        }
    }
}

/// Whether `error` concerns one connection alone (the peer gave up), rather than the
/// listener or the process (such as running out of file descriptors).
fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        error.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// A server that an adapter started in a background task: its bound address, and how to stop
/// it. Dropping it without [`stop`](Self::stop) also stops the server, without waiting.
pub struct RunningServer {
    local_addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl RunningServer {
    /// A server bound to `local_addr`, running as `task`, which stops gracefully once `stop`
    /// is sent (or dropped).
    pub fn new(local_addr: SocketAddr, stop: oneshot::Sender<()>, task: JoinHandle<()>) -> Self {
        Self {
            local_addr,
            stop,
            task,
        }
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, lets requests in flight finish, and waits for the server to end.
    pub async fn stop(self) {
        // An error only means that the server has ended already.
        let _ = self.stop.send(());
        if let Err(error) = self.task.await {
            tracing::error!(%error, "the server task failed");
        }
    }
}
