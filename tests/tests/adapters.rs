//! The two server adapters over real HTTP, beyond what the behaviour suite shows: a body
//! streamed without `Content-Length`, HEAD's `Content-Length`, the raw query, a method rocket
//! does not know, and starting and stopping a server.
//!
//! Each check is written once as `async fn(TestApp)` and run by [`each_server!`] on the warp
//! and on the rocket adapter, on SQLite: the database plays no part in them.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use reqwest::Method;
use safezone_tests::{Server, Standalone, TestApp, any_port};

/// Generates, for each named `async fn(TestApp)`, a module with one `#[tokio::test]` per
/// server, both on SQLite.
macro_rules! each_server {
    ($($check:ident),* $(,)?) => {
        $(
            mod $check {
                use safezone_tests::{Database, Server, run};

                #[tokio::test]
                async fn warp() {
                    run(Server::Warp, Database::Sqlite, super::$check).await;
                }

                #[tokio::test]
                async fn rocket() {
                    run(Server::Rocket, Database::Sqlite, super::$check).await;
                }
            }
        )*
    };
}

each_server!(
    a_chunked_body_streams_to_the_core_and_its_limit,
    head_answers_the_content_length_of_get,
    the_raw_query_reaches_the_core,
    an_unknown_method_gets_each_servers_answer,
    stop_ends_the_server_and_frees_the_port,
    a_taken_address_is_an_error_from_start,
);

async fn a_chunked_body_streams_to_the_core_and_its_limit(app: TestApp) {
    let accepted = post_chunked(
        app.address,
        "/api/metrics/update",
        br#"{"webgl_version":"webgl2"}"#.to_vec(),
    )
    .await;
    assert_eq!(accepted, "HTTP/1.1 200 OK");
    let huge = post_chunked(app.address, "/api/metrics/update", vec![b' '; 1 << 20]).await;
    assert_eq!(huge, "HTTP/1.1 413 Payload Too Large");
}

async fn head_answers_the_content_length_of_get(app: TestApp) {
    let get = app.get("/api").await;
    get.success();
    let head = app.send(Method::HEAD, "/api", &[], None).await;
    assert_eq!(head.status, 200);
    for name in ["content-length", "cache-control"] {
        let of_get = get.header_values(name);
        assert!(!of_get.is_empty(), "GET answered no {name}");
        assert_eq!(head.header_values(name), of_get, "{name}");
    }
}

async fn the_raw_query_reaches_the_core(app: TestApp) {
    app.get("/api/config?platform=%77eb").await.success();
    let wrong = app.get("/api/config?platform=w%65eb").await;
    assert_eq!(wrong.status, 400, "{}", wrong.text);
}

/// Warp hands `PURGE` to the core like any method; rocket refuses it before, with the JSON
/// envelope all the same and without its `Server` header.
async fn an_unknown_method_gets_each_servers_answer(app: TestApp) {
    let purge = Method::from_bytes(b"PURGE").expect("a method");
    let answer = app.send(purge, "/api", &[], None).await;
    match app.server {
        Server::Warp => {
            answer.error(405, "method_not_allowed");
            assert_eq!(answer.header_values("allow"), ["GET, HEAD"]);
        }
        Server::Rocket => {
            answer.error(400, "invalid_request");
            assert!(
                answer.headers.get("server").is_none(),
                "{:?}",
                answer.headers
            );
        }
    }
}

/// Needs a server of its own to stop: the app's one is stopped by the harness.
async fn stop_ends_the_server_and_frees_the_port(app: TestApp) {
    let standalone = Standalone::start(app.server, any_port())
        .await
        .expect("the server starts");
    let address = standalone.local_addr();
    let health = app
        .client
        .get(format!("http://{address}/api"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(health.status(), 200);
    standalone.stop().await;
    assert!(tokio::net::TcpStream::connect(address).await.is_err());
}

async fn a_taken_address_is_an_error_from_start(app: TestApp) {
    let refused = Standalone::start(app.server, app.address).await;
    assert_eq!(
        refused.err().map(|error| error.kind()),
        Some(std::io::ErrorKind::AddrInUse)
    );
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
