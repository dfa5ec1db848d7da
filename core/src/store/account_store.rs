//! The accounts' part of the storage contract: signing in, user keys and sessions, account
//! lookups, roles, bans, the chat link, deletion and the retention sweep's deletes.

use std::sync::Arc;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    Account, AccountChanges, AccountId, KeyLookup, KeySession, NewAuditEntry, NewSignIn, Role,
    SessionView, SignedIn, StoreError,
};
use crate::domain::FriendCode;

/// Accounts and what names them: sign-in identities, user keys and their sessions, roles, bans,
/// the chat-platform link, deletion, and the retention sweep's bounded deletes.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Signs in the account of `(provider, identifier)`, creating it on first use, and
    /// answers it with its key generation, for the caller to sign the new key with: a sign-in
    /// records no key.
    ///
    /// An existing account's sign-in is a read of its view, then its `signed_in` event,
    /// appended with those of the concurrent sign-ins (one statement and one commit a batch). A new account takes the first free friend code of
    /// `sign_in.friend_code_candidates`, in one transaction with its events; concurrent first
    /// sign-ins of one identity create exactly one account. A deletion of the account racing
    /// the sign-in either ends first, and the sign-in creates a fresh account, or ends after
    /// it, and the key it answers opens nothing.
    /// Fails with [`StoreError::FriendCodesExhausted`] when every candidate is taken.
    async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError>;

    /// The sign-in of an existing account whose view the caller already has (a node keeping
    /// it in memory): appends its `signed_in` event (`provider`, at `now`), as
    /// [`sign_in`](Self::sign_in) does, and answers the account's key generation; `None`, with
    /// nothing written, when the account is gone.
    async fn sign_in_account(
        &self,
        account: AccountId,
        provider: &str,
        now: OffsetDateTime,
    ) -> Result<Option<u32>, StoreError>;

    /// The account and expiry of an unexpired, unrevoked key (one query), or `None`.
    async fn session(
        &self,
        key: &KeyLookup,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError>;

    /// The session of an unexpired, unrevoked key with the account's holdings and clan, or
    /// `None`: what [`session`](Self::session), [`holdings`](super::EconomyStore::holdings) and
    /// [`clan_of`](super::ClanStore::clan_of) answer together, in one statement when the
    /// account is in no clan (two when it is).
    async fn session_view(
        &self,
        key: &KeyLookup,
        now: OffsetDateTime,
    ) -> Result<Option<SessionView>, StoreError>;

    /// The server's stored secret for signed user keys: `candidate`, stored now, unless a
    /// secret was stored before (by this node or another), which is then answered. Used only
    /// when no secret is configured.
    async fn stored_key_secret(&self, candidate: &str) -> Result<String, StoreError>;

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

    /// The account's key generation: how many times all its keys were revoked (modulo
    /// [`KEY_GENERATIONS`](crate::domain::KEY_GENERATIONS)); `None` without the account.
    async fn key_generation(&self, account: AccountId) -> Result<Option<u32>, StoreError>;

    /// Revokes one key: a stored key is deleted, a signed key's hash is recorded as revoked
    /// until its expiry, with its `keys_revoked` event. Answers whether a key was revoked
    /// (`false` when it was already).
    async fn revoke_key(&self, key: &KeyLookup) -> Result<bool, StoreError>;

    /// Revokes every key of the account: moves its key generation on (every signed key
    /// issued before stops working), deletes its stored keys and appends its `keys_revoked`
    /// event. Answers whether the account
    /// exists. With `audit` (an operator's change), its audit row (and `operator_action`
    /// event) is appended in the same transaction.
    async fn revoke_all_keys(
        &self,
        account: AccountId,
        audit: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError>;

    /// Deletes up to `limit` stored keys and up to `limit` revocations of signed keys that
    /// expired at or before `now` (keys no session accepts any more), each in one short
    /// transaction; answers how many went. Safe to run on
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
    /// premium subscription, with its `chat_linked` event; a later link replaces the earlier
    /// one. Answers whether the account exists: nothing is linked to an account deleted before
    /// (or while) linking.
    async fn link_chat(
        &self,
        account: AccountId,
        chat_user: &str,
        premium: bool,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Sets the account's role, with its `role_changed` event. Answers whether the account
    /// exists.
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

    /// The change counters this store moves on after each change of an account's view it
    /// commits (the account row, its holdings, its keys, its clan), for the node to keep views
    /// in memory; `None` (the default) for a store that keeps none, whose sessions are then
    /// always read.
    fn account_changes(&self) -> Option<Arc<AccountChanges>> {
        None
    }
}
