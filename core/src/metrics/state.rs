//! The gauges read when scraped: the store's connection pools and the leaderboards' sizes.

use std::fmt;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;

use crate::leaderboard::{Leaderboards, TimeWindow};
use crate::store::Store;

/// Reads the pools and the boards at each scrape, never on a request's path.
pub(super) struct StateCollector {
    store: Arc<dyn Store>,
    leaderboards: Arc<Leaderboards>,
}

impl StateCollector {
    /// A collector over `store`'s pools and `leaderboards`.
    pub(super) fn new(store: Arc<dyn Store>, leaderboards: Arc<Leaderboards>) -> Self {
        Self {
            store,
            leaderboards,
        }
    }
}

impl fmt::Debug for StateCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateCollector")
    }
}

impl Collector for StateCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let pools = self.store.pools();
        let by_pool = |value: fn(&crate::store::PoolStatus) -> u32| {
            pools
                .iter()
                .map(move |pool| ([("pool", pool.name)], i64::from(value(pool))))
        };
        gauges(
            &mut encoder,
            "db_pool_connections_open",
            "Database connections open (in use or idle), by pool.",
            by_pool(|pool| pool.open),
        )?;
        gauges(
            &mut encoder,
            "db_pool_connections_idle",
            "Database connections open and idle, by pool.",
            by_pool(|pool| pool.idle),
        )?;
        gauges(
            &mut encoder,
            "db_pool_connections_max",
            "The most database connections a pool opens, by pool.",
            by_pool(|pool| pool.max),
        )?;

        let boards = self.leaderboards.status();
        gauge(
            &mut encoder,
            "leaderboard_ready",
            "1 once this node's leaderboards are loaded and answering, 0 while they load.",
            i64::from(boards.ready),
        )?;
        gauge(
            &mut encoder,
            "leaderboard_loaded_results",
            "Match results the leaderboards' load has read.",
            saturating(boards.loaded_results),
        )?;
        gauge(
            &mut encoder,
            "leaderboard_players",
            "Players the leaderboards know.",
            saturating(boards.players as u64),
        )?;
        gauge(
            &mut encoder,
            "leaderboard_memory_bytes",
            "About the heap bytes the leaderboards hold (their columns and trees, without the \
             allocator's slack around them).",
            saturating(boards.memory_bytes as u64),
        )?;
        gauges(
            &mut encoder,
            "leaderboard_results",
            "Match results in each time window of the leaderboards (of the players they show).",
            TimeWindow::ALL
                .into_iter()
                .zip(boards.results)
                .map(|(window, results)| ([("window", window.as_str())], saturating(results))),
        )
    }
}

/// A count as a gauge value.
fn saturating(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// One gauge without labels.
fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: i64,
) -> Result<(), fmt::Error> {
    let metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    ConstGauge::new(value).encode(metric)
}

/// One gauge family: a value per label set.
fn gauges<S: EncodeLabelSet>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    values: impl IntoIterator<Item = (S, i64)>,
) -> Result<(), fmt::Error> {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in values {
        ConstGauge::new(value).encode(metric.encode_family(&labels)?)?;
    }
    Ok(())
}
