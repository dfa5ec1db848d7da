//! The builder and the service that every server mounts.

use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use http::{Request, Response};
use tower::Service;

use crate::app::{App, AppState};
use crate::auth::{Auth, AuthConfig, RecentCallers, SessionCache, UserKeys};
use crate::background::StoreWhileServed;
use crate::clock::{Clock, SystemClock};
use crate::content::Content;
#[cfg(feature = "nats")]
use crate::events::nats::Nats;
use crate::events::subscription::{EventSubscriber, Subscription};
use crate::events::webhook::Webhook;
use crate::events::{RelayedEvent, Sink};
use crate::hooks::Hooks;
use crate::http::{BoxError, RateLimiter, ResponseBody, boxed_request, service_stack};
use crate::leaderboard::Leaderboards;
use crate::live_content::LiveContent;
use crate::metrics::{Metrics, Recorded};
use crate::presence::PresenceWriter;
use crate::realtime::hub::Hub;
use crate::settings::Settings;
use crate::store::Store;

/// Builds a [`SafezoneService`]: a store is required; content, settings, clock, auth and hooks
/// have defaults (the shipped content file, [`Settings::default`], the system clock, no identity
/// providers, no hooks).
pub struct Safezone {
    store: Arc<dyn Store>,
    content: Option<Content>,
    settings: Settings,
    clock: Arc<dyn Clock>,
    auth: AuthConfig,
    hooks: Hooks,
    record_requests: bool,
}

impl Safezone {
    /// Starts a builder over `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            content: None,
            settings: Settings::default(),
            clock: Arc::new(SystemClock),
            auth: AuthConfig::default(),
            hooks: Hooks::new(),
            record_requests: true,
        }
    }

    /// Whether to count and time every request in [`SafezoneService::metrics`] (on unless
    /// turned off; the business counters and gauges are there either way).
    pub fn record_requests(mut self, on: bool) -> Self {
        self.record_requests = on;
        self
    }

    /// Uses this content instead of the shipped one.
    pub fn content(mut self, content: Content) -> Self {
        self.content = Some(content);
        self
    }

    /// Uses these settings instead of the defaults.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Uses this clock instead of the system clock.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Uses this auth configuration (identity providers, chat platform, receipt verifiers).
    pub fn auth(mut self, auth: AuthConfig) -> Self {
        self.auth = auth;
        self
    }

    /// Runs the studio's `hooks` on the changes of money and holdings (purchases, operator
    /// grants, reward claims, renames, match results) before they are applied: see
    /// [`hooks`](crate::hooks).
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The finished service, with every route and layer in place.
    pub fn service(self) -> SafezoneService {
        let leaderboards = Leaderboards::new(Arc::clone(&self.store), Arc::clone(&self.clock));
        leaderboards.start();
        let metrics = Arc::new(Metrics::new(
            Arc::clone(&self.store),
            Arc::clone(&leaderboards),
        ));
        let rate_limiter = Arc::new(RateLimiter::new(&self.settings.rate_limits));
        rate_limiter.start_sweeping();
        let content = self.content.unwrap_or_else(Content::shipped);
        let user_keys = UserKeys::new(self.settings.user_key_signer.clone());
        let sessions = SessionCache::new(
            self.store.account_changes(),
            self.settings.session_cache_entries,
        );
        let events = Arc::new(Subscription::new());
        let content = Arc::new(LiveContent::new(content));
        let node: Arc<str> = uuid::Uuid::new_v4().simple().to_string().into();
        let presence = PresenceWriter::new(
            Arc::clone(&self.store),
            Arc::clone(&self.clock),
            Arc::clone(&node),
        );
        presence.start();
        let realtime = Hub::start(
            Arc::clone(&events),
            Arc::clone(&self.store),
            &content,
            (
                self.settings.realtime.queue,
                self.settings.realtime.per_account,
            ),
            presence,
        );
        let app = Arc::new(AppState {
            store: self.store,
            content,
            settings: self.settings,
            clock: self.clock,
            auth: Auth::new(self.auth),
            leaderboards,
            recent_callers: RecentCallers::default(),
            user_keys,
            sessions,
            metrics: Arc::clone(&metrics),
            rate_limiter,
            realtime,
            hooks: self.hooks,
        });
        let service: Weak<dyn Send + Sync> = Arc::downgrade(&app) as Weak<AppState>;
        let served = StoreWhileServed::new(service, &app.store);
        crate::retention::start(
            served.clone(),
            Arc::clone(&app.clock),
            app.settings.retention_ages(),
            app.settings.retention_sweep_every,
        );
        crate::live_content::follow(&app.content, &app.store, app.settings.content_check_every);
        crate::activity::start(served.clone(), app.settings.events.relay_batch);
        crate::events::relay::start(
            served,
            app.store
                .account_changes()
                .filter(|_| app.settings.session_cache_entries > 0),
            app.settings.events.clone(),
            sinks(&app),
            Arc::clone(&events),
            Arc::clone(&node),
        );
        let router = Arc::new(crate::api::routes());
        SafezoneService {
            stack: service_stack(router, Arc::clone(&app), &app.auth.config.web_origins),
            app,
            recorded: self.record_requests.then(|| Arc::clone(&metrics)),
            metrics,
            events,
            node,
        }
    }
}

