//! The published content read back and rolled back through the operator API: the versions
//! with who published each, when and why, one version's text, the running text; rolling back
//! twice goes two versions back, or to a version named; a file sent with CRLF line ends diffs
//! line by line and is published with LF; the node's status says whether its content file is
//! served.

use safezone_core::content::SHIPPED;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};

use super::operator_api::{Operator, token};

each_combination!(
    versions_are_read_back_with_who_when_and_why,
    rolling_back_twice_through_the_api_goes_two_versions_back,
    a_crlf_file_diffs_line_by_line_and_is_published_with_lf,
);

/// The shipped file with the rename price changed.
fn shipped_with_rename_price(gems: u32) -> String {
    SHIPPED.replacen(
        "rename_cost_gems = 40",
        &format!("rename_cost_gems = {gems}"),
        1,
    )
}

/// Publishes `text` through the API as `secret`, answering its version.
async fn publish(app: &TestApp, operator: &Operator, secret: &str, text: &str, reason: &str) {
    let body = json!({"text": text, "reason": reason});
    let answer = operator
        .post(app, "/operator/api/content/publish", secret, body)
        .await;
    answer.success();
}

/// Rolls back through the API as `secret` with `body`.
async fn rollback(app: &TestApp, operator: &Operator, secret: &str, body: Value) -> Value {
    let answer = operator
        .post(app, "/operator/api/content/rollback", secret, body)
        .await;
    answer.success().clone()
}

async fn versions_are_read_back_with_who_when_and_why(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let alice = token(&app, "alice", "full").await;
    let reader = token(&app, "reader", "read").await;
    let running = operator
        .get(&app, "/operator/api/content/running", &reader)
        .await;
    assert_eq!(running.success()["version"], 0);
    assert_eq!(running.success()["text"], SHIPPED);
    let status = operator.get(&app, "/operator/api/status", &reader).await;
    assert_eq!(
        status.success()["content_file"],
        json!({"path": null, "served": true})
    );

    let on = shipped_with_maintenance(true);
    publish(&app, &operator, &alice, &on, "maintenance window").await;
    publish(&app, &operator, &alice, SHIPPED, "maintenance over").await;
    rollback(&app, &operator, &alice, json!({"reason": "too early"})).await;
    app.await_maintenance(true).await;
    let status = operator.get(&app, "/operator/api/status", &reader).await;
    assert_eq!(status.success()["content_file"]["served"], false);

    let listed = operator
        .get(&app, "/operator/api/content/versions", &reader)
        .await;
    let versions = listed.success()["versions"].as_array().expect("a list");
    let about: Vec<Value> = versions
        .iter()
        .map(|v| json!([v["version"], v["by"], v["reason"], v["restores"]]))
        .collect();
    assert_eq!(
        about,
        [
            json!([3, "alice", "too early", 1]),
            json!([2, "alice", "maintenance over", null]),
            json!([1, "alice", "maintenance window", null]),
        ]
    );
    assert!(versions[0]["published"].as_str().is_some());

    let one = operator
        .get(&app, "/operator/api/content/versions/1", &reader)
        .await;
    let one = one.success();
    assert_eq!(one["text"], on);
    assert_eq!(one["by"], "alice");
    assert_eq!(one["reason"], "maintenance window");
    assert_eq!(one["running"], false);
    let three = operator
        .get(&app, "/operator/api/content/versions/3", &reader)
        .await;
    assert_eq!(three.success()["running"], true);
    let running = operator
        .get(&app, "/operator/api/content/running", &reader)
        .await;
    assert_eq!(running.success()["version"], 3);
    assert_eq!(running.success()["text"], on);

    let missing = operator
        .get(&app, "/operator/api/content/versions/9", &reader)
        .await;
    missing.error(404, "unknown_content_version");
    let nonsense = operator
        .get(&app, "/operator/api/content/versions/zero", &reader)
        .await;
    assert_eq!(nonsense.status, 400, "{}", nonsense.text);
}

async fn rolling_back_twice_through_the_api_goes_two_versions_back(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let files = [
        shipped_with_maintenance(true),
        SHIPPED.to_owned(),
        shipped_with_rename_price(41),
    ];
    for (n, text) in files.iter().enumerate() {
        publish(&app, &operator, &secret, text, &format!("file {n}")).await;
    }
    let first = rollback(&app, &operator, &secret, json!({"reason": "back"})).await;
    assert_eq!((&first["version"], &first["from"]), (&json!(4), &json!(2)));
    let second = rollback(&app, &operator, &secret, json!({"reason": "back again"})).await;
    assert_eq!(
        (&second["version"], &second["from"]),
        (&json!(5), &json!(1))
    );
    assert_eq!(second["running"], 5);
    app.await_maintenance(true).await;
    let none = operator
        .post(
            &app,
            "/operator/api/content/rollback",
            &secret,
            json!({"reason": "further"}),
        )
        .await;
    none.error(409, "no_earlier_content");

    let to = rollback(&app, &operator, &secret, json!({"to": 3, "reason": "to 3"})).await;
    assert_eq!((&to["version"], &to["from"]), (&json!(6), &json!(3)));
    app.await_maintenance(false).await;
    let again = operator
        .post(
            &app,
            "/operator/api/content/rollback",
            &secret,
            json!({"to": 3, "reason": "to 3 again"}),
        )
        .await;
    again.error(409, "content_already_served");
    let unknown = operator
        .post(
            &app,
            "/operator/api/content/rollback",
            &secret,
            json!({"to": 42, "reason": "nowhere"}),
        )
        .await;
    unknown.error(404, "unknown_content_version");
    let six = operator
        .get(&app, "/operator/api/content/versions/6", &secret)
        .await;
    assert_eq!(six.success()["restores"], 3);
    assert_eq!(six.success()["reason"], "to 3");
    assert_eq!(six.success()["text"], files[2]);
}

async fn a_crlf_file_diffs_line_by_line_and_is_published_with_lf(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let crlf = shipped_with_maintenance(true).replace('\n', "\r\n");
    let diff = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": crlf}),
        )
        .await;
    let diff = diff.success();
    assert_eq!(diff["valid"], true);
    let text = diff["diff"].as_str().expect("a diff");
    let changed: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with(['+', '-']))
        .filter(|line| !line.starts_with("+++") && !line.starts_with("---"))
        .collect();
    assert_eq!(
        changed,
        ["-maintenance = false", "+maintenance = true"],
        "{text}"
    );
    publish(&app, &operator, &secret, &crlf, "from a browser").await;
    let stored = app.store.published_content(1).await.expect("read");
    assert_eq!(
        stored.expect("version 1").text,
        shipped_with_maintenance(true)
    );
    let same = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": crlf}),
        )
        .await;
    assert_eq!(same.success()["diff"], Value::Null);
    let invalid = SHIPPED
        .replacen("maintenance = false", "maintenance = 3", 1)
        .replacen("rename_cost_gems = 40", "rename_cost_gems = -1", 1)
        .replace('\n', "\r\n");
    let checked = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": invalid}),
        )
        .await;
    let errors = checked.success()["errors"]
        .as_array()
        .expect("errors")
        .len();
    assert_eq!(errors, 2, "{}", checked.text);
}
