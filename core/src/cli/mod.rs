//! What both server binaries share: their command line, logging set-up, shutdown signal, and
//! the whole run from flags to a graceful stop ([`run_server`]).

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::pin;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod admin;
mod database;
mod events;
mod grant;
pub mod log_writer;
mod migrate;
mod openapi;
mod traffic;

pub use admin::{
    AccountArgs, AdminCommand, CheckContentArgs, ContentCommand, ContentFileArgs,
    ContentPublishArgs, ContentRollbackArgs, ContentShowArgs, Failure, MakeAdminArgs,
    OperatorTokenCommand, OperatorTokenCreateArgs, OperatorTokenNameArgs, Outcome, PollCommand,
    PollCreateArgs, PollIdArgs, SHIPPED_NAME, TournamentCodeArgs, TournamentCommand,
    TournamentCreateArgs, WhitelistArgs, WhitelistCommand,
};
pub use events::EventArgs;
pub use grant::GrantArgs;
pub use log_writer::LogFlusher;
pub use migrate::{BackupArgs, MigrateCommand, PENDING_EXIT_CODE};
pub use openapi::OpenapiArgs;
pub use traffic::TrafficArgs;

use crate::auth::{AuthConfig, AuthConfigError};
use crate::content::{Content, ContentError};
use crate::database::{Database, Schema};
use crate::domain::{KeySecret, KeySigner};
use crate::store::Store;
use crate::{DatabaseSettings, Safezone, SafezoneService, ServerToken, Settings};

/// The command line of a Safezone server binary: without a subcommand it serves; the
/// subcommands are the operator's tools. Every flag also reads an environment variable.
///
/// `--version` answers with the binary's own name and version ([`Binary`]).
#[derive(Debug, Clone, Parser)]
#[command(about = "Safezone: the battle-royale game backend")]
pub struct Cli {
    /// The server's flags (the database and content flags apply to the subcommands too).
    #[command(flatten)]
    pub server: ServerArgs,
    /// An operator's tool to run instead of serving.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The binary a [`Cli`] is read for: its package name and version, which `--version` prints.
/// [`binary!`](crate::binary) gives the calling crate's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binary {
    /// The binary's name, e.g. `safezone-server-warp`.
    pub name: &'static str,
    /// Its version, e.g. `0.1.0`.
    pub version: &'static str,
}

/// The [`Binary`] of the crate where it is written: its `CARGO_PKG_NAME` and
/// `CARGO_PKG_VERSION`.
///
/// ```
/// let binary = safezone_core::binary!();
/// assert_eq!(binary.name, "safezone-core");
/// ```
#[macro_export]
macro_rules! binary {
    () => {
        $crate::cli::Binary {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        }
    };
}

impl Cli {
    /// Reads the process's arguments for `binary`: `--version` prints its name and version;
    /// a bad command line or `--help` ends the process as clap does.
    pub fn parse_for(binary: Binary) -> Self {
        let matches = Self::command()
            .name(binary.name)
            .version(binary.version)
            .get_matches();
        Self::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
    }
}

/// The operator's tools.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Gives coins, gems, items or packs to an account, through the ledger.
    Grant(GrantArgs),
    /// The admin commands: roles, bans, polls, tournaments, whitelists, content, operator
    /// tokens.
    #[command(flatten)]
    Admin(AdminCommand),
    /// Checks a content file without opening the database or serving: prints `ok` (exit 0) or
    /// the error with its line (exit 2).
    CheckContent(CheckContentArgs),
    /// The schema's migrations: `apply` the pending ones, or show their `status`.
    #[command(subcommand)]
    Migrate(MigrateCommand),
    /// Writes an online, consistent copy of a SQLite database to a new file (`VACUUM INTO`);
    /// PostgreSQL is backed up with `pg_dump`.
    Backup(BackupArgs),
    /// Writes the API's OpenAPI document (the one served at `GET /api/openapi.json`) without
    /// opening the database or serving; `--openapi-3-0` writes its OpenAPI 3.0 variant,
    /// `--operator` the operator API's document.
    Openapi(OpenapiArgs),
}

