//! One server on one fresh database, and the client that talks to it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::Method;
use safezone_core::content::Content;
use safezone_core::hooks::Hooks;
use safezone_core::metrics::Metrics;
use safezone_core::operator_api::OperatorApi;
use safezone_core::serve::RunningServer;
use safezone_core::{
    Safezone, SafezoneService, ServerToken, Settings, clock::ManualClock, store::Store,
};
use safezone_storage::test_support;
use serde_json::Value;
use tempfile::TempDir;

use crate::Answer;

/// The game-server credential every test server accepts on `POST /internal/matches`.
pub const GAME_SERVER_TOKEN: &str = "test-game-server-credential";

/// Where every test's clock starts: a fixed date (Monday 2026-11-23, noon UTC), so that no test
/// depends on the day it runs. The shipped content's season, deal and event run then, as on
/// every date; tests move the clock from here.
pub const CLOCK_START: time::OffsetDateTime = time::macros::datetime!(2026-11-23 12:00 UTC);

/// Which binary's adapter serves the test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// `safezone-server-warp`.
    Warp,
    /// `safezone-server-rocket`.
    Rocket,
}

/// Which database the test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Database {
    /// A fresh SQLite file.
    Sqlite,
    /// A fresh PostgreSQL database on the server named by `SAFEZONE_TEST_POSTGRES_URL`.
    Postgres,
}

impl Server {
    /// Starts this server's adapter on `listen`, answering its `start`'s error as it came.
    async fn start(
        self,
        listen: SocketAddr,
        service: SafezoneService,
    ) -> io::Result<RunningServer> {
        match self {
            Self::Warp => safezone_server_warp::start(listen, service).await,
            Self::Rocket => safezone_server_rocket::start(listen, service).await,
        }
    }
}

/// A running Safezone under test.
#[derive(Clone)]
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The HTTP client (no cookie store, no redirects followed).
    pub client: reqwest::Client,
    /// The clock the service reads; move it to test expiry.
    pub clock: ManualClock,
    /// The address the server listens on.
    pub address: SocketAddr,
    /// The server under test.
    pub server: Server,
    /// The database under test.
    pub database: Database,
    /// The store the service uses, for checks behind the API.
    pub store: Arc<dyn Store>,
    /// The service's metrics, for a test to serve on an operator listener.
    pub metrics: Arc<Metrics>,
    /// The service's operator API, for a test to serve on an operator listener.
    pub operator_api: OperatorApi,
    /// The service itself, for what only an embedder reaches (the event subscription).
    pub service: SafezoneService,
    /// The studio's hooks the service runs (none unless the test names some).
    pub hooks: Hooks,
}

/// The content every test server serves unless its test names another: the shipped file.
pub fn shipped_content() -> Content {
    Content::shipped()
}

/// The settings of every test server: [`Settings::default`] (no rate limits) with the
/// game-server credential [`GAME_SERVER_TOKEN`].
pub fn test_settings() -> Settings {
    Settings::builder()
        .game_server_token(
            ServerToken::parse(GAME_SERVER_TOKEN).expect("a valid game-server credential"),
        )
        .build()
}

/// Runs one behaviour test on a fresh database and a server with `settings` (start from
/// [`test_settings`]) and `content` (usually [`shipped_content`]), then stops the server and
/// drops the database.
pub async fn run<F, Fut>(
    server: Server,
    database: Database,
    settings: Settings,
    content: Content,
    test: F,
) where
    F: FnOnce(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    run_hooked(server, database, settings, content, Hooks::new(), test).await;
}

/// Like [`run`], with a server that runs the studio's `hooks`.
pub async fn run_hooked<F, Fut>(
    server: Server,
    database: Database,
    settings: Settings,
    content: Content,
    hooks: Hooks,
    test: F,
) where
    F: FnOnce(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    let directory = tempfile::tempdir().expect("temporary directory");
    let url = match database {
        Database::Sqlite => test_support::fresh_sqlite_url(directory.path()),
        Database::Postgres => test_support::fresh_postgres_url().await,
    };
    let clock = ManualClock::new(CLOCK_START);
    let (running, app) = start_app(server, database, &url, clock, (settings, content, hooks)).await;
    test(app).await;
    running.stop().await;
    if database == Database::Postgres {
        test_support::drop_postgres_database(&url).await;
    }
}

