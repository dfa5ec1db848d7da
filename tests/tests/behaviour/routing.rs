//! What every path shares: JSON 404 and 405, HEAD, percent-decoding, body limits, request ids,
//! and the obsolete endpoints.

use reqwest::Method;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    unknown_paths_answer_json_404,
    wrong_methods_answer_405_with_allow,
    head_is_served_like_get,
    malformed_percent_encoding_is_400,
    oversized_bodies_are_413,
    request_ids_come_back,
    only_short_visible_request_ids_are_kept,
    deprecated_validate_endpoints_are_gone,
);

async fn unknown_paths_answer_json_404(app: TestApp) {
    app.get("/api/nothing-here").await.error(404, "not_found");
    app.post("/nope").await.error(404, "not_found");
    app.get("/api/config/").await.error(404, "not_found");
    app.get("/").await.error(404, "not_found");
}

async fn wrong_methods_answer_405_with_allow(app: TestApp) {
    let answer = app.post("/api/config").await;
    answer.error(405, "method_not_allowed");
    assert_eq!(answer.header_values("allow"), ["GET, HEAD"]);

    let answer = app
        .send(Method::DELETE, "/api/metrics/update", &[], None)
        .await;
    answer.error(405, "method_not_allowed");
    assert_eq!(answer.header_values("allow"), ["GET, HEAD, POST"]);

    let answer = app.get("/api/validate/device/ios-1").await;
    answer.error(405, "method_not_allowed");
    assert_eq!(answer.header_values("allow"), ["POST"]);
}

async fn head_is_served_like_get(app: TestApp) {
    let get = app.get("/api/config").await;
    get.success();
    let head = app.send(Method::HEAD, "/api/config", &[], None).await;
    assert_eq!(head.status, 200);
    assert!(head.text.is_empty(), "HEAD answered a body: {}", head.text);
    assert_eq!(head.header_values("content-type"), ["application/json"]);
    let head_404 = app.send(Method::HEAD, "/api/absent", &[], None).await;
    assert_eq!(head_404.status, 404);
}

async fn malformed_percent_encoding_is_400(app: TestApp) {
    app.get("/api/user/%zz")
        .await
        .error(400, "invalid_path_encoding");
    app.get("/api/user/abc%2")
        .await
        .error(400, "invalid_path_encoding");
    app.post("/api/validate/device/ios-%ff%fe")
        .await
        .error(400, "invalid_path_encoding");
}

async fn oversized_bodies_are_413(app: TestApp) {
    let big = vec![b' '; 200 * 1024];
    app.send(Method::POST, "/api/metrics/update", &[], Some(big.clone()))
        .await
        .error(413, "body_too_large");
    app.send(Method::POST, "/api/validate/device/ios-1", &[], Some(big))
        .await
        .error(413, "body_too_large");
}

async fn request_ids_come_back(app: TestApp) {
    let answer = app.get("/api").await;
    let generated = answer.header_values("x-request-id");
    assert_eq!(generated.len(), 1);
    assert!(!generated[0].is_empty());
    let answer = app
        .send(Method::GET, "/api", &[("x-request-id", "abc-123")], None)
        .await;
    assert_eq!(answer.header_values("x-request-id"), ["abc-123"]);
}

/// A client's id of 1 to 64 visible ASCII characters comes back; a longer one, one with a
/// space or a tab, or two ids, are replaced by a fresh id (a UUID).
async fn only_short_visible_request_ids_are_kept(app: TestApp) {
    let longest = "~".repeat(64);
    for kept in ["!", "abc-123", longest.as_str()] {
        let answer = app
            .send(Method::GET, "/api", &[("x-request-id", kept)], None)
            .await;
        assert_eq!(answer.header_values("x-request-id"), [kept]);
    }
    let too_long = "a".repeat(65);
    let three_kilobytes = "b".repeat(3000);
    let unfit: [&[(&str, &str)]; 5] = [
        &[("x-request-id", &too_long)],
        &[("x-request-id", &three_kilobytes)],
        &[("x-request-id", "abc def")],
        &[("x-request-id", "abc\tdef")],
        &[("x-request-id", "one"), ("x-request-id", "two")],
    ];
    for headers in unfit {
        let answer = app.send(Method::GET, "/api", headers, None).await;
        answer.success();
        let fresh = answer.header_values("x-request-id");
        assert_eq!(fresh.len(), 1, "{headers:?}: {fresh:?}");
        assert!(
            uuid::Uuid::parse_str(&fresh[0]).is_ok(),
            "{headers:?}: {fresh:?}"
        );
    }
}

async fn deprecated_validate_endpoints_are_gone(app: TestApp) {
    for path in [
        "/api/validate/idpthree",
        "/api/validate/gamenet",
        "/api/validate/idpone/some-code",
        "/api/validate/idptwo/some-token",
    ] {
        let body = app.post(path).await.error(410, "gone").clone();
        assert!(
            body["message"]
                .as_str()
                .unwrap_or_default()
                .contains("use "),
            "{body}"
        );
    }
}
