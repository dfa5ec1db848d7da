//! The operator API's tokens and its audit: who may act on players through the operator
//! listener, and what each of them did.

use std::fmt;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::StoreError;

/// What an operator token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorRole {
    /// Reads only: players, their ledgers and the audit.
    Read,
    /// Reads and changes: grants, refunds, removals, bans, key revocations.
    Full,
}

impl OperatorRole {
    /// The role as stored and written on the command line (`read`, `full`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Full => "full",
        }
    }

    /// Reads a role from its name (`read`, `full`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "read" => Some(Self::Read),
            "full" => Some(Self::Full),
            _ => None,
        }
    }
}

impl fmt::Display for OperatorRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored operator token; its secret is never stored, only the secret's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorToken {
    /// The token's id.
    pub id: i64,
    /// Its unique name (who holds it, e.g. `alice`).
    pub name: String,
    /// What it may do.
    pub role: OperatorRole,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it was revoked, if it was.
    pub revoked_at: Option<OffsetDateTime>,
}

/// A token to create.
#[derive(Debug, Clone)]
pub struct NewOperatorToken {
    /// Its unique name.
    pub name: String,
    /// What it may do.
    pub role: OperatorRole,
    /// The SHA-256 of its secret, in lower-case hex.
    pub secret_hash: String,
    /// When it is created.
    pub now: OffsetDateTime,
}

/// An audit row to append: one operator action and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditEntry {
    /// The id of the token that acted.
    pub token: i64,
    /// When.
    pub at: OffsetDateTime,
    /// What (`grant`, `refund`, `remove`, `ban`, `revoke-keys`).
    pub action: String,
    /// On what (`account:42`).
    pub target: String,
    /// Why, as the operator said.
    pub reason: String,
    /// `done`, or `refused: why`.
    pub result: String,
}

impl NewAuditEntry {
    /// This entry on what a change created, known once created: its target (`poll`,
    /// `content`) followed by the created thing's id (`poll:7`, `content:12`).
    pub fn on_created(&self, id: i64) -> Self {
        Self {
            target: format!("{}:{id}", self.target),
            ..self.clone()
        }
    }
}

/// A stored audit row, with the name of the token that acted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// The row's id (grows with each row).
    pub id: i64,
    /// The name of the token that acted.
    pub token_name: String,
    /// The row as appended.
    pub entry: NewAuditEntry,
}

/// Which audit rows to read: each filter given must match exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only the rows of the token with this name.
    pub token_name: Option<String>,
    /// Only the rows of this action.
    pub action: Option<String>,
    /// Only the rows on this target.
    pub target: Option<String>,
    /// At most this many rows (the newest).
    pub limit: u32,
}

/// The operator tokens and the append-only audit of what they did.
#[async_trait]
pub trait OperatorStore: Send + Sync {
    /// Creates a token; `None` when its name (or, never in practice, its secret's hash) is
    /// taken already.
    async fn create_operator_token(
        &self,
        token: NewOperatorToken,
    ) -> Result<Option<OperatorToken>, StoreError>;

    /// The unrevoked token whose secret has this SHA-256 (lower-case hex), if any.
    async fn operator_token_by_hash(
        &self,
        secret_hash: &str,
    ) -> Result<Option<OperatorToken>, StoreError>;

    /// Revokes the unrevoked token with this name at `now`; `false` when there is none.
    async fn revoke_operator_token(
        &self,
        name: &str,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Every token, revoked or not, in the order created.
    async fn operator_tokens(&self) -> Result<Vec<OperatorToken>, StoreError>;

    /// Appends one audit row (and its `operator_action` event) on its own; answers its id.
    /// Only for a call that changed nothing (refused, or failed): a change appends its row in
    /// its own transaction, through the `audit` argument of the store method that makes it.
    async fn append_audit(&self, entry: NewAuditEntry) -> Result<i64, StoreError>;

    /// The audit rows that match `filter`, newest first.
    async fn audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError>;
}
