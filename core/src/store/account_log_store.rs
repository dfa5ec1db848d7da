//! The account log's part of the storage contract: what the leaderboards follow besides the
//! match log.

use async_trait::async_trait;

use super::{AccountLogEntry, StoreError};

/// The account log: friend-code renames, bans and deletions in commit order, which the
/// leaderboards follow.
#[async_trait]
pub trait AccountLogStore: Send + Sync {
    /// Up to `limit` entries of the account log (friend-code renames and deletions) after
    /// position `after` (0 for the start), in order.
    async fn account_log(&self, after: i64, limit: u32)
    -> Result<Vec<AccountLogEntry>, StoreError>;

    /// The position of the account log's last entry (0 while it is empty).
    async fn account_log_head(&self) -> Result<i64, StoreError>;
}
