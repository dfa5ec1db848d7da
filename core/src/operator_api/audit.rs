//! `GET /operator/api/audit?token=&action=&target=&limit=`: the audit rows, newest first.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::views::When;
use crate::http::ApiError;
use crate::http::params::{WholeNumber, request_parameters};
use crate::store::AuditFilter;

/// How many rows an audit read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

request_parameters! {
    /// The filters of `GET /operator/api/audit`.
    pub(crate) struct AuditQuery {
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

/// One audit row.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct AuditRow {
    /// The row's id.
    pub id: i64,
    /// The name of the token that acted.
    pub token: String,
    /// When.
    pub at: When,
    /// What (`grant`, `poll-create`, ...).
    pub action: String,
    /// On what (`account:42`, `poll:7`, ...).
    pub target: String,
    /// Why, as the operator said.
    pub reason: String,
    /// `done`, `refused: why` or `failed: why`.
    pub result: String,
}

/// The audit rows asked for.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct AuditAnswer {
    /// The rows, newest first.
    pub audit: Vec<AuditRow>,
}

/// `GET /audit`.
pub(crate) struct Audit;

impl Endpoint for Audit {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/audit";
    const ID: &'static str = "audit";
    const TAG: &'static str = "audit";
    const ABOUT: &'static str = "The audit rows matching the filters, newest first.";
    type Params = AuditQuery;
    type Answer = AuditAnswer;
}

impl Reads for Audit {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<AuditQuery>) -> Result<AuditAnswer, ApiError> {
        let query = call.params;
        let filter = AuditFilter {
            token_name: query.token,
            action: query.action,
            target: query.target,
            limit: query.limit.map_or(DEFAULT_LIMIT, |limit| {
                u32::try_from(limit.0).unwrap_or(DEFAULT_LIMIT)
            }),
        };
        let audit = state
            .app
            .store
            .audit(&filter)
            .await?
            .into_iter()
            .map(|row| AuditRow {
                id: row.id,
                token: row.token_name,
                at: row.entry.at.into(),
                action: row.entry.action,
                target: row.entry.target,
                reason: row.entry.reason,
                result: row.entry.result,
            })
            .collect();
        Ok(AuditAnswer { audit })
    }
}
