//! Safezone served by warp: [`start`] mounts a [`SafezoneService`] for every method and path.
//!
//! Each request reaches the core as it came (method, raw path and query, every header, the
//! body as a stream) and the core's response goes back as it left (status, every header,
//! body). The core answers everything itself, 404 and 405 included, and limits bodies. The
//! peer's address goes along as the request's [`ClientAddress`] extension. A request whose
//! target is not a path (`CONNECT host:port`, `OPTIONS *`) goes to the core without passing
//! warp's filters, which cannot take it; the core refuses it (JSON 400). So does a request
//! asking for an `Upgrade` (the realtime channel's WebSocket): warp's filters rebuild the
//! request and would lose hyper's promise of the upgraded connection, which the core takes.
//!
//! Warp's filter runs as a service (`warp::service`) under the core's own HTTP/1.1 server
//! ([`safezone_core::serve`]), which applies the service's
//! [`ConnectionLimits`](safezone_core::ConnectionLimits): a cap on open connections and a
//! header-read timeout (warp's own server offers neither).

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Buf;
use futures_util::future::{BoxFuture, Either};
use futures_util::{Stream, TryStreamExt};
use http::{HeaderMap, Method, Request, Response};
use http_body::Frame;
use http_body_util::{BodyDataStream, BodyExt, StreamBody};
use safezone_core::SafezoneService;
use safezone_core::http::{ApiError, BoxError, ClientAddress, ResponseBody, is_path_target};
pub use safezone_core::serve::RunningServer;
use sync_wrapper::SyncStream;
use tower::ServiceExt;
use warp::{Filter, Reply, path::FullPath, reply::Response as WarpResponse};

/// How long a stop waits, beyond the request timeout, for the answers in flight to go out.
const ANSWER_PATIENCE: Duration = Duration::from_secs(5);

/// Binds `listen` (port 0 picks a free port) and serves `service` in a background task,
/// within its settings' [`ConnectionLimits`](safezone_core::ConnectionLimits).
///
/// On [`RunningServer::stop`], requests in flight are answered before their connection
/// closes; the stop waits for them as long as a request may take (the request timeout) plus
/// 5 seconds.
///
/// ```no_run
/// # async fn run(service: safezone_core::SafezoneService) -> std::io::Result<()> {
/// let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
/// let server = safezone_server_warp::start(listen, service).await?;
/// println!("listening on http://{}", server.local_addr());
/// server.stop().await;
/// # Ok(())
/// # }
/// ```
pub async fn start(listen: SocketAddr, service: SafezoneService) -> io::Result<RunningServer> {
    let settings = service.settings();
    let limits = settings.connection_limits;
    let stop_patience = settings.request_timeout + ANSWER_PATIENCE;
    let paths = warp::service(mount(service.clone()));
    let mounted = PathTargets {
        warp: paths,
        core: service,
    };
    safezone_core::serve::start(listen, mounted, limits, stop_patience).await
}

/// Warp's filter as a service, for the requests whose target is a path; the others
/// (`CONNECT host:port`, `OPTIONS *`) go straight to the core, which refuses them with its JSON
/// 400: warp's path filter cannot take a target without a path (it panics on
/// `CONNECT host:port`). Upgrade requests go straight to the core too, with their extensions
/// (the peer's address, hyper's `OnUpgrade`).
#[derive(Clone)]
struct PathTargets<W> {
    warp: W,
    core: SafezoneService,
}

impl<W, B> tower::Service<Request<B>> for PathTargets<W>
where
    W: tower::Service<Request<B>, Response = WarpResponse, Error = Infallible>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = WarpResponse;
    type Error = Infallible;
    type Future = Either<W::Future, BoxFuture<'static, Result<WarpResponse, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.warp.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if is_path_target(request.uri()) && !request.headers().contains_key(http::header::UPGRADE) {
            return Either::Left(self.warp.call(request));
        }
        let core = self.core.clone();
        Either::Right(Box::pin(async move {
            let Ok(response) = core.oneshot(request).await;
            Ok(reply(response).await)
        }))
    }
}

/// The filter that hands every request to `service`.
fn mount(
    service: SafezoneService,
) -> impl Filter<Extract = (WarpResponse,), Error = warp::Rejection> + Clone {
    let query = warp::query::raw()
        .map(Some)
        .or(warp::any().map(|| None))
        .unify();
    warp::method()
        .and(warp::path::full())
        .and(query)
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<ClientAddress>())
        .and(warp::body::stream())
        .then(move |method, path, query, headers, peer, body| {
            let head = Head {
                method,
                path,
                query,
                headers,
                peer,
            };
            call(service.clone(), head, body)
        })
}

/// What the core needs of a request besides its body.
struct Head {
    method: Method,
    path: FullPath,
    query: Option<String>,
    headers: HeaderMap,
    peer: Option<ClientAddress>,
}

/// Rebuilds the request for the core, calls it and converts its answer for warp.
async fn call<S, B>(service: SafezoneService, head: Head, body: S) -> WarpResponse
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send,
{
    let Head {
        method,
        path,
        query,
        headers,
        peer,
    } = head;
    let uri = match query {
        Some(query) => format!("{}?{query}", path.as_str()),
        None => path.as_str().to_owned(),
    };
    let frames = body.map_ok(|mut chunk| Frame::data(chunk.copy_to_bytes(chunk.remaining())));
    let mut request = Request::new(StreamBody::new(frames));
    *request.method_mut() = method;
    *request.headers_mut() = headers;
    if let Some(peer) = peer {
        request.extensions_mut().insert(peer);
    }
    *request.uri_mut() = match uri.parse() {
        Ok(uri) => uri,
        Err(error) => {
            return envelope(ApiError::Internal {
                detail: format!("uri {uri}: {error}"),
            })
            .await;
        }
    };
    let Ok(response) = service.oneshot(request).await;
    reply(response).await
}

/// The core's response for warp, whose bodies must be `Sync`: a body of known length is
/// collected (so that it keeps its `Content-Length`), any other is streamed.
async fn reply(response: Response<ResponseBody>) -> WarpResponse {
    let (parts, body) = response.into_parts();
    if http_body::Body::size_hint(&body).exact().is_none() {
        let stream = warp::reply::stream(SyncStream::new(BodyDataStream::new(body)));
        return Response::from_parts(parts, stream.into_response().into_body());
    }
    match body.collect().await {
        Ok(collected) => Response::from_parts(parts, collected.to_bytes().into()),
        Err(error) => {
            envelope(ApiError::Internal {
                detail: format!("response body: {error}"),
            })
            .await
        }
    }
}

/// The core's JSON error envelope for a failure of the adapter itself.
async fn envelope(error: ApiError) -> WarpResponse {
    let (parts, body) = error.into_reply().into_response().into_parts();
    let Ok(collected) = body.collect().await;
    Response::from_parts(parts, collected.to_bytes().into())
}