/// The external sinks as the settings name them: the webhooks and NATS. A webhook whose HTTP
/// client cannot be built is left out, with an error logged.
fn sinks(app: &App) -> Vec<Arc<dyn Sink>> {
    let settings = &app.settings.events;
    let mut sinks: Vec<Arc<dyn Sink>> = Vec::new();
    for webhook in &settings.webhooks {
        match Webhook::new(
            webhook.clone(),
            settings.webhook_retries,
            Arc::clone(&app.store),
        ) {
            Ok(sink) => sinks.push(Arc::new(sink)),
            Err(error) => tracing::error!(%error, url = %webhook.url, "webhook left out"),
        }
    }
    #[cfg(feature = "nats")]
    if let Some(nats) = &settings.nats {
        sinks.push(Arc::new(Nats::new(nats.clone(), settings.retry_backoff)));
    }
    sinks
}

/// The whole Safezone API as one `tower::Service` over `http` types.
///
/// Accepts any request body `B: http_body::Body`; answers `http::Response<ResponseBody>` and
/// never fails: every error is a JSON response. Cheap to clone, `Send + Sync + 'static`.
#[derive(Clone)]
pub struct SafezoneService {
    stack: crate::http::SharedStack,
    app: App,
    metrics: Arc<Metrics>,
    /// The metrics that count and time each request, when the builder asked for that.
    recorded: Option<Arc<Metrics>>,
    /// This node's channel of the relayed events.
    events: Arc<Subscription>,
    /// This node's name in the leases of the events' sinks and in the presence it writes.
    node: Arc<str>,
}

impl SafezoneService {
    /// The service's metrics, for the metrics listener
    /// ([`metrics::serve`](crate::metrics::serve)) or an embedder's own
    /// ([`Metrics::render`]).
    pub fn metrics(&self) -> Arc<Metrics> {
        Arc::clone(&self.metrics)
    }

    /// The operator API over this service's store, content and clock.
    pub fn operator_api(&self) -> crate::operator_api::OperatorApi {
        crate::operator_api::OperatorApi::new(Arc::clone(&self.app))
    }

    /// The operator API and its web console as one tower Service, for the operator listener
    /// ([`operator_listener::serve`](crate::operator_listener::serve)) or an embedder's own
    /// server, on an address only operators reach.
    pub fn operator_service(&self) -> crate::operator_listener::OperatorService {
        crate::operator_listener::OperatorService::new(self.operator_api())
    }

    /// The metrics exposition and the probes (`/metrics`, `/healthz`, `/readyz`) as a tower
    /// Service, for the metrics listener ([`metrics::serve`](crate::metrics::serve)) or an
    /// embedder's own server.
    pub fn metrics_service(&self) -> crate::metrics::MetricsService {
        crate::metrics::MetricsService::new(self.metrics())
    }

    /// The account whose user key a request presents, for an embedder's own routes beside
    /// Safezone's: the key is read as Safezone's endpoints read it (`Authorization: Bearer`,
    /// the `userKey` query parameter, the session cookie) and checked the same way. `None`
    /// when the request presents no key; an error (401 `invalid_user_key`, 403
    /// `key_mismatch`, 503 when the store cannot answer) that [`ApiError::into_reply`]
    /// answers in Safezone's JSON shape.
    ///
    /// [`ApiError::into_reply`]: crate::http::ApiError::into_reply
    ///
    /// ```no_run
    /// # async fn run(service: safezone_core::SafezoneService) {
    /// let request = http::Request::get("/studio/me")
    ///     .header("authorization", "Bearer 0123...")
    ///     .body(())
    ///     .unwrap();
    /// let (head, _) = request.into_parts();
    /// match service.caller(&head).await {
    ///     Ok(Some(account)) => println!("called by {}", account.friend_code),
    ///     Ok(None) => println!("no user key"),
    ///     Err(error) => println!("{}: {}", error.status(), error.message()),
    /// }
    /// # }
    /// ```
    pub async fn caller(
        &self,
        head: &http::request::Parts,
    ) -> Result<Option<crate::store::Account>, crate::http::ApiError> {
        let incoming = crate::http::Incoming::of_head(head);
        let session = crate::api::shared::session::optional(&self.app, &incoming).await?;
        Ok(session.map(|session| session.account))
    }

