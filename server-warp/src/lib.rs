//! Safezone served by warp: [`start`] mounts a [`SafezoneService`] for every method and path.
//!
//! Each request reaches the core as it came (method, raw path and query, every header, the
//! body as a stream) and the core's response goes back as it left (status, every header,
//! body). The core answers everything itself, 404 and 405 included, and limits bodies.

use std::io;
use std::net::SocketAddr;

use bytes::Buf;
use futures_util::{Stream, TryStreamExt};
use http::{HeaderMap, Method, Request, Response};
use http_body::Frame;
use http_body_util::{BodyDataStream, BodyExt, StreamBody};
use safezone_core::SafezoneService;
pub use safezone_core::cli::RunningServer;
use safezone_core::http::{ApiError, ResponseBody};
use sync_wrapper::SyncStream;
use tokio::{net::TcpListener, sync::oneshot};
use tower::ServiceExt;
use warp::{Filter, Reply, path::FullPath, reply::Response as WarpResponse};

/// Binds `listen` (port 0 picks a free port) and serves `service` in a background task.
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
    let listener = TcpListener::bind(listen).await?;
    let local_addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel();
    let server = warp::serve(mount(service))
        .incoming(listener)
        .graceful(async { stopped.await.unwrap_or_default() })
        .run();
    let task = tokio::spawn(server);
    Ok(RunningServer::new(local_addr, stop, task))
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
        .and(warp::body::stream())
        .then(move |method, path, query, headers, body| {
            call(service.clone(), method, path, query, headers, body)
        })
}

/// Rebuilds the request for the core, calls it and converts its answer for warp.
async fn call<S, B>(
    service: SafezoneService,
    method: Method,
    path: FullPath,
    query: Option<String>,
    headers: HeaderMap,
    body: S,
) -> WarpResponse
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send,
{
    let uri = match query {
        Some(query) => format!("{}?{query}", path.as_str()),
        None => path.as_str().to_owned(),
    };
    let frames = body.map_ok(|mut chunk| Frame::data(chunk.copy_to_bytes(chunk.remaining())));
    let mut request = Request::new(StreamBody::new(frames));
    *request.method_mut() = method;
    *request.headers_mut() = headers;
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
