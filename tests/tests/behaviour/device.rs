//! `POST /api/validate/device/{deviceId}`.

use std::collections::HashSet;

use safezone_tests::{TestApp, each_combination};
use serde_json::Value;

each_combination!(
    first_device_sign_in_creates_the_account,
    later_sign_ins_reach_the_same_account_with_fresh_keys,
    device_accounts_are_for_mobile_apps_only,
    bad_device_ids_are_refused,
    concurrent_first_sign_ins_create_one_account,
    device_ids_are_percent_decoded,
);

fn assert_api_date(value: &Value) {
    let date = value["date"].as_str().unwrap_or_default();
    assert_eq!(date.len(), "2022-11-11 08:00:00.000000".len(), "{value}");
    assert_eq!(value["timezone_type"], 3);
    assert_eq!(value["timezone"], "UTC");
}

async fn first_device_sign_in_creates_the_account(app: TestApp) {
    let (_, body) = app.new_device().await;
    assert_eq!(body["firstLogin"], true);
    let user = &body["user"];
    let key = user["key"].as_str().unwrap_or_default();
    assert_eq!(key.len(), 48);
    assert!(
        key.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    assert_eq!(user["provider"], "device");
    assert!(user["id"].is_i64());
    let friend_code = user["friend_code"].as_str().unwrap_or_default();
    let (name, digits) = friend_code.split_once('#').expect("Name#dddd");
    assert!(
        name.len() >= 3 && name.bytes().all(|b| b.is_ascii_alphanumeric()),
        "{friend_code}"
    );
    assert!(
        digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()),
        "{friend_code}"
    );
    assert_eq!(user["status"], "offline");
    for number in ["experience", "level", "coins", "gems"] {
        assert!(user[number].is_i64(), "{number}: {user}");
    }
    for date in ["created", "updated", "keyExpires"] {
        assert_api_date(&user[date]);
    }
    for collection in ["clans", "licenses", "packs", "subscriptions", "iaps"] {
        assert_eq!(user[collection], serde_json::json!([]), "{collection}");
    }
    assert_eq!(user["progression"]["isStale"], false);
    assert_eq!(user["progression"]["currentExperience"], 0);
    let curve = &safezone_core::content::Content::shipped()
        .progression
        .levels;
    assert_eq!(
        user["progression"]["requiredExperience"],
        curve.required_for_next(1).expect("level 2 exists")
    );
    assert_eq!(user["progression"]["rewards"], serde_json::json!([]));
    assert_eq!(
        user["nextLevelRewards"].as_array().map(Vec::len),
        Some(curve.rewards_for(2).len()),
        "a new account is shown what level 2 gives"
    );
    assert!(
        user.get("email").is_some() && user.get("avatar").is_some() && user.get("name").is_some()
    );
}

async fn later_sign_ins_reach_the_same_account_with_fresh_keys(app: TestApp) {
    let (device, first) = app.new_device().await;
    let again = app
        .post(&format!("/api/validate/device/{device}"))
        .await
        .success()
        .clone();
    assert_eq!(again["firstLogin"], false);
    assert_eq!(again["user"]["id"], first["user"]["id"]);
    assert_eq!(again["user"]["friend_code"], first["user"]["friend_code"]);
    assert_ne!(again["user"]["key"], first["user"]["key"]);
    for key in [&first["user"]["key"], &again["user"]["key"]] {
        let key = key.as_str().unwrap_or_default();
        app.get(&format!("/api/user/{key}")).await.success();
    }
}

async fn device_accounts_are_for_mobile_apps_only(app: TestApp) {
    app.post("/api/validate/device/windows-0b7c4c1e")
        .await
        .error(403, "platform_not_allowed");
    app.post("/api/validate/device/web-0b7c4c1e")
        .await
        .error(403, "platform_not_allowed");
    app.post("/api/validate/device/android-0b7c4c1e?platform=web")
        .await
        .error(403, "platform_not_allowed");
    app.post("/api/validate/device/0b7c4c1e-6d2a")
        .await
        .error_naming(400, "invalid_parameter", "deviceId");
    app.post("/api/validate/device/0b7c4c1e-6d2a?platform=ios")
        .await
        .success();
    app.post("/api/validate/device/0b7c4c1e-6d2a?platform=psp")
        .await
        .error_naming(400, "invalid_parameter", "platform");
}

async fn bad_device_ids_are_refused(app: TestApp) {
    let long = format!("/api/validate/device/ios-{}", "a".repeat(200));
    app.post(&long)
        .await
        .error_naming(400, "invalid_parameter", "deviceId");
    app.post("/api/validate/device/ios-a%20b")
        .await
        .error_naming(400, "invalid_parameter", "deviceId");
}

async fn concurrent_first_sign_ins_create_one_account(app: TestApp) {
    let path = "/api/validate/device/ios-concurrent-5f0c2a";
    let answers = futures_util::future::join_all((0..16).map(|_| app.post(path))).await;
    let mut ids = HashSet::new();
    let mut keys = HashSet::new();
    let mut first_logins = 0;
    for answer in &answers {
        let body = answer.success();
        ids.insert(body["user"]["id"].to_string());
        keys.insert(body["user"]["key"].to_string());
        if body["firstLogin"] == true {
            first_logins += 1;
        }
    }
    assert_eq!(ids.len(), 1, "one account");
    assert_eq!(first_logins, 1, "one first login");
    assert_eq!(keys.len(), 16, "a fresh key each");
}

async fn device_ids_are_percent_decoded(app: TestApp) {
    let encoded = app
        .post("/api/validate/device/ios-abc%2Ddef")
        .await
        .success()
        .clone();
    let plain = app
        .post("/api/validate/device/ios-abc-def")
        .await
        .success()
        .clone();
    assert_eq!(encoded["user"]["id"], plain["user"]["id"]);
    assert_eq!(plain["firstLogin"], false);
}
