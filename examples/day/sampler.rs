//! Every 10 seconds, one row of the timeline: the window's throughput, latencies and errors,
//! each node's RSS (and its anonymous part), CPU, open database connections and boards' memory
//! (its `safezone_leaderboard_memory_bytes`), PostgreSQL's CPU and the machine's, the
//! database's size, and the relay's lag (events not sequenced yet, each sink's oldest
//! undelivered event, and the consumers' measured delivery time).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use serde::Serialize;
use sqlx::PgPool;

use crate::consumers::Shared;
use crate::nodes::Cluster;
use crate::stats::Recorder;

/// The window's length.
pub const WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

/// One row of the timeline.
#[derive(Clone, Default, Serialize)]
pub struct Sample {
    /// Seconds since the measured run began, at the window's end.
    pub t: f64,
    /// Requests answered per second (reads and writes).
    pub rps: f64,
    /// Reads answered per second.
    pub read_rps: f64,
    /// Writes answered per second.
    pub write_rps: f64,
    /// Reads' p50 and p99, ms.
    pub read_p50_ms: f64,
    /// Reads' p99, ms.
    pub read_p99_ms: f64,
    /// Writes' p50, ms.
    pub write_p50_ms: f64,
    /// Writes' p99, ms.
    pub write_p99_ms: f64,
    /// Answers 5xx in the window.
    pub server_errors: u64,
    /// Requests left unanswered in the window.
    pub transport_errors: u64,
    /// Answers 4xx in the window.
    pub refused: u64,
    /// The warp node's RSS, MiB (0 while it is down).
    pub warp_rss_mib: f64,
    /// The rocket node's RSS, MiB (0 while it is down).
    pub rocket_rss_mib: f64,
    /// The warp node's anonymous RSS (`RssAnon`: its heap and stacks, without the binary's
    /// pages), MiB (0 while it is down).
    pub warp_anon_mib: f64,
    /// The rocket node's anonymous RSS, MiB (0 while it is down).
    pub rocket_anon_mib: f64,
    /// The warp node's boards' memory (`safezone_leaderboard_memory_bytes`), MiB (0 while it
    /// is down).
    pub warp_boards_mib: f64,
    /// The rocket node's boards' memory, MiB (0 while it is down).
    pub rocket_boards_mib: f64,
    /// The warp node's open database connections (`safezone_db_pool_connections_open`, all
    /// pools).
    pub warp_db_connections: f64,
    /// The rocket node's open database connections.
    pub rocket_db_connections: f64,
    /// The warp node's CPU, % of one core.
    pub warp_cpu: f64,
    /// The rocket node's CPU, % of one core.
    pub rocket_cpu: f64,
    /// Every PostgreSQL process's CPU, % of one core.
    pub postgres_cpu: f64,
    /// The generator's own CPU, % of one core.
    pub generator_cpu: f64,
    /// The whole machine's busy time, % of all its cores.
    pub machine_busy: f64,
    /// The nodes' and PostgreSQL's CPU together, % of all the machine's cores: the load the
    /// day puts on the machine (the goals ask for about 70%).
    pub serving_busy: f64,
    /// `pg_database_size`, MiB.
    pub database_mib: f64,
    /// Events committed (the newest id).
    pub events: i64,
    /// Events committed and not sequenced by the relay yet.
    pub unsequenced: i64,
    /// Age of the oldest event not sequenced yet, s (0: none).
    pub unsequenced_age_s: f64,
    /// Age of the oldest event the webhook sink has not delivered, s (0: caught up).
    pub webhook_cursor_lag_s: f64,
    /// Age of the oldest event the NATS sink has not delivered, s (0: caught up).
    pub nats_cursor_lag_s: f64,
    /// From an event's `at` to the webhook receiver, p99 in the window, s.
    pub webhook_delivery_p99_s: f64,
    /// From an event's `at` to the NATS consumer, p99 in the window, s.
    pub nats_delivery_p99_s: f64,
}

/// CPU ticks seen at the previous sample, per process and for the machine.
#[derive(Default)]
pub struct Ticks {
    processes: BTreeMap<u32, u64>,
    machine: (u64, u64),
}

