//! The store's health: whether its database answers, and the state of its connection pools.

use async_trait::async_trait;

use super::StoreError;

/// Whether the database answers (the health endpoint) and the state of the connection pools
/// (the metrics).
#[async_trait]
pub trait HealthStore: Send + Sync {
    /// Answers `Ok` when the database answers a trivial query.
    async fn ping(&self) -> Result<(), StoreError>;

    /// The state of each connection pool, for the metrics; none for a store without pools.
    fn pools(&self) -> Vec<PoolStatus> {
        Vec::new()
    }
}

/// One connection pool of a store as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// The pool's name among the store's pools (`main`, or `writer` for SQLite's writer).
    pub name: &'static str,
    /// Connections open, in use or idle.
    pub open: u32,
    /// Connections open and idle.
    pub idle: u32,
    /// The most connections the pool opens.
    pub max: u32,
}
