//! `GET /api/config`.

use safezone_tests::progression::IN_SEASON;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    config_answers_the_shipped_configuration,
    old_clients_must_update,
    bad_config_parameters_are_named,
    polled_updates_leave_out_extras,
    signed_in_callers_get_a_stable_ab_group,
    timed_extras_follow_the_clock,
    the_changelog_is_text,
);

async fn config_answers_the_shipped_configuration(app: TestApp) {
    // While the shipped content's limited event runs, whatever the day the suite runs on.
    app.clock.set(IN_SEASON);
    let body = app.get("/api/config").await.success().clone();
    let config = &body["config"];
    assert_eq!(config["maintenance"], false);
    assert_eq!(config["update_required"], false);
    assert_eq!(config["disable_udp"], false);
    assert_eq!(config["version"], "2.8.1");
    assert!(config["regions"].as_array().is_some_and(|r| !r.is_empty()));
    assert!(config["endpoint"].is_string() && config["environment"].is_string());
    let extras = &body["extras"];
    assert_eq!(extras["announcement"]["type"], "info");
    assert_eq!(
        extras["patch_notes"]["items"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(extras["limited_event"]["ends"]["timezone"], "UTC");
    assert!(
        extras.get("ab_test").is_none(),
        "anonymous callers get no A/B group"
    );
    let signed_out = app
        .get("/api/config?platform=web&userKey=")
        .await
        .success()
        .clone();
    assert!(
        signed_out["extras"].get("ab_test").is_none(),
        "an empty key is no key"
    );
}

async fn old_clients_must_update(app: TestApp) {
    let required = |path: &'static str| {
        let app = app.clone();
        async move { app.get(path).await.success()["config"]["update_required"].clone() }
    };
    assert_eq!(
        required("/api/config?platform=android&version=2.7.4").await,
        true
    );
    assert_eq!(
        required("/api/config?platform=android&version=2.7.5").await,
        false
    );
    assert_eq!(required("/api/config?platform=ios&version=3").await, false);
    assert_eq!(
        required("/api/config?platform=web&version=2.7.9").await,
        true
    );
    assert_eq!(
        required("/api/config?platform=windows&version=2.8.0&version2=1.2.9").await,
        true
    );
    assert_eq!(
        required("/api/config?platform=windows&version=2.8.0&version2=1.3.0").await,
        false
    );
    assert_eq!(required("/api/config?version=1.0").await, false);
}

async fn bad_config_parameters_are_named(app: TestApp) {
    app.get("/api/config?platform=amiga")
        .await
        .error_naming(400, "invalid_parameter", "platform");
    app.get("/api/config?platform=Web")
        .await
        .error_naming(400, "invalid_parameter", "platform");
    app.get("/api/config?version=two")
        .await
        .error_naming(400, "invalid_parameter", "version");
    app.get("/api/config?version2=1..2")
        .await
        .error_naming(400, "invalid_parameter", "version2");
    app.get("/api/config?isPolledUpdate=yes")
        .await
        .error_naming(400, "invalid_parameter", "isPolledUpdate");
    app.get("/api/config?userKey=not-a-key")
        .await
        .error(401, "invalid_user_key");
}

async fn polled_updates_leave_out_extras(app: TestApp) {
    let body = app
        .get("/api/config?isPolledUpdate=true")
        .await
        .success()
        .clone();
    assert_eq!(body["extras"], serde_json::json!({}));
    assert_eq!(body["config"]["maintenance"], false);
}

async fn signed_in_callers_get_a_stable_ab_group(app: TestApp) {
    let key = app.new_key().await;
    let by_query = app
        .get(&format!("/api/config?userKey={key}"))
        .await
        .success()["extras"]["ab_test"]
        .clone();
    assert_eq!(by_query["id"], "shop-layout-2026-11");
    assert!(["grid", "carousel"].contains(&by_query["group"].as_str().unwrap_or_default()));
    let bearer = format!("Bearer {key}");
    let by_header = app
        .send(
            reqwest::Method::GET,
            "/api/config",
            &[("authorization", &bearer)],
            None,
        )
        .await;
    assert_eq!(by_header.success()["extras"]["ab_test"], by_query);
    let cookie = format!("userKey={key}");
    let by_cookie = app
        .send(
            reqwest::Method::GET,
            "/api/config",
            &[("cookie", &cookie)],
            None,
        )
        .await;
    assert_eq!(by_cookie.success()["extras"]["ab_test"], by_query);
}

async fn timed_extras_follow_the_clock(app: TestApp) {
    let extras_at = |at: time::OffsetDateTime| {
        let app = app.clone();
        async move {
            app.clock.set(at);
            app.get("/api/config").await.success()["extras"].clone()
        }
    };
    // The shipped preview follows the season (track 1, sixteen weeks from 2026-11-01); the
    // event runs two weeks at a time from 2026-11-01.
    let early = extras_at(time::macros::datetime!(2026-11-22 08:00 UTC)).await;
    assert_eq!(early["season_preview"]["season"], 1);
    assert_eq!(early["season_preview"]["current_day"], 22);
    assert_eq!(early["season_preview"]["timer_ends"], "2027-02-21 00:00:00");
    assert_eq!(early["limited_event"]["name"], "Storm Rotation");
    assert_eq!(
        early["limited_event"]["ends"]["date"],
        "2026-11-29 00:00:00.000000"
    );

    let first_day = extras_at(time::macros::datetime!(2026-11-01 00:00 UTC)).await;
    assert_eq!(first_day["season_preview"]["current_day"], 1);
    let seventh_day = extras_at(time::macros::datetime!(2026-11-07 23:59 UTC)).await;
    assert_eq!(seventh_day["season_preview"]["current_day"], 7);

    // The next season: number 2, its own days and end; the event's run of the day.
    let second_season = extras_at(time::macros::datetime!(2027-03-01 00:00 UTC)).await;
    assert_eq!(second_season["season_preview"]["season"], 2);
    assert_eq!(second_season["season_preview"]["current_day"], 9);
    assert_eq!(
        second_season["season_preview"]["timer_ends"],
        "2027-06-13 00:00:00"
    );
    assert_eq!(
        second_season["limited_event"]["ends"]["date"],
        "2027-03-07 00:00:00.000000"
    );
    assert!(second_season.get("announcement").is_some());

    let years_later = extras_at(time::macros::datetime!(2036-05-17 10:00 UTC)).await;
    assert!(years_later["season_preview"]["season"].as_i64() > Some(30));
    assert!(years_later.get("limited_event").is_some());
}

/// `extras.changelog` is a JSON string, the content file's text as written (typed clients
/// read a string).
async fn the_changelog_is_text(app: TestApp) {
    let body = app.get("/api/config").await.success().clone();
    let changelog = body["extras"]["changelog"]
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {}", body["extras"]["changelog"]));
    assert!(changelog.starts_with("2.8.1: "), "{changelog}");
}
