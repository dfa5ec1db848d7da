//! The benchmark baseline for money-moving requests: the raw commit rate of a single-row update
//! transaction on a database, with no HTTP and no Safezone in between. `examples/bench.sh` runs
//! it beside the buy benchmark on the same database, so a buy's cost can be read against what
//! the database itself commits per second on this machine.
//!
//! Workload: `BENCH_TASKS` concurrent tasks (64 by default, as many as wrk's connections), each
//! running `BEGIN; UPDATE bench_balances SET coins = coins - 1 WHERE id = <task>; COMMIT` (SQLite:
//! `BEGIN IMMEDIATE`, as Safezone's writes) in a loop for `BENCH_SECONDS` (10) seconds.
//!
//! ```text
//! cargo run --release -p safezone-examples --example commit_rate -- sqlite:///tmp/rate.db
//! cargo run --release -p safezone-examples --example commit_rate -- postgres://postgres@127.0.0.1/bench
//! ```

use std::error::Error;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sqlx::Executor;
use sqlx::postgres::PgPool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqliteSynchronous};

const CREATE: &str =
    "CREATE TABLE IF NOT EXISTS bench_balances (id BIGINT PRIMARY KEY, coins BIGINT NOT NULL)";
const RESET: &str = "DELETE FROM bench_balances";
const INSERT: &str = "INSERT INTO bench_balances (id, coins) VALUES ($1, 1000000000)";
const UPDATE: &str = "UPDATE bench_balances SET coins = coins - 1 WHERE id = $1";

/// Runs the workload on `$pool` (a concrete sqlx pool), opening each transaction with `$begin`;
/// evaluates to the number of commits. A macro, because the two pools are different types.
macro_rules! run_workload {
    ($pool:expr, $begin:expr, $tasks:expr, $seconds:expr) => {{
        let pool = $pool;
        pool.execute(CREATE).await?;
        pool.execute(RESET).await?;
        for id in 0..$tasks {
            sqlx::query(INSERT).bind(id).execute(&pool).await?;
        }
        let commits = Arc::new(AtomicU64::new(0));
        let deadline = Instant::now() + Duration::from_secs($seconds);
        let workers: Vec<_> = (0..$tasks)
            .map(|id| {
                let pool = pool.clone();
                let commits = Arc::clone(&commits);
                tokio::spawn(async move {
                    while Instant::now() < deadline {
                        let mut connection = pool.acquire().await?;
                        connection.execute($begin).await?;
                        sqlx::query(UPDATE)
                            .bind(id)
                            .execute(&mut *connection)
                            .await?;
                        connection.execute("COMMIT").await?;
                        commits.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok::<(), sqlx::Error>(())
                })
            })
            .collect();
        for worker in workers {
            worker.await??;
        }
        commits.load(Ordering::Relaxed)
    }};
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: commit_rate DATABASE_URL")?;
    let tasks: i64 = env_number("BENCH_TASKS", 64)?;
    let seconds: u64 = env_number("BENCH_SECONDS", 10)?;
    let total = if url.starts_with("sqlite:") {
        // The same settings as Safezone's SQLite store: WAL, synchronous NORMAL, busy wait.
        let options = SqliteConnectOptions::from_str(&url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePool::connect_with(options).await?;
        run_workload!(pool, "BEGIN IMMEDIATE", tasks, seconds)
    } else {
        let pool = PgPool::connect(&url).await?;
        run_workload!(pool, "BEGIN", tasks, seconds)
    };
    #[allow(clippy::cast_precision_loss)]
    let rate = total as f64 / seconds as f64;
    println!(
        "{rate:.0} commits/s ({total} single-row update transactions in {seconds} s, {tasks} tasks)"
    );
    Ok(())
}

fn env_number<T: FromStr>(name: &str, default: T) -> Result<T, Box<dyn Error>>
where
    T::Err: Error + 'static,
{
    match std::env::var(name) {
        Ok(value) => Ok(value.parse()?),
        Err(_) => Ok(default),
    }
}
