//! The storage contract: the traits a database must implement and the records they exchange.
//!
//! Core decides *what* should happen; a store applies it atomically, in one transaction that also
//! checks its preconditions. Uniqueness in the database (provider identities, friend codes, key
//! hashes) is what makes concurrent duplicates impossible; no store method is a read-then-write.
//!
//! `safezone-storage` implements [`Store`] for SQLite and PostgreSQL.

mod change;
mod error;
mod holdings;
mod records;

pub use change::{
    Applied, BALANCE_MAX, Change, Currency, Granted, Idempotency, PACKS_MAX, Refusal, Step,
};
pub use error::StoreError;
pub use holdings::{Holdings, LedgerEntry, License, PackStock};
pub use records::{Account, AccountId, KeySession, NewSignIn, Role, SignedIn};

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::{FriendCode, KeyHash};

/// Everything Safezone keeps: accounts, their sign-in identities, user keys, money and holdings.
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

    /// The account with this friend code (the name compared regardless of letter case).
    async fn account_by_friend_code(
        &self,
        code: &FriendCode,
    ) -> Result<Option<Account>, StoreError>;

    /// Applies a planned change of money and holdings in one transaction: every step or none.
    ///
    /// The account row is locked first, so changes of one account never interleave. With an
    /// idempotency key, a key already used for the same request answers
    /// [`Applied::Replayed`] with the first application's grants and changes nothing; every coin
    /// and gem movement writes a ledger row in the same transaction.
    async fn apply(&self, change: Change) -> Result<Applied, StoreError>;

    /// The account's items and unopened packs.
    async fn holdings(&self, account: AccountId) -> Result<Holdings, StoreError>;

    /// Which of `keys` the account has claimed.
    async fn claimed(&self, account: AccountId, keys: &[String])
    -> Result<Vec<String>, StoreError>;

    /// The account's ledger, oldest first.
    async fn ledger(&self, account: AccountId) -> Result<Vec<LedgerEntry>, StoreError>;

    /// Whether the account's linked chat-platform account has a premium subscription; `None`
    /// without a link.
    async fn chat_premium(&self, account: AccountId) -> Result<Option<bool>, StoreError>;

    /// Links a chat-platform account (`chat_user`) to the account, recording whether it has a
    /// premium subscription; a later link replaces the earlier one.
    async fn link_chat(
        &self,
        account: AccountId,
        chat_user: &str,
        premium: bool,
        now: OffsetDateTime,
    ) -> Result<(), StoreError>;
}
