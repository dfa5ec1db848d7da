//! The sign-in test kit: the processes and local servers that Safezone's sign-in talks to in
//! the end-to-end tests, and a Safezone started with an auth configuration that points at them.
//!
//! - [`IdpProcess`]: a real OpenID provider (`oidc-provider` from npm, `login-kit/idp.mjs`) on
//!   loopback, the `idpone` of the configuration. [`IdpProcess::sign_in`] walks its login and
//!   consent forms over plain HTTP (a scripted user agent); [`run_browser`] does the same in
//!   headless Chromium (`login-kit/browser.mjs`, `playwright-core`); [`run_kit_script`] runs
//!   the kit's other browser scripts (`login-kit/console.mjs`, the operator console).
//! - [`OAuth2Provider`]: a plain OAuth2 provider (`idptwo`): `/authorize` answers at once with a
//!   redirect back, `/token`, `/me`.
//! - [`ChatPlatform`]: the chat platform's current-user address.
//! - [`ReceiptVerifier`]: a store's receipt verification address.
//! - [`LoopbackListener`]: the Windows client's loopback listener.
//! - [`LoginApp`]: all of the above plus Safezone on one server and a fresh database.
//!
//! The Node half needs `npm ci --prefix tests/login-kit` (CI's `.ci/run` does it) and Debian's
//! Chromium at `/usr/bin/chromium` (or `CHROMIUM_PATH`).

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response};
use hyper_util::rt::TokioIo;
use safezone_core::Safezone;
use safezone_core::auth::AuthConfig;
use safezone_core::clock::ManualClock;
use safezone_core::serve::RunningServer;
use safezone_core::store::Store;
use safezone_storage::test_support;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

use crate::{Answer, Database, Server, test_settings};

/// The client id Safezone is registered with at every provider of the kit.
pub const CLIENT_ID: &str = "safezone";
/// The client secret that goes with [`CLIENT_ID`].
pub const CLIENT_SECRET: &str = "safezone-secret";
/// `base64("safezone:safezone-secret")`: the HTTP Basic credentials of the client.
const CLIENT_BASIC: &str = "c2FmZXpvbmU6c2FmZXpvbmUtc2VjcmV0";
/// How long a process of the kit may take to start, and a browser run to finish.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one browser run may take before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);
/// A 1x1 transparent GIF: what the loopback listener answers.
const PIXEL_GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A port on 127.0.0.1 that was free a moment ago, for the addresses that must be written into
/// the configuration before their server starts (Safezone's own, the web origin's).
///
/// Picked at random below the system's ephemeral range (`ip_local_port_range`) and checked by
/// binding it: a port handed out by the system for `bind(0)` or for an outgoing connection (of
/// this or a parallel test) could be taken again before the server binds it, one outside that
/// range is not. Falls back to a system-picked port when there is no room below the range.
pub fn free_port() -> u16 {
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    const LOWEST: u16 = 10_000;
    if ephemeral_low > LOWEST + 1_000 {
        let span = u64::from(ephemeral_low - LOWEST);
        for _ in 0..200 {
            let random = uuid::Uuid::new_v4().as_u128() as u64;
            let port = LOWEST + u16::try_from(random % span).unwrap_or(0);
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("a free loopback port");
    listener.local_addr().expect("a bound address").port()
}

/// The Node project of the kit: `tests/login-kit`.
pub fn kit_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("login-kit")
}

/// Panics with the command to run when the kit's Node packages are not installed.
fn require_kit() {
    let modules = kit_dir().join("node_modules");
    assert!(
        modules.join("oidc-provider").is_dir() && modules.join("playwright-core").is_dir(),
        "the login kit's Node packages are missing: run `npm ci --prefix tests/login-kit`"
    );
}

/// Forwards each line of `reader` to standard error (the test's captured output), prefixed.
fn forward_lines(reader: impl Read + Send + 'static, prefix: &'static str) {
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            eprintln!("{prefix}: {line}");
        }
    });
}

/// Reads all of `reader` on a thread of its own; join the handle for the text.
fn collect(reader: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(reader).read_to_string(&mut text);
        text
    })
}

/// The OpenID provider of the kit (`node tests/login-kit/idp.mjs`), killed when dropped.
///
/// One confidential client (`safezone` / `safezone-secret`), authorization code flow, PKCE
/// checked when sent. Its development login page accepts any login name with any password and
/// that name becomes the account: `sub` and `name` are the login name, `email` is
/// `<name>@idp.test` (characters outside `[A-Za-z0-9._-]` dropped), `picture` is
/// `{issuer}/avatars/<name>.png`. The first sign-in of a name also shows a consent form.
pub struct IdpProcess {
    child: Mutex<Option<Child>>,
    stdin: Mutex<Option<ChildStdin>>,
    issuer: String,
}

