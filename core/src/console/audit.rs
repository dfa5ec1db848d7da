//! `GET /operator/console/audit`: the audit rows, newest first, filtered by token, action and
//! target as the API filters them.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call;
use super::frame::Frame;
use super::session::Session;
use super::when::When;
use super::{ConsoleState, players, response};
use crate::http::{ApiError, Incoming, Reply};

/// The filters, as the page's form and the API name them.
const FILTERS: [&str; 4] = ["token", "action", "target", "limit"];

/// The API's answer.
#[derive(Deserialize)]
struct AuditAnswer {
    audit: Vec<AuditRow>,
}

/// One audit row.
#[derive(Deserialize)]
struct AuditRow {
    id: i64,
    token: String,
    at: When,
    action: String,
    target: String,
    reason: String,
    result: String,
}

impl AuditRow {
    /// The player page of the row's target, when it is an account.
    fn target_page(&self) -> Option<String> {
        self.target.strip_prefix("account:").map(players::location)
    }

    /// Whether the change was made.
    fn done(&self) -> bool {
        self.result == "done"
    }
}

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
    let path = api_call::with_query(
        "/audit",
        &[
            ("token", &token),
            ("action", &action),
            ("target", &target),
            ("limit", &limit),
        ],
    );
    let answer = api_call::get(&state.api, session.secret(), &path)
        .await
        .and_then(api_call::read::<AuditAnswer>);
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
