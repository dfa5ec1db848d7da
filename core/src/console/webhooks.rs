//! `GET /operator/console/webhooks`: the webhooks' dead letters (the API's
//! `GET /operator/api/webhooks?outcome=dead`), each with a form to replay it
//! (`POST /operator/api/webhooks/{deliveryId}/replay`) for a full token, and the replays asked
//! for with where each stands (`GET /operator/api/webhooks/replays`).

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, segment};
use super::change::Change;
use super::form::Body;
use super::frame::Frame;
use super::session::Session;
use super::when::When;
use super::{ConsoleState, PREFIX, checked, get, post, response, signed_in};
use crate::http::{ApiError, Incoming, Reply, Routes};

/// How many dead letters and replays the page shows, the newest.
const SHOWN: &str = "100";

/// `GET /webhooks?outcome=dead`.
#[derive(Deserialize)]
struct DeadAnswer {
    deliveries: Vec<DeadLetter>,
}

/// One dead letter: the last failed attempt at a batch.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeadLetter {
    id: i64,
    url: String,
    first_event: i64,
    last_event: i64,
    events: i64,
    attempt: i64,
    error: Option<String>,
    at: When,
}

/// `GET /webhooks/replays`.
#[derive(Deserialize)]
struct ReplaysAnswer {
    replays: Vec<Replay>,
}

/// One replay as the API shows it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Replay {
    id: i64,
    delivery: i64,
    url: String,
    /// `pending`, `delivered`, `dead` or `expired`.
    state: String,
    failures: i64,
    error: Option<String>,
    requested: When,
    updated: When,
}

impl Replay {
    /// Whether it ended as asked.
    fn delivered(&self) -> bool {
        self.state == "delivered"
    }
}

/// The dead letters and the replays.
#[derive(Template)]
#[template(path = "console/webhooks.html")]
struct WebhooksPage {
    frame: Frame,
    dead: Vec<DeadLetter>,
    replays: Vec<Replay>,
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
    post(routes, "/webhooks/{deliveryId}/replay", checked(replay))
}

/// `GET /webhooks`: the dead letters and the replays.
async fn page(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let dead_path = api_call::with_query("/webhooks", &[("outcome", "dead"), ("limit", SHOWN)]);
    let replays_path = api_call::with_query("/webhooks/replays", &[("limit", SHOWN)]);
    let dead = api_call::get(&state.api, session.secret(), &dead_path)
        .await
        .and_then(api_call::read::<DeadAnswer>);
    let replays = api_call::get(&state.api, session.secret(), &replays_path)
        .await
        .and_then(api_call::read::<ReplaysAnswer>);
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
    let id = segment(incoming.path("deliveryId")?);
    let change = Change {
        path: format!("/webhooks/{id}/replay"),
        body: Body::new(&incoming.query).reason().build(),
        label: "Replay",
        next: format!("{PREFIX}/webhooks"),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