/// The server's flags.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// Address to listen on (port 0 picks a free port; the bound address is printed).
    #[arg(long, env = "SAFEZONE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Database: `sqlite://path` (created on first start) or `postgres://user@host/db`
    /// (the environment's value is never shown, as it may hold a password).
    #[arg(
        long,
        global = true,
        env = "SAFEZONE_DATABASE_URL",
        default_value = "sqlite://safezone.db",
        hide_env_values = true
    )]
    pub database_url: String,

    /// The most database connections this node holds open (on SQLite, for reads: writes
    /// take one writer connection of their own).
    #[arg(long, global = true, env = "SAFEZONE_DATABASE_MAX_CONNECTIONS", default_value_t = DatabaseSettings::DEFAULT_MAX_CONNECTIONS)]
    pub database_max_connections: std::num::NonZeroU32,

    /// Seconds a request waits for a database connection before it is answered 503.
    #[arg(long, global = true, env = "SAFEZONE_DATABASE_ACQUIRE_TIMEOUT_SECS", default_value_t = DatabaseSettings::DEFAULT_ACQUIRE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub database_acquire_timeout_secs: u64,

    /// Seconds the server keeps trying to reach the database at start (waiting 0.25 s, then
    /// twice as long each time up to 5 s) before it exits with 1; 0 tries once.
    #[arg(
        long,
        env = "SAFEZONE_DATABASE_CONNECT_TIMEOUT_SECS",
        default_value_t = 30
    )]
    pub database_connect_timeout_secs: u64,

    /// Do not migrate at start: refuse to serve while migrations are pending (run
    /// `migrate apply` first). Without it, the server applies them at start.
    #[arg(long, env = "SAFEZONE_NO_MIGRATE")]
    pub no_migrate: bool,

    /// Content file (TOML); without it the shipped content is used.
    #[arg(long, global = true, env = "SAFEZONE_CONTENT")]
    pub content: Option<PathBuf>,

    /// The auth file: identity providers, login pages, chat platform, receipt verifiers
    /// (without one, only device sign-in is available).
    #[arg(long, env = "SAFEZONE_AUTH")]
    pub auth: Option<PathBuf>,

    /// Days a new user key stays valid.
    #[arg(long, env = "SAFEZONE_KEY_LIFETIME_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u16).range(1..))]
    pub key_lifetime_days: u16,

    /// The secret that signs user keys: 64 hex characters (32 random bytes, e.g. from
    /// `openssl rand -hex 32`), the same on every node. Without it, a secret kept in the
    /// database signs them (a copy of the database can then sign keys).
    #[arg(long, env = "SAFEZONE_USER_KEY_SECRET", value_parser = parse_key_secret, hide_env_values = true)]
    pub user_key_secret: Option<KeySecret>,

    /// The secret that signed user keys before the current one, while keys it signed may still
    /// be in use (a rotation): they keep working until they expire.
    #[arg(long, env = "SAFEZONE_PREVIOUS_USER_KEY_SECRET", value_parser = parse_key_secret, hide_env_values = true, requires = "user_key_secret")]
    pub previous_user_key_secret: Option<KeySecret>,

    /// Hours an idempotency key is remembered: a repeat within them replays the first answer;
    /// older keys are forgotten.
    #[arg(long, env = "SAFEZONE_IDEMPOTENCY_RETENTION_HOURS", default_value_t = 7 * 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub idempotency_retention_hours: u32,

    /// Days the per-player hourly statistics are kept; the retention sweep deletes older
    /// hours (no quest, challenge, track or board reads them).
    #[arg(long, env = "SAFEZONE_STATS_RETENTION_DAYS", default_value_t = 366, value_parser = clap::value_parser!(u16).range(1..))]
    pub stats_retention_days: u16,

    /// Seconds a graceful stop (SIGTERM, Ctrl-C) may spend writing a snapshot of the
    /// leaderboards once the last request was answered, so that the next start reads little of
    /// the logs; 0 writes none.
    #[arg(long, env = "SAFEZONE_STOP_SNAPSHOT_SECS", default_value_t = 10)]
    pub stop_snapshot_secs: u64,

    /// Leave a fresh database empty: without this flag the server creates, once per database,
    /// a running poll and an upcoming tournament (`WELCOME-CUP`) so that a new game looks
    /// alive.
    #[arg(long, env = "SAFEZONE_NO_STARTER_COMMUNITY")]
    pub no_starter_community: bool,

    /// Largest request body accepted, in bytes.
    #[arg(long, env = "SAFEZONE_BODY_LIMIT", default_value_t = 64 * 1024)]
    pub body_limit: usize,

    /// Seconds a request may take before it is answered 503.
    #[arg(long, env = "SAFEZONE_REQUEST_TIMEOUT_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,

    /// The credential game servers send (`Authorization: Bearer ...`) to report finished
    /// matches to `POST /internal/matches`; at least 16 characters. Without it, match reports
    /// are refused (501).
    #[arg(long, env = "SAFEZONE_GAME_SERVER_TOKEN", value_parser = ServerToken::parse, hide_env_values = true)]
    pub game_server_token: Option<ServerToken>,

    /// Rate limits, CORS, request and connection limits.
    #[command(flatten)]
    pub traffic: TrafficArgs,

    /// Where the domain events go: webhooks, NATS.
    #[command(flatten)]
    pub events: EventArgs,

    /// Address of the metrics listener serving Prometheus metrics at `/metrics` and the
    /// probes `/healthz` and `/readyz` (port 0 picks a free port; the bound address is
    /// printed). Without it, no metrics are served and requests are not timed.
    #[arg(long, env = "SAFEZONE_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Address of the operator listener serving the operator API under `/operator/api/` and
    /// its web console under `/operator/console/` (port 0 picks a free port; the bound
    /// address is printed). Keep it where only operators reach it. Without it, neither is
    /// served.
    #[arg(long, env = "SAFEZONE_OPERATOR_LISTEN")]
    pub operator_listen: Option<SocketAddr>,

    /// Log format on standard error: `text`, or `json` (one JSON object a line, with the
    /// request's method, redacted path and request id on every line of a request).
    #[arg(long, global = true, env = "SAFEZONE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

