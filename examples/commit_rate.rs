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

use safezone_examples::{Database, commit, per_second, run_tasks, tasks_and_seconds};
use sqlx::Executor;

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
        run_tasks($tasks, $seconds, move |id, round| {
            let pool = pool.clone();
            async move {
                // Each task's rows are numbered from 1.
                let n = round as i64 + 1;
                let write = if insert {
                    sqlx::query(INSERT_ROW).bind(id).bind(n)
                } else {
                    sqlx::query(UPDATE).bind(id)
                };
                commit!(pool, $begin, write);
                Ok(())
            }
        })
        .await?
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
    let (tasks, seconds) = tasks_and_seconds(64)?;
    let total = match Database::connect(&url).await? {
        // SQLite: `BEGIN IMMEDIATE`, as Safezone's writes.
        Database::Sqlite(pool) => run_workload!(pool, "BEGIN IMMEDIATE", insert, tasks, seconds),
        Database::Postgres(pool) => run_workload!(pool, "BEGIN", insert, tasks, seconds),
    };
    let rate = per_second(total, seconds);
    let kind = if insert { "insert" } else { "update" };
    println!(
        "{rate:.0} commits/s ({total} single-row {kind} transactions in {seconds} s, {tasks} tasks)"
    );
    Ok(())
}
