//! The operator listener's metrics over real HTTP, after real requests: request counts and
//! durations by route pattern and status, the business counters after a purchase and a match
//! report, and the pool and leaderboard gauges; on warp and rocket, SQLite and PostgreSQL.

use std::sync::Arc;

use safezone_core::clock::Clock;
use safezone_core::metrics::{self, MetricsServer};
use safezone_core::operator::Grant;
use safezone_tests::progression::{Line, Report};
use safezone_tests::{Database, TestApp, any_port, each_combination};

each_combination!(counts_what_happened);

/// The metrics listener serving `app`'s metrics.
async fn serve_metrics(app: &TestApp) -> MetricsServer {
    metrics::serve(any_port(), Arc::clone(&app.metrics))
        .await
        .expect("the metrics listener binds")
}

/// The exposition, checked for its content type.
async fn scrape(app: &TestApp, listener: &MetricsServer) -> String {
    let url = format!("http://{}/metrics", listener.local_addr());
    let response = app.client.get(url).send().await.expect("a scrape");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        metrics::CONTENT_TYPE,
        "the OpenMetrics text format"
    );
    response.text().await.expect("the exposition")
}

/// The value of the sample `series` (name and labels as exposed), when present.
fn sample(exposition: &str, series: &str) -> Option<f64> {
    exposition.lines().find_map(|line| {
        let value = line.strip_prefix(series)?.strip_prefix(' ')?;
        Some(value.parse().expect("a number"))
    })
}

fn value(exposition: &str, series: &str) -> f64 {
    sample(exposition, series).unwrap_or_else(|| panic!("no sample {series} in\n{exposition}"))
}

async fn counts_what_happened(app: TestApp) {
    let listener = serve_metrics(&app).await;
    let (device, body) = app.new_device().await;
    let key = body["user"]["key"].as_str().expect("a key").to_owned();
    let account = safezone_core::store::AccountId(body["user"]["id"].as_i64().expect("an id"));
    app.grant_to(
        &key,
        Grant {
            coins: 1000,
            ..Grant::default()
        },
    )
    .await;
    let buy = format!("/api/user/{key}/buy?itemId=16&quantity=1");
    app.post(&buy).await.success();
    // Bought already: a 409 of the same route, and nothing more counted.
    assert_eq!(app.post(&buy).await.status, 409);
    app.post(&format!("/api/user/{key}/rewards/claim?type=first"))
        .await
        .success();
    app.post(&format!("/api/user/{key}/pack/open?packId=1"))
        .await
        .success();
    assert_eq!(app.get("/no/such/route").await.status, 404);

    let report = Report::new(
        &format!("metrics-{}", uuid::Uuid::new_v4()),
        safezone_tests::shipped_modes()[0],
        app.clock.now() - time::Duration::minutes(1),
        vec![Line::new(account, 1, 3, 600)],
    );
    app.report(&report).await;
    // The boards catch up with a change of this node on their next request.
    assert!(app.get("/api/leaderboard?mode=solo&time=all").await.status < 500);

    let text = scrape(&app, &listener).await;
    let buy_route = r#"route="/api/user/{userKey}/buy",method="POST""#;
    let count = |labels: &str| value(&text, &format!("safezone_http_requests_total{{{labels}}}"));
    assert_eq!(count(&format!(r#"{buy_route},status="200""#)), 1.0);
    assert_eq!(count(&format!(r#"{buy_route},status="409""#)), 1.0);
    assert_eq!(count(r#"route="unmatched",method="GET",status="404""#), 1.0);
    assert_eq!(
        count(r#"route="/api/validate/device/{deviceId}",method="POST",status="200""#),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"safezone_http_request_duration_seconds_count{{{buy_route},status="200"}}"#)
        ),
        1.0
    );
    assert!(!text.contains(&key), "a user key in the metrics");
    assert!(!text.contains(&device), "a device id in the metrics");

    assert_eq!(
        value(&text, r#"safezone_purchases_total{kind="item"}"#),
        1.0
    );
    assert_eq!(
        value(&text, r#"safezone_currency_spent_total{currency="coins"}"#),
        400.0
    );
    // The welcome gift's 100 gems, and any daily quest the match completed: the day's draw
    // decides. The account spent no gems, so they add up to its balance.
    let account_now = app.get(&format!("/api/user/{key}")).await;
    let gems = account_now.success()["user"]["gems"]
        .as_f64()
        .expect("gems");
    assert!(gems >= 100.0, "the welcome gift's gems");
    assert_eq!(
        value(&text, r#"safezone_currency_granted_total{currency="gems"}"#),
        gems
    );
    assert_eq!(
        value(&text, r#"safezone_rewards_claimed_total{type="first"}"#),
        1.0
    );
    assert_eq!(value(&text, "safezone_packs_opened_total"), 1.0);
    assert_eq!(
        value(
            &text,
            r#"safezone_sign_ins_total{method="device",first_login="true"}"#
        ),
        1.0
    );
    assert_eq!(
        value(&text, r#"safezone_match_reports_total{outcome="recorded"}"#),
        1.0
    );
    assert_eq!(value(&text, "safezone_match_player_results_total"), 1.0);

    assert!(value(&text, r#"safezone_db_pool_connections_max{pool="main"}"#) >= 1.0);
    assert!(value(&text, r#"safezone_db_pool_connections_open{pool="main"}"#) >= 1.0);
    assert!(sample(&text, r#"safezone_db_pool_connections_idle{pool="main"}"#).is_some());
    assert_eq!(
        sample(&text, r#"safezone_db_pool_connections_max{pool="writer"}"#),
        (app.database == Database::Sqlite).then_some(1.0),
        "SQLite's writer is a pool of one"
    );
    assert_eq!(value(&text, "safezone_leaderboard_ready"), 1.0);
    assert_eq!(value(&text, "safezone_leaderboard_players"), 1.0);
    assert!(value(&text, "safezone_leaderboard_memory_bytes") > 0.0);
    assert_eq!(
        value(&text, r#"safezone_leaderboard_results{window="all"}"#),
        1.0
    );
    assert_eq!(
        value(&text, r#"safezone_leaderboard_results{window="24h"}"#),
        1.0
    );
    // The build and the process, under the names every Prometheus client gives them.
    assert_eq!(
        value(
            &text,
            &format!(
                r#"safezone_build_info{{version="{}"}}"#,
                env!("CARGO_PKG_VERSION")
            )
        ),
        1.0
    );
    assert!(value(&text, "process_cpu_seconds_total") > 0.0);
    assert!(value(&text, "process_resident_memory_bytes") > 1_000_000.0);
    assert!(value(&text, "process_open_fds") >= 3.0);
    assert!(value(&text, "process_threads") >= 1.0);
    assert!(value(&text, "process_start_time_seconds") > 1_700_000_000.0);
    assert_eq!(text.matches("# EOF").count(), 1);
    assert!(text.ends_with("# EOF\n"));

    let other = format!("http://{}/other", listener.local_addr());
    let response = app.client.get(other).send().await.expect("an answer");
    assert_eq!(response.status(), 404);
    listener.stop().await;
}
