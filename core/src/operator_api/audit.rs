//! `GET /operator/api/audit?token=&action=&target=&limit=`: the audit rows, newest first.

use serde_json::json;

use super::{OperatorState, auth, views};
use crate::http::params::{WholeNumber, parameters};
use crate::http::{ApiError, Incoming, Reply};
use crate::store::AuditFilter;

/// How many rows an audit read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

parameters! {
    /// The filters of `GET /operator/api/audit`.
    struct AuditQuery {
        /// Only the rows of the token with this name
        token: Option<String> = Query "token",
        /// Only the rows of this action (`grant`, `refund`, `remove`, `ban`, `unban`, `revoke-keys`, `poll-create`, `tournament-edit`, `content-publish`, ...)
        action: Option<String> = Query "action",
        /// Only the rows on this target (`account:42`, `poll:7`, `tournament:spring-cup`, `content:12`)
        target: Option<String> = Query "target",
        /// At most this many rows, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

/// The audit rows matching the filters, newest first.
pub(super) async fn audit(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = AuditQuery::read(&incoming)?;
    let filter = AuditFilter {
        token_name: query.token,
        action: query.action,
        target: query.target,
        limit: query.limit.map_or(DEFAULT_LIMIT, |limit| {
            u32::try_from(limit.0).unwrap_or(DEFAULT_LIMIT)
        }),
    };
    let rows: Vec<_> = state
        .app
        .store
        .audit(&filter)
        .await?
        .into_iter()
        .map(|row| {
            json!({
                "id": row.id,
                "token": row.token_name,
                "at": views::rfc3339(row.entry.at),
                "action": row.entry.action,
                "target": row.entry.target,
                "reason": row.entry.reason,
                "result": row.entry.result,
            })
        })
        .collect();
    Ok(Reply::success(&json!({ "audit": rows })))
}
