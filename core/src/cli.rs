//! What both server binaries share: their command line, logging set-up and shutdown signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use crate::Settings;
use crate::content::{Content, ContentError};

/// The command line of a Safezone server; every flag also reads an environment variable.
#[derive(Debug, Clone, Parser)]
#[command(version, about = "Safezone: the battle-royale game backend")]
pub struct ServerArgs {
    /// Address to listen on (port 0 picks a free port; the bound address is printed).
    #[arg(long, env = "SAFEZONE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Database: `sqlite://path` (created on first start) or `postgres://user@host/db`.
    #[arg(
        long,
        env = "SAFEZONE_DATABASE_URL",
        default_value = "sqlite://safezone.db"
    )]
    pub database_url: String,

    /// Content file (TOML); without it the shipped content is used.
    #[arg(long, env = "SAFEZONE_CONTENT")]
    pub content: Option<PathBuf>,

    /// Days a new user key stays valid.
    #[arg(long, env = "SAFEZONE_KEY_LIFETIME_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u16).range(1..))]
    pub key_lifetime_days: u16,

    /// Largest request body accepted, in bytes.
    #[arg(long, env = "SAFEZONE_BODY_LIMIT", default_value_t = 64 * 1024)]
    pub body_limit: usize,

    /// Seconds a request may take before it is answered 503.
    #[arg(long, env = "SAFEZONE_REQUEST_TIMEOUT_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,
}

impl ServerArgs {
    /// The settings these flags describe.
    pub fn settings(&self) -> Settings {
        Settings {
            key_lifetime: time::Duration::days(i64::from(self.key_lifetime_days)),
            body_limit: self.body_limit,
            request_timeout: Duration::from_secs(self.request_timeout_secs),
        }
    }

    /// The content file named by `--content`, or the shipped one.
    pub fn load_content(&self) -> Result<Content, ContentError> {
        match &self.content {
            Some(path) => Content::load(path),
            None => Ok(Content::shipped()),
        }
    }
}

/// Logs to standard error, filtered by `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
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
