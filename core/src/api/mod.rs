//! The endpoints, one module per area, and the one list that declares them all: the routing
//! table and the OpenAPI document are built from it.

pub(crate) mod account;
pub(crate) mod buy;
pub(crate) mod chat;
pub(crate) mod clans;
pub(crate) mod config;
pub(crate) mod deprecated;
pub(crate) mod device;
mod endpoint;
pub(crate) mod friend_code;
pub(crate) mod health;
pub(crate) mod leaderboard;
pub(crate) mod login;
pub(crate) mod matches;
pub(crate) mod metrics;
pub(crate) mod openapi;
pub(crate) mod packs;
pub(crate) mod polls;
pub(crate) mod profile;
pub(crate) mod quests;
pub(crate) mod receipts;
pub(crate) mod rewards;
mod shared;
pub(crate) mod shop;
pub(crate) mod tournaments;
pub(crate) mod tracks;
mod views;
pub(crate) mod whitelist;

use std::collections::BTreeSet;
use std::sync::LazyLock;

use crate::App;
use crate::http::Router;
use crate::store::TournamentCode;

use endpoint::{Endpoint, endpoint};

/// Every endpoint of the API, each declared once: its group, then its handler (whose
/// `#[utoipa::path]` gives the methods and path), or for an alias its method, path and
/// operation id as well.
pub(crate) fn endpoints() -> Vec<Endpoint> {
    vec![
        endpoint!(Read, health::check),
        endpoint!(Read, openapi::document),
        endpoint!(Read, metrics::ignore),
        endpoint!(Write, metrics::accept),
        endpoint!(Read, config::client_config),
        endpoint!(SignIn, device::sign_in),
        endpoint!(SignIn, chat::validate),
        endpoint!(SignIn, login::login),
        endpoint!(SignIn, login::validate),
        endpoint!(Read, account::logout),
        endpoint!(Read, account::check_key),
        endpoint!(Read, account::get_user),
        endpoint!(Write, account::clear_sessions),
        endpoint!(Write, account::delete_account),
        endpoint!(SignIn, deprecated::idpthree),
        endpoint!(SignIn, deprecated::gamenet),
        endpoint!(SignIn, deprecated::idpone),
        endpoint!(SignIn, deprecated::idptwo),
        endpoint!(Read, shop::available),
        endpoint!(Purchase, receipts::chat),
        endpoint!(
            Purchase,
            Post "/api/shop/engine/handle" as "engineReceipt" => receipts::engine,
            like receipts::chat
        ),
        endpoint!(Purchase, buy::buy),
        endpoint!(Purchase, packs::open),
        endpoint!(Read, rewards::list),
        endpoint!(Purchase, rewards::claim),
        endpoint!(Purchase, friend_code::update),
        endpoint!(Read, polls::available),
        endpoint!(Write, polls::vote),
        endpoint!(Read, tournaments::check),
        endpoint!(
            Read,
            Get "/api/{tournamentCode}/join" as "checkTournamentShort" => tournaments::check
        ),
        endpoint!(Write, tournaments::join),
        endpoint!(Read, whitelist::list),
        endpoint!(Write, whitelist::update),
        endpoint!(Read, clans::available),
        endpoint!(Write, clans::create),
        endpoint!(Write, clans::invite),
        endpoint!(Write, clans::join),
        endpoint!(Write, clans::leave),
        endpoint!(GameServer, matches::report),
        endpoint!(Read, quests::available),
        endpoint!(Read, tracks::list),
        endpoint!(Purchase, tracks::buy),
        endpoint!(
            Purchase,
            Post "/api/reward/track/{trackId}/buy" as "buyTrackSingular" => tracks::buy
        ),
        endpoint!(Purchase, tracks::skip),
        endpoint!(
            Purchase,
            Post "/api/reward/track/{trackId}/skip" as "skipTrackTiersSingular" => tracks::skip
        ),
        endpoint!(Read, tracks::mid_season),
        endpoint!(
            Purchase,
            Post "/api/reward/tracks/mid-season/buy" as "buyMidSeasonTrack" => tracks::mid_season
        ),
        endpoint!(Read, leaderboard::live),
        endpoint!(Read, Get "/api/leaderboard" as "leaderboard" => leaderboard::live),
        endpoint!(Read, profile::profile),
    ]
}

/// Every route of the API.
pub(crate) fn routes() -> Router<App> {
    endpoints()
        .iter()
        .fold(crate::http::Routes::default(), |routes, endpoint| {
            endpoint.route(routes)
        })
        .build()
}

/// The OpenAPI document of every endpoint.
pub(crate) fn document() -> utoipa::openapi::OpenApi {
    crate::openapi::document(endpoints().iter().map(Endpoint::documented))
}

/// A tournament code as the API and the operator take it: [`TournamentCode::parse`], and not a
/// literal first segment of an `/api/...` path (`user`, `clan`, ...), so that the short join
/// path `/api/{tournamentCode}/join` never shadows, nor is shadowed by, another endpoint.
pub(crate) fn tournament_code(text: &str) -> Result<TournamentCode, String> {
    static SEGMENTS: LazyLock<BTreeSet<String>> = LazyLock::new(api_segments);
    let code = TournamentCode::parse(text)?;
    if SEGMENTS.contains(code.as_str()) {
        return Err(format!("may not be `{code}`, a path segment of the API"));
    }
    Ok(code)
}

/// The literal first segments of the `/api/...` paths.
fn api_segments() -> BTreeSet<String> {
    endpoints()
        .iter()
        .filter_map(|endpoint| {
            let segment = endpoint.path.strip_prefix("/api/")?.split('/').next()?;
            (!segment.starts_with('{')).then(|| segment.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod document_tests;
#[cfg(test)]
mod tests;
