//! The endpoints, one module per area, and the routing table that names them all.

mod account;
mod config;
mod deprecated;
mod device;
mod health;
mod metrics;
mod params;
mod session;
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
