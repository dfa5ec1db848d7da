//! The operator API, served on the operator listener beside `/metrics` (never on the public
//! port): players looked up with their holdings, ledger, keys, results and track progress;
//! grants, refunds, removals, bans, key revocations, deletions and removals of results from
//! the leaderboards; the audit of every change, the webhooks' delivery log, and the node's status, under
//! `/operator/api/`. Callers present an operator token (`Authorization: Bearer <secret>`,
//! created by `operator-token create`); a read-only token may only read. Every change goes through the same change and ledger as the
//! game, and every call that changes (or is refused a change) appends one audit row.

mod audit;
mod auth;
mod players;
mod status;
mod views;
mod webhooks;
mod writes;

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::Full;

use crate::http::{
    EndpointGroup, RateLimiter, RateLimits, RequestBody, Router, RouterState, Routes, handler,
};
use crate::service::{App, AppState};
use crate::settings::Settings;

/// The prefix of every operator API path.
pub const PREFIX: &str = "/operator/api";

/// The operator API of one service: its routes over the application's store, content and
/// clock. Cheap to clone.
#[derive(Clone)]
pub struct OperatorApi {
    state: OperatorState,
    router: Arc<Router<OperatorState>>,
}

impl OperatorApi {
    /// The operator API over `app`.
    pub(crate) fn new(app: App) -> Self {
        Self {
            state: OperatorState {
                app,
                limiter: Arc::new(RateLimiter::new(&RateLimits::default())),
            },
            router: Arc::new(routes().build()),
        }
    }

    /// Answers one request whose path is under [`PREFIX`]: JSON in the public API's envelope,
    /// 404 and 405 JSON as well.
    pub async fn answer(&self, request: Request<RequestBody>) -> Response<Full<Bytes>> {
        self.router.dispatch(self.state.clone(), request).await
    }
}

/// What the operator API's handlers reach: the application (store, content, settings, clock),
/// and rate limits of their own (none: the operator listener is not public).
#[derive(Clone)]
pub(crate) struct OperatorState {
    app: App,
    limiter: Arc<RateLimiter>,
}

impl RouterState for OperatorState {
    type Accounts = AppState;

    fn settings(&self) -> &Settings {
        &self.app.settings
    }

    fn rate_limiter(&self) -> &RateLimiter {
        &self.limiter
    }

    fn key_accounts(&self) -> &AppState {
        &self.app
    }
}

/// The routes of the operator API.
fn routes() -> Routes<OperatorState> {
    let read = |path: &str, routes: Routes<OperatorState>, h| {
        routes.route(
            &Method::GET,
            &format!("{PREFIX}{path}"),
            EndpointGroup::Read,
            h,
        )
    };
    let write = |path: &str, routes: Routes<OperatorState>, h| {
        routes.route(
            &Method::POST,
            &format!("{PREFIX}{path}"),
            EndpointGroup::Write,
            h,
        )
    };
    let routes = read("/players", Routes::default(), handler(players::player));
    let routes = read("/audit", routes, handler(audit::audit));
    let routes = read("/status", routes, handler(status::status));
    let routes = read("/webhooks", routes, handler(webhooks::webhooks));
    let routes = write("/players/{accountId}/grant", routes, handler(writes::grant));
    let routes = write(
        "/players/{accountId}/refund",
        routes,
        handler(writes::refund),
    );
    let routes = write(
        "/players/{accountId}/remove",
        routes,
        handler(writes::remove),
    );
    let routes = write("/players/{accountId}/ban", routes, handler(writes::ban));
    let routes = write(
        "/players/{accountId}/revoke-keys",
        routes,
        handler(writes::revoke_keys),
    );
    let routes = write(
        "/players/{accountId}/delete",
        routes,
        handler(writes::delete),
    );
    write(
        "/players/{accountId}/remove-results",
        routes,
        handler(writes::remove_results),
    )
}
