//! The storage contract: the traits a database must implement and the records they exchange.
//!
//! Core decides *what* should happen; a store applies it atomically, in one transaction that also
//! checks its preconditions. Uniqueness in the database (provider identities, friend codes, key
//! hashes) is what makes concurrent duplicates impossible; no store method is a read-then-write.
//!
//! `safezone-storage` implements [`Store`] for SQLite and PostgreSQL.

mod error;
mod records;

pub use error::StoreError;
pub use records::{Account, AccountId, KeySession, NewSignIn, Role, SignedIn};

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::KeyHash;

/// Everything Safezone keeps: accounts, their sign-in identities and their user keys.
///
/// Implementations must be safe to share between tasks and must make every method that changes
/// state atomic.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Answers `Ok` when the database answers a trivial query.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Signs in the account of `(provider, identifier)`, creating it on first use.
    ///
    /// In one transaction: finds or creates the account (a new account takes the first free
    /// friend code of `sign_in.friend_code_candidates`), then records the new key's hash with its
    /// expiry. Concurrent first sign-ins of one identity create exactly one account.
    /// Fails with [`StoreError::FriendCodesExhausted`] when every candidate is taken.
    async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError>;

    /// The account and expiry of an unexpired, unrevoked key, or `None`.
    async fn session(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError>;

    /// The account with this id, or `None` when there is none (never existed or deleted).
    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;

    /// Revokes one key. Answers whether a key was revoked.
    async fn revoke_key(&self, key: &KeyHash) -> Result<bool, StoreError>;

    /// Revokes every key of the account. Answers how many were revoked.
    async fn revoke_all_keys(&self, account: AccountId) -> Result<u64, StoreError>;

    /// Deletes the account with its identities, keys and personal data. Answers whether it existed.
    async fn delete_account(&self, account: AccountId) -> Result<bool, StoreError>;
}
