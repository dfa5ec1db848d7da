//! The presence part of the storage contract: each node writes which accounts have a realtime
//! channel open on it, and beats; anyone reads the presence of many accounts at once.

use std::collections::HashMap;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, Presence, StoreError};

/// Presence rows per node and account, each node's heartbeat, and each account's last sighting.
#[async_trait]
pub trait PresenceStore: Send + Sync {
    /// In one transaction: beats for `node` at `now`, records `online` (accounts that have a
    /// channel open on it now; accounts that no longer exist are left out) and takes `offline`
    /// (accounts whose last channel on it closed) off it, last seen `now`. Empty lists make a
    /// heartbeat alone.
    async fn mark_presence(
        &self,
        node: &str,
        online: &[AccountId],
        offline: &[AccountId],
        now: OffsetDateTime,
    ) -> Result<(), StoreError>;

    /// A node stops: every account on it is taken off it, last seen `now`, and the node is
    /// forgotten.
    async fn presence_node_stopped(
        &self,
        node: &str,
        now: OffsetDateTime,
    ) -> Result<(), StoreError>;

    /// The presence of each of `accounts` as of `now` ([`Presence::of`]); an account that does
    /// not exist is left out.
    async fn presence(
        &self,
        accounts: &[AccountId],
        now: OffsetDateTime,
    ) -> Result<HashMap<AccountId, Presence>, StoreError>;

    /// Forgets at most `limit` nodes that last beat before `before` (they crashed), each in its
    /// own transaction with its accounts taken off it, last seen at its last heartbeat; answers
    /// how many nodes went.
    async fn delete_dead_presence_nodes(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl PresenceStore for super::UnavailableStore {
    async fn mark_presence(
        &self,
        _: &str,
        _: &[AccountId],
        _: &[AccountId],
        _: OffsetDateTime,
    ) -> Result<(), StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn presence_node_stopped(&self, _: &str, _: OffsetDateTime) -> Result<(), StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn presence(
        &self,
        _: &[AccountId],
        _: OffsetDateTime,
    ) -> Result<HashMap<AccountId, Presence>, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn delete_dead_presence_nodes(
        &self,
        _: OffsetDateTime,
        _: u32,
    ) -> Result<u64, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
