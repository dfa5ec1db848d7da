//! `GET /operator/api/webhooks?outcome=&limit=`: the webhooks' delivery log, newest first;
//! `outcome=dead` lists the dead-lettered batches (their last attempt failed and they were
//! given up), which `POST /operator/api/webhooks/{deliveryId}/replay` delivers again
//! ([`replays`](super::replays)).

use serde_json::json;

use super::{OperatorState, auth, views};
use crate::http::params::{WholeNumber, parameters};
use crate::http::{ApiError, Incoming, Reply};
use crate::store::WebhookOutcome;

/// How many rows a read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

parameters! {
    /// The filters of `GET /operator/api/webhooks`.
    struct WebhooksQuery {
        /// Only the attempts with this outcome (`delivered`, `failed`, `dead`)
        outcome: Option<String> = Query "outcome",
        /// At most this many rows, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

/// The logged webhook attempts matching the filters, newest first.
pub(super) async fn webhooks(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = WebhooksQuery::read(&incoming)?;
    let outcome = query
        .outcome
        .map(|outcome| {
            WebhookOutcome::parse(&outcome).ok_or_else(|| {
                ApiError::invalid("outcome", "must be `delivered`, `failed` or `dead`")
            })
        })
        .transpose()?;
    let limit = query.limit.map_or(DEFAULT_LIMIT, |limit| {
        u32::try_from(limit.0).unwrap_or(DEFAULT_LIMIT)
    });
    let rows: Vec<_> = state
        .app
        .store
        .webhook_deliveries(outcome, limit)
        .await?
        .into_iter()
        .map(|row| {
            let attempt = row.attempt;
            json!({
                "id": row.id,
                "url": attempt.url,
                "firstEvent": attempt.first_event,
                "lastEvent": attempt.last_event,
                "events": attempt.events,
                "firstPosition": attempt.positions.map(|(first, _)| first),
                "lastPosition": attempt.positions.map(|(_, last)| last),
                "attempt": attempt.attempt,
                "outcome": attempt.outcome.as_str(),
                "status": attempt.status,
                "error": attempt.error,
                "at": views::rfc3339(attempt.at),
            })
        })
        .collect();
    Ok(Reply::success(&json!({ "deliveries": rows })))
}
