//! Examples live beside this crate as cargo examples; what the benchmark's baselines share
//! lives here.

use std::error::Error;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use safezone_core::DatabaseSettings;
use sqlx::pool::{Pool, PoolOptions};
use sqlx::postgres::{PgConnectOptions, Postgres};
use sqlx::sqlite::{Sqlite, SqliteConnectOptions};

/// Safezone's pool settings ([`DatabaseSettings`]'s defaults, no test query before lending a
/// connection), as `safezone-storage` sets them, for the baselines to run over the same pool.
pub fn pool_options<DB: sqlx::Database>() -> PoolOptions<DB> {
    PoolOptions::new()
        .max_connections(DatabaseSettings::DEFAULT_MAX_CONNECTIONS.get())
        .acquire_timeout(DatabaseSettings::DEFAULT_ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
}

/// The number in the environment variable `name`, or `default` when it is not set.
pub fn env_number<T: FromStr>(name: &str, default: T) -> Result<T, Box<dyn Error>>
where
    T::Err: Error + 'static,
{
    match std::env::var(name) {
        Ok(value) => Ok(value.parse()?),
        Err(_) => Ok(default),
    }
}

/// The workload's size from the environment: `BENCH_TASKS` concurrent tasks (`default_tasks` when
/// not set) for `BENCH_SECONDS` seconds (10).
pub fn tasks_and_seconds(default_tasks: i64) -> Result<(i64, u64), Box<dyn Error>> {
    Ok((
        env_number("BENCH_TASKS", default_tasks)?,
        env_number("BENCH_SECONDS", 10)?,
    ))
}

/// A pool with [`pool_options`] on the database a baseline is given.
pub enum Database {
    /// SQLite, for a `sqlite:` URL, with [`sqlite_options`].
    Sqlite(Pool<Sqlite>),
    /// PostgreSQL, for any other URL.
    Postgres(Pool<Postgres>),
}

impl Database {
    /// Connects to the database at `url`.
    pub async fn connect(url: &str) -> Result<Self, sqlx::Error> {
        Ok(if url.starts_with("sqlite:") {
            Self::Sqlite(pool_options().connect_with(sqlite_options(url)?).await?)
        } else {
            let options = PgConnectOptions::from_str(url)?;
            Self::Postgres(pool_options().connect_with(options).await?)
        })
    }
}

/// The same settings as Safezone's SQLite store for the database at `url`
/// ([`sqlite_settings`](safezone_storage::sqlite_settings)); the file is created
/// when missing.
pub fn sqlite_options(url: &str) -> Result<SqliteConnectOptions, sqlx::Error> {
    Ok(safezone_storage::sqlite_settings(
        SqliteConnectOptions::from_str(url)?.create_if_missing(true),
    ))
}

/// Runs `work(task, round)` over and over from `tasks` concurrent tasks (`task` from 0, `round`
/// counting each task's runs from 0) until `seconds` have passed since the call; returns how many
/// runs completed, or the first error.
pub async fn run_tasks<W, F>(tasks: i64, seconds: u64, work: W) -> Result<u64, Box<dyn Error>>
where
    W: Fn(i64, u64) -> F + Send + Sync + 'static,
    F: Future<Output = Result<(), sqlx::Error>> + Send + 'static,
{
    let work = Arc::new(work);
    let runs = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..tasks)
        .map(|task| {
            let work = Arc::clone(&work);
            let runs = Arc::clone(&runs);
            tokio::spawn(async move {
                let mut round = 0;
                while Instant::now() < deadline {
                    work(task, round).await?;
                    runs.fetch_add(1, Ordering::Relaxed);
                    round += 1;
                }
                Ok::<(), sqlx::Error>(())
            })
        })
        .collect();
    for worker in workers {
        worker.await??;
    }
    Ok(runs.load(Ordering::Relaxed))
}

/// `count` a second over `seconds`.
#[allow(clippy::cast_precision_loss)]
pub fn per_second(count: u64, seconds: u64) -> f64 {
    count as f64 / seconds as f64
}

/// Runs `$write` (an sqlx query) in one transaction on a connection of `$pool` (a concrete sqlx
/// pool), opened with `$begin` (`"BEGIN"`, or `"BEGIN IMMEDIATE"` on SQLite) and committed;
/// returns early with the first error. A macro, because the pools are different types.
#[macro_export]
macro_rules! commit {
    ($pool:expr, $begin:expr, $write:expr) => {{
        let mut connection = $pool.acquire().await?;
        ::sqlx::Executor::execute(&mut *connection, $begin).await?;
        $write.execute(&mut *connection).await?;
        ::sqlx::Executor::execute(&mut *connection, "COMMIT").await?;
    }};
}
