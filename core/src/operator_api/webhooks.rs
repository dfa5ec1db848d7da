//! `GET /operator/api/webhooks?outcome=&limit=`: the webhooks' delivery log, newest first;
//! `outcome=dead` lists the dead-lettered batches (their last attempt failed and they were
//! given up), which `POST /operator/api/webhooks/{deliveryId}/replay` delivers again
//! ([`replays`](super::replays)).

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::views::When;
use crate::http::ApiError;
use crate::http::params::{WholeNumber, request_parameters};
use crate::store::WebhookOutcome;

/// How many rows a read answers unless it asks for fewer or more.
const DEFAULT_LIMIT: u32 = 100;

request_parameters! {
    /// The filters of `GET /operator/api/webhooks`.
    pub(crate) struct WebhooksQuery {
        /// Only the attempts with this outcome (`delivered`, `failed`, `dead`)
        outcome: Option<String> = Query "outcome",
        /// At most this many rows, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

impl WebhooksQuery {
    /// The newest attempts with `outcome` (any, when `None`).
    pub(crate) fn with_outcome(outcome: Option<&str>) -> Self {
        Self {
            outcome: outcome.map(str::to_owned),
            limit: None,
        }
    }
}

/// One logged attempt at delivering a batch of events to a webhook.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeliveryRow {
    /// The row's id (what a replay names).
    pub id: i64,
    /// The webhook's URL.
    pub url: String,
    /// The batch's first event id.
    pub first_event: i64,
    /// The batch's last event id.
    pub last_event: i64,
    /// How many events it held.
    pub events: i64,
    /// The batch's first relay position (`null`: not recorded).
    pub first_position: Option<i64>,
    /// The batch's last relay position.
    pub last_position: Option<i64>,
    /// Which attempt (from 1).
    pub attempt: i32,
    /// `delivered`, `failed` or `dead`.
    pub outcome: String,
    /// The HTTP status the webhook answered, if it answered.
    pub status: Option<i32>,
    /// Why it failed.
    pub error: Option<String>,
    /// When.
    pub at: When,
}

/// The delivery log's rows asked for.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct DeliveriesAnswer {
    /// The attempts, newest first.
    pub deliveries: Vec<DeliveryRow>,
}

/// `GET /webhooks`.
pub(crate) struct Webhooks;

impl Endpoint for Webhooks {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/webhooks";
    const ID: &'static str = "webhookDeliveries";
    const TAG: &'static str = "webhooks";
    const ABOUT: &'static str = "The logged webhook attempts matching the filters, newest \
        first; `outcome=dead` lists the dead letters a replay may deliver again.";
    type Params = WebhooksQuery;
    type Answer = DeliveriesAnswer;
}

impl Reads for Webhooks {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<WebhooksQuery>,
    ) -> Result<DeliveriesAnswer, ApiError> {
        let query = call.params;
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
        let deliveries = state
            .app
            .store
            .webhook_deliveries(outcome, limit)
            .await?
            .into_iter()
            .map(|row| {
                let attempt = row.attempt;
                DeliveryRow {
                    id: row.id,
                    url: attempt.url,
                    first_event: attempt.first_event,
                    last_event: attempt.last_event,
                    events: attempt.events,
                    first_position: attempt.positions.map(|(first, _)| first),
                    last_position: attempt.positions.map(|(_, last)| last),
                    attempt: attempt.attempt,
                    outcome: attempt.outcome.as_str().to_owned(),
                    status: attempt.status,
                    error: attempt.error,
                    at: attempt.at.into(),
                }
            })
            .collect();
        Ok(DeliveriesAnswer { deliveries })
    }
}