impl ServerArgs {
    /// The settings these flags describe.
    pub fn settings(&self) -> Settings {
        let mut settings = Settings {
            key_lifetime: time::Duration::days(i64::from(self.key_lifetime_days)),
            user_key_signer: self
                .user_key_secret
                .clone()
                .map(|current| KeySigner::new(current, self.previous_user_key_secret.clone())),
            idempotency_retention: time::Duration::hours(i64::from(
                self.idempotency_retention_hours,
            )),
            stats_retention: time::Duration::days(i64::from(self.stats_retention_days)),
            stop_snapshot_within: Duration::from_secs(self.stop_snapshot_secs),
            body_limit: self.body_limit,
            request_timeout: Duration::from_secs(self.request_timeout_secs),
            game_server_token: self.game_server_token.clone(),
            content_file: self.content.as_ref().map(|path| path.display().to_string()),
            ..Settings::default()
        };
        self.traffic.apply(&mut settings);
        self.events.apply(&mut settings);
        settings
    }

    /// The database and its pool's limits these flags describe.
    pub fn database(&self) -> DatabaseSettings {
        DatabaseSettings {
            url: self.database_url.clone(),
            max_connections: self.database_max_connections,
            acquire_timeout: Duration::from_secs(self.database_acquire_timeout_secs),
        }
    }

    /// The content file named by `--content`, or the shipped one.
    pub fn load_content(&self) -> Result<Content, ContentError> {
        match &self.content {
            Some(path) => Content::load(path),
            None => Ok(Content::shipped()),
        }
    }

    /// The auth file named by `--auth`, or no identity providers without one.
    pub fn load_auth(&self) -> Result<AuthConfig, AuthConfigError> {
        match &self.auth {
            Some(path) => AuthConfig::load(path),
            None => Ok(AuthConfig::default()),
        }
    }
}

/// Seeds the starter community ([`starter`](crate::starter)); a failure is logged and the
/// server starts all the same.
async fn seed_starter_community(store: &dyn Store, modes: &crate::content::GameModes) {
    match crate::starter::seed(store, modes, time::OffsetDateTime::now_utc()).await {
        Ok(crate::starter::Seeded::Created) => {
            tracing::info!("starter poll and tournament created");
        }
        Ok(crate::starter::Seeded::AlreadyThere) => {}
        Err(error) => tracing::warn!(%error, "could not create the starter poll and tournament"),
    }
}

