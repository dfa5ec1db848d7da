//! The two server adapters over real HTTP, beyond what the behaviour suite shows: a body
//! streamed without `Content-Length`, HEAD's `Content-Length`, the raw query, a method rocket
//! does not know, request targets that are not paths, starting and stopping a server, and the limits on connections (warp applies
//! them; rocket 0.5 cannot).
//!
//! Each check is written once as `async fn(TestApp)` and run by [`each_server!`] on the warp
//! and on the rocket adapter, on SQLite: the database plays no part in them.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::num::NonZeroUsize;
use std::time::Duration;

use reqwest::Method;
use safezone_core::{ConnectionLimits, Settings};
use safezone_tests::{Server, Standalone, TestApp, any_port, test_settings};

/// Generates, for each named `async fn(TestApp)`, a module with one `#[tokio::test]` per
/// server, both on SQLite, with the settings of [`test_settings`] or those of the function
/// named by `settings = ...;`.
macro_rules! each_server {
    ($($check:ident),* $(,)?) => {
        each_server!(settings = test_settings; $($check),*);
    };
    (settings = $settings:ident; $($check:ident),* $(,)?) => {
        $(
            mod $check {
                use safezone_tests::{Database, Server, run, shipped_content};

                #[tokio::test]
                async fn warp() {
                    run(Server::Warp, Database::Sqlite, super::$settings(), shipped_content(), super::$check)
                        .await;
                }

                #[tokio::test]
                async fn rocket() {
                    run(Server::Rocket, Database::Sqlite, super::$settings(), shipped_content(), super::$check)
                        .await;
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
    a_target_that_is_not_a_path_is_a_json_400,
    stop_ends_the_server_and_frees_the_port,
    a_taken_address_is_an_error_from_start,
);

each_server!(
    settings = two_connections_at_most;
    at_the_connection_cap_the_next_waits_until_one_closes,
);

each_server!(
    settings = seconds_for_a_request_head;
    a_stalled_request_head_is_cut_after_the_timeout,
);

/// The longest a check waits for something that should happen (never reached when it does).
const PATIENCE: Duration = Duration::from_secs(30);

/// A cap of two open connections, and a header-read timeout long enough that only the
/// client closes its idle connections during the check.
fn two_connections_at_most() -> Settings {
    let mut settings = test_settings();
    settings.connection_limits = ConnectionLimits {
        max_connections: NonZeroUsize::new(2),
        header_read_timeout: PATIENCE * 2,
    };
    settings
}

/// The header-read timeout of the stalled-head check: long enough that a busy machine's
/// scheduling delays never cut the clients that do send their heads (1 s did once, with CI and
/// a benchmark sharing the 2 CPUs), and well within hyper's own default (30 s).
const HEAD_TIMEOUT: Duration = Duration::from_secs(3);

/// [`HEAD_TIMEOUT`] to send a request's head.
fn seconds_for_a_request_head() -> Settings {
    let mut settings = test_settings();
    settings.connection_limits = ConnectionLimits {
        header_read_timeout: HEAD_TIMEOUT,
        ..ConnectionLimits::default()
    };
    settings
}

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

/// Authority-form and asterisk-form targets get the core's 400 `invalid_request_target`, except
/// those rocket refuses before any route (an authority-form target), which get its JSON 400
/// `invalid_request`; an absolute-form target is served as its path.
async fn a_target_that_is_not_a_path_is_a_json_400(app: TestApp) {
    let (address, server) = (app.address, app.server);
    let rocket_refuses = |code| match server {
        Server::Warp => "invalid_request_target",
        Server::Rocket => code,
    };
    let cases = [
        ("CONNECT 127.0.0.1:80", rocket_refuses("invalid_request")),
        ("GET api", rocket_refuses("invalid_request")),
        ("OPTIONS *", "invalid_request_target"),
        ("GET *", "invalid_request_target"),
    ];
    for (request_line, code) in cases {
        let answer = blocking(move || exchange(address, request_line)).await;
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{request_line}: {answer}"
        );
        assert!(
            answer.contains(&format!(r#""code":"{code}""#)),
            "{request_line}: {answer}"
        );
    }
    let absolute = format!("GET http://{address}/api");
    let served = blocking(move || exchange(address, &absolute)).await;
    assert!(served.starts_with("HTTP/1.1 200 OK\r\n"), "{served}");
    app.get("/api").await.success();
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

/// Warp accepts no third connection while two are open: the third waits in the kernel's
/// backlog, unanswered, until one of the two closes, and is then answered. Rocket 0.5 applies
/// no cap: it answers the third at once.
async fn at_the_connection_cap_the_next_waits_until_one_closes(app: TestApp) {
    let (address, server) = (app.address, app.server);
    blocking(move || {
        let first = answered_connection(address);
        let _second = answered_connection(address);
        let mut third = TcpStream::connect(address).expect("the kernel's backlog takes it");
        send_get(&mut third, address);
        let ok = Heard::Line("HTTP/1.1 200 OK".to_owned());
        if server == Server::Warp {
            assert_eq!(hear(&mut third, Duration::from_secs(1)), Heard::Nothing);
            drop(first);
        }
        assert_eq!(hear(&mut third, PATIENCE), ok);
    })
    .await;
}

/// Warp closes a connection that sent half a request line and stalls once the header-read
/// timeout ([`HEAD_TIMEOUT`] here) is over, and serves other clients meanwhile. Rocket 0.5 has no such
/// timeout: the stalled connection stays open.
async fn a_stalled_request_head_is_cut_after_the_timeout(app: TestApp) {
    let (address, server) = (app.address, app.server);
    let stalled = blocking(move || {
        let mut stalled = TcpStream::connect(address).expect("a connection");
        stalled
            .write_all(b"GET /api HT")
            .expect("half a request line");
        stalled
    })
    .await;
    app.get("/api").await.success();
    let stalled = blocking(move || {
        let mut stalled = stalled;
        match server {
            // Well within hyper's own default (30 s), so that the setting shows.
            Server::Warp => assert_eq!(hear(&mut stalled, HEAD_TIMEOUT * 4), Heard::Closed),
            Server::Rocket => {
                assert_eq!(hear(&mut stalled, HEAD_TIMEOUT * 2), Heard::Nothing);
            }
        }
        stalled
    })
    .await;
    // On a fresh connection: the client's pooled one idled past the same timeout, and the
    // server may close it just as the client reuses it.
    let answer = reqwest::get(format!("http://{address}/api"))
        .await
        .expect("a fresh connection is served");
    assert!(answer.status().is_success(), "{}", answer.status());
    drop(stalled);
}

/// What a client heard on a connection within some time.
#[derive(Debug, PartialEq, Eq)]
enum Heard {
    /// Nothing, and the connection is still open.
    Nothing,
    /// The server closed the connection without a word.
    Closed,
    /// The first line of an answer.
    Line(String),
}

/// Reads from `stream` until the end of a first line, its closing, or `wait` without a byte.
fn hear(stream: &mut TcpStream, wait: Duration) -> Heard {
    stream.set_read_timeout(Some(wait)).expect("a read timeout");
    let mut heard = Vec::new();
    let mut buffer = [0; 1024];
    while !heard.windows(2).any(|pair| pair == b"\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) if heard.is_empty() => return Heard::Closed,
            Ok(0) => break,
            Ok(read) => heard.extend_from_slice(&buffer[..read]),
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Heard::Nothing;
            }
            Err(error) if error.kind() == ErrorKind::ConnectionReset => return Heard::Closed,
            Err(error) => panic!("reading the answer: {error}"),
        }
    }
    let text = String::from_utf8_lossy(&heard);
    Heard::Line(text.lines().next().unwrap_or_default().to_owned())
}

/// Sends `GET /api` on `stream`, keeping the connection open.
fn send_get(stream: &mut TcpStream, address: SocketAddr) {
    let request = format!("GET /api HTTP/1.1\r\nHost: {address}\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
}

/// A connection that had a `GET /api` answered, so surely accepted, and is now idle and open.
fn answered_connection(address: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("a connection");
    send_get(&mut stream, address);
    assert_eq!(
        hear(&mut stream, PATIENCE),
        Heard::Line("HTTP/1.1 200 OK".to_owned())
    );
    stream
}

/// The whole answer to `request_line` (`METHOD target`) sent with `Connection: close`, or what
/// came before the server closed the connection.
fn exchange(address: SocketAddr, request_line: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("a connection");
    stream
        .set_read_timeout(Some(PATIENCE))
        .expect("a read timeout");
    let request =
        format!("{request_line} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Runs blocking socket work off the runtime's thread, so that the server keeps serving;
/// a panic in it is the check's.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(error) => std::panic::resume_unwind(error.into_panic()),
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
