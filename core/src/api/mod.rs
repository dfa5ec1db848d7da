//! The endpoints, one module per area, and the routing table that names them all.

pub(crate) mod account;
pub(crate) mod buy;
mod change;
pub(crate) mod chat;
pub(crate) mod clans;
mod community;
pub(crate) mod config;
pub(crate) mod deprecated;
pub(crate) mod device;
pub(crate) mod friend_code;
pub(crate) mod health;
pub(crate) mod leaderboard;
pub(crate) mod login;
pub(crate) mod matches;
pub(crate) mod metrics;
pub(crate) mod openapi;
pub(crate) mod packs;
mod params;
pub(crate) mod polls;
pub(crate) mod profile;
pub(crate) mod quests;
pub(crate) mod receipts;
mod reward_view;
pub(crate) mod rewards;
mod session;
pub(crate) mod shop;
mod sign_in;
pub(crate) mod tournaments;
pub(crate) mod tracks;
mod user_view;
pub(crate) mod whitelist;

use http::Method;

use crate::http::{Router, Routes, handler};

/// Every route of the API.
pub(crate) fn routes() -> Router {
    table().build()
}

/// The routing table: every path pattern and method with its handler.
pub(crate) fn table() -> Routes {
    Routes::default()
        .route(Method::GET, "/api", handler(health::check))
        .route(Method::GET, "/api/openapi.json", handler(openapi::document))
        .route(Method::GET, "/api/metrics/update", handler(metrics::ignore))
        .route(
            Method::POST,
            "/api/metrics/update",
            handler(metrics::accept),
        )
        .route(Method::GET, "/api/config", handler(config::client_config))
        .route(
            Method::POST,
            "/api/validate/device/{deviceId}",
            handler(device::sign_in),
        )
        .route(
            Method::POST,
            "/api/validate/chat/{authToken}",
            handler(chat::validate),
        )
        .route(
            Method::GET,
            "/api/user/{userKey}",
            handler(account::get_user),
        )
        .route(
            Method::POST,
            "/api/user/{userKey}/clear-sessions",
            handler(account::clear_sessions),
        )
        .route(
            Method::POST,
            "/api/user/{userKey}/delete-account",
            handler(account::delete_account),
        )
        .route(Method::GET, "/api/shop/available", handler(shop::available))
        .route(
            Method::POST,
            "/api/shop/chat/handle",
            handler(receipts::chat),
        )
        .route(
            Method::POST,
            "/api/shop/engine/handle",
            handler(receipts::engine),
        )
        .route(Method::POST, "/api/user/{userKey}/buy", handler(buy::buy))
        .route(
            Method::POST,
            "/api/user/{userKey}/pack/open",
            handler(packs::open),
        )
        .route(
            Method::GET,
            "/api/user/{userKey}/rewards",
            handler(rewards::list),
        )
        .route(
            Method::POST,
            "/api/user/{userKey}/rewards/claim",
            handler(rewards::claim),
        )
        .route(
            Method::POST,
            "/api/user/{userKey}/friend-code/update",
            handler(friend_code::update),
        )
        .route(Method::GET, "/user/login/{provider}", handler(login::login))
        .route(
            Method::POST,
            "/user/login/{provider}",
            handler(login::login),
        )
        .route(
            Method::GET,
            "/user/validate/{provider}",
            handler(login::validate),
        )
        .route(
            Method::POST,
            "/user/validate/{provider}",
            handler(login::validate),
        )
        .route(Method::GET, "/user/logout", handler(account::logout))
        .route(Method::GET, "/user/{userKey}", handler(account::check_key))
        .route(
            Method::POST,
            "/api/validate/idpthree",
            handler(deprecated::idpthree),
        )
        .route(
            Method::POST,
            "/api/validate/gamenet",
            handler(deprecated::gamenet),
        )
        .route(
            Method::POST,
            "/api/validate/idpone/{authCode}",
            handler(deprecated::idpone),
        )
        .route(
            Method::POST,
            "/api/validate/idptwo/{accessToken}",
            handler(deprecated::idptwo),
        )
        .route(
            Method::GET,
            "/api/leaderboard/live",
            handler(leaderboard::live),
        )
        .route(Method::GET, "/api/leaderboard", handler(leaderboard::live))
        .route(
            Method::GET,
            "/api/profile/{friendCode}",
            handler(profile::profile),
        )
        .route(
            Method::GET,
            "/api/poll/available",
            handler(polls::available),
        )
        .route(
            Method::POST,
            "/api/poll/vote/{pollId}",
            handler(polls::vote),
        )
        .route(
            Method::GET,
            "/api/{tournamentCode}/join",
            handler(tournaments::check),
        )
        .route(
            Method::GET,
            "/api/tournament/{tournamentCode}/join",
            handler(tournaments::check),
        )
        .route(
            Method::POST,
            "/api/tournament/{tournamentCode}/join",
            handler(tournaments::join),
        )
        .route(
            Method::GET,
            "/api/tournament/{tournamentCode}/whitelist",
            handler(whitelist::list),
        )
        .route(
            Method::POST,
            "/api/tournament/{tournamentCode}/whitelist/update",
            handler(whitelist::update),
        )
        .route(
            Method::GET,
            "/api/clan/available",
            handler(clans::available),
        )
        .route(Method::POST, "/api/clan/create", handler(clans::create))
        .route(
            Method::POST,
            "/api/clan/{clanId}/invite",
            handler(clans::invite),
        )
        .route(
            Method::POST,
            "/api/clan/{clanId}/join",
            handler(clans::join),
        )
        .route(
            Method::POST,
            "/api/clan/{clanId}/leave",
            handler(clans::leave),
        )
        .route(Method::POST, "/internal/matches", handler(matches::report))
        .route(
            Method::GET,
            "/api/quest/available",
            handler(quests::available),
        )
        .route(Method::GET, "/api/reward/tracks", handler(tracks::list))
        .route(
            Method::POST,
            "/api/reward/tracks/{trackId}/buy",
            handler(tracks::buy),
        )
        .route(
            Method::POST,
            "/api/reward/track/{trackId}/buy",
            handler(tracks::buy),
        )
        .route(
            Method::POST,
            "/api/reward/tracks/{trackId}/skip",
            handler(tracks::skip),
        )
        .route(
            Method::POST,
            "/api/reward/track/{trackId}/skip",
            handler(tracks::skip),
        )
        .route(
            Method::GET,
            "/api/reward/tracks/mid-season",
            handler(tracks::mid_season),
        )
        .route(
            Method::POST,
            "/api/reward/tracks/mid-season/buy",
            handler(tracks::mid_season),
        )
}
