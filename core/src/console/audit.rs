//! `GET /operator/console/audit`: the audit rows, newest first, filtered by token, action and
//! target as the API filters them.

use askama::Template;
use http::StatusCode;

use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, players, response};
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::audit::{Audit, AuditRow};

/// The filters, as the page's form and the API name them.
const FILTERS: [&str; 4] = ["token", "action", "target", "limit"];

/// The audit page: the filters as given, and the rows or why there are none.
#[derive(Template)]
#[template(path = "console/audit.html")]
struct AuditPage {
    frame: Frame,
    token: String,
    action: String,
    target: String,
    limit: String,
    rows: Vec<AuditRow>,
    error: Option<String>,
}

impl AuditPage {
    /// The player page of a row's target, when it is an account.
    fn target_page(&self, row: &AuditRow) -> Option<String> {
        row.target.strip_prefix("account:").map(players::location)
    }
}

/// The audit, filtered as the query says.
pub(super) async fn audit(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let [token, action, target, limit] = FILTERS.map(|name| {
        incoming
            .query
            .optional(name)
            .unwrap_or_default()
            .trim()
            .to_owned()
    });
    let answer = state
        .api
        .read_request::<Audit>(session.secret(), &incoming)
        .await;
    let (status, rows, error) = match answer {
        Ok(answer) => (StatusCode::OK, answer.audit, None),
        Err(failure) => (failure.status, Vec::new(), Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &AuditPage {
            frame: Frame::of(&session, &incoming),
            token,
            action,
            target,
            limit,
            rows,
            error,
        },
    ))
}
