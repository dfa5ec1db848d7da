//! Safezone served by rocket: [`start`] mounts a [`SafezoneService`] for every method and path.
//!
//! Rocket has no any-method route, so one catch-all route per method hands each request to the
//! core (`adapter`); rocket's own refusals (an unknown method, a malformed request) get the
//! core's JSON error envelope from a default catcher (`catcher`). Shield headers, the `Server`
//! header and rocket's signal handling are off: the binary stops the server itself. Rocket's
//! own logger is off too; where a `log` bridge (such as `tracing-subscriber`'s) is installed
//! first, rocket's records go to it instead, and the binary keeps only their errors.
//!
//! The peer's address goes to the core as the request's `ClientAddress`; rocket's
//! `X-Real-IP` reading is off (the core decides whether to trust a proxy's header). Rocket 0.5
//! offers no cap on open connections nor a header-read timeout (only keep-alive, 5 s), so this
//! adapter applies neither of the settings'
//! [`ConnectionLimits`](safezone_core::ConnectionLimits) (`--max-connections`,
//! `--header-read-timeout-secs`): put such limits in the proxy in front; the core caps
//! requests in flight.

mod adapter;
mod catcher;

use std::io;
use std::net::SocketAddr;

use rocket::config::{Config, Ident, LogLevel, Shutdown};
use rocket::error::ErrorKind;
use rocket::fairing::AdHoc;
use rocket::shield::Shield;
use safezone_core::SafezoneService;
pub use safezone_core::serve::RunningServer;
use tokio::sync::oneshot;

/// Binds `listen` (port 0 picks a free port) and serves `service` in a background task.
///
/// On [`RunningServer::stop`], rocket gives in-flight connections its default grace (2 s) and
/// mercy (3 s) periods, and waits out the grace period whenever a connection (even an idle
/// keep-alive one) is still open when it stops accepting.
///
/// ```no_run
/// # async fn run(service: safezone_core::SafezoneService) -> std::io::Result<()> {
/// let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
/// let server = safezone_server_rocket::start(listen, service).await?;
/// println!("listening on http://{}", server.local_addr());
/// server.stop().await;
/// # Ok(())
/// # }
/// ```
pub async fn start(listen: SocketAddr, service: SafezoneService) -> io::Result<RunningServer> {
    let (bound, bound_addr) = oneshot::channel();
    let report_address = AdHoc::on_liftoff("bound address", move |rocket| {
        Box::pin(async move {
            // Rocket updates the port of its configuration once it has bound.
            let config = rocket.config();
            let _ = bound.send(SocketAddr::new(config.address, config.port));
        })
    });
    let rocket = rocket::custom(rocket_config(listen))
        .mount("/", adapter::routes(service))
        .register("/", rocket::catchers![catcher::json_error])
        .attach(Shield::new())
        .attach(report_address)
        .ignite()
        .await
        .map_err(io_error)?;
    let shutdown = rocket.shutdown();
    let task = tokio::spawn(async move { rocket.launch().await.map(drop).map_err(io_error) });
    let Ok(local_addr) = bound_addr.await else {
        return Err(match task.await {
            Ok(Err(error)) => error,
            Ok(Ok(())) => io::Error::other("rocket ended before it started"),
            Err(error) => io::Error::other(error),
        });
    };
    let (stop, stopped) = oneshot::channel();
    tokio::spawn(async move {
        stopped.await.unwrap_or_default();
        shutdown.notify();
    });
    let task = tokio::spawn(async move {
        match task.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "rocket did not stop cleanly"),
            Err(error) => tracing::error!(%error, "the rocket server task failed"),
        }
    });
    Ok(RunningServer::new(local_addr, stop, task))
}

/// Rocket's configuration as Safezone runs it: the address, and everything rocket would add or
/// do on its own off (the `Server` header, the `X-Real-IP` reading, its logger, its signal
/// handling). The benchmark's rocket hello (`examples/hello_rocket.rs`) runs on it too.
///
/// ```
/// let config = safezone_server_rocket::rocket_config(([127, 0, 0, 1], 0).into());
/// assert_eq!(config.port, 0);
/// ```
pub fn rocket_config(listen: SocketAddr) -> Config {
    Config {
        address: listen.ip(),
        port: listen.port(),
        ident: Ident::none(),
        ip_header: None,
        log_level: LogLevel::Off,
        cli_colors: false,
        shutdown: Shutdown {
            ctrlc: false,
            #[cfg(unix)]
            signals: std::collections::HashSet::new(),
            ..Shutdown::default()
        },
        ..Config::release_default()
    }
}

/// Rocket's error as an I/O error (reading it also keeps rocket from panicking on drop).
fn io_error(error: rocket::Error) -> io::Error {
    match error.kind() {
        ErrorKind::Bind(cause) | ErrorKind::Io(cause) => {
            io::Error::new(cause.kind(), cause.to_string())
        }
        _ => io::Error::other(error.to_string()),
    }
}
