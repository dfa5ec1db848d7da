//! The operator API, served on the operator listener beside `/metrics` (never on the public
//! port): players looked up with their holdings, ledger, keys, results and track progress;
//! grants, refunds, removals, bans, key revocations, deletions and removals of results from
//! the leaderboards; the recorded matches, and one player's result removed from one;
//! polls, tournaments and their whitelists; the published content; the audit
//! of every change, the webhooks' delivery log and the replays of its dead letters, and the
//! node's status, under `/operator/api/`. Callers present an operator token (`Authorization: Bearer <secret>`,
//! created by `operator-token create`), or a console session of one (`Bearer session_...`,
//! opened with the secret at `POST /operator/api/sessions`); a read-only token may only read. Every change goes through the same change and ledger as the
//! game, and every call that changes (or is refused a change) appends one audit row.

pub(crate) mod activity;
pub(crate) mod audit;
mod audited;
mod auth;
mod change_call;
mod client;
pub(crate) mod content;
pub(crate) mod content_versions;
mod declared;
pub(crate) mod directory;
mod document;
pub(crate) mod endpoint;
pub(crate) mod fields;
pub(crate) mod leaderboards;
pub(crate) mod ledger;
pub(crate) mod matches;
pub(crate) mod players;
pub(crate) mod polls;
pub(crate) mod replays;
pub(crate) mod sessions;
pub(crate) mod status;
pub(crate) mod tournaments;
pub(crate) mod views;
pub(crate) mod webhooks;
pub(crate) mod writes;

use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;

use crate::app::{App, AppState};
use crate::http::{
    EndpointGroup, RateLimiter, RateLimits, Reply, RequestBody, Router, RouterState, Routes,
    handler,
};
use crate::settings::Settings;
pub(crate) use client::Failure;
use declared::{Declared, change, read};

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

/// Every endpoint of the operator API, each declared once (its module's `Endpoint` impl):
/// the routing table, the operator document and the typed client all come from these.
fn endpoints() -> Vec<Declared> {
    vec![
        read::<players::Player>(),
        read::<directory::Players>(),
        read::<ledger::Ledger>(),
        read::<activity::Activity>(),
        change::<writes::GrantPlayer>(),
        change::<writes::Refund>(),
        change::<writes::Remove>(),
        change::<writes::Ban>(),
        change::<writes::RevokeKeys>(),
        change::<writes::Delete>(),
        change::<writes::RemoveResults>(),
        read::<leaderboards::Leaderboard>(),
        read::<matches::Matches>(),
        read::<matches::ShowMatch>(),
        change::<matches::RemoveResult>(),
        read::<audit::Audit>(),
        read::<status::Status>(),
        read::<sessions::OpenSession>(),
        read::<sessions::EndSession>(),
        read::<webhooks::Webhooks>(),
        read::<replays::Replays>(),
        change::<replays::Replay>(),
        read::<polls::Polls>(),
        read::<polls::ShowPoll>(),
        change::<polls::CreatePoll>(),
        change::<polls::EditPoll>(),
        change::<polls::ClosePoll>(),
        read::<tournaments::Tournaments>(),
        read::<tournaments::ShowTournament>(),
        change::<tournaments::CreateTournament>(),
        change::<tournaments::EditTournament>(),
        change::<tournaments::CloseTournament>(),
        change::<tournaments::EditWhitelist>(),
        read::<content::ContentStatus>(),
        read::<content::Diff>(),
        read::<content_versions::Running>(),
        read::<content_versions::Versions>(),
        read::<content_versions::Version>(),
        read::<content_versions::VersionDiff>(),
        change::<content::Publish>(),
        change::<content::Rollback>(),
    ]
}

/// The routes of the operator API: its endpoints, and its document at [`DOCUMENT_PATH`].
fn routes() -> Routes<OperatorState> {
    let routes = endpoints()
        .iter()
        .fold(Routes::default(), |routes, endpoint| endpoint.route(routes));
    routes.route(
        &Method::GET,
        DOCUMENT_PATH,
        EndpointGroup::Read,
        handler(|_: OperatorState, _| async { Ok(Reply::json(StatusCode::OK, &*DOCUMENT)) }),
    )
}

/// Where the operator listener serves the operator document (no token needed: it tells only
/// what the API takes and answers).
pub const DOCUMENT_PATH: &str = "/operator/api/openapi.json";

/// The operator document, built once.
static DOCUMENT: LazyLock<utoipa::openapi::OpenApi> = LazyLock::new(document);

/// The operator API's OpenAPI document (served at [`DOCUMENT_PATH`], written by
/// `openapi --operator`).
pub fn document() -> utoipa::openapi::OpenApi {
    crate::openapi::operator_document(endpoints().iter().map(|endpoint| (endpoint.operation)()))
}
