//! The economy's part of the storage contract: applying planned changes of money and holdings,
//! and reading what an account holds, claimed and spent.

use async_trait::async_trait;

use super::{
    AccountId, AccountView, Applied, Change, Holdings, LedgerEntry, NewAuditEntry, StoreError,
};

/// Money and holdings: planned changes applied atomically, holdings, claims, the ledger and the
/// chat-platform premium that some rewards depend on.
#[async_trait]
pub trait EconomyStore: Send + Sync {
    /// Applies a planned change of money and holdings in one transaction: every step or none.
    ///
    /// The account row is locked first, so changes of one account never interleave. With an
    /// idempotency key, a key already used for the same request answers
    /// [`Applied::Replayed`] with the first application's grants and changes nothing; every coin
    /// and gem movement writes a ledger row in the same transaction. With `audit` (an
    /// operator's change, which has no idempotency key), its audit row (and `operator_action`
    /// event) is appended in the same transaction when the change is [`Applied::Done`]; a
    /// refusal writes nothing.
    async fn apply(
        &self,
        change: Change,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Applied, StoreError>;

    /// Like [`apply`](Self::apply), and also reads the account as the change (or, for a
    /// repeat, the first application) left it, with its holdings and clan, in the same
    /// transaction: `None` only for a refusal.
    async fn apply_viewed(
        &self,
        change: Change,
        audit: Option<&NewAuditEntry>,
    ) -> Result<(Applied, Option<AccountView>), StoreError>;

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
}