/// What the sampler reads.
pub struct Sources {
    /// The database.
    pub pool: PgPool,
    /// The nodes.
    pub cluster: Arc<Cluster>,
    /// The requests.
    pub recorder: Arc<Mutex<Recorder>>,
    /// The webhook receiver.
    pub webhook: Shared,
    /// The NATS consumer.
    pub nats: Shared,
    /// The sinks' names in `event_consumers` (webhook, NATS).
    pub sinks: (String, String),
    /// A client for the nodes' metrics.
    pub metrics: Client<HttpConnector, Empty<Bytes>>,
}

/// Takes one sample at `t` seconds; `ticks` carries the CPU counters between samples.
pub async fn sample(sources: &Sources, t: f64, ticks: &mut Ticks) -> Sample {
    let window = sources
        .recorder
        .lock()
        .expect("never poisoned")
        .take_window();
    let seconds = WINDOW.as_secs_f64();
    let mut sample = Sample {
        t,
        read_rps: window.reads.count() as f64 / seconds,
        write_rps: window.writes.count() as f64 / seconds,
        read_p50_ms: window.reads.quantile_ms(0.5),
        read_p99_ms: window.reads.quantile_ms(0.99),
        write_p50_ms: window.writes.quantile_ms(0.5),
        write_p99_ms: window.writes.quantile_ms(0.99),
        server_errors: window.server_errors,
        transport_errors: window.transport_errors,
        refused: window.refused,
        ..Sample::default()
    };
    sample.rps = sample.read_rps + sample.write_rps;
    for (consumer, p99) in [
        (&sources.webhook, &mut sample.webhook_delivery_p99_s),
        (&sources.nats, &mut sample.nats_delivery_p99_s),
    ] {
        let mut received = consumer.lock().expect("never poisoned");
        *p99 = received.window_lag.quantile_ms(0.99) / 1000.0;
        received.window_lag = Default::default();
    }
    processes(sources, seconds, ticks, &mut sample);
    for (index, boards, connections) in [
        (
            0,
            &mut sample.warp_boards_mib,
            &mut sample.warp_db_connections,
        ),
        (
            1,
            &mut sample.rocket_boards_mib,
            &mut sample.rocket_db_connections,
        ),
    ] {
        if let Some(address) = sources.cluster.address(index) {
            let gauges = node_gauges(&sources.metrics, &address.metrics).await;
            *boards = gauges.boards_bytes / 1_048_576.0;
            *connections = gauges.db_connections;
        }
    }
    if let Err(error) = database(sources, &mut sample).await {
        eprintln!("day: sampling the database: {error}");
    }
    sample
}

/// RSS and CPU from /proc.
fn processes(sources: &Sources, seconds: f64, ticks: &mut Ticks, sample: &mut Sample) {
    // Linux's USER_HZ, the unit of /proc's CPU times.
    let hz = 100.0;
    let mut previous = std::mem::take(&mut ticks.processes);
    let mut cpu = |pid: u32| -> f64 {
        let now = cpu_ticks(pid).unwrap_or(0);
        ticks.processes.insert(pid, now);
        match previous.remove(&pid) {
            Some(before) => now.saturating_sub(before) as f64 / hz / seconds * 100.0,
            None => 0.0,
        }
    };
    for (index, rss, anon, node_cpu) in [
        (
            0,
            &mut sample.warp_rss_mib,
            &mut sample.warp_anon_mib,
            &mut sample.warp_cpu,
        ),
        (
            1,
            &mut sample.rocket_rss_mib,
            &mut sample.rocket_anon_mib,
            &mut sample.rocket_cpu,
        ),
    ] {
        if let Some(address) = sources.cluster.address(index) {
            *rss = status_kib(address.pid, "VmRSS:").unwrap_or(0) as f64 / 1024.0;
            *anon = status_kib(address.pid, "RssAnon:").unwrap_or(0) as f64 / 1024.0;
            *node_cpu = cpu(address.pid);
        }
    }
    sample.generator_cpu = cpu(std::process::id());
    sample.postgres_cpu = postgres_pids().into_iter().map(&mut cpu).sum();
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    sample.serving_busy = (sample.warp_cpu + sample.rocket_cpu + sample.postgres_cpu) / cores;
    if let Some((busy, total)) = machine_ticks() {
        let (busy_before, total_before) = ticks.machine;
        if total_before > 0 && total > total_before {
            sample.machine_busy =
                (busy - busy_before) as f64 / (total - total_before) as f64 * 100.0;
        }
        ticks.machine = (busy, total);
    }
}

