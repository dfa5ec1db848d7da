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

use safezone_examples::{Database, per_second, run_tasks, tasks_and_seconds};
use sqlx::Executor;

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
        run_tasks($tasks, $seconds, move |id, _| {
            let pool = pool.clone();
            async move {
                sqlx::query_as::<_, (i64, String, i64)>(READ)
                    .bind(id)
                    .fetch_one(&pool)
                    .await?;
                Ok(())
            }
        })
        .await?
    }};
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: read_rate DATABASE_URL")?;
    let (tasks, seconds) = tasks_and_seconds(64)?;
    let total = match Database::connect(&url).await? {
        Database::Sqlite(pool) => run_workload!(pool, tasks, seconds),
        Database::Postgres(pool) => run_workload!(pool, tasks, seconds),
    };
    let rate = per_second(total, seconds);
    println!("{rate:.0} reads/s ({total} primary-key reads in {seconds} s, {tasks} tasks)");
    Ok(())
}
