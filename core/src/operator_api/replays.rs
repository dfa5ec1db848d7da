//! Dead letters delivered again: `POST /operator/api/webhooks/{deliveryId}/replay` `{reason}`
//! asks for the dead-lettered batch of that delivery row to be delivered again to its URL (a
//! durable request the URL's sink carries out on some node, with the webhook's retries; the
//! sink's cursor and the other sinks are not touched), audited as `webhook-replay` on
//! `webhook-delivery:N`; `GET /operator/api/webhooks/replays?limit=` lists the replays, newest
//! first, with where each stands.
//!
//! A replay needs the batch's events: delivered events are deleted after the events' retention
//! (`--events-retention-hours`), so a dead letter older than that is refused (409
//! `dead_letter_expired`); once a replay is pending, the retention sweep keeps its events until
//! it ends.

use serde::Deserialize;
use serde_json::{Value, json};

use super::audited::{self, Audit, Reasoned, Write, as_is};
use super::{OperatorState, auth, views};
use crate::http::params::{PositiveId, WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{ReplayRequested, WebhookDelivery, WebhookOutcome, WebhookReplay};

/// How many replays a read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

parameters! {
    /// The dead letter a replay is asked for.
    struct DeliveryPath {
        /// The dead letter's delivery row (`id` in `GET /operator/api/webhooks?outcome=dead`)
        id: PositiveId = Path "deliveryId",
    }
}

parameters! {
    /// The filters of `GET /operator/api/webhooks/replays`.
    struct ReplaysQuery {
        /// At most this many replays, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

/// The body of a replay: why.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayBody {
    reason: String,
}

impl Reasoned for ReplayBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST .../webhooks/{deliveryId}/replay` `{reason}` -> `{"replay": {...}}`: 404
/// `unknown_webhook_delivery`, 409 `not_dead_letter`, `webhook_not_configured` (no webhook of
/// this node has the URL), `dead_letter_expired`, `replay_pending`.
pub(super) async fn replay(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let target = format!(
        "webhook-delivery:{}",
        incoming.path("deliveryId").unwrap_or_default()
    );
    let delivery = DeliveryPath::read(&incoming).map(|path| path.id.0);
    let audit = move |_: &Value| Audit {
        action: "webhook-replay",
        target,
    };
    audited::audited(
        state,
        incoming,
        audit,
        delivery,
        |state, call: Write<i64, ReplayBody>| async move {
            let store = state.app.store.as_ref();
            let delivery =
                store
                    .webhook_delivery(call.path)
                    .await?
                    .ok_or_else(|| ApiError::NotFound {
                        code: ErrorCode::UnknownWebhookDelivery,
                        message: format!("no webhook delivery attempt has the id {}", call.path),
                    })?;
            replayable(&state, &delivery)?;
            let now = state.app.clock.now();
            match store
                .request_webhook_replay(&delivery, now, call.audit())
                .await?
            {
                ReplayRequested::Requested(replay) => Ok(json!({ "replay": view(&replay) })),
                ReplayRequested::AlreadyPending => Err(ApiError::Conflict {
                    code: ErrorCode::ReplayPending,
                    message: format!("a replay of dead letter {} is pending already", delivery.id),
                }),
                ReplayRequested::EventsGone => Err(expired(&delivery)),
            }
        },
        as_is,
    )
    .await
}

/// Refuses what cannot be replayed: an attempt that is not a dead letter, a URL no webhook of
/// this node has, a row without the batch's positions.
fn replayable(state: &OperatorState, delivery: &WebhookDelivery) -> Result<(), ApiError> {
    let attempt = &delivery.attempt;
    if attempt.outcome != WebhookOutcome::Dead {
        return Err(ApiError::Conflict {
            code: ErrorCode::NotDeadLetter,
            message: format!(
                "webhook delivery attempt {} is `{}`, not a dead letter",
                delivery.id,
                attempt.outcome.as_str()
            ),
        });
    }
    let webhooks = &state.app.settings.events.webhooks;
    if !webhooks.iter().any(|webhook| webhook.url == attempt.url) {
        return Err(ApiError::Conflict {
            code: ErrorCode::WebhookNotConfigured,
            message: format!("no webhook of this node sends to {}", attempt.url),
        });
    }
    if attempt.positions.is_none() {
        return Err(expired(delivery));
    }
    Ok(())
}

/// The refusal of a dead letter whose events are gone.
fn expired(delivery: &WebhookDelivery) -> ApiError {
    ApiError::Conflict {
        code: ErrorCode::DeadLetterExpired,
        message: format!(
            "the events of dead letter {} are no longer stored (delivered events are kept for \
             the events' retention): it cannot be replayed",
            delivery.id
        ),
    }
}

/// `GET .../webhooks/replays?limit=` -> `{"replays": [...]}`, newest first.
pub(super) async fn replays(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = ReplaysQuery::read(&incoming)?;
    let limit = query.limit.map_or(DEFAULT_LIMIT, |limit| {
        u32::try_from(limit.0).unwrap_or(DEFAULT_LIMIT)
    });
    let replays: Vec<Value> = state
        .app
        .store
        .webhook_replays(limit)
        .await?
        .iter()
        .map(view)
        .collect();
    Ok(Reply::success(&json!({ "replays": replays })))
}

/// A replay as the API shows it.
fn view(replay: &WebhookReplay) -> Value {
    json!({
        "id": replay.id,
        "delivery": replay.delivery,
        "url": replay.url,
        "firstPosition": replay.positions.0,
        "lastPosition": replay.positions.1,
        "state": replay.state.as_str(),
        "failures": replay.failures,
        "retryAt": replay.retry_at.map(views::rfc3339),
        "error": replay.error,
        "requested": views::rfc3339(replay.requested),
        "updated": views::rfc3339(replay.updated),
    })
}
