//! `GET /operator/console/webhooks`: the webhooks' dead letters (the API's delivery log with
//! `outcome=dead`), each with a form to replay it for a full token, and the replays asked for
//! with where each stands.

use askama::Template;
use http::StatusCode;

use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply, Routes};
use crate::operator_api::endpoint::Endpoint;
use crate::operator_api::replays::{DeliveryPath, Replay, ReplayView, Replays, ReplaysQuery};
use crate::operator_api::webhooks::{DeliveryRow, Webhooks, WebhooksQuery};

/// The dead letters and the replays.
#[derive(Template)]
#[template(path = "console/webhooks.html")]
struct WebhooksPage {
    frame: Frame,
    dead: Vec<DeliveryRow>,
    replays: Vec<ReplayView>,
    error: Option<String>,
}

impl WebhooksPage {
    /// Whether a replay of the dead letter `delivery` is pending (no second one is offered).
    fn pending(&self, delivery: &i64) -> bool {
        self.replays
            .iter()
            .any(|replay| replay.delivery == *delivery && replay.state == "pending")
    }
}

/// The webhooks' routes.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = get(routes, "/webhooks", signed_in(page));
    post(routes, Replay::PATH, checked(replay))
}

/// `GET /webhooks`: the newest dead letters and replays.
async fn page(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let dead = state
        .api
        .read::<Webhooks>(session.secret(), &WebhooksQuery::with_outcome(Some("dead")))
        .await;
    let replays = state
        .api
        .read::<Replays>(session.secret(), &ReplaysQuery::newest())
        .await;
    let (status, dead, replays, error) = match (dead, replays) {
        (Ok(dead), Ok(replays)) => (StatusCode::OK, dead.deliveries, replays.replays, None),
        (Err(failure), _) | (_, Err(failure)) => (
            failure.status,
            Vec::new(),
            Vec::new(),
            Some(failure.to_string()),
        ),
    };
    Ok(response::page(
        status,
        &WebhooksPage {
            frame: Frame::of(&session, &incoming),
            dead,
            replays,
            error,
        },
    ))
}

/// `POST /webhooks/{deliveryId}/replay`: `{reason}`.
async fn replay(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let change = Change::<Replay> {
        params: DeliveryPath::from_request(&incoming)?,
        body: Body::new(&incoming.query).reason().build(),
        label: "Replay",
        next: format!("{PREFIX}/webhooks"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
