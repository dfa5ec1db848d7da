//! The endpoints, one module per area, and the one list that declares them all: the routing
//! table and the OpenAPI document are built from it.

mod account;
mod asyncapi;
mod buy;
mod chat;
mod clans;
pub(crate) mod config;
mod deprecated;
mod device;
mod docs;
mod endpoint;
mod friend_code;
mod friends;
mod health;
mod leaderboard;
mod login;
mod matches;
mod metrics;
mod openapi;
mod packs;
mod polls;
mod profile;
mod quests;
mod realtime;
mod receipts;
mod rewards;
pub(crate) mod shared;
mod shop;
mod tournaments;
mod tracks;
mod views;
mod whitelist;

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
        endpoint!(Read, asyncapi::document),
        endpoint!(Read, docs::page),
        endpoint!(Read, docs::asset),
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
        endpoint!(Read, friends::list),
        endpoint!(Write, friends::request),
        endpoint!(Write, friends::accept),
        endpoint!(Write, friends::decline),
        endpoint!(Write, friends::cancel),
        endpoint!(Write, friends::remove),
        endpoint!(Write, friends::block),
        endpoint!(Write, friends::unblock),
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
        endpoint!(Realtime, realtime::open),
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
