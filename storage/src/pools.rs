//! A connection pool's state as the metrics show it.

use safezone_core::store::PoolStatus;
use sqlx::{Database, Pool};

/// The state of `pool`, named `name` among the store's pools.
pub(crate) fn pool_status<DB: Database>(name: &'static str, pool: &Pool<DB>) -> PoolStatus {
    PoolStatus {
        name,
        open: pool.size(),
        idle: u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
        max: pool.options().get_max_connections(),
    }
}