    /// A new subscription to the domain events relayed from now on, in relay order (at least
    /// once: deduplicate by [`DomainEvent::id`](crate::events::DomainEvent::id)). Every node's
    /// subscribers receive every event, whichever node relayed it. Its
    /// [`recv`](EventSubscriber::recv) never loses an event: a subscriber that falls behind
    /// reads what it missed from the outbox. Keep [`EventSubscriber::position`] to resume
    /// after a restart with [`Self::subscribe_events_from`].
    ///
    /// ```no_run
    /// # async fn run(service: safezone_core::SafezoneService) {
    /// use safezone_core::events::EventPayload;
    ///
    /// let mut events = service.subscribe_events();
    /// while let Some(event) = events.recv().await {
    ///     if let EventPayload::Purchase { reference, .. } = &event.payload {
    ///         println!("account {:?} bought {reference}", event.account);
    ///     }
    /// }
    /// # }
    /// ```
    pub fn subscribe_events(&self) -> EventSubscriber {
        self.events.subscribe(Arc::clone(&self.app.store), None)
    }

    /// A snapshot of the leaderboards for a graceful stop, once the last request was answered,
    /// so that the next start reads little of the logs: written within
    /// [`Settings::stop_snapshot_within`](crate::Settings::stop_snapshot_within) (none when
    /// zero), given up past it (the stop never waits longer; a snapshot cut short is never
    /// read). Answers the snapshot's id when one was written. The command line's server calls
    /// it on SIGTERM and Ctrl-C; an embedder calls it on its own stop.
    pub async fn snapshot_boards_at_stop(&self) -> Option<i64> {
        let within = self.app.settings.stop_snapshot_within;
        if within.is_zero() {
            return None;
        }
        self.app.leaderboards.snapshot_at_stop(within).await
    }

    /// Ends the leases this node holds on the events' sinks and on replays of dead letters, so
    /// that another node delivers at once rather than when they run out (30 s). The command
    /// line's server calls it after its last request on SIGTERM and Ctrl-C; an embedder calls
    /// it on its own stop. A delivery still in flight may then be made twice (at least once).
    pub async fn release_event_leases(&self) {
        match self.app.store.release_event_leases(&self.node).await {
            Ok(released) => tracing::debug!(released, "the events' leases released"),
            Err(error) => tracing::warn!(%error, "releasing the events' leases failed"),
        }
    }

    /// A subscription to the domain events after relay position `position` (a position an
    /// [`EventSubscriber`] answered before, or 0 for every event since the outbox began):
    /// first those in the outbox, then the new ones, none lost.
    pub fn subscribe_events_from(&self, position: i64) -> EventSubscriber {
        self.events
            .subscribe(Arc::clone(&self.app.store), Some(position))
    }

    /// The outbox read in relay order: at most `limit` events after relay position `position`,
    /// each with its position. Read again after the last position answered: positions are
    /// given to committed events only, in increasing order, so this never skips an event
    /// (reading after an event *id* could: ids may commit out of order).
    ///
    /// ```no_run
    /// # async fn run(service: safezone_core::SafezoneService) -> Result<(), safezone_core::store::StoreError> {
    /// let mut position = 0;
    /// loop {
    ///     let events = service.events_after(position, 500).await?;
    ///     let Some(last) = events.last() else { break };
    ///     position = last.position;
    ///     for relayed in &events {
    ///         println!("{} {}", relayed.event.id, relayed.event.payload.kind());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn events_after(
        &self,
        position: i64,
        limit: u32,
    ) -> Result<Vec<RelayedEvent>, crate::store::StoreError> {
        self.app.store.relayed_events(position, limit).await
    }

    /// Closes this node's realtime channels (close code 1001, so that their clients reconnect
    /// to another node) and refuses new ones; waits 5 seconds at most for them to close, then
    /// takes their players off this node's presence (offline, last seen now). The
    /// command line's server calls it first on SIGTERM and Ctrl-C; an embedder calls it on
    /// its own stop, before stopping its server. Dropping the service closes them too.
    pub async fn close_realtime_channels(&self) {
        self.app.realtime.stop().await;
    }

    /// How many realtime channels are open on this node.
    pub fn realtime_channels(&self) -> usize {
        self.app.realtime.open()
    }

    /// How many realtime channels `account` has open on this node (for presence: an account
    /// with one is online here).
    pub fn realtime_channels_of(&self, account: crate::store::AccountId) -> usize {
        self.app.realtime.channels_of(account)
    }

    /// The settings the service was built with: what a server adapter reads of them, such
    /// as [`Settings::connection_limits`].
    pub fn settings(&self) -> &Settings {
        &self.app.settings
    }
}

impl<B> Service<Request<B>> for SafezoneService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Recorded<crate::http::SharedStackFuture>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.stack.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let method = request.method().clone();
        Recorded::new(
            self.stack.call(boxed_request(request)),
            self.recorded.as_ref(),
            &method,
        )
    }
}
