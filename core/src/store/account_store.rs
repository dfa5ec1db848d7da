//! The accounts' part of the storage contract: signing in, user keys and sessions, account
//! lookups, roles, bans, the chat link, deletion and the retention sweep's deletes.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    Account, AccountId, KeySession, NewAuditEntry, NewSignIn, Role, SessionView, SignedIn,
    StoreError,
};
use crate::domain::{FriendCode, KeyHash};

/// Accounts and what names them: sign-in identities, user keys and their sessions, roles, bans,
/// the chat-platform link, deletion, and the retention sweep's bounded deletes.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Signs in the account of `(provider, identifier)`, creating it on first use.
    ///
    /// In one transaction: finds or creates the account (a new account takes the first free
    /// friend code of `sign_in.friend_code_candidates`), then records the new key's hash with its
    /// expiry. Concurrent first sign-ins of one identity create exactly one account. A
    /// deletion of the account racing the sign-in either ends first, and the sign-in creates a
    /// fresh account, or waits for it and takes the new key with the account.
    /// Fails with [`StoreError::FriendCodesExhausted`] when every candidate is taken.
    async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError>;

    /// The account and expiry of an unexpired, unrevoked key (one query), or `None`.
    async fn session(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError>;

    /// The session of an unexpired, unrevoked key with the account's holdings and clan, or
    /// `None`: what [`session`](Self::session), [`holdings`](super::EconomyStore::holdings) and
    /// [`clan_of`](super::CommunityStore::clan_of) answer together, in one statement when the
    /// account is in no clan (two when it is).
    async fn session_view(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<SessionView>, StoreError>;

    /// The account with this id, or `None` when there is none (never existed or deleted).
    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;

    /// The account with this friend code (the name compared regardless of letter case).
    async fn account_by_friend_code(
        &self,
        code: &FriendCode,
    ) -> Result<Option<Account>, StoreError>;

    /// The account of this sign-in identity: the provider (`device`, `idpone`, ...) and the
    /// identifier as stored (a device's is the SHA-256 of its id, in lower-case hex).
    async fn account_by_identity(
        &self,
        provider: &str,
        identifier: &str,
    ) -> Result<Option<Account>, StoreError>;

    /// How many of the account's user keys still work at `now`.
    async fn live_key_count(
        &self,
        account: AccountId,
        now: OffsetDateTime,
    ) -> Result<u64, StoreError>;

    /// Revokes one key. Answers whether a key was revoked.
    async fn revoke_key(&self, key: &KeyHash) -> Result<bool, StoreError>;

    /// Revokes every key of the account. Answers how many were revoked. With `audit` (an
    /// operator's change), its audit row (and `operator_action` event) is appended in the same
    /// transaction.
    async fn revoke_all_keys(
        &self,
        account: AccountId,
        audit: Option<&NewAuditEntry>,
    ) -> Result<u64, StoreError>;

    /// Deletes up to `limit` user keys that expired at or before `now` (keys no session
    /// accepts any more), in one short transaction; answers how many went. Safe to run on
    /// several nodes at once: a key deleted by another is not counted.
    async fn delete_expired_keys(&self, now: OffsetDateTime, limit: u32)
    -> Result<u64, StoreError>;

    /// Forgets up to `limit` idempotency keys recorded before `before`, in one short
    /// transaction; answers how many went. A forgotten key used again applies its request
    /// afresh. Nothing refers to an idempotency key (ledger rows carry the change's reason and
    /// reference), so forgetting one leaves every holding and ledger row as it is. Safe to run
    /// on several nodes at once.
    async fn forget_idempotency_keys(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;

    /// Deletes the account with its identities, keys and personal data, freeing the places of
    /// its tournament entries, and erases the personal data its domain events tell (friend
    /// codes; ids, kinds and amounts stay). Answers whether it existed. A write of the account
    /// racing its deletion either ends before it (and goes with the account) or finds no
    /// account. With `audit` (an operator's deletion), its audit row (and `operator_action`
    /// event) is appended in the same transaction when the account existed.
    async fn delete_account(
        &self,
        account: AccountId,
        audit: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError>;

    /// Links a chat-platform account (`chat_user`) to the account, recording whether it has a
    /// premium subscription; a later link replaces the earlier one. Answers whether the account
    /// exists: nothing is linked to an account deleted before (or while) linking.
    async fn link_chat(
        &self,
        account: AccountId,
        chat_user: &str,
        premium: bool,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Sets the account's role. Answers whether the account exists.
    async fn set_role(&self, account: AccountId, role: Role) -> Result<bool, StoreError>;

    /// Bans (`true`) or unbans the account. Answers whether the account exists. With `audit`
    /// (an operator's ban), its audit row (and `operator_action` event) is appended in the same
    /// transaction when it does.
    async fn set_banned(
        &self,
        account: AccountId,
        banned: bool,
        audit: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError>;
}
