//! The connection pools: their options, and their state as the metrics show it.

use safezone_core::DatabaseSettings;
use safezone_core::store::PoolStatus;
use sqlx::pool::PoolOptions;
use sqlx::{Database, Pool};

/// A pool of up to `database.max_connections`, waiting up to `database.acquire_timeout` for
/// one. A connection is lent without a test query first (sqlx's default pings it, a round
/// trip per request): a broken one fails the request's own statement, and sqlx then closes it
/// instead of returning it to the pool.
pub(crate) fn options<DB: Database>(database: &DatabaseSettings) -> PoolOptions<DB> {
    PoolOptions::new()
        .max_connections(database.max_connections.get())
        .acquire_timeout(database.acquire_timeout)
        .test_before_acquire(false)
}

/// The state of `pool`, named `name` among the store's pools.
pub(crate) fn pool_status<DB: Database>(name: &'static str, pool: &Pool<DB>) -> PoolStatus {
    PoolStatus {
        name,
        open: pool.size(),
        idle: u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
        max: pool.options().get_max_connections(),
    }
}
