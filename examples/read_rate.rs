//! The benchmark baseline for account reads: the raw rate of primary-key reads through a
//! connection pool with Safezone's pool settings (16 connections, no test query before lending
//! one), with no HTTP and no Safezone in between. `examples/bench.sh` runs it beside
//! `GET /api/user/{key}` on PostgreSQL.
//!
//! Workload: `BENCH_TASKS` concurrent tasks (64 by default, as many as wrk's connections), each
//! reading `SELECT id, name, coins FROM bench_reads WHERE id = <task>` from the pool in a loop
//! for `BENCH_SECONDS` (10) seconds.
//!
//! ```text
//! cargo run --release -p safezone-examples --example read_rate -- postgres://postgres@127.0.0.1/bench
//! cargo run --release -p safezone-examples --example read_rate -- sqlite:///tmp/reads.db
//! ```

use std::error::Error;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use safezone_examples::{env_number, pool_options};
use sqlx::Executor;
use sqlx::postgres::{PgConnectOptions, Postgres};
use sqlx::sqlite::{Sqlite, SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};

const CREATE: &str = "CREATE TABLE IF NOT EXISTS bench_reads \
    (id BIGINT PRIMARY KEY, name TEXT NOT NULL, coins BIGINT NOT NULL)";
const RESET: &str = "DELETE FROM bench_reads";
const INSERT: &str = "INSERT INTO bench_reads (id, name, coins) VALUES ($1, 'player', 1000)";
const READ: &str = "SELECT id, name, coins FROM bench_reads WHERE id = $1";

/// Runs the workload on `$pool` (a concrete sqlx pool); evaluates to the number of reads. A
/// macro, because the two pools are different types.
macro_rules! run_workload {
    ($pool:expr, $tasks:expr, $seconds:expr) => {{
        let pool = $pool;
        pool.execute(CREATE).await?;
        pool.execute(RESET).await?;
        for id in 0..$tasks {
            sqlx::query(INSERT).bind(id).execute(&pool).await?;
        }
        let reads = Arc::new(AtomicU64::new(0));
        let deadline = Instant::now() + Duration::from_secs($seconds);
        let workers: Vec<_> = (0..$tasks)
            .map(|id| {
                let pool = pool.clone();
                let reads = Arc::clone(&reads);
                tokio::spawn(async move {
                    while Instant::now() < deadline {
                        sqlx::query_as::<_, (i64, String, i64)>(READ)
                            .bind(id)
                            .fetch_one(&pool)
                            .await?;
                        reads.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok::<(), sqlx::Error>(())
                })
            })
            .collect();
        for worker in workers {
            worker.await??;
        }
        reads.load(Ordering::Relaxed)
    }};
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: read_rate DATABASE_URL")?;
    let tasks: i64 = env_number("BENCH_TASKS", 64)?;
    let seconds: u64 = env_number("BENCH_SECONDS", 10)?;
    let total = if url.starts_with("sqlite:") {
        // The same settings as Safezone's SQLite store: WAL, synchronous NORMAL, busy wait.
        let options = SqliteConnectOptions::from_str(&url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let pool = pool_options::<Sqlite>().connect_with(options).await?;
        run_workload!(pool, tasks, seconds)
    } else {
        let options = PgConnectOptions::from_str(&url)?;
        let pool = pool_options::<Postgres>().connect_with(options).await?;
        run_workload!(pool, tasks, seconds)
    };
    #[allow(clippy::cast_precision_loss)]
    let rate = total as f64 / seconds as f64;
    println!("{rate:.0} reads/s ({total} primary-key reads in {seconds} s, {tasks} tasks)");
    Ok(())
}
