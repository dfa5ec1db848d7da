//! `GET /api/user/{userKey}/rewards` and `POST /api/user/{userKey}/rewards/claim`: the seven
//! reward types of the content file and their schedules.

use safezone_core::clock::Clock;
use safezone_core::store::Currency;
use safezone_tests::economy::{int, pack_count};
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::macros::datetime;

each_combination!(
    the_seven_types_are_listed_in_order,
    first_is_claimed_once,
    gift_comes_back_every_four_hours,
    recurring_is_three_times_a_utc_day,
    bonus_is_daily_and_social_once,
    premium_needs_a_premium_chat_link,
    coming_soon_is_never_claimable,
    reward_type_errors,
);

/// The type names of the shipped content file, in its order.
const TYPES: [&str; 7] = [
    "first",
    "gift",
    "recurring",
    "bonus",
    "social",
    "premium",
    "coming_soon",
];

/// An ApiDate's `date` at this UTC instant, as the wire shows it.
fn api_date(date: &str) -> Value {
    json!({"date": format!("{date}.000000"), "timezone_type": 3, "timezone": "UTC"})
}

/// The rewards list's entry of type `name`.
async fn status_of(app: &TestApp, key: &str, name: &str) -> Value {
    let body = app
        .get(&format!("/api/user/{key}/rewards"))
        .await
        .success()
        .clone();
    body["types"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no type {name}: {body}"))
}

/// `(is_available, claimed, total, next_at)` of a status or a claim answer.
fn status(body: &Value) -> (bool, i64, i64, Value) {
    (
        body["is_available"].as_bool().expect("is_available"),
        int(body, "claimed"),
        int(body, "total"),
        body["next_at"].clone(),
    )
}

async fn the_seven_types_are_listed_in_order(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let body = app
        .get(&format!("/api/user/{key}/rewards"))
        .await
        .success()
        .clone();
    let types = body["types"].as_array().expect("types");
    let names: Vec<&str> = types
        .iter()
        .map(|entry| entry["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, TYPES);
    let statuses: Vec<(bool, i64, i64, Value)> = types.iter().map(status).collect();
    assert_eq!(
        statuses,
        [
            (true, 0, 1, Value::Null),
            (true, 0, 1, Value::Null),
            (true, 0, 3, Value::Null),
            (true, 0, 1, Value::Null),
            (true, 0, 1, Value::Null),
            (false, 0, 1, Value::Null),
            (false, 0, 0, Value::Null),
        ]
    );
    app.get("/api/user/short/rewards")
        .await
        .error(401, "invalid_user_key");
}

async fn first_is_claimed_once(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let body = app.claim(&key, "first").await.success().clone();
    assert_eq!(
        body["rewards"],
        json!([
            {"type": "gems", "quantity": 100},
            {"type": "coins", "quantity": 1000},
            {"type": "pack", "packId": 1, "packSku": "basic-chest", "quantity": 1},
        ])
    );
    assert_eq!(int(&body["user"], "gems"), 100);
    assert_eq!(int(&body["user"], "coins"), 1000);
    assert_eq!(pack_count(&body["user"], 1), 1);
    assert_eq!(status(&body), (false, 1, 1, Value::Null));
    let ledger = app.ledger_of(&key).await;
    let rows: Vec<_> = ledger
        .iter()
        .map(|row| {
            (
                row.currency,
                row.delta,
                row.reason.as_str(),
                row.reference.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (Currency::Gems, 100, "claim", "first"),
            (Currency::Coins, 1000, "claim", "first")
        ]
    );

    let before = app.snapshot(&key).await;
    app.claim(&key, "first").await.error(409, "already_claimed");
    assert_eq!(app.snapshot(&key).await, before);
    assert_eq!(
        status(&status_of(&app, &key, "first").await),
        (false, 1, 1, Value::Null)
    );
    // Another account's first claim is its own.
    let other = app.new_key().await;
    app.claim(&other, "first").await.success();
    app.assert_key_ledger_balanced(&key).await;
}

async fn gift_comes_back_every_four_hours(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 09:30 UTC));
    let key = app.new_key().await;
    let body = app.claim(&key, "gift").await.success().clone();
    assert_eq!(body["rewards"], json!([{"type": "coins", "quantity": 150}]));
    assert_eq!(int(&body["user"], "coins"), 150);
    let noon = api_date("2026-12-01 12:00:00");
    assert_eq!(status(&body), (false, 1, 1, noon.clone()));
    assert_eq!(
        status(&status_of(&app, &key, "gift").await),
        (false, 1, 1, noon.clone())
    );
    app.claim(&key, "gift").await.error(409, "already_claimed");

    app.clock.set(datetime!(2026-12-01 11:59:59 UTC));
    app.claim(&key, "gift").await.error(409, "already_claimed");
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    assert_eq!(
        status(&status_of(&app, &key, "gift").await),
        (true, 0, 1, Value::Null)
    );
    let body = app.claim(&key, "gift").await.success().clone();
    assert_eq!(int(&body["user"], "coins"), 300);
    assert_eq!(
        status(&body),
        (false, 1, 1, api_date("2026-12-01 16:00:00"))
    );
    app.clock.set(datetime!(2026-12-01 23:00 UTC));
    let body = app.claim(&key, "gift").await.success().clone();
    assert_eq!(
        status(&body),
        (false, 1, 1, api_date("2026-12-02 00:00:00"))
    );
    assert_eq!(int(&body["user"], "coins"), 450);
    app.assert_key_ledger_balanced(&key).await;
}

async fn recurring_is_three_times_a_utc_day(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 22:00 UTC));
    let key = app.new_key().await;
    for claimed in 1..=3 {
        let body = app.claim(&key, "recurring").await.success().clone();
        assert_eq!(body["rewards"], json!([{"type": "coins", "quantity": 50}]));
        assert_eq!(int(&body["user"], "coins"), 50 * claimed);
        let next = if claimed == 3 {
            api_date("2026-12-02 00:00:00")
        } else {
            Value::Null
        };
        assert_eq!(status(&body), (claimed < 3, claimed, 3, next));
    }
    let before = app.snapshot(&key).await;
    app.claim(&key, "recurring")
        .await
        .error(409, "already_claimed");
    assert_eq!(app.snapshot(&key).await, before);
    assert_eq!(
        status(&status_of(&app, &key, "recurring").await),
        (false, 3, 3, api_date("2026-12-02 00:00:00"))
    );
    app.clock.set(datetime!(2026-12-02 00:00 UTC));
    let body = app.claim(&key, "recurring").await.success().clone();
    assert_eq!(status(&body), (true, 1, 3, Value::Null));
    assert_eq!(int(&body["user"], "coins"), 200);
    app.assert_key_ledger_balanced(&key).await;
}

