//! The day from start to end: the consumers, the two nodes, the operator token, the players
//! signed up, the measured run (players, game server, operators, the restart, the sampler),
//! the drain, the checks and the results.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rand::Rng;
use serde_json::json;
use sqlx::postgres::PgPoolOptions;
use tokio::sync::Semaphore;

use crate::Config;
use crate::client::Http;
use crate::consumers::{self, Shared};
use crate::game_server::{self, GameServer};
use crate::invariants;
use crate::kinds::{Kind, MIX};
use crate::nodes::{Cluster, Node};
use crate::operators::Operators;
use crate::players::Players;
use crate::report::{self, Timeline};
use crate::sampler::{self, Sample, Sources, Ticks, WINDOW};
use crate::stats::Recorder;

/// Requests in flight at most; beyond it a due request is skipped and counted (the generator
/// would otherwise queue without bound when the nodes fall behind).
const IN_FLIGHT: u32 = 1024;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs the day; answers whether every invariant held.
pub async fn day(config: &Config) -> Result<bool> {
    let wall = Instant::now();
    let run = format!("day{}", std::process::id());
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect(&config.database_url)
        .await?;
    let (webhook, nats): (Shared, Shared) = Default::default();
    let secret = format!("{:032x}", rand::rng().random::<u128>());
    let webhook_url = consumers::webhook(secret.clone(), Arc::clone(&webhook)).await?;
    let stream = format!("SAFEZONE_DAY_{}", std::process::id());
    let prefix = format!("safezone-day.{}", std::process::id());
    consumers::nats(&config.nats_url, &stream, &prefix, Arc::clone(&nats)).await?;

    let args = vec![
        "--database-url".to_owned(),
        config.database_url.clone(),
        "--game-server-token".to_owned(),
        game_server::CREDENTIAL.to_owned(),
        "--events-webhook-url".to_owned(),
        webhook_url.clone(),
        "--events-webhook-secret".to_owned(),
        secret,
        "--events-nats-url".to_owned(),
        config.nats_url.clone(),
        "--events-nats-stream".to_owned(),
        stream.clone(),
        "--events-nats-subject-prefix".to_owned(),
        prefix.clone(),
    ];
    let node_env = config.node_log.clone();
    let cluster = Arc::new(Cluster::default());
    let node = |name, index, binary: &std::path::Path| {
        Node::new(
            name,
            index,
            binary.to_path_buf(),
            args.clone(),
            config.out.join(format!("{name}.log")),
            node_env.clone(),
        )
    };
    let mut warp = node("warp", 0, &config.warp);
    let mut rocket = node("rocket", 1, &config.rocket);
    warp.start(&cluster).await?;
    rocket.start(&cluster).await?;
    let token = operator_token(config)?;
    let (history_players, history_results): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM accounts WHERE provider = 'seed'), \
         (SELECT count(*) FROM match_log)",
    )
    .fetch_one(&pool)
    .await?;
    println!(
        "day: nodes up on a history of {history_players} players and {history_results} results; \
         signing up {} players",
        config.players
    );

    let recorder = Arc::new(Mutex::new(Recorder::default()));
    let http = Http::new(Arc::clone(&cluster), Arc::clone(&recorder));
    let players = Players::new(http.clone(), run.clone());
    let seeding = Instant::now();
    futures_util::stream::iter(0..config.players)
        .for_each_concurrent(32, |_| players.sign_up(Kind::SignUp))
        .await;
    let seeding = seeding.elapsed();
    println!(
        "day: {} players signed up in {:.0} s; the measured run begins ({:?})",
        players.live(),
        seeding.as_secs_f64(),
        config.duration
    );

    recorder.lock().expect("never poisoned").reset();
    for consumer in [&webhook, &nats] {
        consumer.lock().expect("never poisoned").reset_lag();
    }
    let size_before: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
        .fetch_one(&pool)
        .await?;
    let started = tokio::time::Instant::now();
    let deadline = started + config.duration;
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT as usize));
    let skipped = Arc::new(std::sync::atomic::AtomicU64::new(0));

    let player_lane = tokio::spawn(drive_players(
        Arc::clone(&players),
        config.rate,
        deadline,
        Arc::clone(&in_flight),
        Arc::clone(&skipped),
    ));
    let game = GameServer::new(http.clone(), Arc::clone(&players), run.clone());
    let match_lane = tokio::spawn(drive_matches(
        game,
        config.matches_per_min,
        deadline,
        Arc::clone(&in_flight),
    ));
    let operators = Operators::new(http.clone(), Arc::clone(&players), token);
    let operator_lane = tokio::spawn(operators.run(config.duration));
    let sources = Sources {
        pool: pool.clone(),
        cluster: Arc::clone(&cluster),
        recorder: Arc::clone(&recorder),
        webhook: Arc::clone(&webhook),
        nats: Arc::clone(&nats),
        sinks: (format!("webhook {webhook_url}"), format!("nats {prefix}")),
        metrics: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
    };
    let timeline = Arc::new(Mutex::new(Vec::<Sample>::new()));
    let sampler_lane = tokio::spawn(sample_lane(
        sources,
        started,
        deadline,
        Timeline::create(&config.out)?,
        Arc::clone(&timeline),
    ));

    // The restart: the rocket node taken out, stopped with SIGTERM, started again.
    tokio::time::sleep_until(started + config.duration.mul_f64(config.restart_at)).await;
    let restart_at = started.elapsed().as_secs_f64();
    let stopped_in = rocket.stop(&cluster).await?;
    tokio::time::sleep(config.restart_down).await;
    let restarting = Instant::now();
    rocket.start(&cluster).await?;
    let restart = json!({
        "node": "rocket", "at_s": restart_at, "stop_s": stopped_in.as_secs_f64(),
        "down_s": config.restart_down.as_secs_f64(),
        "start_s": restarting.elapsed().as_secs_f64(),
    });
    println!("day: rocket restarted at {restart_at:.0} s ({restart})");

    player_lane.await?;
    match_lane.await?;
    operator_lane.await?;
    // Every request in flight answered (or given up) before the counts are read.
    let _all =
        tokio::time::timeout(Duration::from_secs(60), in_flight.acquire_many(IN_FLIGHT)).await;
    let measured = started.elapsed().as_secs_f64();
    sampler_lane.await??;

    println!("day: load stopped; waiting for every event to reach every sink");
    let drained = invariants::drained(&pool, Duration::from_secs(120)).await?;
    let events: i64 = sqlx::query_scalar("SELECT count(*) FROM events")
        .fetch_one(&pool)
        .await?;
    let caught_up = Instant::now();
    while caught_up.elapsed() < Duration::from_secs(30) {
        let behind = [&webhook, &nats]
            .iter()
            .any(|consumer| (consumer.lock().expect("never poisoned").distinct() as i64) < events);
        if !behind {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut checks = invariants::sql_checks(&pool).await?;
    let acknowledged = players.acknowledged.lock().expect("never poisoned").clone();
    checks.push(invariants::acknowledged_applied(&pool, &acknowledged).await?);
    let sign_ins = players.sign_ins.lock().expect("never poisoned").clone();
    checks.push(invariants::sign_ins(&pool, &sign_ins).await?);
    let mut deliveries = Vec::new();
    for (name, consumer) in [("webhook", &webhook), ("nats", &nats)] {
        let received = std::mem::take(&mut *consumer.lock().expect("never poisoned"));
        let delivery = invariants::delivery(&pool, name, &received).await?;
        deliveries.push((delivery, received));
    }
    let size_after: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
        .fetch_one(&pool)
        .await?;
    let results: i64 = sqlx::query_scalar("SELECT count(*) FROM match_log")
        .fetch_one(&pool)
        .await?;
    rocket.stop(&cluster).await?;
    warp.stop(&cluster).await?;
    consumers::delete_stream(&config.nats_url, &stream).await;

    let held = checks.iter().all(|check| check.violations == 0)
        && deliveries
            .iter()
            .all(|(delivery, _)| delivery.missing == 0 && delivery.unknown == 0)
        && drained;
    let tallies = recorder.lock().expect("never poisoned").kinds.clone();
    let (figures, reads, writes) = report::kinds(&tallies, measured);
    report::write_requests(&config.out, &figures)?;
    report::print_requests(&figures);
    let timeline = timeline.lock().expect("never poisoned").clone();
    let settle = (config.duration.as_secs_f64() / 6.0).min(600.0);
    let server_errors: u64 = tallies
        .values()
        .map(|tally| tally.server_errors_total())
        .sum();
    let lag_samples: Vec<f64> = timeline
        .iter()
        .map(|s| {
            s.unsequenced_age_s
                .max(s.webhook_cursor_lag_s)
                .max(s.nats_cursor_lag_s)
        })
        .collect();
    let summary = json!({
        "config": {
            "duration_s": config.duration.as_secs_f64(), "player_rate": config.rate,
            "matches_per_min": config.matches_per_min, "players_seeded": config.players,
            "history_players": history_players, "history_results": history_results,
            "restart_at": config.restart_at, "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        },
        "wall_clock_s": wall.elapsed().as_secs_f64(),
        "seeding_s": seeding.as_secs_f64(),
        "measured_s": measured,
        "restart": restart,
        "skipped_by_generator": skipped.load(std::sync::atomic::Ordering::Relaxed),
        "requests": figures,
        "throughput_rps": (reads.count() + writes.count()) as f64 / measured,
        "reads": {"count": reads.count(), "p50_ms": reads.quantile_ms(0.5), "p99_ms": reads.quantile_ms(0.99)},
        "writes": {"count": writes.count(), "p50_ms": writes.quantile_ms(0.5), "p99_ms": writes.quantile_ms(0.99)},
        "server_errors_5xx": server_errors,
        "cpu": {
            "machine_busy_pct": report::mean(timeline.iter().map(|s| s.machine_busy)),
            "serving_busy_pct_of_machine": report::mean(timeline.iter().skip(1).map(|s| s.serving_busy)),
            "warp_pct_of_core": report::mean(timeline.iter().map(|s| s.warp_cpu)),
            "rocket_pct_of_core": report::mean(timeline.iter().map(|s| s.rocket_cpu)),
            "postgres_pct_of_core": report::mean(timeline.iter().map(|s| s.postgres_cpu)),
            "generator_pct_of_core": report::mean(timeline.iter().map(|s| s.generator_cpu)),
        },
        "rss": {
            "warp": report::rss_growth(&timeline, &report::NodeMemory {
                rss: |s| s.warp_rss_mib,
                anon: |s| s.warp_anon_mib,
                boards: |s| s.warp_boards_mib,
            }, settle),
            "rocket": report::rss_growth(&timeline, &report::NodeMemory {
                rss: |s| s.rocket_rss_mib,
                anon: |s| s.rocket_anon_mib,
                boards: |s| s.rocket_boards_mib,
            }, settle),
        },
        "relay_lag": {
            "sampled_p99_s": report::quantile(lag_samples.clone(), 0.99),
            "sampled_max_s": report::quantile(lag_samples, 1.0),
            "webhook_delivery_p50_s": deliveries[0].1.lag.quantile_ms(0.5) / 1000.0,
            "webhook_delivery_p99_s": deliveries[0].1.lag.quantile_ms(0.99) / 1000.0,
            "nats_delivery_p50_s": deliveries[1].1.lag.quantile_ms(0.5) / 1000.0,
            "nats_delivery_p99_s": deliveries[1].1.lag.quantile_ms(0.99) / 1000.0,
        },
        "database": {
            "before_bytes": size_before, "after_bytes": size_after, "events": events,
            "player_results": results,
            "growth_bytes_per_hour": (size_after - size_before) as f64 / measured * 3600.0,
        },
        "invariants_held": held,
        "drained": drained,
        "checks": checks,
        "deliveries": deliveries.iter().map(|(delivery, received)| json!({
            "delivery": delivery, "deliveries": received.deliveries, "rejected": received.rejected,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(
        config.out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?,
    )?;
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "throughput_rps": summary["throughput_rps"], "reads": summary["reads"],
            "writes": summary["writes"], "server_errors_5xx": server_errors,
            "cpu": summary["cpu"], "rss": summary["rss"], "relay_lag": summary["relay_lag"],
            "database": summary["database"], "restart": summary["restart"],
            "invariants_held": held,
        }))?
    );
    for check in &checks {
        println!(
            "{} {} ({} covered)",
            if check.violations == 0 {
                "ok  "
            } else {
                "FAIL"
            },
            check.name,
            check.covered
        );
    }
    for (delivery, _) in &deliveries {
        println!(
            "{} {}: {} events, {} missing, {} unknown, {} duplicates",
            if delivery.missing == 0 && delivery.unknown == 0 {
                "ok  "
            } else {
                "FAIL"
            },
            delivery.consumer,
            delivery.events,
            delivery.missing,
            delivery.unknown,
            delivery.duplicates
        );
    }
    println!(
        "day: results in {} ({:.0} s end to end)",
        config.out.display(),
        wall.elapsed().as_secs_f64()
    );
    Ok(held)
}

/// Creates the run's full operator token with the warp binary's `operator-token create`.
fn operator_token(config: &Config) -> Result<String> {
    let output = std::process::Command::new(&config.warp)
        .args([
            "--database-url",
            &config.database_url,
            "operator-token",
            "create",
        ])
        .args([
            "--name",
            &format!("day-{}", std::process::id()),
            "--role",
            "full",
        ])
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "operator-token create: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let line = String::from_utf8_lossy(&output.stdout);
    Ok(line
        .split_whitespace()
        .last()
        .ok_or("no secret printed")?
        .to_owned())
}

/// Draws a kind from the players' mix.
fn draw() -> Kind {
    let total: u32 = MIX.iter().map(|(_, weight)| weight).sum();
    let mut at = rand::rng().random_range(0..total);
    for (kind, weight) in MIX {
        if at < weight {
            return kind;
        }
        at -= weight;
    }
    Kind::Config
}

/// Sends player requests at `rate` per second (open loop: on time whatever the answers take)
/// until `deadline`.
async fn drive_players(
    players: Arc<Players>,
    rate: f64,
    deadline: tokio::time::Instant,
    in_flight: Arc<Semaphore>,
    skipped: Arc<std::sync::atomic::AtomicU64>,
) {
    let tick = Duration::from_millis(5);
    let mut due = 0.0;
    let mut last = tokio::time::Instant::now();
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    while tokio::time::Instant::now() < deadline {
        interval.tick().await;
        let now = tokio::time::Instant::now();
        due += rate * (now - last).as_secs_f64();
        last = now;
        while due >= 1.0 {
            due -= 1.0;
            let Ok(permit) = Arc::clone(&in_flight).try_acquire_owned() else {
                skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                continue;
            };
            let players = Arc::clone(&players);
            tokio::spawn(async move {
                players.act(draw()).await;
                drop(permit);
            });
        }
    }
}

/// Posts a match report every `60 / per_minute` seconds until `deadline`.
async fn drive_matches(
    game: Arc<GameServer>,
    per_minute: f64,
    deadline: tokio::time::Instant,
    in_flight: Arc<Semaphore>,
) {
    if per_minute <= 0.0 {
        return;
    }
    let mut interval = tokio::time::interval(Duration::from_secs_f64(60.0 / per_minute));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if tokio::time::Instant::now() >= deadline {
            return;
        }
        let Ok(permit) = Arc::clone(&in_flight).acquire_owned().await else {
            return;
        };
        let game = Arc::clone(&game);
        tokio::spawn(async move {
            game.report().await;
            drop(permit);
        });
    }
}

/// Samples every [`WINDOW`] until `deadline`, writing each row as it comes.
async fn sample_lane(
    sources: Sources,
    started: tokio::time::Instant,
    deadline: tokio::time::Instant,
    mut file: Timeline,
    timeline: Arc<Mutex<Vec<Sample>>>,
) -> std::io::Result<()> {
    let mut ticks = Ticks::default();
    let mut n = 0;
    loop {
        n += 1;
        let at = started + WINDOW * n;
        if at > deadline + WINDOW / 2 {
            return Ok(());
        }
        tokio::time::sleep_until(at).await;
        let sample = sampler::sample(&sources, (at - started).as_secs_f64(), &mut ticks).await;
        file.write(&sample)?;
        timeline.lock().expect("never poisoned").push(sample);
    }
}
