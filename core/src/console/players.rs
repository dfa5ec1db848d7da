//! `GET /operator/console/players?...`: one player as the API shows it (account, holdings,
//! the ledger with running balances, key generation, recent matches, reward-track progress), with
//! the forms that change it for a full token.

use askama::Template;
use http::StatusCode;
use serde::Deserialize;

use super::api_call::{self, Failure};
use super::frame::Frame;
use super::home::HomePage;
use super::session::Session;
use super::shown::Shown;
use super::when::When;
use super::{ConsoleState, PREFIX, response};
use crate::http::{ApiError, Incoming, Reply};

/// The ways the API finds a player, as query parameters the console passes on.
const LOOKUPS: [&str; 5] = ["friendCode", "accountId", "deviceId", "provider", "subject"];

/// The API's answer about one player.
#[derive(Deserialize)]
pub(super) struct PlayerAnswer {
    /// The account.
    pub account: AccountView,
    #[serde(default)]
    items: Vec<Holding>,
    #[serde(default)]
    packs: Vec<Holding>,
    #[serde(default)]
    ledger: Vec<LedgerRow>,
    /// How many times all the account's keys were revoked.
    #[serde(rename = "keyGeneration")]
    key_generation: i64,
    /// The newest results.
    matches: Vec<MatchRow>,
    /// Progress on each reward track.
    tracks: Vec<TrackRow>,
}

/// An account as the API shows it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AccountView {
    /// The account's id.
    pub id: i64,
    /// Its friend code.
    pub friend_code: String,
    /// The name the player chose (untrusted text).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    provider: Option<String>,
    banned: bool,
    role: String,
    coins: i64,
    gems: i64,
    level: i64,
    experience: i64,
    created: When,
}

impl AccountView {
    /// What the page says instead of a name the player never set: a device player's account
    /// (signed in with its device only) is told apart.
    fn no_name(&self) -> &'static str {
        if self.provider.as_deref() == Some("device") {
            "device player, no name set"
        } else {
            "no name set"
        }
    }
}

/// Items or packs held.
#[derive(Deserialize)]
struct Holding {
    id: i64,
    #[serde(default)]
    sku: Option<String>,
    /// Its name as players see it (none for one the content no longer has).
    #[serde(default)]
    name: Option<String>,
    quantity: i64,
}

/// A ledger row with the balances after it.
#[derive(Deserialize)]
struct LedgerRow {
    id: i64,
    at: When,
    currency: String,
    delta: i64,
    reason: String,
    #[serde(default)]
    reference: Option<String>,
    coins: i64,
    gems: i64,
}

impl LedgerRow {
    /// The movement with its sign (`+5`, `-100`).
    fn signed_delta(&self) -> String {
        format!("{:+}", self.delta)
    }
}

/// A recent result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MatchRow {
    mode: String,
    ended: When,
    placement: Shown,
    kills: Shown,
    /// Seconds alive.
    time_alive: Shown,
}

/// Progress on a reward track (tier, level and name `null` for a track the content no longer
/// has).
#[derive(Deserialize)]
struct TrackRow {
    track: i64,
    name: Shown,
    stars: i64,
    tier: Shown,
    experience: i64,
    level: Shown,
    pass: bool,
}

/// The player page.
#[derive(Template)]
#[template(path = "console/player.html")]
struct PlayerPage {
    frame: Frame,
    player: PlayerAnswer,
}

/// The console's address of the player page of account `id`.
pub(super) fn location(id: &str) -> String {
    format!(
        "{PREFIX}/players?{}",
        form_urlencoded::Serializer::new(String::new())
            .append_pair("accountId", id)
            .finish()
    )
}

/// The player of account `id` as the API shows it.
pub(super) async fn lookup(
    state: &ConsoleState,
    session: &Session,
    id: &str,
) -> Result<PlayerAnswer, Failure> {
    let path = api_call::with_query("/players", &[("accountId", id)]);
    api_call::read(api_call::get(&state.api, session.secret(), &path).await?)
}

/// The player the query names (as `GET /operator/api/players` takes it); when the API finds
/// no one, the search page again with its answer.
pub(super) async fn player(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let query: Vec<(&str, &str)> = LOOKUPS
        .iter()
        .map(|name| {
            (
                *name,
                incoming.query.optional(name).unwrap_or_default().trim(),
            )
        })
        .collect();
    let path = api_call::with_query("/players", &query);
    let answer = api_call::get(&state.api, session.secret(), &path).await;
    let frame = Frame::of(&session, &incoming);
    match answer.and_then(api_call::read::<PlayerAnswer>) {
        Ok(mut player) => {
            player.ledger.reverse();
            Ok(response::page(
                StatusCode::OK,
                &PlayerPage { frame, player },
            ))
        }
        Err(failure) => Ok(response::page(
            failure.status,
            &HomePage {
                frame,
                error: Some(failure.to_string()),
            },
        )),
    }
}