impl IdpProcess {
    /// Starts the provider on a port the system picks, with `redirect_uri` registered for the
    /// client, and waits for it to listen. Answers the process and its issuer
    /// (`http://127.0.0.1:PORT`).
    pub async fn start(redirect_uri: &str) -> (Self, String) {
        require_kit();
        let mut child = Command::new("node")
            .arg(kit_dir().join("idp.mjs"))
            .args(["--watch-stdin", "--verbose", "--redirect-uri", redirect_uri])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node starts (is Node.js installed?)");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        forward_lines(child.stderr.take().expect("piped stderr"), "idp");
        let (ready, listening) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut ready = Some(ready);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix("idp listening on ") {
                    Some(issuer) if ready.is_some() => {
                        if let Some(ready) = ready.take() {
                            let _ = ready.send(issuer.trim().to_owned());
                        }
                    }
                    _ => eprintln!("idp: {line}"),
                }
            }
        });
        let issuer = match tokio::time::timeout(START_TIMEOUT, listening).await {
            Ok(Ok(issuer)) => issuer,
            _ => {
                let _ = child.kill();
                let status = child.wait();
                panic!(
                    "the OpenID provider did not start (exit: {status:?}); see its output above"
                );
            }
        };
        let process = Self {
            child: Mutex::new(Some(child)),
            stdin: Mutex::new(stdin),
            issuer: issuer.clone(),
        };
        (process, issuer)
    }

    /// The issuer: `http://127.0.0.1:PORT`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Kills the provider and waits for it to end: its port then refuses connections.
    pub fn stop(&self) {
        lock(&self.stdin).take();
        if let Some(mut child) = lock(&self.child).take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Walks the provider's pages like a browser would, without one: follows redirects from
    /// `authorization_url` (the `Location` of Safezone's `/user/login/idpone`), fills the login
    /// form with `login` and confirms the consent form, carrying the provider's cookies. Answers
    /// the address the provider finally redirects to outside itself (Safezone's validate
    /// address with `code`, `state` and `iss`), or the provider's answer when it shows an error.
    pub async fn sign_in(&self, authorization_url: &str, login: &str) -> Result<String, String> {
        enum Step {
            Get(String),
            Post(String, Vec<(&'static str, String)>),
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| error.to_string())?;
        let mut cookies: BTreeMap<String, String> = BTreeMap::new();
        let mut step = Step::Get(authorization_url.to_owned());
        for _ in 0..20 {
            let (url, request) = match &step {
                Step::Get(url) => (url.clone(), client.get(url)),
                Step::Post(url, form) => (url.clone(), client.post(url).form(form)),
            };
            let cookie_header = cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ");
            let request = if cookie_header.is_empty() {
                request
            } else {
                request.header("cookie", cookie_header)
            };
            let response = request.send().await.map_err(|error| error.to_string())?;
            for set_cookie in response.headers().get_all("set-cookie") {
                let Ok(set_cookie) = set_cookie.to_str() else {
                    continue;
                };
                let pair = set_cookie.split(';').next().unwrap_or_default();
                let Some((name, value)) = pair.split_once('=') else {
                    continue;
                };
                let lower = set_cookie.to_ascii_lowercase();
                if value.is_empty() || lower.contains("expires=thu, 01 jan 1970") {
                    cookies.remove(name.trim());
                } else {
                    cookies.insert(name.trim().to_owned(), value.trim().to_owned());
                }
            }
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get("location")
                    .and_then(|value| value.to_str().ok())
                    .ok_or("a redirect without Location")?;
                let location = if location.starts_with('/') {
                    format!("{}{location}", self.issuer)
                } else {
                    location.to_owned()
                };
                if !location.starts_with(&self.issuer) {
                    return Ok(location);
                }
                step = Step::Get(location);
                continue;
            }
            let body = response.text().await.map_err(|error| error.to_string())?;
            if !status.is_success() {
                return Err(format!("the provider answered {status} at {url}: {body}"));
            }
            let action = body
                .split("action=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .ok_or_else(|| format!("no form on the provider's page at {url}: {body}"))?;
            let action = action.replace("&amp;", "&");
            let action = if action.starts_with('/') {
                format!("{}{action}", self.issuer)
            } else {
                action
            };
            step = if body.contains("name=\"prompt\" value=\"login\"") {
                Step::Post(
                    action,
                    vec![
                        ("prompt", "login".to_owned()),
                        ("login", login.to_owned()),
                        ("password", "any-password".to_owned()),
                    ],
                )
            } else if body.contains("name=\"prompt\" value=\"consent\"") {
                Step::Post(action, vec![("prompt", "consent".to_owned())])
            } else {
                return Err(format!("an unexpected provider page at {url}: {body}"));
            };
        }
        Err("the provider kept the browser for more than 20 pages".to_owned())
    }
}

impl Drop for IdpProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How the browser signs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserMode {
    /// The web client: a test page on the web origin opens the login in a popup and receives
    /// `onLoginSuccess`; then `/api/user/{key}` and `/user/logout` are checked.
    Web,
    /// The Windows client as it is: the login page opened without an opener and without
    /// `client=windows`; Safezone's page hands the key to the loopback listener.
    Windows,
    /// The same with the explicit `client=windows`.
    WindowsExplicit,
}

/// One run of `login-kit/browser.mjs`.
#[derive(Debug, Clone)]
pub struct BrowserRun {
    /// Safezone's base address (`http://127.0.0.1:PORT`).
    pub safezone: String,
    /// Web or Windows.
    pub mode: BrowserMode,
    /// The port of the web origin the test page is served on (web mode).
    pub web_port: u16,
    /// The csrf value the client sends and expects back.
    pub csrf: String,
    /// The login name typed into the provider's login form (`idpone` only).
    pub login: String,
    /// The provider to sign in with (`idpone`, `idptwo`).
    pub provider: String,
    /// Web mode: whether `onLoginSuccess` must reach the test page (true when it is served on
    /// a configured web origin). When false the run checks that no message arrives.
    pub expect_message: bool,
}

/// What a browser run reported.
#[derive(Debug, Clone)]
pub struct BrowserOutcome {
    /// Whether every check of the script passed.
    pub ok: bool,
    /// The script's JSON report (see `login-kit/browser.mjs`): `message` (the parsed
    /// `onLoginSuccess`), `key`, `apiUser`, `cookieBeforeLogout`, `cookieAfterLogout`,
    /// `statusAfterLogout`, `dialogs`, `pageStatus`, `images`, or `error` and `step`.
    pub report: Value,
    /// The script's progress lines.
    pub stderr: String,
}

/// Runs headless Chromium through `login-kit/browser.mjs` and answers its report. Kills the
/// run after two minutes.
pub async fn run_browser(run: &BrowserRun) -> BrowserOutcome {
    let mode = match run.mode {
        BrowserMode::Web => "web",
        BrowserMode::Windows => "windows",
        BrowserMode::WindowsExplicit => "windows-explicit",
    };
    let web_port = run.web_port.to_string();
    let expect_message = if run.expect_message { "yes" } else { "no" };
    run_kit_script(
        "browser.mjs",
        &[
            ("--safezone", &run.safezone),
            ("--mode", mode),
            ("--web-port", &web_port),
            ("--csrf", &run.csrf),
            ("--login", &run.login),
            ("--provider", &run.provider),
            ("--expect-message", expect_message),
        ],
    )
    .await
}

/// Runs the kit's Node script `script` (`browser.mjs`, `console.mjs`) with the options
/// `options`, and answers its report: the last JSON line it printed. Kills the run after two
/// minutes.
pub async fn run_kit_script(script: &str, options: &[(&str, &str)]) -> BrowserOutcome {
    require_kit();
    let mut command = Command::new("node");
    command.arg(kit_dir().join(script));
    for (name, value) in options {
        command.args([name, value]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts (is Node.js installed?)");
    let stdout = collect(child.stdout.take().expect("piped stdout"));
    let stderr = collect(child.stderr.take().expect("piped stderr"));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > BROWSER_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(error) => panic!("waiting for the browser: {error}"),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let report = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok())
        .unwrap_or_else(|| json!({ "ok": false, "error": "no report", "stdout": stdout }));
    BrowserOutcome {
        ok: status.is_some_and(|status| status.success()) && report["ok"] == true,
        report,
        stderr,
    }
}

/// A request as a mock server received it.
#[derive(Debug, Clone)]
pub struct MockRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The raw query string (empty when there is none).
    pub query: String,
    /// The request headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Bytes,
}

impl MockRequest {
    /// The decoded query parameter `name`.
    pub fn param(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(self.query.as_bytes())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// The decoded field `name` of an `application/x-www-form-urlencoded` body.
    pub fn form(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(&self.body)
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// The header `name` as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The bearer token of the `Authorization` header.
    pub fn bearer(&self) -> Option<&str> {
        self.header("authorization")
            .and_then(|value| value.strip_prefix("Bearer "))
    }

    /// The body as JSON (`Value::Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What a mock server answers.
#[derive(Debug, Clone)]
pub struct MockResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Bytes,
}

impl MockResponse {
    /// A JSON answer.
    pub fn json(status: u16, body: &Value) -> Self {
        Self {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: Bytes::from(body.to_string()),
        }
    }

    /// A `302 Found` to `location`.
    pub fn redirect(location: &str) -> Self {
        Self {
            status: 302,
            headers: vec![("location".to_owned(), location.to_owned())],
            body: Bytes::new(),
        }
    }

    /// Any body with its content type.
    pub fn bytes(status: u16, content_type: &str, body: impl Into<Bytes>) -> Self {
        Self {
            status,
            headers: vec![("content-type".to_owned(), content_type.to_owned())],
            body: body.into(),
        }
    }

    fn into_hyper(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(self.body));
        *response.status_mut() =
            hyper::StatusCode::from_u16(self.status).unwrap_or(hyper::StatusCode::OK);
        for (name, value) in self.headers {
            if let (Ok(name), Ok(value)) = (
                hyper::header::HeaderName::try_from(name),
                hyper::header::HeaderValue::try_from(value),
            ) {
                response.headers_mut().append(name, value);
            }
        }
        response
    }
}

type Handler = Arc<dyn Fn(&MockRequest) -> MockResponse + Send + Sync>;

/// A small HTTP/1 server on 127.0.0.1 (hyper) that answers every request with a handler and
/// records what it received. [`MockServer::stop`] closes the listener and every open
/// connection, so the address then refuses connections (a service that is down).
pub struct MockServer {
    address: SocketAddr,
    task: Mutex<Option<JoinHandle<()>>>,
    requests: Arc<Mutex<Vec<MockRequest>>>,
}

impl MockServer {
    /// Starts a server on a port the system picks.
    pub async fn start(
        handler: impl Fn(&MockRequest) -> MockResponse + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a mock server binds");
        let address = listener.local_addr().expect("a bound address");
        let handler: Handler = Arc::new(handler);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            // Dropping the set (when this task is aborted) aborts every connection.
            let mut connections = JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                while connections.try_join_next().is_some() {}
                let handler = Arc::clone(&handler);
                let recorded = Arc::clone(&recorded);
                connections.spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let handler = Arc::clone(&handler);
                        let recorded = Arc::clone(&recorded);
                        async move {
                            let (parts, body) = request.into_parts();
                            let body = body
                                .collect()
                                .await
                                .map(|collected| collected.to_bytes())
                                .unwrap_or_default();
                            let request = MockRequest {
                                method: parts.method.to_string(),
                                path: parts.uri.path().to_owned(),
                                query: parts.uri.query().unwrap_or_default().to_owned(),
                                headers: parts.headers,
                                body,
                            };
                            lock(&recorded).push(request.clone());
                            Ok::<_, Infallible>(handler(&request).into_hyper())
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            address,
            task: Mutex::new(Some(task)),
            requests,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<MockRequest> {
        lock(&self.requests).clone()
    }

    /// Stops listening and closes every connection; waits until the port is released.
    pub async fn stop(&self) {
        let task = lock(&self.task).take();
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }
}

/// `BASE64URL(SHA-256(verifier))` without padding: the PKCE S256 challenge of `verifier`.
pub fn pkce_challenge(verifier: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let digest = Sha256::digest(verifier.as_bytes());
    let mut encoded = String::new();
    for chunk in digest.chunks(3) {
        let bytes = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let bits = u32::from(bytes[0]) << 16 | u32::from(bytes[1]) << 8 | u32::from(bytes[2]);
        for index in 0..=chunk.len() {
            let sextet = (bits >> (18 - 6 * index)) & 0x3f;
            encoded.push(char::from(ALPHABET[sextet as usize]));
        }
    }
    encoded
}

/// Appends `pairs` to `url` as query parameters, percent-encoded.
fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        query.append_pair(name, value);
    }
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{}", query.finish())
}

/// A code the OAuth2 mock handed out.
struct IssuedCode {
    user: Value,
    redirect_uri: String,
    challenge: Option<String>,
    used: bool,
}

#[derive(Default)]
struct OAuth2State {
    user: Value,
    codes: HashMap<String, IssuedCode>,
    tokens: HashMap<String, Value>,
    issued: u64,
}

/// The plain OAuth2 provider (`idptwo`), a mock:
///
/// - `GET /authorize?response_type=code&client_id=safezone&redirect_uri=&state=[&scope=]
///   [&code_challenge=&code_challenge_method=S256]`: no login page; 302 straight back to
///   `redirect_uri` with a fresh `code` and the `state` copied. Missing or wrong parameters:
///   400 JSON.
/// - `POST /token` (form: `grant_type=authorization_code`, `code`, `redirect_uri`,
///   `code_verifier`; client credentials by HTTP Basic or in the form): an access token. A code
///   is good once, for its own `redirect_uri` and PKCE verifier: otherwise 400
///   `invalid_grant` (wrong client: 401 `invalid_client`).
/// - `GET /me` with `Authorization: Bearer <access token>`: the user the code was issued for
///   (`{id, username, email, avatar}`); 401 otherwise.
///
/// The user a code is issued for is the one set with [`OAuth2Provider::set_user`] at the time
/// of `/authorize` (by default [`OAuth2Provider::default_user`]).
pub struct OAuth2Provider {
    server: MockServer,
    state: Arc<Mutex<OAuth2State>>,
}

impl OAuth2Provider {
    /// The user `/me` answers until another is set.
    pub fn default_user() -> Value {
        json!({
            "id": "two-1001",
            "username": "TwoPlayer",
            "email": "two@idptwo.test",
            "avatar": "https://idptwo.test/avatars/1001.png",
        })
    }

    /// Starts the mock on a port the system picks.
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(OAuth2State {
            user: Self::default_user(),
            ..OAuth2State::default()
        }));
        let shared = Arc::clone(&state);
        let server = MockServer::start(move |request| {
            let mut state = lock(&shared);
            match (request.method.as_str(), request.path.as_str()) {
                ("GET", "/authorize") => Self::authorize(&mut state, request),
                ("POST", "/token") => Self::token(&mut state, request),
                ("GET", "/me") => {
                    match request.bearer().and_then(|token| state.tokens.get(token)) {
                        Some(user) => MockResponse::json(200, user),
                        None => MockResponse::json(401, &json!({ "error": "invalid_token" })),
                    }
                }
                _ => MockResponse::json(404, &json!({ "error": "not_found" })),
            }
        })
        .await;
        Self { server, state }
    }

    fn authorize(state: &mut OAuth2State, request: &MockRequest) -> MockResponse {
        let bad = |what: &str| {
            MockResponse::json(
                400,
                &json!({ "error": "invalid_request", "error_description": what }),
            )
        };
        if request.param("response_type").as_deref() != Some("code") {
            return bad("response_type must be code");
        }
        if request.param("client_id").as_deref() != Some(CLIENT_ID) {
            return bad("unknown client_id");
        }
        let Some(redirect_uri) = request.param("redirect_uri") else {
            return bad("redirect_uri is required");
        };
        let Some(returned_state) = request.param("state") else {
            return bad("state is required");
        };
        let challenge = request.param("code_challenge");
        if challenge.is_some() && request.param("code_challenge_method").as_deref() != Some("S256")
        {
            return bad("only S256 challenges");
        }
        state.issued += 1;
        let code = format!("two-code-{}", state.issued);
        state.codes.insert(
            code.clone(),
            IssuedCode {
                user: state.user.clone(),
                redirect_uri: redirect_uri.clone(),
                challenge,
                used: false,
            },
        );
        MockResponse::redirect(&with_query(
            &redirect_uri,
            &[("code", &code), ("state", &returned_state)],
        ))
    }

    fn token(state: &mut OAuth2State, request: &MockRequest) -> MockResponse {
        let basic = request
            .header("authorization")
            .and_then(|value| value.strip_prefix("Basic "));
        let posted = request.form("client_id").as_deref() == Some(CLIENT_ID)
            && request.form("client_secret").as_deref() == Some(CLIENT_SECRET);
        if basic != Some(CLIENT_BASIC) && !posted {
            return MockResponse::json(401, &json!({ "error": "invalid_client" }));
        }
        let invalid_grant = |why: &str| {
            MockResponse::json(
                400,
                &json!({ "error": "invalid_grant", "error_description": why }),
            )
        };
        if request.form("grant_type").as_deref() != Some("authorization_code") {
            return MockResponse::json(400, &json!({ "error": "unsupported_grant_type" }));
        }
        let Some(code) = request.form("code") else {
            return invalid_grant("no code");
        };
        let Some(issued) = state.codes.get_mut(&code) else {
            return invalid_grant("unknown code");
        };
        if issued.used {
            return invalid_grant("the code was already used");
        }
        issued.used = true;
        if request.form("redirect_uri").as_deref() != Some(issued.redirect_uri.as_str()) {
            return invalid_grant("redirect_uri does not match");
        }
        if let Some(challenge) = &issued.challenge {
            let verifier = request.form("code_verifier").unwrap_or_default();
            if pkce_challenge(&verifier) != *challenge {
                return invalid_grant("PKCE verification failed");
            }
        }
        let user = issued.user.clone();
        state.issued += 1;
        let token = format!("two-token-{}", state.issued);
        state.tokens.insert(token.clone(), user);
        MockResponse::json(
            200,
            &json!({
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": "identify email",
            }),
        )
    }

    /// The user the next `/authorize` issues a code for.
    pub fn set_user(&self, user: Value) {
        lock(&self.state).user = user;
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<MockRequest> {
        self.server.requests()
    }

    /// Stops the provider: its port refuses connections from then on.
    pub async fn stop(&self) {
        self.server.stop().await;
    }
}

/// The chat platform's current-user address, a mock: `GET /users/@me` with
/// `Authorization: Bearer <token>`.
///
/// Tokens: `good-premium` (a premium subscriber, `premium_type: 2`), `good-free`
/// (`premium_type: 0`), `good-markup` (a user whose name is markup, `premium_type: null`);
/// anything else 401.
pub struct ChatPlatform {
    server: MockServer,
}

impl ChatPlatform {
    /// The name of the `good-markup` user.
    pub const MARKUP_NAME: &'static str = "<script>alert(\"chat\")</script>'&";

    /// The user `token` stands for, if any.
    pub fn user_of(token: &str) -> Option<Value> {
        match token {
            "good-premium" => Some(json!({
                "id": "chat-premium-1",
                "username": "PremiumPal",
                "email": "premium@chat.test",
                "avatar": "premium-avatar",
                "premium_type": 2,
            })),
            "good-free" => Some(json!({
                "id": "chat-free-1",
                "username": "FreePal",
                "email": "free@chat.test",
                "avatar": null,
                "premium_type": 0,
            })),
            "good-markup" => Some(json!({
                "id": "chat-markup-1",
                "username": Self::MARKUP_NAME,
                "email": null,
                "avatar": null,
                "premium_type": null,
            })),
            _ => None,
        }
    }

    /// Starts the mock on a port the system picks.
    pub async fn start() -> Self {
        let server = MockServer::start(|request| {
            if request.method != "GET" || request.path != "/users/@me" {
                return MockResponse::json(404, &json!({ "message": "404: Not Found" }));
            }
            match request.bearer().and_then(Self::user_of) {
                Some(user) => MockResponse::json(200, &user),
                None => {
                    MockResponse::json(401, &json!({ "message": "401: Unauthorized", "code": 0 }))
                }
            }
        })
        .await;
        Self { server }
    }

    /// The current-user address: `http://127.0.0.1:PORT/users/@me`.
    pub fn user_info_url(&self) -> String {
        format!("{}/users/@me", self.server.url())
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<MockRequest> {
        self.server.requests()
    }

    /// Stops the platform: its port refuses connections from then on.
    pub async fn stop(&self) {
        self.server.stop().await;
    }
}

/// A store's receipt verification address, a mock: `POST /verify` with the JSON body
/// `{"receipt": "<text>"}`.
///
/// A receipt `valid:<transaction id>:<product id>` (both of `[A-Za-z0-9._-]`) is valid:
/// `{"valid": true, "transaction_id", "product_id", "subscription_expires": null}`. Anything else
/// (`bogus`, a tampered receipt) is `{"valid": false, "reason": "..."}`; a body without a
/// `receipt` string is 400.
pub struct ReceiptVerifier {
    server: MockServer,
}

impl ReceiptVerifier {
    /// Starts the mock on a port the system picks.
    pub async fn start() -> Self {
        let server = MockServer::start(|request| {
            if request.method != "POST" || request.path != "/verify" {
                return MockResponse::json(404, &json!({ "error": "not found" }));
            }
            let body = request.json();
            let Some(receipt) = body["receipt"].as_str() else {
                return MockResponse::json(
                    400,
                    &json!({ "error": "a JSON body with `receipt` is required" }),
                );
            };
            let token = |text: &str| {
                !text.is_empty()
                    && text
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || b"._-".contains(&byte))
            };
            let parts: Vec<&str> = receipt.split(':').collect();
            match parts.as_slice() {
                ["valid", transaction, product] if token(transaction) && token(product) => {
                    MockResponse::json(
                        200,
                        &json!({
                            "valid": true,
                            "transaction_id": transaction,
                            "product_id": product,
                            "subscription_expires": null,
                        }),
                    )
                }
                _ => MockResponse::json(
                    200,
                    &json!({ "valid": false, "reason": "the receipt's signature does not match" }),
                ),
            }
        })
        .await;
        Self { server }
    }

    /// The verification address: `http://127.0.0.1:PORT/verify`.
    pub fn verify_url(&self) -> String {
        format!("{}/verify", self.server.url())
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<MockRequest> {
        self.server.requests()
    }

    /// Stops the verifier: its port refuses connections from then on.
    pub async fn stop(&self) {
        self.server.stop().await;
    }
}

/// The Windows client's loopback listener: answers every request with a 1x1 GIF and records
/// it.
pub struct LoopbackListener {
    server: MockServer,
}

impl LoopbackListener {
    /// Starts the listener on a port the system picks.
    pub async fn start() -> Self {
        let server = MockServer::start(|_| MockResponse::bytes(200, "image/gif", PIXEL_GIF)).await;
        Self { server }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The path and query of the first request, waiting up to `wait` for it.
    pub async fn first_request(&self, wait: Duration) -> Option<MockRequest> {
        let started = Instant::now();
        loop {
            if let Some(first) = self.server.requests().into_iter().next() {
                return Some(first);
            }
            if started.elapsed() > wait {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<MockRequest> {
        self.server.requests()
    }
}

/// The auth configuration of a [`LoginApp`] (the TOML the core parses).
#[allow(clippy::too_many_arguments)]
fn auth_toml(
    public_url: &str,
    web_origin: &str,
    loopback: &str,
    issuer: &str,
    idptwo: &str,
    chat: &str,
    chat_store: &str,
    engine_store: &str,
) -> String {
    format!(
        r#"public_url = "{public_url}"
web_origins = ["{web_origin}"]
client_loopback_url = "{loopback}"
login_secret = "login-kit-secret-0123456789abcdefghijklmnopqrstuvwxyz"

[providers.idpone]
kind = "oidc"
issuer = "{issuer}"
client_id = "{CLIENT_ID}"
client_secret = "{CLIENT_SECRET}"
scopes = ["openid", "email", "profile"]

[providers.idptwo]
kind = "oauth2"
authorization_url = "{idptwo}/authorize"
token_url = "{idptwo}/token"
user_info_url = "{idptwo}/me"
client_id = "{CLIENT_ID}"
client_secret = "{CLIENT_SECRET}"
scopes = ["identify", "email"]
fields = {{ id = "id", name = "username", email = "email", avatar = "avatar" }}

[chat]
user_info_url = "{chat}"
fields = {{ id = "id", name = "username", email = "email", avatar = "avatar" }}
premium_field = "premium_type"

[receipts.chat]
verify_url = "{chat_store}"

[receipts.engine]
verify_url = "{engine_store}"
"#
    )
}

/// Safezone with sign-in configured and the settings of [`test_settings`], on one server and a
/// fresh database, and everything its auth configuration points at: the OpenID provider process
/// (`idpone`), the OAuth2 mock (`idptwo`), the chat platform, the two receipt verifiers and the
/// loopback listener. The web origin's port is reserved for the browser's test page.
pub struct LoginApp {
    /// `http://127.0.0.1:<port>`: Safezone, also its `public_url`.
    pub base: String,
    /// The configured web origin: `http://127.0.0.1:<web_port>`.
    pub web_origin: String,
    /// The port of [`Self::web_origin`], where the browser serves its test page.
    pub web_port: u16,
    /// An HTTP client that follows no redirects and keeps no cookies.
    pub client: reqwest::Client,
    /// The clock the service reads.
    pub clock: ManualClock,
    /// The server under test.
    pub server: Server,
    /// The database under test.
    pub database: Database,
    /// The store the service uses.
    pub store: Arc<dyn Store>,
    /// The OpenID provider (`idpone`).
    pub idp: IdpProcess,
    /// The OAuth2 provider mock (`idptwo`).
    pub idptwo: OAuth2Provider,
    /// The chat platform mock.
    pub chat: ChatPlatform,
    /// The chat store's receipt verifier.
    pub chat_store: ReceiptVerifier,
    /// The engine store's receipt verifier.
    pub engine_store: ReceiptVerifier,
    /// The Windows client's loopback listener.
    pub loopback: LoopbackListener,
    /// The auth configuration given to the core.
    pub auth_toml: String,
    running: RunningServer,
    database_url: String,
    _directory: TempDir,
}

impl LoginApp {
    /// Starts the kit's providers and mocks, writes the auth configuration, and starts Safezone
    /// on `server` over a fresh `database`.
    pub async fn start(server: Server, database: Database) -> Self {
        let port = free_port();
        let web_port = free_port();
        let base = format!("http://127.0.0.1:{port}");
        let web_origin = format!("http://127.0.0.1:{web_port}");
        let (idp, issuer) = IdpProcess::start(&format!("{base}/user/validate/idpone")).await;
        let idptwo = OAuth2Provider::start().await;
        let chat = ChatPlatform::start().await;
        let chat_store = ReceiptVerifier::start().await;
        let engine_store = ReceiptVerifier::start().await;
        let loopback = LoopbackListener::start().await;
        let auth_toml = auth_toml(
            &base,
            &web_origin,
            &loopback.url(),
            &issuer,
            &idptwo.url(),
            &chat.user_info_url(),
            &chat_store.verify_url(),
            &engine_store.verify_url(),
        );
        let auth =
            AuthConfig::parse(&auth_toml, "test auth").expect("the test auth configuration parses");

        let directory = tempfile::tempdir().expect("temporary directory");
        let database_url = match database {
            Database::Sqlite => test_support::fresh_sqlite_url(directory.path()),
            Database::Postgres => test_support::fresh_postgres_url().await,
        };
        let store = safezone_storage::open(&database_url)
            .await
            .expect("store opens");
        let clock = ManualClock::new(crate::CLOCK_START);
        let service = Safezone::new(Arc::clone(&store))
            .clock(Arc::new(clock.clone()))
            .settings(test_settings())
            .auth(auth)
            .service();
        let listen = SocketAddr::from(([127, 0, 0, 1], port));
        let running = match server {
            Server::Warp => safezone_server_warp::start(listen, service).await,
            Server::Rocket => safezone_server_rocket::start(listen, service).await,
        }
        .expect("the server starts on the reserved port");
        Self {
            base,
            web_origin,
            web_port,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("HTTP client"),
            clock,
            server,
            database,
            store,
            idp,
            idptwo,
            chat,
            chat_store,
            engine_store,
            loopback,
            auth_toml,
            running,
            database_url,
            _directory: directory,
        }
    }

    /// Stops Safezone and every process and mock, and drops the PostgreSQL database.
    pub async fn finish(self) {
        self.running.stop().await;
        self.idp.stop();
        if self.database == Database::Postgres {
            test_support::drop_postgres_database(&self.database_url).await;
        }
    }

    /// Sends `method` to `path_or_url` (a path on Safezone or a whole address) with optional
    /// `Cookie` header and body, following no redirect.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path_or_url: &str,
        cookie: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        let url = if path_or_url.starts_with("http") {
            path_or_url.to_owned()
        } else {
            format!("{}{path_or_url}", self.base)
        };
        let mut request = self.client.request(method, url);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        Answer::read(request.send().await.expect("request reaches the server")).await
    }

    /// `GET` a path on Safezone or a whole address.
    pub async fn get(&self, path_or_url: &str) -> Answer {
        self.send(reqwest::Method::GET, path_or_url, None, None)
            .await
    }

    /// `POST` with no body to a path on Safezone.
    pub async fn post(&self, path: &str) -> Answer {
        self.send(reqwest::Method::POST, path, None, None).await
    }

    /// A browser run against this app.
    pub fn browser(
        &self,
        mode: BrowserMode,
        provider: &str,
        csrf: &str,
        login: &str,
    ) -> BrowserRun {
        BrowserRun {
            safezone: self.base.clone(),
            mode,
            web_port: self.web_port,
            csrf: csrf.to_owned(),
            login: login.to_owned(),
            provider: provider.to_owned(),
            expect_message: true,
        }
    }
}

/// The first whole `Set-Cookie` header of `answer` that sets cookie `name`.
pub fn set_cookie(answer: &Answer, name: &str) -> Option<String> {
    answer
        .header_values("set-cookie")
        .into_iter()
        .find(|cookie| cookie.starts_with(&format!("{name}=")))
}

/// Every run of exactly 48 lower-case hex characters in `text`: the user keys a page holds.
pub fn keys_in(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut run = String::new();
    for character in text.chars().chain(std::iter::once(' ')) {
        if character.is_ascii_digit() || ('a'..='f').contains(&character) {
            run.push(character);
        } else {
            if run.len() == 48 {
                keys.push(run.clone());
            }
            run.clear();
        }
    }
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_challenge_is_unpadded_base64url_sha256() {
        assert_eq!(
            pkce_challenge("safezone-pkce-verifier-0123456789"),
            "7IaTotOSSxiALu27Rn9WzY8Ij2ABzBjEx_d6RpMnzaM"
        );
        assert_eq!(
            pkce_challenge("ab"),
            "-44g_C5MPySMYMOb1lLzwTRymLuXe4tNWQO4UFViBgM"
        );
    }

    #[test]
    fn keys_in_finds_exact_runs() {
        let key = "0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(keys_in(&format!("x\\\"key\\\":\\\"{key}\\\"")), vec![key]);
        assert!(keys_in(&format!("{key}0")).is_empty());
    }
}
