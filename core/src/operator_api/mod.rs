//! The operator API, served on the operator listener beside `/metrics` (never on the public
//! port): players looked up with their holdings, ledger, keys, results and track progress;
//! grants, refunds, removals, bans, key revocations, deletions and removals of results from
//! the leaderboards; polls, tournaments and their whitelists; the published content; the audit
//! of every change, the webhooks' delivery log and the replays of its dead letters, and the
//! node's status, under `/operator/api/`. Callers present an operator token (`Authorization: Bearer <secret>`,
//! created by `operator-token create`), or a console session of one (`Bearer session_...`,
//! opened with the secret at `POST /operator/api/sessions`); a read-only token may only read. Every change goes through the same change and ledger as the
//! game, and every call that changes (or is refused a change) appends one audit row.

mod audit;
mod audited;
mod auth;
mod content;
mod content_versions;
mod fields;
mod players;
mod polls;
mod replays;
mod sessions;
mod status;
mod tournaments;
mod views;
mod webhooks;
mod writes;

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::Full;

use crate::app::{App, AppState};
use crate::http::{
    EndpointGroup, RateLimiter, RateLimits, RequestBody, Router, RouterState, Routes, handler,
};
use crate::settings::Settings;

/// The prefix of every operator API path.
pub const PREFIX: &str = "/operator/api";

/// The largest body the operator API reads: room for a whole content file, which the public
/// API's limit may not leave.
const BODY_LIMIT: usize = 8 * 1024 * 1024;

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
        let settings = Arc::new(Settings {
            body_limit: app.settings.body_limit.max(BODY_LIMIT),
            ..app.settings.clone()
        });
        Self {
            state: OperatorState {
                app,
                settings,
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

    /// The state its routes run over, whose settings, rate limiter and key resolution the
    /// console's routes share.
    pub(crate) fn router_state(&self) -> &OperatorState {
        &self.state
    }
}

/// What the operator API's handlers reach: the application (store, content, settings, clock),
/// the application's settings with a body limit of [`BODY_LIMIT`] (for content files), and
/// rate limits of their own (none: the operator listener is not public).
#[derive(Clone)]
pub(crate) struct OperatorState {
    app: App,
    settings: Arc<Settings>,
    limiter: Arc<RateLimiter>,
}

impl RouterState for OperatorState {
    type Accounts = AppState;

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn rate_limiter(&self) -> &RateLimiter {
        &self.limiter
    }

    fn key_accounts(&self) -> &AppState {
        &self.app
    }

    /// A change's body over the limit is refused by the change, which audits the refusal,
    /// whether its length was declared or it was sent chunked.
    fn handlers_refuse_large_bodies(&self) -> bool {
        true
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
    let routes = read("/webhooks/replays", routes, handler(replays::replays));
    let routes = write(
        "/webhooks/{deliveryId}/replay",
        routes,
        handler(replays::replay),
    );
    let routes = write("/sessions", routes, handler(sessions::open));
    let routes = write("/sessions/end", routes, handler(sessions::end));
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
    let routes = write(
        "/players/{accountId}/remove-results",
        routes,
        handler(writes::remove_results),
    );
    community_routes(routes)
}

/// The routes of polls, tournaments and their whitelists, and the content.
fn community_routes(routes: Routes<OperatorState>) -> Routes<OperatorState> {
    let route = |routes: Routes<OperatorState>, method: &Method, path: &str, h| {
        let group = if method == Method::GET {
            EndpointGroup::Read
        } else {
            EndpointGroup::Write
        };
        routes.route(method, &format!("{PREFIX}{path}"), group, h)
    };
    let (get, post) = (&Method::GET, &Method::POST);
    let routes = route(routes, get, "/polls", handler(polls::list));
    let routes = route(routes, post, "/polls", handler(polls::create));
    let routes = route(routes, get, "/polls/{pollId}", handler(polls::show));
    let routes = route(routes, post, "/polls/{pollId}", handler(polls::edit));
    let routes = route(routes, post, "/polls/{pollId}/close", handler(polls::close));
    let routes = route(routes, get, "/tournaments", handler(tournaments::list));
    let routes = route(routes, post, "/tournaments", handler(tournaments::create));
    let code = "/tournaments/{tournamentCode}";
    let routes = route(routes, get, code, handler(tournaments::show));
    let routes = route(routes, post, code, handler(tournaments::edit));
    let close = format!("{code}/close");
    let routes = route(routes, post, &close, handler(tournaments::close));
    let whitelist = format!("{code}/whitelist");
    let routes = route(routes, post, &whitelist, handler(tournaments::whitelist));
    let routes = route(routes, get, "/content", handler(content::status));
    let routes = route(routes, post, "/content/diff", handler(content::diff));
    let routes = route(
        routes,
        get,
        "/content/running",
        handler(content_versions::running),
    );
    let routes = route(
        routes,
        get,
        "/content/versions",
        handler(content_versions::list),
    );
    let one = "/content/versions/{version}";
    let routes = route(routes, get, one, handler(content_versions::show));
    let routes = route(routes, post, "/content/publish", handler(content::publish));
    route(
        routes,
        post,
        "/content/rollback",
        handler(content::rollback),
    )
}
