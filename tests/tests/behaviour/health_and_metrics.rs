//! `GET /api` and `/api/metrics/update`.

use reqwest::Method;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    health_answers_when_the_database_does,
    metrics_update_takes_a_webgl_version,
    metrics_update_refuses_bad_bodies,
);

async fn health_answers_when_the_database_does(app: TestApp) {
    let body = app.get("/api").await.success().clone();
    assert_eq!(body["database"], "ok");
    assert_eq!(body["service"], "safezone");
}

async fn metrics_update_takes_a_webgl_version(app: TestApp) {
    let body = br#"{"webgl_version":"webgl2"}"#.to_vec();
    app.send(
        Method::POST,
        "/api/metrics/update",
        &[("content-type", "application/json")],
        Some(body),
    )
    .await
    .success();
    app.get("/api/metrics/update").await.success();
}

async fn metrics_update_refuses_bad_bodies(app: TestApp) {
    app.post("/api/metrics/update")
        .await
        .error(400, "invalid_body");
    for body in [
        &b"{not json"[..],
        br#"{"other":1}"#,
        br#"{"webgl_version":"webgl9"}"#,
        br#"[]"#,
    ] {
        app.send(
            Method::POST,
            "/api/metrics/update",
            &[],
            Some(body.to_vec()),
        )
        .await
        .error(400, "invalid_body");
    }
}
