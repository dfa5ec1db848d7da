//! The `Idempotency-Key` header of the POSTs that move currency: a repeat answers the first
//! answer and changes nothing.

use std::time::Duration as StdDuration;

use reqwest::Method;
use safezone_core::Settings;
use safezone_tests::economy::{coins, gems, int, pack_count};
use safezone_tests::leaderboard::within;
use safezone_tests::{Answer, TestApp, each_combination, test_settings};
use time::Duration;
use time::macros::datetime;

each_combination!(
    a_repeated_key_replays_the_first_answer,
    a_key_reused_for_another_request_is_409,
    invalid_keys_are_400,
    a_refused_request_does_not_burn_the_key,
    keys_belong_to_one_account,
    claims_opens_and_renames_are_idempotent,
    a_repeat_after_the_deal_closed_replays_the_purchase,
);

each_combination!(
    settings = swept_often;
    a_replay_within_the_retention_survives_the_sweep,
);

/// The test settings with the retention sweep running every 50 ms, so that a round follows
/// soon after the test moves the clock.
fn swept_often() -> Settings {
    let mut settings = test_settings();
    settings.retention_sweep_every = StdDuration::from_millis(50);
    settings
}

/// The answer header that marks a replay.
const REPLAYED: &str = "idempotent-replayed";

/// `POST path` with the `Idempotency-Key` header.
async fn post_once(app: &TestApp, path: &str, idempotency: &str) -> Answer {
    app.send(
        Method::POST,
        path,
        &[("idempotency-key", idempotency)],
        None,
    )
    .await
}

/// The number of ledger rows of the holder of `key` with this reason.
async fn rows(app: &TestApp, key: &str, reason: &str) -> usize {
    app.ledger_of(key)
        .await
        .iter()
        .filter(|entry| entry.reason == reason)
        .count()
}

async fn a_repeated_key_replays_the_first_answer(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(2000)).await;
    let first = app.buy_once(&key, "packId=1&quantity=1", "buy-1").await;
    let first_body = first.success().clone();
    assert!(
        first.header_values(REPLAYED).is_empty(),
        "{:?}",
        first.headers
    );
    assert_eq!(int(&first_body["user"], "coins"), 1250);

    let again = app.buy_once(&key, "packId=1&quantity=1", "buy-1").await;
    let again_body = again.success().clone();
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again_body["rewards"], first_body["rewards"]);
    assert_eq!(int(&again_body["user"], "coins"), 1250);
    assert_eq!(pack_count(&again_body["user"], 1), 1);
    assert_eq!(rows(&app, &key, "buy").await, 1);

    // Without the key, the same request buys again.
    let plain = app.buy(&key, "packId=1&quantity=1").await;
    assert!(plain.header_values(REPLAYED).is_empty());
    assert_eq!(pack_count(&plain.success()["user"], 1), 2);
    // A third repeat of the key still changes nothing.
    let third = app.buy_once(&key, "packId=1&quantity=1", "buy-1").await;
    assert_eq!(third.header_values(REPLAYED), ["true"]);
    assert_eq!(third.success()["rewards"], first_body["rewards"]);
    assert_eq!(int(&app.user(&key).await, "coins"), 500);
    assert_eq!(rows(&app, &key, "buy").await, 2);
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_key_reused_for_another_request_is_409(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(5000)).await;
    app.grant_to(&key, gems(5000)).await;
    app.buy_once(&key, "packId=1&quantity=1", "reused")
        .await
        .success();
    let before = app.snapshot(&key).await;
    for query in [
        "packId=2&quantity=1",
        "packId=1&quantity=2",
        "itemId=16&quantity=1",
    ] {
        app.buy_once(&key, query, "reused")
            .await
            .error(409, "idempotency_key_reused");
    }
    post_once(
        &app,
        &format!("/api/user/{key}/rewards/claim?type=gift"),
        "reused",
    )
    .await
    .error(409, "idempotency_key_reused");
    post_once(
        &app,
        &format!("/api/user/{key}/pack/open?packId=1"),
        "reused",
    )
    .await
    .error(409, "idempotency_key_reused");
    assert_eq!(app.snapshot(&key).await, before);
    app.assert_key_ledger_balanced(&key).await;
}

async fn invalid_keys_are_400(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(5000)).await;
    let before = app.snapshot(&key).await;
    let long = "k".repeat(256);
    let longer = "k".repeat(300);
    for idempotency in ["", "has space", "tab\there", long.as_str(), longer.as_str()] {
        app.buy_once(&key, "packId=1&quantity=1", idempotency)
            .await
            .error_naming(400, "invalid_header", "Idempotency-Key");
    }
    assert_eq!(app.snapshot(&key).await, before);
    // 255 visible characters are accepted.
    let longest = "~".repeat(255);
    app.buy_once(&key, "packId=1&quantity=1", &longest)
        .await
        .success();
    let again = app.buy_once(&key, "packId=1&quantity=1", &longest).await;
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(rows(&app, &key, "buy").await, 1);
}

