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

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::change_call::{Write, reasoned};
use super::endpoint::{Changes, Endpoint, NoBody, Read, Reads};
use super::views::When;
use crate::http::params::{PositiveId, WholeNumber, request_parameters};
use crate::http::{ApiError, ErrorCode};
use crate::store::{ReplayRequested, WebhookDelivery, WebhookOutcome, WebhookReplay};

/// How many replays a read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

request_parameters! {
    /// The dead letter a replay is asked for.
    pub(crate) struct DeliveryPath {
        /// The dead letter's delivery row (`id` in `GET /operator/api/webhooks?outcome=dead`)
        id: PositiveId = Path "deliveryId",
    }
}

request_parameters! {
    /// The filters of `GET /operator/api/webhooks/replays`.
    pub(crate) struct ReplaysQuery {
        /// At most this many replays, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

impl ReplaysQuery {
    /// The newest replays.
    pub(crate) fn newest() -> Self {
        Self { limit: None }
    }
}

/// The body of a replay: why.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReplayBody {
    /// Why, for the audit.
    pub reason: String,
}

/// A replay and where it stands.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReplayView {
    /// The replay's id.
    pub id: i64,
    /// The dead letter's delivery row.
    pub delivery: i64,
    /// The webhook's URL.
    pub url: String,
    /// The batch's first relay position.
    pub first_position: i64,
    /// The batch's last relay position.
    pub last_position: i64,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    /// Its failed attempts so far.
    pub failures: u32,
    /// When it is tried again.
    pub retry_at: Option<When>,
    /// Its last failure.
    pub error: Option<String>,
    /// When it was asked for.
    pub requested: When,
    /// When it last changed.
    pub updated: When,
}

impl ReplayView {
    /// A replay as the API shows it.
    fn of(replay: &WebhookReplay) -> Self {
        Self {
            id: replay.id,
            delivery: replay.delivery,
            url: replay.url.clone(),
            first_position: replay.positions.0,
            last_position: replay.positions.1,
            state: replay.state.as_str().to_owned(),
            failures: replay.failures,
            retry_at: replay.retry_at.map(When::from),
            error: replay.error.clone(),
            requested: replay.requested.into(),
            updated: replay.updated.into(),
        }
    }
}

/// The replay asked for.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ReplayAnswer {
    /// The replay, pending.
    pub replay: ReplayView,
}

/// `POST /webhooks/{deliveryId}/replay`.
pub(crate) struct Replay;

impl Endpoint for Replay {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/webhooks/{deliveryId}/replay";
    const ID: &'static str = "replayDeadLetter";
    const TAG: &'static str = "webhooks";
    const ABOUT: &'static str = "Delivers the dead letter again to its URL: a durable request \
        that the URL's webhook task carries out on one node, with the webhook's retries; 404 \
        `unknown_webhook_delivery`, 409 `not_dead_letter`, `webhook_not_configured` (no webhook \
        of this node has the URL), `dead_letter_expired`, `replay_pending`.";
    type Params = DeliveryPath;
    type Answer = ReplayAnswer;
}

impl Changes for Replay {
    const ACTION: &'static str = "webhook-replay";
    const TARGET: &'static str = "webhook-delivery:{deliveryId}";
    type Body = ReplayBody;
    type Changed = ReplayAnswer;

    async fn change(
        state: OperatorState,
        call: Write<DeliveryPath, ReplayBody>,
    ) -> Result<ReplayAnswer, ApiError> {
        let id = call.path.id.0;
        let store = state.app.store.as_ref();
        let delivery = store
            .webhook_delivery(id)
            .await?
            .ok_or_else(|| ApiError::NotFound {
                code: ErrorCode::UnknownWebhookDelivery,
                message: format!("no webhook delivery attempt has the id {id}"),
            })?;
        replayable(&state, &delivery)?;
        let now = state.app.clock.now();
        match store
            .request_webhook_replay(&delivery, now, call.audit())
            .await?
        {
            ReplayRequested::Requested(replay) => Ok(ReplayAnswer {
                replay: ReplayView::of(&replay),
            }),
            ReplayRequested::AlreadyPending => Err(ApiError::Conflict {
                code: ErrorCode::ReplayPending,
                message: format!("a replay of dead letter {} is pending already", delivery.id),
            }),
            ReplayRequested::EventsGone => Err(expired(&delivery)),
        }
    }

    async fn answer(_: OperatorState, changed: ReplayAnswer) -> Result<ReplayAnswer, ApiError> {
        Ok(changed)
    }
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

/// The replays asked for.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ReplaysAnswer {
    /// The replays, newest first.
    pub replays: Vec<ReplayView>,
}

/// `GET /webhooks/replays`.
pub(crate) struct Replays;

impl Endpoint for Replays {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/webhooks/replays";
    const ID: &'static str = "replays";
    const TAG: &'static str = "webhooks";
    const ABOUT: &'static str = "The replays of dead letters, newest first, with where each \
        stands.";
    type Params = ReplaysQuery;
    type Answer = ReplaysAnswer;
}

impl Reads for Replays {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<ReplaysQuery>,
    ) -> Result<ReplaysAnswer, ApiError> {
        let limit = call.params.limit.map_or(DEFAULT_LIMIT, |limit| {
            u32::try_from(limit.0).unwrap_or(DEFAULT_LIMIT)
        });
        let replays = state
            .app
            .store
            .webhook_replays(limit)
            .await?
            .iter()
            .map(ReplayView::of)
            .collect();
        Ok(ReplaysAnswer { replays })
    }
}

reasoned!(ReplayBody);
