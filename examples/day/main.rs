//! A realistic day of a live game, measured (issue 28, goal 4): two nodes, the warp and the
//! rocket binary, on one PostgreSQL database, under the traffic of a live game for
//! `DAY_DURATION`; then the invariants are checked from the database. `examples/bench.sh`
//! runs it as its `day` section (examples/bench-day.sh), which documents the workload.
//!
//! ```text
//! cargo build --release -p safezone-server-warp -p safezone-server-rocket -p safezone-examples --example day
//! DAY_DURATION=3m target/release/examples/day target/release/safezone-server-warp \
//!     target/release/safezone-server-rocket postgres://postgres@127.0.0.1:5432/day day-results
//! ```
//!
//! Settings (environment): `DAY_DURATION` (`60m`; `s`, `m` or `h`), `DAY_RATE` (player
//! requests per second, both nodes together), `DAY_MATCHES_PER_MIN` (100-player reports),
//! `DAY_PLAYERS` (devices signed up before the measured run), `DAY_RESTART_AT` (the fraction of
//! the run at which the rocket node is stopped with SIGTERM and started again),
//! `DAY_RESTART_DOWN_SECS`, `DAY_NATS_URL`, `DAY_NODE_LOG` (the nodes' `RUST_LOG`).

mod client;
mod consumers;
mod game_server;
mod invariants;
mod kinds;
mod nodes;
mod operators;
mod players;
mod report;
mod run;
mod sampler;
mod stats;

use std::error::Error;
use std::path::PathBuf;
use std::time::Duration;

use safezone_examples::env_number;

/// What the day runs with.
pub struct Config {
    /// The warp binary.
    pub warp: PathBuf,
    /// The rocket binary.
    pub rocket: PathBuf,
    /// The PostgreSQL database both nodes use (fresh).
    pub database_url: String,
    /// Where the results go.
    pub out: PathBuf,
    /// The measured run's length.
    pub duration: Duration,
    /// Player requests per second.
    pub rate: f64,
    /// Match reports per minute.
    pub matches_per_min: f64,
    /// Devices signed up before the measured run.
    pub players: usize,
    /// When the rocket node restarts, as a fraction of the run.
    pub restart_at: f64,
    /// How long it stays down.
    pub restart_down: Duration,
    /// The NATS server.
    pub nats_url: String,
    /// The nodes' `RUST_LOG`.
    pub node_log: String,
}

/// A duration such as `90s`, `60m` or `1h`.
fn duration(text: &str) -> Result<Duration, Box<dyn Error>> {
    let (number, unit) = text.split_at(text.len().saturating_sub(1));
    let number: f64 = number.parse()?;
    let seconds = match unit {
        "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => return Err(format!("DAY_DURATION {text:?}: write 90s, 60m or 1h").into()),
    };
    Ok(Duration::from_secs_f64(seconds))
}

fn config() -> Result<Config, Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: day WARP_BINARY ROCKET_BINARY POSTGRES_URL [OUT_FOLDER]";
    let warp = args.next().ok_or(usage)?.into();
    let rocket = args.next().ok_or(usage)?.into();
    let database_url = args.next().ok_or(usage)?;
    let out = args
        .next()
        .unwrap_or_else(|| "day-results".to_owned())
        .into();
    Ok(Config {
        warp,
        rocket,
        database_url,
        out,
        duration: duration(&std::env::var("DAY_DURATION").unwrap_or_else(|_| "60m".to_owned()))?,
        rate: env_number("DAY_RATE", 1200.0)?,
        matches_per_min: env_number("DAY_MATCHES_PER_MIN", 60.0)?,
        players: env_number("DAY_PLAYERS", 10_000)?,
        restart_at: env_number("DAY_RESTART_AT", 0.25)?,
        restart_down: Duration::from_secs(env_number("DAY_RESTART_DOWN_SECS", 5)?),
        nats_url: std::env::var("DAY_NATS_URL")
            .unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned()),
        node_log: std::env::var("DAY_NODE_LOG")
            .unwrap_or_else(|_| "info,safezone_core::http::access=warn".to_owned()),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let config = config()?;
    std::fs::create_dir_all(&config.out)?;
    let held = run::day(&config).await?;
    if !held {
        eprintln!("day: an invariant was broken (see summary.json)");
        std::process::exit(1);
    }
    Ok(())
}
