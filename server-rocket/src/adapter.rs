//! The catch-all routes: each request goes to the core with its method, raw path and query,
//! every header and its body streamed; the core's status, headers and body come back. A `101`
//! answer's [`UpgradeHandler`] (the realtime channel) is registered as rocket's upgrade, and
//! runs on the connection rocket upgrades.

use std::io::{self, Cursor};
use std::pin::{Pin, pin};

use bytes::{Bytes, BytesMut};
use http_body::Frame;
use http_body_util::{BodyExt, Empty, StreamBody};
use rocket::data::{ByteUnit, Data, DataStream, IoHandler, IoStream};
use rocket::http::Method::{self, Connect, Delete, Get, Head, Options, Patch, Post, Put, Trace};
use rocket::http::Status;
use rocket::route::{Handler, Outcome, Route};
use rocket::{Request, Response};
use safezone_core::SafezoneService;
use safezone_core::http::{ApiError, ClientAddress, ResponseBody, UpgradeHandler};
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;
use tower::ServiceExt;

/// Every method rocket knows; it answers others 400 before any route.
const METHODS: [Method; 9] = [Get, Put, Post, Delete, Options, Head, Trace, Connect, Patch];

/// The catch-alls' rank: after any route an embedding application mounts with rocket's defaults.
const RANK: isize = 100;

/// The largest chunk of request body read at once.
const CHUNK: usize = 16 * 1024;

/// One catch-all route (`/<path..>`, which matches `/` too) per method.
pub(crate) fn routes(service: SafezoneService) -> Vec<Route> {
    METHODS
        .into_iter()
        .map(|method| {
            Route::ranked(
                RANK,
                method,
                "/<path..>",
                Adapter {
                    service: service.clone(),
                },
            )
        })
        .collect()
}

/// The handler of every catch-all route.
#[derive(Clone)]
struct Adapter {
    service: SafezoneService,
}

#[rocket::async_trait]
impl Handler for Adapter {
    async fn handle<'r>(&self, request: &'r Request<'_>, data: Data<'r>) -> Outcome<'r> {
        let answer = if has_body(request) {
            // The body borrows the request, so it is pumped into a channel while the core
            // runs: the core reads it as it arrives, and its own limit applies.
            let (sender, mut receiver) = mpsc::channel(2);
            let body = StreamBody::new(futures_util::stream::poll_fn(move |context| {
                receiver.poll_recv(context)
            }));
            let Ok(core_request) = to_core(request, body) else {
                return Outcome::Error(Status::BadRequest);
            };
            let mut call = pin!(self.service.clone().oneshot(core_request));
            tokio::select! {
                answer = &mut call => answer,
                () = pump(data.open(ByteUnit::max_value()), sender) => call.await,
            }
        } else {
            // Most requests (every GET) have no body: no channel, no pump.
            let Ok(core_request) = to_core(request, Empty::<Bytes>::new()) else {
                return Outcome::Error(Status::BadRequest);
            };
            self.service.clone().oneshot(core_request).await
        };
        let Ok(mut response) = answer;
        let upgrade = response.extensions_mut().remove::<UpgradeHandler>();
        let mut answered = from_core(request.method(), response).await;
        if let Some(upgrade) = upgrade {
            answered.add_upgrade("websocket", Upgraded(upgrade));
        }
        Outcome::Success(answered)
    }
}

/// The protocol a `101` answer of the core switched to (the realtime channel's WebSocket), run
/// on the connection rocket upgrades once it has sent the answer.
struct Upgraded(UpgradeHandler);

#[rocket::async_trait]
impl IoHandler for Upgraded {
    async fn io(self: Pin<Box<Self>>, io: IoStream) -> io::Result<()> {
        let Self(handler) = *Pin::into_inner(self);
        handler.run(io).await;
        Ok(())
    }
}

/// Whether the request announces a body: a `Transfer-Encoding`, or a `Content-Length` other
/// than 0.
fn has_body(request: &Request<'_>) -> bool {
    let headers = request.headers();
    headers.contains("Transfer-Encoding")
        || headers
            .get_one("Content-Length")
            .is_some_and(|length| length.trim() != "0")
}

/// One piece of a request body, or the failure to read it.
type Chunk = io::Result<Frame<Bytes>>;

/// The request for the core, its method, URI and headers converted by their text (rocket's
/// types are its own), with the peer's address as its [`ClientAddress`], and `body`.
fn to_core<B>(request: &Request<'_>, body: B) -> Result<http::Request<B>, http::Error> {
    let mut builder = http::Request::builder()
        .method(request.method().as_str())
        .uri(request.uri().to_string());
    for header in request.headers().iter() {
        builder = builder.header(header.name().as_str(), header.value());
    }
    if let Some(peer) = request.remote() {
        builder = builder.extension(ClientAddress(peer.ip()));
    }
    builder.body(body)
}

/// Reads the body into the channel until it ends, fails, or nobody listens any more.
async fn pump(mut stream: DataStream<'_>, sender: mpsc::Sender<Chunk>) {
    loop {
        let mut chunk = BytesMut::with_capacity(CHUNK);
        let frame = match stream.read_buf(&mut chunk).await {
            Ok(0) => return,
            Ok(_) => Ok(Frame::data(chunk.freeze())),
            Err(error) => Err(error),
        };
        let failed = frame.is_err();
        if sender.send(frame).await.is_err() || failed {
            return;
        }
    }
}

/// The core's response for rocket: status, every header (`raw_header_adjoin` keeps repeated
/// ones such as `Set-Cookie`) and the body, collected (rocket's bodies cannot report a failure
/// half-way; the core's bodies are complete documents).
async fn from_core(method: Method, response: http::Response<ResponseBody>) -> Response<'static> {
    let (parts, body) = response.into_parts();
    let (parts, body) = match body.collect().await {
        Ok(collected) => (parts, collected.to_bytes()),
        Err(error) => {
            let detail = format!("response body: {error}");
            let (parts, body) = ApiError::Internal { detail }
                .into_reply()
                .into_response()
                .into_parts();
            let Ok(collected) = body.collect().await;
            (parts, collected.to_bytes())
        }
    };
    let mut response = Response::build();
    response.status(Status::new(parts.status.as_u16()));
    for (name, value) in &parts.headers {
        match std::str::from_utf8(value.as_bytes()) {
            Ok(value) => {
                response.raw_header_adjoin(name.as_str().to_owned(), value.to_owned());
            }
            Err(_) => {
                tracing::warn!(header = %name, "rocket sends only text header values; dropped")
            }
        }
    }
    // Rocket sets `Content-Length` from the body's size and drops a HEAD answer's body itself:
    // a HEAD answer keeps the length that the core gave it.
    let declared = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse().ok());
    let size = match declared {
        Some(length) if method == Head => length,
        _ => body.len(),
    };
    response.sized_body(size, Cursor::new(body));
    response.finalize()
}
