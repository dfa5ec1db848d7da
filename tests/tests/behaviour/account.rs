//! Reading the account, keys from every source, revoking keys, deleting, signing out.

use reqwest::Method;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    user_answers_the_account,
    bad_keys_are_401,
    legacy_user_path_checks_a_key,
    another_accounts_key_never_opens_an_account,
    keys_expire,
    clear_sessions_revokes_every_key,
    delete_account_needs_a_second_key,
    logout_revokes_the_cookie_key_and_clears_cookies,
);

async fn key_of_device(app: &TestApp, device: &str) -> String {
    let body = app
        .post(&format!("/api/validate/device/{device}"))
        .await
        .success()
        .clone();
    body["user"]["key"].as_str().unwrap_or_default().to_owned()
}

async fn user_answers_the_account(app: TestApp) {
    let (_, signed_in) = app.new_device().await;
    let key = signed_in["user"]["key"].as_str().unwrap_or_default();
    let body = app.get(&format!("/api/user/{key}")).await.success().clone();
    assert_eq!(body["user"]["id"], signed_in["user"]["id"]);
    assert_eq!(body["user"]["key"], key);
    assert_eq!(body["rewards"], serde_json::json!([]));
    assert_eq!(body["is_banned"], false);
}

async fn bad_keys_are_401(app: TestApp) {
    let key = app.new_key().await;
    app.get("/api/user/short")
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{}", key.to_uppercase()))
        .await
        .error(401, "invalid_user_key");
    let unknown = "0".repeat(48);
    app.get(&format!("/api/user/{unknown}"))
        .await
        .error(401, "invalid_user_key");
    app.post(&format!("/api/user/{unknown}/clear-sessions"))
        .await
        .error(401, "invalid_user_key");
}

async fn legacy_user_path_checks_a_key(app: TestApp) {
    let key = app.new_key().await;
    let body = app.get(&format!("/user/{key}")).await.success().clone();
    assert_eq!(body["user"]["key"], key);
    assert!(body.get("rewards").is_none());
    let head = app
        .send(Method::HEAD, &format!("/user/{key}"), &[], None)
        .await;
    assert_eq!(head.status, 200);
    let unknown = "f".repeat(48);
    app.get(&format!("/user/{unknown}"))
        .await
        .error(401, "invalid_user_key");
    let head = app
        .send(Method::HEAD, &format!("/user/{unknown}"), &[], None)
        .await;
    assert_eq!(head.status, 401);
}

async fn another_accounts_key_never_opens_an_account(app: TestApp) {
    let mine = app.new_key().await;
    let theirs = app.new_key().await;
    let bearer = format!("Bearer {theirs}");
    app.send(
        Method::GET,
        &format!("/api/user/{mine}"),
        &[("authorization", &bearer)],
        None,
    )
    .await
    .error(403, "key_mismatch");
    app.get(&format!("/api/user/{mine}?userKey={theirs}"))
        .await
        .error(403, "key_mismatch");
    app.post(&format!("/api/user/{mine}/clear-sessions?userKey={theirs}"))
        .await
        .error(403, "key_mismatch");
    app.get(&format!("/api/user/{mine}")).await.success();
    app.get(&format!("/api/user/{theirs}")).await.success();
}

async fn keys_expire(app: TestApp) {
    let key = app.new_key().await;
    app.clock.advance(time::Duration::days(29));
    app.get(&format!("/api/user/{key}")).await.success();
    app.clock.advance(time::Duration::days(2));
    app.get(&format!("/api/user/{key}"))
        .await
        .error(401, "invalid_user_key");
}

async fn clear_sessions_revokes_every_key(app: TestApp) {
    let device = "ios-clear-sessions-1";
    let first = key_of_device(&app, device).await;
    let second = key_of_device(&app, device).await;
    let bystander = app.new_key().await;
    app.post(&format!("/api/user/{first}/clear-sessions"))
        .await
        .success();
    app.get(&format!("/api/user/{first}"))
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{second}"))
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{bystander}")).await.success();
    let third = key_of_device(&app, device).await;
    app.get(&format!("/api/user/{third}")).await.success();
}

async fn delete_account_needs_a_second_key(app: TestApp) {
    let device = "android-delete-me-7";
    let first = key_of_device(&app, device).await;
    let id = app.get(&format!("/api/user/{first}")).await.success()["user"]["id"].clone();
    let second = key_of_device(&app, device).await;
    let stranger = app.new_key().await;
    let path = |confirmation: &str| {
        format!("/api/user/{first}/delete-account?confirmationKey={confirmation}")
    };

    app.post(&format!("/api/user/{first}/delete-account"))
        .await
        .error_naming(400, "missing_parameter", "confirmationKey");
    app.post(&path("nonsense"))
        .await
        .error_naming(400, "invalid_parameter", "confirmationKey");
    app.post(&path(&first))
        .await
        .error_naming(400, "invalid_parameter", "confirmationKey");
    app.post(&path(&stranger))
        .await
        .error(403, "confirmation_failed");
    app.post(&path(&"0".repeat(48)))
        .await
        .error(403, "confirmation_failed");
    app.get(&format!("/api/user/{first}")).await.success();

    app.post(&path(&second)).await.success();
    app.get(&format!("/api/user/{first}"))
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{second}"))
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{stranger}")).await.success();

    let again = app
        .post(&format!("/api/validate/device/{device}"))
        .await
        .success()
        .clone();
    assert_eq!(again["firstLogin"], true);
    assert_ne!(again["user"]["id"], id);
}

async fn logout_revokes_the_cookie_key_and_clears_cookies(app: TestApp) {
    let key = app.new_key().await;
    let cookie = format!("theme=dark; userKey={key}");
    let answer = app
        .send(Method::GET, "/user/logout", &[("cookie", &cookie)], None)
        .await;
    assert_eq!(answer.status, 200);
    assert!(answer.header_values("content-type")[0].starts_with("text/html"));
    let cookies = answer.header_values("set-cookie");
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with("userKey=;") && c.contains("Max-Age=0"))
    );
    assert!(cookies.iter().any(|c| c.starts_with("safezone_login=;")));
    assert!(answer.text.contains("signed out"));
    app.get(&format!("/api/user/{key}"))
        .await
        .error(401, "invalid_user_key");

    let anonymous = app.get("/user/logout").await;
    assert_eq!(anonymous.status, 200);
}
