//! The warp adapter over real HTTP: every request reaches the core as it came, every answer
//! comes back as it left.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use reqwest::{Client, Method, Response, StatusCode, header};
use safezone_core::Safezone;
use safezone_server_warp::{RunningServer, start};
use tempfile::TempDir;

/// A server on a free port over a fresh SQLite file, and a client for it.
struct Served {
    server: RunningServer,
    client: Client,
    _dir: TempDir,
}

impl Served {
    async fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = format!("sqlite://{}", dir.path().join("adapter.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let service = Safezone::new(store).service();
        let server = start(SocketAddr::from(([127, 0, 0, 1], 0)), service)
            .await
            .expect("the server starts");
        Self {
            server,
            client: Client::new(),
            _dir: dir,
        }
    }

    async fn send(&self, method: Method, path: &str) -> Response {
        let url = format!("http://{}{path}", self.server.local_addr());
        self.client
            .request(method, url)
            .send()
            .await
            .expect("an answer")
    }

    async fn post(&self, path: &str, body: impl Into<reqwest::Body>) -> Response {
        let url = format!("http://{}{path}", self.server.local_addr());
        self.client
            .post(url)
            .body(body)
            .send()
            .await
            .expect("an answer")
    }
}

/// The status line answering a POST of `body` sent chunked (no `Content-Length`), over plain TCP.
async fn post_chunked(address: SocketAddr, path: &str, body: Vec<u8>) -> String {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    for chunk in body.chunks(8192) {
        request.extend(format!("{:x}\r\n", chunk.len()).bytes());
        request.extend(chunk);
        request.extend(b"\r\n");
    }
    request.extend(b"0\r\n\r\n");
    let exchange = move || {
        let mut stream = TcpStream::connect(address).expect("a connection");
        // The server may answer before it has read everything; its answer is still there to read.
        let _ = stream.write_all(&request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    tokio::task::spawn_blocking(exchange)
        .await
        .expect("the exchange ends")
}

async fn json(response: Response) -> serde_json::Value {
    response.json().await.expect("a JSON body")
}

#[tokio::test(flavor = "multi_thread")]
async fn several_set_cookie_headers_arrive_intact() {
    let served = Served::new().await;
    let response = served.send(Method::GET, "/user/logout").await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookies: Vec<&str> = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|value| value.to_str().expect("text"))
        .collect();
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    assert!(
        cookies
            .iter()
            .all(|cookie| cookie.contains("Max-Age=0; Expires=")),
        "{cookies:?}"
    );
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn head_gets_the_headers_of_get_and_no_body() {
    let served = Served::new().await;
    let get = served.send(Method::GET, "/api").await;
    let head = served.send(Method::HEAD, "/api").await;
    assert_eq!(head.status(), StatusCode::OK);
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_LENGTH,
        header::CACHE_CONTROL,
    ] {
        assert_eq!(
            head.headers().get(&name),
            get.headers().get(&name),
            "{name}"
        );
    }
    assert!(head.bytes().await.expect("a body").is_empty());
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_path_is_the_json_404() {
    let served = Served::new().await;
    let response = served.send(Method::GET, "/no/such/thing").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(json(response).await["code"], "not_found");
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_method_is_405_with_allow() {
    let served = Served::new().await;
    for method in [
        Method::DELETE,
        Method::from_bytes(b"PURGE").expect("a method"),
    ] {
        let response = served.send(method, "/api").await;
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()[header::ALLOW], "GET, HEAD");
        assert_eq!(json(response).await["code"], "method_not_allowed");
    }
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_raw_query_and_path_reach_the_core() {
    let served = Served::new().await;
    let decoded = served.send(Method::GET, "/api/config?platform=%77eb").await;
    assert_eq!(decoded.status(), StatusCode::OK);
    let wrong = served
        .send(Method::GET, "/api/config?platform=w%65eb")
        .await;
    assert_eq!(wrong.status(), StatusCode::BAD_REQUEST);
    let badly_encoded = served.send(Method::GET, "/user/%zz").await;
    assert_eq!(badly_encoded.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json(badly_encoded).await["code"], "invalid_path_encoding");
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_body_reaches_the_core() {
    let served = Served::new().await;
    let accepted = served
        .post("/api/metrics/update", r#"{"webgl_version":"webgl2"}"#)
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let empty = served.post("/api/metrics/update", "").await;
    assert_eq!(empty.status(), StatusCode::BAD_REQUEST);
    let huge = served
        .post("/api/metrics/update", vec![b' '; 1 << 20])
        .await;
    assert_eq!(huge.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(json(huge).await["code"], "body_too_large");
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunked_body_streams_to_the_core_and_its_limit() {
    let served = Served::new().await;
    let address = served.server.local_addr();
    let accepted = post_chunked(
        address,
        "/api/metrics/update",
        br#"{"webgl_version":"webgl2"}"#.to_vec(),
    )
    .await;
    assert_eq!(accepted, "HTTP/1.1 200 OK");
    let huge = post_chunked(address, "/api/metrics/update", vec![b' '; 1 << 20]).await;
    assert_eq!(huge, "HTTP/1.1 413 Payload Too Large");
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_request_id_comes_back() {
    let served = Served::new().await;
    let url = format!("http://{}/api", served.server.local_addr());
    let given = served
        .client
        .get(url)
        .header("x-request-id", "test-42")
        .send()
        .await
        .expect("an answer");
    assert_eq!(given.headers()["x-request-id"], "test-42");
    let made = served.send(Method::GET, "/api").await;
    assert!(!made.headers()["x-request-id"].is_empty());
    served.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_ends_the_server_and_frees_the_port() {
    let served = Served::new().await;
    let address = served.server.local_addr();
    assert_eq!(
        served.send(Method::GET, "/api").await.status(),
        StatusCode::OK
    );
    served.server.stop().await;
    assert!(tokio::net::TcpStream::connect(address).await.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_taken_address_is_an_error() {
    let served = Served::new().await;
    let store = safezone_storage::open("sqlite::memory:")
        .await
        .expect("the store opens");
    let refused = start(served.server.local_addr(), Safezone::new(store).service()).await;
    assert_eq!(
        refused.err().map(|error| error.kind()),
        Some(std::io::ErrorKind::AddrInUse)
    );
    served.server.stop().await;
}