async fn a_refused_request_does_not_burn_the_key(app: TestApp) {
    let key = app.new_key().await;
    app.buy_once(&key, "packId=1&quantity=1", "retry-me")
        .await
        .error(402, "insufficient_funds");
    app.grant_to(&key, coins(750)).await;
    let answer = app.buy_once(&key, "packId=1&quantity=1", "retry-me").await;
    let body = answer.success().clone();
    assert!(answer.header_values(REPLAYED).is_empty());
    assert_eq!(int(&body["user"], "coins"), 0);
    assert_eq!(pack_count(&body["user"], 1), 1);
    // A request refused before reaching the store (a bad parameter) does not burn it either.
    app.grant_to(&key, coins(750)).await;
    app.buy_once(&key, "packId=1&quantity=0", "second")
        .await
        .error(400, "invalid_parameter");
    app.buy_once(&key, "packId=1&quantity=1", "second")
        .await
        .success();
    assert_eq!(rows(&app, &key, "buy").await, 2);
    app.assert_key_ledger_balanced(&key).await;
}

async fn keys_belong_to_one_account(app: TestApp) {
    let mine = app.new_key().await;
    let theirs = app.new_key().await;
    for key in [&mine, &theirs] {
        app.grant_to(key, coins(750)).await;
        let answer = app.buy_once(key, "packId=1&quantity=1", "shared").await;
        answer.success();
        assert!(answer.header_values(REPLAYED).is_empty());
        assert_eq!(rows(&app, key, "buy").await, 1);
        app.assert_key_ledger_balanced(key).await;
    }
}

async fn claims_opens_and_renames_are_idempotent(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let claim = format!("/api/user/{key}/rewards/claim?type=first");
    let first = post_once(&app, &claim, "claim-first").await;
    let first_body = first.success().clone();
    let again = post_once(&app, &claim, "claim-first").await;
    let again_body = again.success().clone();
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again_body["rewards"], first_body["rewards"]);
    assert_eq!(int(&again_body["user"], "gems"), 100);
    app.claim(&key, "first").await.error(409, "already_claimed");

    let open = format!("/api/user/{key}/pack/open?packId=1");
    let opened = post_once(&app, &open, "open-1").await;
    let opened_body = opened.success().clone();
    let reopened = post_once(&app, &open, "open-1").await;
    assert_eq!(reopened.header_values(REPLAYED), ["true"]);
    assert_eq!(reopened.success()["rewards"], opened_body["rewards"]);
    assert_eq!(pack_count(&app.user(&key).await, 1), 0);

    app.grant_to(&key, gems(400)).await;
    let rename = format!("/api/user/{key}/friend-code/update?name=Replayed");
    let renamed = post_once(&app, &rename, "rename-1").await;
    let code = renamed.success()["user"]["friend_code"].clone();
    let again = post_once(&app, &rename, "rename-1").await;
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again.success()["user"]["friend_code"], code);
    assert_eq!(
        int(&app.user(&key).await, "gems"),
        100 + 400 - safezone_tests::leaderboard::RENAME_PRICE
    );
    assert_eq!(rows(&app, &key, "rename").await, 1);
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_repeat_after_the_deal_closed_replays_the_purchase(app: TestApp) {
    // The winter deal runs until 2027-06-30 23:59:59 (excluded). A client buys it a few
    // seconds before the end, loses the answer, and retries with the same key after the end:
    // the retry must answer the first purchase, not a refusal.
    app.clock.set(datetime!(2027-06-30 23:59:50 UTC));
    let key = app.new_key().await;
    app.grant_to(&key, gems(500)).await;
    let first = app
        .buy_once(&key, "timedDealId=1&quantity=1", "deal-at-the-edge")
        .await;
    let first_body = first.success().clone();
    let before = app.snapshot(&key).await;
    app.clock.set(datetime!(2027-07-01 00:00:05 UTC));
    let retry = app
        .buy_once(&key, "timedDealId=1&quantity=1", "deal-at-the-edge")
        .await;
    let retry_body = retry.success().clone();
    assert_eq!(retry.header_values(REPLAYED), ["true"]);
    assert_eq!(retry_body["rewards"], first_body["rewards"]);
    assert_eq!(app.snapshot(&key).await, before);
}

/// Idempotency keys are remembered for the retention (7 days by default): after a sweep past
/// it, a key used 7 days and a minute ago is forgotten (its repeat is a new request, refused
/// here because the item is owned), while a key used an hour ago still replays its first
/// answer with `Idempotent-Replayed` and changes nothing.
async fn a_replay_within_the_retention_survives_the_sweep(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(5000)).await;
    let item = "itemId=16&quantity=1";
    app.buy_once(&key, item, "early").await.success();
    app.clock.advance(Duration::days(6) + Duration::hours(23));
    let pack = "packId=1&quantity=1";
    let first = app.buy_once(&key, pack, "late").await.success().clone();
    app.clock.advance(Duration::hours(1) + Duration::minutes(1));

    // Once a round has run at the new time, the early key is forgotten.
    let forgotten = within(StdDuration::from_secs(30), || async {
        let again = app.buy_once(&key, item, "early").await;
        if again.header_values(REPLAYED) == ["true"] {
            return Err(format!("not swept yet: {}", again.text));
        }
        Ok(again)
    })
    .await;
    forgotten
        .expect("a sweep forgets the early key")
        .error(409, "already_owned");

    let again = app.buy_once(&key, pack, "late").await;
    let body = again.success().clone();
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(body["rewards"], first["rewards"]);
    assert_eq!(int(&body["user"], "coins"), int(&first["user"], "coins"));
    assert_eq!(pack_count(&body["user"], 1), 1);
    assert_eq!(rows(&app, &key, "buy").await, 2, "one item, one pack");
}
