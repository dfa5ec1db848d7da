//! The benchmark baseline for writing requests: the raw commit rate of single-row transactions
//! on a database, with no HTTP and no Safezone in between, over Safezone's pool settings.
//! `examples/bench.sh` runs it beside the buy benchmark (`update`) and the sign-in benchmarks
//! (`insert`) on the same database, so their cost can be read against what the database itself
//! commits per second on this machine.
//!
//! Workload: `BENCH_TASKS` concurrent tasks (64 by default, as many as wrk's connections), each
//! running in a loop for `BENCH_SECONDS` (10) seconds, as the second argument says:
//! - `update` (the default): `BEGIN; UPDATE bench_balances SET coins = coins - 1 WHERE id =
//!   <task>; COMMIT`;
//! - `insert`: `BEGIN; INSERT INTO bench_rows (task, n) VALUES (<task>, <n>); COMMIT`, a new
//!   row each time;
//!
//! (SQLite: `BEGIN IMMEDIATE`, as Safezone's writes).
//!
//! ```text
//! cargo run --release -p safezone-examples --example commit_rate -- sqlite:///tmp/rate.db
//! cargo run --release -p safezone-examples --example commit_rate -- postgres://postgres@127.0.0.1/bench insert
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

const CREATE: &str =
    "CREATE TABLE IF NOT EXISTS bench_balances (id BIGINT PRIMARY KEY, coins BIGINT NOT NULL)";
const CREATE_ROWS: &str = "CREATE TABLE IF NOT EXISTS bench_rows \
    (task BIGINT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (task, n))";
const RESET: &str = "DELETE FROM bench_balances";
const RESET_ROWS: &str = "DELETE FROM bench_rows";
const INSERT: &str = "INSERT INTO bench_balances (id, coins) VALUES ($1, 1000000000)";
const UPDATE: &str = "UPDATE bench_balances SET coins = coins - 1 WHERE id = $1";
const INSERT_ROW: &str = "INSERT INTO bench_rows (task, n) VALUES ($1, $2)";

/// Runs the workload on `$pool` (a concrete sqlx pool), opening each transaction with `$begin`
/// and writing with `$statement`, the statement of `(task, n)` (`insert` or not); evaluates to
/// the number of commits. A macro, because the two pools are different types.
macro_rules! run_workload {
    ($pool:expr, $begin:expr, $insert:expr, $tasks:expr, $seconds:expr) => {{
        let pool = $pool;
        let insert: bool = $insert;
        for statement in [CREATE, CREATE_ROWS, RESET, RESET_ROWS] {
            pool.execute(statement).await?;
        }
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
                    let mut n: i64 = 0;
                    while Instant::now() < deadline {
                        n += 1;
                        let write = if insert {
                            sqlx::query(INSERT_ROW).bind(id).bind(n)
                        } else {
                            sqlx::query(UPDATE).bind(id)
                        };
                        let mut connection = pool.acquire().await?;
                        connection.execute($begin).await?;
                        write.execute(&mut *connection).await?;
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
    let usage = "usage: commit_rate DATABASE_URL [update|insert]";
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or(usage)?;
    let insert = match args.next().as_deref() {
        None | Some("update") => false,
        Some("insert") => true,
        Some(_) => return Err(usage.into()),
    };
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
        run_workload!(pool, "BEGIN IMMEDIATE", insert, tasks, seconds)
    } else {
        let options = PgConnectOptions::from_str(&url)?;
        let pool = pool_options::<Postgres>().connect_with(options).await?;
        run_workload!(pool, "BEGIN", insert, tasks, seconds)
    };
    #[allow(clippy::cast_precision_loss)]
    let rate = total as f64 / seconds as f64;
    let kind = if insert { "insert" } else { "update" };
    println!(
        "{rate:.0} commits/s ({total} single-row {kind} transactions in {seconds} s, {tasks} tasks)"
    );
    Ok(())
}