/// The database's size and the relay's state.
async fn database(sources: &Sources, sample: &mut Sample) -> Result<(), sqlx::Error> {
    let pool = &sources.pool;
    let (size, events, unsequenced, oldest, now): (i64, i64, i64, Option<i64>, i64) =
        sqlx::query_as(
            "SELECT pg_database_size(current_database()), \
             COALESCE((SELECT max(id) FROM events), 0), \
             (SELECT count(*) FROM events WHERE position IS NULL), \
             (SELECT min(created) FROM events WHERE position IS NULL), \
             (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT",
        )
        .fetch_one(pool)
        .await?;
    sample.database_mib = size as f64 / 1_048_576.0;
    sample.events = events;
    sample.unsequenced = unsequenced;
    sample.unsequenced_age_s = oldest.map_or(0.0, |created| (now - created) as f64 / 1e6);
    let cursors: Vec<(String, Option<i64>)> = sqlx::query_as(
        "SELECT c.name, (SELECT e.created FROM events e WHERE e.position > c.position \
         ORDER BY e.position LIMIT 1) FROM event_consumers c",
    )
    .fetch_all(pool)
    .await?;
    for (name, oldest) in cursors {
        let lag = oldest.map_or(0.0, |created| (now - created) as f64 / 1e6);
        if name == sources.sinks.0 {
            sample.webhook_cursor_lag_s = lag;
        } else if name == sources.sinks.1 {
            sample.nats_cursor_lag_s = lag;
        }
    }
    Ok(())
}

/// The gauges the timeline takes from a node's metrics.
#[derive(Default)]
struct NodeGauges {
    /// `safezone_leaderboard_memory_bytes`.
    boards_bytes: f64,
    /// `safezone_db_pool_connections_open`, summed over the pools.
    db_connections: f64,
}

/// A node's gauges, from its metrics listener at `metrics` (zeros when it does not answer twice).
async fn node_gauges(client: &Client<HttpConnector, Empty<Bytes>>, operator: &str) -> NodeGauges {
    let mut gauges = NodeGauges::default();
    let Ok(uri) = format!("http://{operator}/metrics").parse::<hyper::Uri>() else {
        return gauges;
    };
    // A second try: the listener closes a connection idle for 10 s, the sampler's interval,
    // so a scrape sometimes goes out on a connection the node is closing.
    let mut body = None;
    for _ in 0..2 {
        if let Ok(answer) = client.get(uri.clone()).await
            && let Ok(collected) = answer.into_body().collect().await
        {
            body = Some(collected);
            break;
        }
    }
    let Some(body) = body else {
        return gauges;
    };
    let value = |line: &str| -> f64 {
        line.rsplit(' ')
            .next()
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0.0)
    };
    for line in String::from_utf8_lossy(&body.to_bytes()).lines() {
        if line.starts_with("safezone_leaderboard_memory_bytes ") {
            gauges.boards_bytes = value(line);
        } else if line.starts_with("safezone_db_pool_connections_open") {
            gauges.db_connections += value(line);
        }
    }
    gauges
}

/// A size field of `pid`'s `/proc` status (`VmRSS:`, `RssAnon:`), KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// User and system CPU ticks `pid` has used.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's closing parenthesis: state is the first, utime the 12th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// Every process named `postgres`.
fn postgres_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim_end() == "postgres")
        })
        .collect()
}

/// The machine's busy and total ticks, all cores (`/proc/stat`'s first line).
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let values: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|value| value.parse().ok())
        .collect();
    let total: u64 = values.iter().take(8).sum();
    let idle = values.get(3)? + values.get(4)?;
    Some((total - idle, total))
}
