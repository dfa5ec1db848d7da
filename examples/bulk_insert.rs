//! The benchmark baseline for match reports: the raw rate of bulk inserts of match-log-like
//! rows, with no HTTP and no Safezone in between. `examples/bench.sh` runs it beside the match
//! report benchmark on the same database, so a report's cost per player result can be read
//! against what the database itself writes per second on this machine.
//!
//! Workload: `BENCH_TASKS` concurrent tasks (8 by default, as many as the match benchmark's
//! connections), each committing transactions of `BENCH_ROWS` (100) rows in one statement into
//! a table as wide as `match_log` (an identity key, a text match id, the account id, a text
//! mode, the end time, placement, kills, seconds alive; indexed by account), in a loop for
//! `BENCH_SECONDS` (10) seconds. PostgreSQL gets the rows as one array per column (`UNNEST`),
//! SQLite as a multi-row `VALUES` (`BEGIN IMMEDIATE`, as Safezone's writes).
//!
//! ```text
//! cargo run --release -p safezone-examples --example bulk_insert -- sqlite:///tmp/bulk.db
//! cargo run --release -p safezone-examples --example bulk_insert -- postgres://postgres@127.0.0.1/bench
//! ```

use std::error::Error;

use safezone_examples::{commit, env_number, per_second, run_tasks, sqlite_options};
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use sqlx::{Executor, QueryBuilder};

const DROP: &str = "DROP TABLE IF EXISTS bench_log";
const CREATE_POSTGRES: &str = "CREATE TABLE bench_log (\
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, match_id TEXT NOT NULL, \
    account_id BIGINT NOT NULL, mode TEXT NOT NULL, ended BIGINT NOT NULL, \
    placement BIGINT NOT NULL, kills BIGINT NOT NULL, time_alive BIGINT NOT NULL)";
const CREATE_SQLITE: &str = "CREATE TABLE bench_log (\
    seq INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL, \
    account_id BIGINT NOT NULL, mode TEXT NOT NULL, ended BIGINT NOT NULL, \
    placement BIGINT NOT NULL, kills BIGINT NOT NULL, time_alive BIGINT NOT NULL)";
const INDEX: &str = "CREATE INDEX bench_log_account ON bench_log (account_id)";
const INSERT_POSTGRES: &str = "\
    INSERT INTO bench_log (match_id, account_id, mode, ended, placement, kills, time_alive) \
    SELECT $1, account, 'solo', $2, placement, kills, time_alive \
    FROM UNNEST($3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::BIGINT[]) \
    AS u(account, placement, kills, time_alive)";
const INSERT_SQLITE: &str =
    "INSERT INTO bench_log (match_id, account_id, mode, ended, placement, kills, time_alive) ";

/// One transaction's rows: `(account, placement, kills, seconds alive)`.
fn rows(task: i64, round: u64, count: i64) -> Vec<(i64, i64, i64, i64)> {
    let first = task * 100_000 + i64::try_from(round % 100).unwrap_or(0) * count;
    (0..count)
        .map(|n| (first + n, n + 1, (100 - n) % 10, 1_200 - n * 10))
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: bulk_insert DATABASE_URL")?;
    let tasks: i64 = env_number("BENCH_TASKS", 8)?;
    let seconds: u64 = env_number("BENCH_SECONDS", 10)?;
    let count: i64 = env_number("BENCH_ROWS", 100)?;
    let transactions = if url.starts_with("sqlite:") {
        let pool = SqlitePool::connect_with(sqlite_options(&url)?).await?;
        for statement in [DROP, CREATE_SQLITE, INDEX] {
            pool.execute(statement).await?;
        }
        run_tasks(tasks, seconds, move |task, round| {
            let pool = pool.clone();
            let mut insert = QueryBuilder::<sqlx::Sqlite>::new(INSERT_SQLITE);
            insert.push_values(rows(task, round, count), |mut row, values| {
                row.push_bind(format!("bench-{task}-{round}"))
                    .push_bind(values.0)
                    .push_bind("solo")
                    .push_bind(1_700_000_000_000_000_i64)
                    .push_bind(values.1)
                    .push_bind(values.2)
                    .push_bind(values.3);
            });
            async move {
                commit!(pool, "BEGIN IMMEDIATE", insert.build());
                Ok(())
            }
        })
        .await?
    } else {
        let pool = PgPool::connect(&url).await?;
        for statement in [DROP, CREATE_POSTGRES, INDEX] {
            pool.execute(statement).await?;
        }
        run_tasks(tasks, seconds, move |task, round| {
            let pool = pool.clone();
            let rows = rows(task, round, count);
            let column = |pick: fn(&(i64, i64, i64, i64)) -> i64| -> Vec<i64> {
                rows.iter().map(pick).collect()
            };
            let query = sqlx::query(INSERT_POSTGRES)
                .bind(format!("bench-{task}-{round}"))
                .bind(1_700_000_000_000_000_i64)
                .bind(column(|row| row.0))
                .bind(column(|row| row.1))
                .bind(column(|row| row.2))
                .bind(column(|row| row.3));
            async move {
                commit!(pool, "BEGIN", query);
                Ok(())
            }
        })
        .await?
    };
    let rate = per_second(transactions * u64::try_from(count)?, seconds);
    println!(
        "{rate:.0} rows/s ({transactions} transactions of {count} rows in {seconds} s, {tasks} tasks)"
    );
    Ok(())
}
