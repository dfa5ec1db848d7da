//! Prometheus metrics: what a node counts (requests by route, the economy's movements,
//! sign-ins, match reports), what it reads when scraped (connection pools, leaderboards), the
//! text exposition, and the metrics listener that serves it on an address of its own.
//!
//! Every name starts with `safezone_`. Clients never reach these: `/api/metrics/update` is
//! the clients' no-op, and the exposition is only on the metrics listener ([`serve`]) or
//! wherever an embedder mounts [`MetricsService`] or puts [`Metrics::render`].

mod business;
mod listener;
mod process;
mod readiness;
mod requests;
mod state;

use std::sync::Arc;

use prometheus_client::registry::Registry;

pub(crate) use business::{Business, Counted};
pub use listener::{MetricsServer, MetricsService, serve};
pub use readiness::Readiness;
pub use requests::Recorded;
pub(crate) use requests::RequestMetrics;

use crate::leaderboard::Leaderboards;
use crate::store::Store;

/// The content type of [`Metrics::render`]'s text: the OpenMetrics text format, which
/// Prometheus reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// One service's metrics: its counters and histograms, and the gauges read when scraped.
pub struct Metrics {
    registry: Registry,
    /// The process's gauges, under their usual names (no `safezone_` prefix).
    process: Registry,
    /// Requests by route, method and status: count and duration.
    pub(crate) requests: RequestMetrics,
    /// The economy's, sign-ins' and match reports' counters.
    pub(crate) business: Business,
    /// What `/readyz` checks.
    probes: readiness::Probes,
}

impl Metrics {
    /// The metrics of a service over `store` and `leaderboards`, whose pools and boards are
    /// read at each scrape.
    pub(crate) fn new(store: Arc<dyn Store>, leaderboards: Arc<Leaderboards>) -> Self {
        let mut registry = Registry::with_prefix("safezone");
        let requests = RequestMetrics::register(&mut registry);
        let business = Business::register(&mut registry);
        registry.register_collector(Box::new(state::StateCollector::new(
            Arc::clone(&store),
            Arc::clone(&leaderboards),
        )));
        registry.register_collector(Box::new(process::BuildInfo));
        let mut process = Registry::default();
        process.register_collector(Box::new(process::ProcessCollector));
        Self {
            registry,
            process,
            requests,
            business,
            probes: readiness::Probes::new(store, leaderboards),
        }
    }

    /// Whether the node is ready for traffic: the database answers a ping (within 2 s) and
    /// the leaderboards are loaded (the content always is, once the service exists).
    pub async fn readiness(&self) -> Readiness {
        self.probes.check().await
    }

    /// Every metric now, in the text format of [`CONTENT_TYPE`].
    pub fn render(&self) -> String {
        use prometheus_client::encoding::text::{encode_eof, encode_registry};
        let mut text = String::new();
        let encoded = encode_registry(&mut text, &self.registry)
            .and_then(|()| encode_registry(&mut text, &self.process))
            .and_then(|()| encode_eof(&mut text));
        if let Err(error) = encoded {
            tracing::error!(%error, "the metrics did not encode");
        }
        text
    }
}