async fn bonus_is_daily_and_social_once(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let body = app.claim(&key, "bonus").await.success().clone();
    assert_eq!(body["rewards"], json!([{"type": "gems", "quantity": 10}]));
    assert_eq!(
        status(&body),
        (false, 1, 1, api_date("2026-12-02 00:00:00"))
    );
    app.claim(&key, "bonus").await.error(409, "already_claimed");
    let body = app.claim(&key, "social").await.success().clone();
    assert_eq!(body["rewards"], json!([{"type": "gems", "quantity": 50}]));
    assert_eq!(int(&body["user"], "gems"), 60);
    assert_eq!(status(&body), (false, 1, 1, Value::Null));
    app.claim(&key, "social")
        .await
        .error(409, "already_claimed");

    app.clock.set(datetime!(2026-12-02 08:00 UTC));
    let body = app.claim(&key, "bonus").await.success().clone();
    assert_eq!(int(&body["user"], "gems"), 70);
    app.claim(&key, "social")
        .await
        .error(409, "already_claimed");
    app.assert_key_ledger_balanced(&key).await;
}

async fn premium_needs_a_premium_chat_link(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let id = app.account_id(&key).await;
    let before = app.snapshot(&key).await;
    app.claim(&key, "premium")
        .await
        .error(403, "chat_link_required");
    assert_eq!(app.snapshot(&key).await, before);

    let chat_user = format!("chat-{}", uuid::Uuid::new_v4());
    app.store
        .link_chat(id, &chat_user, false, app.clock.now())
        .await
        .expect("the link is stored");
    app.claim(&key, "premium")
        .await
        .error(403, "premium_required");
    assert_eq!(app.snapshot(&key).await, before);
    assert_eq!(
        status(&status_of(&app, &key, "premium").await),
        (false, 0, 1, Value::Null)
    );

    app.store
        .link_chat(id, &chat_user, true, app.clock.now())
        .await
        .expect("the link is stored");
    assert_eq!(
        status(&status_of(&app, &key, "premium").await),
        (true, 0, 1, Value::Null)
    );
    let body = app.claim(&key, "premium").await.success().clone();
    assert_eq!(body["rewards"], json!([{"type": "gems", "quantity": 25}]));
    assert_eq!(int(&body["user"], "gems"), 25);
    assert_eq!(
        status(&body),
        (false, 1, 1, api_date("2026-12-02 00:00:00"))
    );
    app.claim(&key, "premium")
        .await
        .error(409, "already_claimed");

    // A subscription that lapses closes the type again.
    app.clock.set(datetime!(2026-12-02 12:00 UTC));
    app.store
        .link_chat(id, &chat_user, false, app.clock.now())
        .await
        .expect("the link is stored");
    app.claim(&key, "premium")
        .await
        .error(403, "premium_required");
    app.assert_key_ledger_balanced(&key).await;
}

async fn coming_soon_is_never_claimable(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let before = app.snapshot(&key).await;
    app.claim(&key, "coming_soon")
        .await
        .error(409, "not_claimable");
    assert_eq!(app.snapshot(&key).await, before);
    assert_eq!(
        status(&status_of(&app, &key, "coming_soon").await),
        (false, 0, 0, Value::Null)
    );
}

async fn reward_type_errors(app: TestApp) {
    let key = app.new_key().await;
    let before = app.snapshot(&key).await;
    for name in ["bogus", "First", "instagram", "first%20", "gift/2026"] {
        app.claim(&key, name)
            .await
            .error_naming(400, "invalid_parameter", "type");
    }
    app.post(&format!("/api/user/{key}/rewards/claim"))
        .await
        .error_naming(400, "missing_parameter", "type");
    app.post(&format!("/api/user/{key}/rewards/claim?type="))
        .await
        .error_naming(400, "missing_parameter", "type");
    app.post("/api/user/short/rewards/claim?type=first")
        .await
        .error(401, "invalid_user_key");
    assert_eq!(app.snapshot(&key).await, before);
}
