//! Input as real game clients send it: C# booleans (`True`), `1`/`0`, empty optional
//! parameters, versions with a pre-release suffix, POST parameters in a form body, and JSON sent
//! with a form's content type (curl's `--data`, Unity's `UnityWebRequest.Post(url, string)`).

use reqwest::Method;
use safezone_tests::{Answer, TestApp, each_combination};
use serde_json::json;
use time::macros::datetime;

each_combination!(
    booleans_are_read_in_any_case_and_as_digits,
    empty_optional_parameters_count_as_absent,
    versions_with_a_suffix_are_read_by_their_numbers,
    post_parameters_may_come_in_a_form_body,
    a_form_may_not_contradict_the_query_string,
    json_sent_as_a_form_is_read_as_json,
);

/// `POST path` with `form` as an `application/x-www-form-urlencoded` body.
async fn post_form(app: &TestApp, path: &str, form: &str) -> Answer {
    app.send(
        Method::POST,
        path,
        &[("content-type", "application/x-www-form-urlencoded")],
        Some(form.as_bytes().to_vec()),
    )
    .await
}

async fn booleans_are_read_in_any_case_and_as_digits(app: TestApp) {
    for polled in ["True", "TRUE", "true", "1"] {
        let body = app
            .get(&format!("/api/config?isPolledUpdate={polled}"))
            .await
            .success()
            .clone();
        assert_eq!(body["extras"], json!({}), "{polled}");
    }
    for not_polled in ["False", "false", "FALSE", "0"] {
        let body = app
            .get(&format!("/api/config?isPolledUpdate={not_polled}"))
            .await
            .success()
            .clone();
        assert_ne!(body["extras"], json!({}), "{not_polled}");
    }
    app.get("/api/config?isPolledUpdate=Yes")
        .await
        .error_naming(400, "invalid_parameter", "isPolledUpdate");
}

async fn empty_optional_parameters_count_as_absent(app: TestApp) {
    let bare = app.get("/api/config").await.success()["config"].clone();
    let empty = app
        .get("/api/config?platform=&version=&version2=&isPolledUpdate=&userKey=")
        .await
        .success()
        .clone();
    assert_eq!(empty["config"], bare);
    assert_ne!(
        empty["extras"],
        json!({}),
        "an empty isPolledUpdate is not a poll"
    );
}

async fn versions_with_a_suffix_are_read_by_their_numbers(app: TestApp) {
    let update_required = |version: &'static str| {
        let app = app.clone();
        async move {
            app.get(&format!("/api/config?platform=android&version={version}"))
                .await
                .success()["config"]["update_required"]
                .clone()
        }
    };
    // The shipped minimum for Android is 2.7.5.
    assert_eq!(update_required("2.7.5b1").await, false);
    assert_eq!(update_required("2.7.5-beta.2").await, false);
    assert_eq!(update_required("2.8.0%2Bbuild.7").await, false);
    assert_eq!(update_required("2.7.4rc3").await, true);
    app.get("/api/config?platform=android&version=beta")
        .await
        .error_naming(400, "invalid_parameter", "version");
}

async fn post_parameters_may_come_in_a_form_body(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let created = post_form(
        &app,
        "/api/clan/create",
        &format!("tag=Abc&name=Alpha+Squad&description=We+drop+hot.&userKey={key}"),
    )
    .await;
    let clan = &created.success()["clan"];
    assert_eq!(clan["tag"], "Abc");
    assert_eq!(clan["name"], "Alpha Squad");
    assert_eq!(clan["description"], "We drop hot.");

    let claimed = post_form(
        &app,
        &format!("/api/user/{key}/rewards/claim"),
        "type=first",
    )
    .await;
    assert_eq!(claimed.success()["claimed"], 1);
    // The same value in both places counts once.
    post_form(
        &app,
        &format!("/api/user/{key}/rewards/claim?type=first"),
        "type=first",
    )
    .await
    .error(409, "already_claimed");
}

async fn a_form_may_not_contradict_the_query_string(app: TestApp) {
    let key = app.new_key().await;
    post_form(
        &app,
        &format!("/api/clan/create?tag=Abc&userKey={key}"),
        "tag=Xyz&name=Alpha",
    )
    .await
    .error_naming(400, "invalid_parameter", "tag");
    // Nothing was created: the tag is free.
    post_form(
        &app,
        &format!("/api/clan/create?tag=Abc&userKey={key}"),
        "name=Alpha",
    )
    .await
    .success();
}

async fn json_sent_as_a_form_is_read_as_json(app: TestApp) {
    post_form(&app, "/api/metrics/update", r#"{"webgl_version":"webgl2"}"#)
        .await
        .success();
    post_form(
        &app,
        "/api/metrics/update",
        r#" {"webgl_version":"webgl1"} "#,
    )
    .await
    .error_naming(400, "invalid_body", "webgl_version");
    // Form fields are parameters, not a JSON body: the answer names the content type.
    let fields = post_form(&app, "/api/metrics/update", "webgl_version=webgl2").await;
    fields.error_naming(400, "invalid_body", "application/x-www-form-urlencoded");
}
