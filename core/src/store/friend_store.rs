//! The friends' part of the storage contract.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::StoreError;
use super::{AccountId, FriendChange, FriendChanged, FriendLimits, FriendLists, FriendRefusal};

/// Friend requests, friendships and blocks between two accounts: each change one transaction
/// that locks both accounts' rows (in id order, like every transaction locking several
/// accounts; an account's deletion locks its row first), checks its preconditions, answers the
/// first that fails as a refusal, and appends its events.
/// Friendships are stored as ordered pairs, so two requests that meet make one friendship.
#[async_trait]
pub trait FriendStore: Send + Sync {
    /// Makes `change` between `account` (acting) and `other` (never the same account), held
    /// to `limits`, with its events: on `account`, naming `other`.
    async fn change_friendship(
        &self,
        account: AccountId,
        other: AccountId,
        change: FriendChange,
        limits: FriendLimits,
        now: OffsetDateTime,
    ) -> Result<Result<FriendChanged, FriendRefusal>, StoreError>;

    /// The account's friends, requests in and out, and blocks.
    async fn friend_lists(&self, account: AccountId) -> Result<FriendLists, StoreError>;

    /// Whether the two accounts are friends.
    async fn are_friends(&self, one: AccountId, other: AccountId) -> Result<bool, StoreError>;

    /// Deletes, oldest first, at most `limit` requests sent before `before` and not answered;
    /// answers how many went.
    async fn expire_friend_requests(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl FriendStore for super::UnavailableStore {
    async fn change_friendship(
        &self,
        _: AccountId,
        _: AccountId,
        _: FriendChange,
        _: FriendLimits,
        _: OffsetDateTime,
    ) -> Result<Result<FriendChanged, FriendRefusal>, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn friend_lists(&self, _: AccountId) -> Result<FriendLists, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn are_friends(&self, _: AccountId, _: AccountId) -> Result<bool, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn expire_friend_requests(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
