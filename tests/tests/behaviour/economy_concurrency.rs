//! Simultaneous requests against one account: the store's preconditions, checked inside one
//! transaction per change, let exactly as many through as the state allows, and the ledger
//! stays equal to the balances.

use futures_util::future::join_all;
use safezone_tests::economy::{coins, gems, int, pack_count, packs};
use safezone_tests::leaderboard::RENAME_PRICE;
use safezone_tests::{TestApp, each_combination, expected_tally, tally};
use time::macros::datetime;

each_combination!(
    fifty_buys_with_funds_for_five,
    simultaneous_buys_of_one_item_sell_it_once,
    twenty_opens_of_three_packs,
    simultaneous_first_claims_give_one,
    twenty_requests_with_one_idempotency_key,
    simultaneous_renames_to_one_name_get_distinct_codes,
);

async fn fifty_buys_with_funds_for_five(app: TestApp) {
    let key = app.new_key().await;
    let bystander = app.new_key().await;
    app.grant_to(&bystander, gems(1000)).await;
    // The rare chest costs 250 gems: funds for exactly five.
    app.grant_to(&key, gems(5 * 250)).await;
    let answers = join_all((0..50).map(|_| app.buy(&key, "packId=2&quantity=1"))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 5), (402, "insufficient_funds", 45)])
    );
    let user = app.user(&key).await;
    assert_eq!(pack_count(&user, 2), 5);
    assert_eq!(int(&user, "gems"), 0);
    let buys = app
        .ledger_of(&key)
        .await
        .into_iter()
        .filter(|entry| entry.reason == "buy")
        .count();
    assert_eq!(buys, 5);
    app.assert_key_ledger_balanced(&key).await;
    app.assert_key_ledger_balanced(&bystander).await;
    assert_eq!(int(&app.user(&bystander).await, "gems"), 1000);
}

async fn simultaneous_buys_of_one_item_sell_it_once(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(100_000)).await;
    let answers = join_all((0..20).map(|_| app.buy(&key, "itemId=45&quantity=1"))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 1), (409, "already_owned", 19)])
    );
    let user = app.user(&key).await;
    assert_eq!(int(&user, "coins"), 100_000 - 5000);
    app.assert_key_ledger_balanced(&key).await;
}

async fn twenty_opens_of_three_packs(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, packs("basic-chest", 3)).await;
    let answers = join_all((0..20).map(|_| app.open_pack(&key, 1))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 3), (409, "no_pack_to_open", 17)])
    );
    let user = app.user(&key).await;
    assert_eq!(pack_count(&user, 1), 0);
    assert_eq!(user["packs"], serde_json::json!([]));
    // Every draw is either a new license or the pack's 150 duplicate coins.
    let draws: Vec<serde_json::Value> = answers
        .iter()
        .filter(|answer| answer.status == 200)
        .flat_map(|answer| {
            answer.json["rewards"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(draws.len(), 3);
    let new_items = draws.iter().filter(|draw| draw["type"] == "item").count();
    let duplicates = draws.iter().filter(|draw| draw["type"] == "coins").count();
    assert_eq!(new_items + duplicates, 3);
    let licenses = user["licenses"].as_array().map_or(0, Vec::len);
    assert_eq!(licenses, new_items);
    assert_eq!(
        int(&user, "coins"),
        150 * i64::try_from(duplicates).unwrap_or(0)
    );
    app.assert_key_ledger_balanced(&key).await;
}

async fn simultaneous_first_claims_give_one(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let answers = join_all((0..20).map(|_| app.claim(&key, "first"))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 1), (409, "already_claimed", 19)])
    );
    let user = app.user(&key).await;
    assert_eq!(int(&user, "gems"), 100);
    assert_eq!(int(&user, "coins"), 1000);
    assert_eq!(pack_count(&user, 1), 1);
    assert_eq!(app.ledger_of(&key).await.len(), 2, "one row per currency");
    // Recurring: three a day, however many arrive at once.
    let answers = join_all((0..10).map(|_| app.claim(&key, "recurring"))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 3), (409, "already_claimed", 7)])
    );
    assert_eq!(int(&app.user(&key).await, "coins"), 1000 + 150);
    app.assert_key_ledger_balanced(&key).await;
}

async fn twenty_requests_with_one_idempotency_key(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(10 * 750)).await;
    let answers =
        join_all((0..20).map(|_| app.buy_once(&key, "packId=1&quantity=1", "one-purchase"))).await;
    assert_eq!(tally(&answers), expected_tally(&[(200, "", 20)]));
    let replayed = answers
        .iter()
        .filter(|answer| answer.header_values("idempotent-replayed") == ["true"])
        .count();
    assert_eq!(replayed, 19, "all but the first are replays");
    for answer in &answers {
        assert_eq!(answer.json["rewards"], answers[0].json["rewards"]);
    }
    let user = app.user(&key).await;
    assert_eq!(int(&user, "coins"), 9 * 750);
    assert_eq!(pack_count(&user, 1), 1);
    let buys = app
        .ledger_of(&key)
        .await
        .into_iter()
        .filter(|entry| entry.reason == "buy")
        .count();
    assert_eq!(buys, 1, "charged exactly once");
    app.assert_key_ledger_balanced(&key).await;
}

async fn simultaneous_renames_to_one_name_get_distinct_codes(app: TestApp) {
    let mut keys = Vec::new();
    for _ in 0..8 {
        let key = app.new_key().await;
        app.grant_to(&key, gems(RENAME_PRICE)).await;
        keys.push(key);
    }
    let answers = join_all(
        keys.iter()
            .map(|key| app.act(key, "friend-code/update", "name=Crowded")),
    )
    .await;
    assert_eq!(tally(&answers), expected_tally(&[(200, "", 8)]));
    let mut codes: Vec<String> = answers
        .iter()
        .map(|answer| {
            answer.json["user"]["friend_code"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(
        codes.iter().all(|code| code.starts_with("Crowded#")),
        "{codes:?}"
    );
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), 8, "{codes:?}");
    for key in &keys {
        assert_eq!(int(&app.user(key).await, "gems"), 0);
        app.assert_key_ledger_balanced(key).await;
    }
}
