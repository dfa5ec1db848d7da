//! [`HealthStore`](safezone_core::store::HealthStore), written once for both stores: the ping
//! and the pools' state.

/// Answers when the database does.
pub(crate) const PING: &str = "SELECT 1";

/// Implements [`HealthStore`](safezone_core::store::HealthStore) for `$store` (see
/// [`impl_store`](crate::impl_store)), which also has a `fn pool_statuses(&self) ->
/// Vec<PoolStatus>`, in a child module `health` of the calling one.
macro_rules! impl_health {
    ($store:ident) => {
        mod health {
            use async_trait::async_trait;
            use safezone_core::store::{HealthStore, PoolStatus, StoreError};

            use super::$store;
            use crate::error::store_error;
            use crate::health::PING;

            #[async_trait]
            impl HealthStore for $store {
                async fn ping(&self) -> Result<(), StoreError> {
                    sqlx::query(PING)
                        .execute(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(())
                }

                fn pools(&self) -> Vec<PoolStatus> {
                    self.pool_statuses()
                }
            }
        }
    };
}

pub(crate) use impl_health;
