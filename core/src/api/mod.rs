//! The endpoints, one module per area, and the routing table that names them all.

mod account;
mod buy;
mod change;
mod config;
mod deprecated;
mod device;
mod friend_code;
mod health;
mod metrics;
mod packs;
mod params;
mod reward_view;
mod rewards;
mod session;
mod shop;
mod user_view;

use http::Method;

use crate::http::{Router, Routes, handler};

/// Every route of the API.
pub(crate) fn routes() -> Router {
    Routes::default()
        .route(Method::GET, "/api", handler(health::check))
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
        .build()
}
