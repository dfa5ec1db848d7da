//! Examples live beside this crate as cargo examples; what the benchmark's baselines share
//! lives here.

use std::error::Error;
use std::str::FromStr;

use safezone_core::DatabaseSettings;
use sqlx::pool::PoolOptions;

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
