//! The operator's web console, served on the operator listener under `/operator/console/`
//! (never on the public port): pages rendered by the server (askama templates, a stylesheet
//! and an icon embedded in the binary, no script, a strict content policy) for live-ops people
//! who do not program.
//!
//! The console holds no rule of its own. Each page asks the operator API in-process
//! ([`OperatorApi::answer`], with the signed-in token's secret as bearer) and renders its JSON
//! answer; each form posts to a console route that makes the matching operator API call and
//! redirects back with the API's answer as a one-time message (POST, redirect, GET). Every
//! rule, refusal, audit row and ledger row therefore comes from the API.
//!
//! Sign-in asks for an operator token's secret and has the API open a console session of it
//! (`POST /operator/api/sessions`); the browser keeps only the session's id, in an
//! `HttpOnly; SameSite=Strict` cookie of `/operator/console`. Every request asks the API again,
//! so a session ended (signing out, on any node), expired, or of a revoked token stops working
//! at once. Every POST must come from the console's own pages (`Sec-Fetch-Site`, `Origin`,
//! `Referer`: `origin.rs`), and every form carries a token derived from the session's id
//! (HMAC-SHA256), which every POST but the sign-in must return.

mod assets;
mod audit;
mod change;
mod content;
mod cookie;
mod csrf;
mod deletion;
mod diff_lines;
mod directory;
mod flash;
mod form;
mod frame;
mod home;
mod leaderboards;
mod ledger;
mod matches;
mod origin;
mod overview;
mod player_actions;
mod players;
mod polls;
mod response;
mod session;
mod sign_in;
mod status;
mod tournaments;
mod webhooks;

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::Full;

use crate::http::{
    ApiError, EndpointGroup, Handler, Incoming, RateLimiter, Reply, RequestBody, Router,
    RouterState, Routes, handler,
};
use crate::operator_api::OperatorApi;
use crate::operator_api::endpoint::Endpoint;
use crate::operator_api::ledger::Ledger;
use crate::settings::Settings;
use session::Session;

/// The prefix of every console path.
pub const PREFIX: &str = "/operator/console";

/// The largest form the console accepts: room for a whole content file, percent-encoded.
const FORM_LIMIT: usize = 1024 * 1024;

/// The web console over one operator API. Cheap to clone.
#[derive(Clone)]
pub struct Console {
    state: ConsoleState,
    router: Arc<Router<ConsoleState>>,
}

impl Console {
    /// The console whose pages ask `api`.
    pub fn new(api: OperatorApi) -> Self {
        let mut settings = api.router_state().settings().clone();
        settings.body_limit = settings.body_limit.max(FORM_LIMIT);
        Self {
            state: ConsoleState {
                api,
                settings: Arc::new(settings),
            },
            router: Arc::new(routes().build()),
        }
    }

    /// Whether `path` is the console's: [`PREFIX`] or under it.
    pub fn serves(path: &str) -> bool {
        path.strip_prefix(PREFIX)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// Answers one request whose path is under [`PREFIX`]: an HTML page (errors too), a
    /// redirect or the stylesheet, each with the console's security headers.
    pub async fn answer(&self, request: Request<RequestBody>) -> Response<Full<Bytes>> {
        let had_flash = flash::Flash::sent(request.headers());
        let response = self.router.dispatch(self.state.clone(), request).await;
        response::finish(response, had_flash).await
    }
}

/// What the console's handlers reach: the operator API, and the settings its routes are served
/// with (the application's, with room for a content file in a form).
#[derive(Clone)]
pub(crate) struct ConsoleState {
    api: OperatorApi,
    settings: Arc<Settings>,
}

impl RouterState for ConsoleState {
    type Accounts = <crate::operator_api::OperatorState as RouterState>::Accounts;

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn rate_limiter(&self) -> &RateLimiter {
        self.api.router_state().rate_limiter()
    }

    fn key_accounts(&self) -> &Self::Accounts {
        self.api.router_state().key_accounts()
    }
}

/// A page or action that needs a signed-in operator: without a working token in the cookie,
/// the sign-in page instead.
fn signed_in<F, Fut>(page: F) -> Handler<ConsoleState>
where
    F: Fn(ConsoleState, Session, Incoming) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ApiError>> + Send + 'static,
{
    let page = Arc::new(page);
    handler(move |state: ConsoleState, incoming: Incoming| {
        let page = Arc::clone(&page);
        async move {
            match Session::of(&state, &incoming).await {
                Ok(session) => page(state, session, incoming).await,
                Err(none) => Ok(response::sign_in_again(
                    none,
                    session::secure(&state, &incoming),
                )),
            }
        }
    })
}

/// A form's action: signed in, and the form's token checked (403 page otherwise) before
/// anything is asked of the API.
fn checked<F, Fut>(action: F) -> Handler<ConsoleState>
where
    F: Fn(ConsoleState, Session, Incoming) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ApiError>> + Send + 'static,
{
    let action = Arc::new(action);
    signed_in(move |state, session, incoming| {
        let action = Arc::clone(&action);
        async move {
            if csrf::check(session.secret(), incoming.query.optional(csrf::FIELD)) {
                action(state, session, incoming).await
            } else {
                Ok(response::forbidden_form())
            }
        }
    })
}

/// The console's routes.
fn routes() -> Routes<ConsoleState> {
    let routes = get(Routes::default(), "", handler(home::to_home));
    let routes = get(routes, "/", signed_in(home::home));
    let routes = get(routes, "/assets/console.css", handler(assets::stylesheet));
    let routes = get(routes, "/assets/icon.svg", handler(assets::icon));
    let routes = sign_in::routes(routes);
    let routes = get(routes, "/players", signed_in(players::player));
    let routes = get(routes, "/players/list", signed_in(directory::players));
    let routes = get(routes, Ledger::PATH, signed_in(ledger::ledger));
    let routes = get(routes, "/overview", signed_in(overview::overview));
    let routes = player_actions::routes(routes);
    let routes = deletion::routes(routes);
    let routes = get(
        routes,
        "/leaderboards",
        signed_in(leaderboards::leaderboards),
    );
    let routes = matches::routes(routes);
    let routes = get(routes, "/audit", signed_in(audit::audit));
    let routes = get(routes, "/status", signed_in(status::status));
    let routes = polls::routes(routes);
    let routes = tournaments::routes(routes);
    let routes = webhooks::routes(routes);
    content::routes(routes)
}

/// `routes` with `GET` of `path` (under [`PREFIX`]) answered by `page`.
fn get(
    routes: Routes<ConsoleState>,
    path: &str,
    page: Handler<ConsoleState>,
) -> Routes<ConsoleState> {
    routes.route(
        &Method::GET,
        &format!("{PREFIX}{path}"),
        EndpointGroup::Read,
        page,
    )
}

/// `routes` with `POST` of `path` (under [`PREFIX`]) answered by `action`, once the request is
/// known to come from the console's own pages (403 page otherwise, before anything else).
fn post(
    routes: Routes<ConsoleState>,
    path: &str,
    action: Handler<ConsoleState>,
) -> Routes<ConsoleState> {
    let guarded: Handler<ConsoleState> =
        Arc::new(
            move |state, incoming: Incoming| match origin::refusal(&incoming.headers) {
                Some(why) => Box::pin(async move { Ok(response::forbidden_origin(why)) }),
                None => action(state, incoming),
            },
        );
    routes.route(
        &Method::POST,
        &format!("{PREFIX}{path}"),
        EndpointGroup::Write,
        guarded,
    )
}