impl TestApp {
    /// Sends a request with extra headers and an optional body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Answer {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        Answer::read(request.send().await.expect("request reaches the server")).await
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path, &[], None).await
    }

    /// `POST path` with no body, as game clients send it.
    pub async fn post(&self, path: &str) -> Answer {
        self.send(Method::POST, path, &[], None).await
    }

    /// Signs in a new Android device; answers the device id and the sign-in body.
    pub async fn new_device(&self) -> (String, Value) {
        let device = format!("android-{}", uuid::Uuid::new_v4());
        let answer = self.post(&format!("/api/validate/device/{device}")).await;
        let body = answer.success().clone();
        (device, body)
    }

    /// Signs in a new Android device and answers its user key.
    pub async fn new_key(&self) -> String {
        let (_, body) = self.new_device().await;
        body["user"]["key"].as_str().expect("a key").to_owned()
    }
}

/// A server of its own on a fresh SQLite file, outside [`run`]: for the checks
/// that start and stop a server themselves.
pub struct Standalone {
    running: RunningServer,
    _directory: TempDir,
}

impl Standalone {
    /// Starts `server` on `listen` (port 0 picks a free port), answering the error of the
    /// server crate's `start` as it came.
    pub async fn start(server: Server, listen: SocketAddr) -> io::Result<Self> {
        let directory = tempfile::tempdir().expect("temporary directory");
        let url = test_support::fresh_sqlite_url(directory.path());
        let store = safezone_storage::open(&url).await.expect("store opens");
        let running = server.start(listen, Safezone::new(store).service()).await?;
        Ok(Self {
            running,
            _directory: directory,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.running.local_addr()
    }

    /// Stops the server and waits for it to end.
    pub async fn stop(self) {
        self.running.stop().await;
    }
}

/// Starts `server`'s adapter on a free port over its own store on the database at `url`, with
/// `clock`, `settings`, `content` and `hooks`; answers the running server and the app to test.
async fn start_app(
    server: Server,
    database: Database,
    url: &str,
    clock: ManualClock,
    (settings, content, hooks): (Settings, Content, Hooks),
) -> (RunningServer, TestApp) {
    let store = safezone_storage::open(url).await.expect("store opens");
    let service = Safezone::new(Arc::clone(&store))
        .clock(Arc::new(clock.clone()))
        .settings(settings)
        .content(content)
        .hooks(hooks.clone())
        .service();
    let metrics = service.metrics();
    let operator_api = service.operator_api();
    let running = server
        .start(any_port(), service.clone())
        .await
        .expect("the server starts");
    let address = running.local_addr();
    let app = TestApp {
        base: format!("http://{address}"),
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client"),
        clock,
        address,
        server,
        database,
        store,
        metrics,
        operator_api,
        service,
        hooks,
    };
    (running, app)
}

/// `127.0.0.1` on a port the system picks.
pub fn any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// Several servers on one fresh PostgreSQL database, sharing one clock: the nodes of one
/// Safezone deployment. Made by [`run_nodes`]; more nodes may start during the test.
#[derive(Clone)]
pub struct Nodes {
    url: String,
    clock: ManualClock,
    running: Arc<std::sync::Mutex<Vec<RunningServer>>>,
}

impl Nodes {
    /// The clock every node reads.
    pub fn clock(&self) -> &ManualClock {
        &self.clock
    }

    /// Starts one more node, `server`'s adapter over its own store on the shared database and
    /// the shared clock; it is stopped when the test ends.
    pub async fn start(&self, server: Server) -> TestApp {
        let (running, app) = start_app(
            server,
            Database::Postgres,
            &self.url,
            self.clock.clone(),
            (test_settings(), shipped_content(), Hooks::new()),
        )
        .await;
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(running);
        app
    }
}

/// Runs a test on several nodes: creates one fresh PostgreSQL database, starts one server per
/// entry of `servers` on it (each with its own store, all sharing one [`ManualClock`]), runs
/// `test` with the nodes' handle and their apps in that order, then stops every node started
/// and drops the database.
pub async fn run_nodes<F, Fut>(servers: &[Server], test: F)
where
    F: FnOnce(Nodes, Vec<TestApp>) -> Fut,
    Fut: Future<Output = ()>,
{
    let url = test_support::fresh_postgres_url().await;
    let nodes = Nodes {
        url: url.clone(),
        clock: ManualClock::new(CLOCK_START),
        running: Arc::new(std::sync::Mutex::new(Vec::new())),
    };
    let mut apps = Vec::with_capacity(servers.len());
    for server in servers {
        apps.push(nodes.start(*server).await);
    }
    test(nodes.clone(), apps).await;
    let running = std::mem::take(
        &mut *nodes
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    for server in running {
        server.stop().await;
    }
    test_support::drop_postgres_database(&url).await;
}
