//! The operator console's sessions: what a browser signed in with an operator token holds
//! instead of the token's secret. Each is kept in the database (every node sees it) by its id's
//! SHA-256, with its token and lifetime, and lasts until it is ended (signing out), expires, or
//! its token is revoked, whichever comes first.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{OperatorToken, StoreError};

/// A session to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOperatorSession {
    /// The SHA-256 of the session's id, in lower-case hex.
    pub id_hash: String,
    /// The id of the token it signs in.
    pub token: i64,
    /// When it is opened.
    pub created_at: OffsetDateTime,
    /// When it stops working.
    pub expires_at: OffsetDateTime,
}

/// The console sessions, each of one operator token.
#[async_trait]
pub trait OperatorSessionStore: Send + Sync {
    /// Opens a session of the unrevoked token `session.token`; `false` (and nothing stored)
    /// when that token is revoked or unknown, or the id's hash is taken.
    async fn open_operator_session(&self, session: NewOperatorSession) -> Result<bool, StoreError>;

    /// The token of the session whose id has this SHA-256, if the session works at `now`: not
    /// ended, not expired, and its token not revoked.
    async fn operator_session_token(
        &self,
        id_hash: &str,
        now: OffsetDateTime,
    ) -> Result<Option<OperatorToken>, StoreError>;

    /// Ends the session whose id has this SHA-256 at `now`; `false` when it had ended or
    /// expired already, or there is none.
    async fn end_operator_session(
        &self,
        id_hash: &str,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// The retention sweep's part: deletes at most `limit` sessions that no longer work at
    /// `now` (ended, expired, or of a revoked token); answers how many went.
    async fn delete_finished_operator_sessions(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;
}