/// A server binary's whole run: reads the [`Cli`], sets up logging, loads the content, opens
/// the store of `database` (given the database flags), then either runs the operator's
/// subcommand or starts the adapter with `start`, prints `safezone listening on
/// http://ADDRESS` on standard output, and stops gracefully on Ctrl-C or SIGTERM (the
/// requests in flight answered, then a snapshot of the leaderboards written within
/// `--stop-snapshot-secs`).
///
/// The server migrates at start (unless `--no-migrate`) and tries again while the database
/// cannot be reached, for `--database-connect-timeout-secs`; the operator's subcommands open
/// the store without migrating and refuse a schema that is behind.
///
/// Exit codes: 0 after a stop, 1 when the database or the address cannot be used (or a
/// subcommand fails), 2 for a bad content file (a bad command line exits with 2 through clap),
/// [`PENDING_EXIT_CODE`] for `migrate status` with migrations pending.
///
/// `check-content` and `openapi` run first and alone: they neither load `--content` nor open
/// the database; `migrate` and `backup` do not load `--content` nor open the store.
pub async fn run_server(
    binary: Binary,
    database: impl Database,
    start: impl AsyncFnOnce(SocketAddr, SafezoneService) -> std::io::Result<crate::serve::RunningServer>,
) -> ExitCode {
    let Cli {
        server: args,
        command,
    } = Cli::parse_for(binary);
    // An operator's tool prints its result; its log shows only warnings and errors unless
    // `RUST_LOG` asks for more.
    let default_level = match command {
        Some(_) => "warn",
        None => "info",
    };
    // Held to the end: dropping it writes out the lines still buffered.
    let _log_writer = init_tracing(args.log_format, default_level);
    match &command {
        Some(Command::CheckContent(check)) => return check.run(),
        Some(Command::Openapi(openapi)) => return openapi.run(),
        Some(Command::Migrate(migrate)) => return migrate.run(&database, &args.database()).await,
        Some(Command::Backup(backup)) => return backup.run(&database, &args.database()).await,
        _ => {}
    }
    let content = match args.load_content() {
        Ok(content) => content,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let opened = if command.is_some() {
        database.open(&args.database(), Schema::Current).await
    } else {
        let schema = if args.no_migrate {
            Schema::Current
        } else {
            Schema::Migrate
        };
        let patience = Duration::from_secs(args.database_connect_timeout_secs);
        database::open_patiently(&database, &args.database(), schema, patience).await
    };
    let store = match opened {
        Ok(store) => store,
        Err(error) => {
            eprintln!("cannot open the database: {error}");
            return ExitCode::FAILURE;
        }
    };
    let file_name = args.content.as_ref().map_or_else(
        || SHIPPED_NAME.to_owned(),
        |path| path.display().to_string(),
    );
    if let Some(Command::Admin(admin)) = command {
        let file = crate::content_publication::Named {
            name: file_name,
            text: content.text(),
        };
        return admin.run(store, &file).await;
    }
    let started_with = args.content.is_some().then_some(file_name.as_str());
    let content = crate::live_content::newest_or(store.as_ref(), content, started_with).await;
    if let Some(Command::Grant(grant)) = command {
        return grant.run(store, &content).await;
    }
    if !args.no_starter_community {
        seed_starter_community(store.as_ref(), &content.modes).await;
    }
    let auth = match args.load_auth() {
        Ok(auth) => auth,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let service = Safezone::new(store)
        .content(content)
        .settings(args.settings())
        .auth(auth)
        .record_requests(args.metrics_listen.is_some())
        .service();
    let metrics = match args.metrics_listen {
        Some(address) => match crate::metrics::serve(address, service.metrics()).await {
            Ok(metrics) => Some(metrics),
            Err(error) => {
                eprintln!("cannot listen on {address}: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let operator = match args.operator_listen {
        Some(address) => {
            match crate::operator_listener::serve(address, service.operator_service()).await {
                Ok(operator) => Some(operator),
                Err(error) => {
                    eprintln!("cannot listen on {address}: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
        None => None,
    };
    let stopping = service.clone();
    let server = match start(args.listen, service).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("cannot listen on {}: {error}", args.listen);
            return ExitCode::FAILURE;
        }
    };
    let mut signal = pin!(shutdown_signal());
    // Poll once, so that the signal handlers are in place before anyone learns the address.
    let signalled = tokio::select! { biased; () = &mut signal => true, () = async {} => false };
    println!("safezone listening on http://{}", server.local_addr());
    if let Some(metrics) = &metrics {
        println!(
            "safezone metrics on http://{}/metrics",
            metrics.local_addr()
        );
    }
    if let Some(operator) = &operator {
        println!(
            "safezone operator console on http://{}/operator/console/",
            operator.local_addr()
        );
    }
    // A closed standard output changes nothing for the server.
    let _ = std::io::stdout().flush();
    if !signalled {
        signal.await;
    }
    let started_stopping = std::time::Instant::now();
    stopping.close_realtime_channels().await;
    server.stop().await;
    if let Some(metrics) = metrics {
        metrics.stop().await;
    }
    if let Some(operator) = operator {
        operator.stop().await;
    }
    let snapshot = stopping.snapshot_boards_at_stop().await;
    stopping.release_event_leases().await;
    tracing::info!(
        took_ms = started_stopping.elapsed().as_millis(),
        boards_snapshot = snapshot,
        "safezone stopped: every request in flight was answered"
    );
    ExitCode::SUCCESS
}

/// Reads a user-key secret flag: 64 hex characters.
fn parse_key_secret(text: &str) -> Result<KeySecret, String> {
    KeySecret::parse(text).ok_or_else(|| "must be 64 hex characters (32 bytes)".to_owned())
}

/// Logs to standard error in `format`, filtered by `RUST_LOG` (default `default_level`, e.g.
/// `info`). In JSON, each line carries the fields of every span it was logged in (`spans`,
/// outermost first): every line of a request has its `request_id`. Text lines are coloured
/// only when standard error is a terminal and `NO_COLOR` is not set.
///
/// Requests only append their lines to a buffer that a thread of its own writes out every
/// 50 ms ([`log_writer`]), so that a line per request costs no system call and no thread
/// wake-up on the request's path. No line is dropped; the returned flusher writes out what is
/// still buffered when dropped.
///
/// Only `tracing` events are logged: records of the `log` crate (rocket's per-request lines)
/// are not forwarded.
pub fn init_tracing(format: LogFormat, default_level: &str) -> LogFlusher<std::io::Stderr> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (writer, flusher) = log_writer::batched(std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(writer);
    let installed = match format {
        LogFormat::Text => tracing::subscriber::set_global_default(builder.finish()),
        LogFormat::Json => tracing::subscriber::set_global_default(
            builder
                .json()
                .with_current_span(false)
                .with_span_list(true)
                .finish(),
        ),
    };
    if let Err(error) = installed {
        eprintln!("logging was already set up: {error}");
    }
    flusher
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("Ctrl-C: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(args: &[&str]) -> Settings {
        Cli::try_parse_from(std::iter::once("safezone").chain(args.iter().copied()))
            .expect("flags parse")
            .server
            .settings()
    }

    fn database(args: &[&str]) -> DatabaseSettings {
        Cli::try_parse_from(std::iter::once("safezone").chain(args.iter().copied()))
            .expect("flags parse")
            .server
            .database()
    }

    #[test]
    fn the_pool_holds_16_connections_and_waits_10_seconds_unless_told() {
        assert_eq!(database(&[]), DatabaseSettings::new("sqlite://safezone.db"));
        let told = database(&[
            "--database-max-connections",
            "4",
            "--database-acquire-timeout-secs",
            "2",
        ]);
        assert_eq!(told.max_connections.get(), 4);
        assert_eq!(told.acquire_timeout, Duration::from_secs(2));
        assert!(
            Cli::try_parse_from(["safezone", "--database-max-connections", "0"]).is_err(),
            "a pool of no connection would answer nothing"
        );
    }

    #[test]
    fn idempotency_keys_are_remembered_7_days_unless_told() {
        assert_eq!(settings(&[]).idempotency_retention, time::Duration::days(7));
        assert_eq!(
            settings(&["--idempotency-retention-hours", "24"]).idempotency_retention,
            time::Duration::hours(24)
        );
        assert!(
            Cli::try_parse_from(["safezone", "--idempotency-retention-hours", "0"]).is_err(),
            "a retention of 0 would forget a key before its repeat"
        );
    }

    #[test]
    fn hourly_statistics_are_kept_366_days_unless_told() {
        assert_eq!(settings(&[]).stats_retention, time::Duration::days(366));
        assert_eq!(
            settings(&["--stats-retention-days", "30"]).stats_retention,
            time::Duration::days(30)
        );
        assert!(Cli::try_parse_from(["safezone", "--stats-retention-days", "0"]).is_err());
    }

    #[test]
    fn a_stop_writes_a_snapshot_within_10_seconds_unless_told() {
        assert_eq!(settings(&[]).stop_snapshot_within, Duration::from_secs(10));
        assert!(
            settings(&["--stop-snapshot-secs", "0"])
                .stop_snapshot_within
                .is_zero()
        );
    }
}
