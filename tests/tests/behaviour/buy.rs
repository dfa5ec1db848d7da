//! `POST /api/user/{userKey}/buy`: items, packs and timed deals; quantities, ids, funds and
//! deal windows.

use safezone_core::content::{Content, RewardSpec};
use safezone_core::store::Currency;
use safezone_tests::economy::{coins, gems, int, items, owns, pack_count};
use safezone_tests::{TestApp, each_combination};
use serde_json::json;
use time::macros::datetime;

each_combination!(
    buying_an_item_debits_its_price,
    an_owned_item_is_409_and_charges_nothing,
    quantity_must_be_a_whole_number_in_range,
    exactly_one_thing_is_bought,
    unknown_ids_are_404_and_malformed_ids_400,
    unpriced_items_are_not_for_sale,
    insufficient_funds_are_402_and_change_nothing,
    packs_are_bought_by_quantity,
    gem_priced_packs,
    a_running_deal_is_bought_once_per_run,
    a_deal_gives_coins_for_items_already_owned,
    a_deals_experience_reaches_its_levels_in_the_same_purchase,
    closed_deals_are_409,
    buying_needs_a_valid_key,
);

async fn buying_an_item_debits_its_price(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(1000)).await;
    let answer = app.buy(&key, "itemId=16&quantity=1").await;
    let body = answer.success();
    let mut fields: Vec<&String> = body.as_object().expect("object").keys().collect();
    fields.sort();
    assert_eq!(fields, ["rewards", "status", "user"]);
    assert_eq!(
        body["rewards"],
        json!([{"type": "item", "itemId": 16, "itemSku": "emote-salute", "quantity": 1}])
    );
    let user = &body["user"];
    assert!(owns(user, 16), "{user}");
    assert_eq!(user["key"], key.as_str());
    assert_eq!(int(user, "coins"), 600);
    assert_eq!(int(user, "gems"), 0);
    let after = app.user(&key).await;
    assert_eq!(int(&after, "coins"), 600);
    assert!(owns(&after, 16));

    let ledger = app.ledger_of(&key).await;
    let last = ledger.last().expect("a ledger row");
    assert_eq!(last.reason, "buy");
    assert_eq!(last.reference, "item:16");
    assert_eq!(last.currency, Currency::Coins);
    assert_eq!((last.delta, last.balance_after), (-400, 600));
    assert_eq!(ledger.len(), 2);

    // An item priced in gems debits gems only.
    app.grant_to(&key, gems(900)).await;
    let body = app
        .buy(&key, "itemId=15&quantity=1")
        .await
        .success()
        .clone();
    assert_eq!(
        (int(&body["user"], "coins"), int(&body["user"], "gems")),
        (600, 0)
    );
    assert!(owns(&body["user"], 15));
    let last = app.ledger_of(&key).await.pop().expect("a ledger row");
    assert_eq!(
        (last.currency, last.delta, last.reason.as_str()),
        (Currency::Gems, -900, "buy")
    );
    app.assert_key_ledger_balanced(&key).await;
}

async fn an_owned_item_is_409_and_charges_nothing(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(1000)).await;
    app.buy(&key, "itemId=16&quantity=1").await.success();
    let before = app.snapshot(&key).await;
    app.buy(&key, "itemId=16&quantity=1")
        .await
        .error(409, "already_owned");
    assert_eq!(app.snapshot(&key).await, before);

    // Owned through an operator grant counts the same.
    app.grant_to(&key, items(&["emote-facepalm"])).await;
    let before = app.snapshot(&key).await;
    app.buy(&key, "itemId=17&quantity=1")
        .await
        .error(409, "already_owned");
    assert_eq!(app.snapshot(&key).await, before);
    app.assert_key_ledger_balanced(&key).await;
}

async fn quantity_must_be_a_whole_number_in_range(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(1_000_000)).await;
    let before = app.snapshot(&key).await;
    // An item is owned once: only quantity 1.
    app.buy(&key, "itemId=16&quantity=2")
        .await
        .error_naming(400, "invalid_parameter", "quantity");
    for quantity in [
        "0",
        "-1",
        "101",
        "abc",
        "1.5",
        "99999999999999999999",
        "9223372036854775807",
        "-9223372036854775808",
        "0x10",
    ] {
        for what in ["packId=1", "itemId=16"] {
            app.buy(&key, &format!("{what}&quantity={quantity}"))
                .await
                .error_naming(400, "invalid_parameter", "quantity");
        }
    }
    app.buy(&key, "packId=1")
        .await
        .error_naming(400, "missing_parameter", "quantity");
    app.buy(&key, "packId=1&quantity=")
        .await
        .error_naming(400, "missing_parameter", "quantity");
    assert_eq!(app.snapshot(&key).await, before);

    // The bounds themselves: 100 packs at once is accepted.
    let body = app
        .buy(&key, "packId=1&quantity=100")
        .await
        .success()
        .clone();
    assert_eq!(pack_count(&body["user"], 1), 100);
    assert_eq!(int(&body["user"], "coins"), 1_000_000 - 75_000);
    app.assert_key_ledger_balanced(&key).await;
}

async fn exactly_one_thing_is_bought(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(10_000)).await;
    let before = app.snapshot(&key).await;
    let none = app.buy(&key, "quantity=1").await;
    for name in ["itemId", "packId", "timedDealId"] {
        none.error_naming(400, "invalid_parameter", name);
    }
    for query in [
        "itemId=16&packId=1&quantity=1",
        "itemId=16&timedDealId=1&quantity=1",
        "packId=1&timedDealId=1&quantity=1",
        "itemId=16&packId=1&timedDealId=1&quantity=1",
    ] {
        let answer = app.buy(&key, query).await;
        answer.error(400, "invalid_parameter");
        for part in query
            .split('&')
            .filter(|part| !part.starts_with("quantity"))
        {
            let name = part.split('=').next().unwrap_or_default();
            answer.error_naming(400, "invalid_parameter", name);
        }
    }
    assert_eq!(app.snapshot(&key).await, before);
}

async fn unknown_ids_are_404_and_malformed_ids_400(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    app.grant_to(&key, coins(10_000)).await;
    let before = app.snapshot(&key).await;
    for query in [
        "itemId=9999",
        "itemId=9",
        "packId=99",
        "timedDealId=99",
        "itemId=9223372036854775807",
    ] {
        app.buy(&key, &format!("{query}&quantity=1"))
            .await
            .error(404, "not_in_catalog");
    }
    for (name, value) in [
        ("itemId", "abc"),
        ("itemId", ""),
        ("itemId", "0"),
        ("itemId", "-16"),
        ("itemId", "1.0"),
        ("packId", "one"),
        ("packId", "99999999999999999999"),
        ("timedDealId", "x1"),
    ] {
        app.buy(&key, &format!("{name}={value}&quantity=1"))
            .await
            .error_naming(400, "invalid_parameter", name);
    }
    assert_eq!(app.snapshot(&key).await, before);
}

async fn unpriced_items_are_not_for_sale(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(10_000)).await;
    app.grant_to(&key, gems(10_000)).await;
    let before = app.snapshot(&key).await;
    // 1 is a stock item every player owns; 47 and 73 only come from packs.
    for id in [1, 8, 47, 73] {
        app.buy(&key, &format!("itemId={id}&quantity=1"))
            .await
            .error(409, "not_for_sale");
    }
    assert_eq!(app.snapshot(&key).await, before);
}

async fn insufficient_funds_are_402_and_change_nothing(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    app.grant_to(&key, coins(100)).await;
    let before = app.snapshot(&key).await;

    let answer = app.buy(&key, "itemId=16&quantity=1").await;
    let message = answer.error(402, "insufficient_funds")["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("400") && message.contains("100") && message.contains("coins"),
        "{message}"
    );
    let answer = app.buy(&key, "packId=2&quantity=1").await;
    let message = answer.error(402, "insufficient_funds")["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("250") && message.contains('0') && message.contains("gems"),
        "{message}"
    );
    // Three basic chests cost 2250 coins: the message gives the whole amount.
    let answer = app.buy(&key, "packId=1&quantity=3").await;
    let message = answer.error(402, "insufficient_funds")["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("2250"), "{message}");
    app.buy(&key, "timedDealId=1&quantity=1")
        .await
        .error(402, "insufficient_funds");
    app.buy(&key, "packId=1&quantity=100")
        .await
        .error(402, "insufficient_funds");

    assert_eq!(app.snapshot(&key).await, before);
    let shop = app
        .get(&format!(
            "/api/shop/available?sections=items,timedDeals&userKey={key}"
        ))
        .await
        .success()
        .clone();
    let deal = shop["timedDeals"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|deal| deal["id"] == 1)
        .cloned()
        .unwrap_or_default();
    assert_eq!(deal["can_purchase"], true, "a refused buy claims nothing");
    app.assert_key_ledger_balanced(&key).await;
}

async fn packs_are_bought_by_quantity(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(2300)).await;
    let body = app.buy(&key, "packId=1&quantity=3").await.success().clone();
    assert_eq!(
        body["rewards"],
        json!([{"type": "pack", "packId": 1, "packSku": "basic-chest", "quantity": 3}])
    );
    assert_eq!(int(&body["user"], "coins"), 50);
    assert_eq!(pack_count(&body["user"], 1), 3);
    let last = app.ledger_of(&key).await.pop().expect("a ledger row");
    assert_eq!(
        (last.delta, last.balance_after, last.reason.as_str()),
        (-2250, 50, "buy")
    );
    assert_eq!(last.reference, "pack:1x3");

    app.grant_to(&key, coins(700)).await;
    let body = app.buy(&key, "packId=1&quantity=1").await.success().clone();
    assert_eq!(int(&body["user"], "coins"), 0);
    assert_eq!(pack_count(&body["user"], 1), 4);
    assert_eq!(
        body["user"]["packs"].as_array().map(Vec::len),
        Some(1),
        "one row per kind of pack"
    );
    app.assert_key_ledger_balanced(&key).await;
}

async fn gem_priced_packs(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(900)).await;
    app.grant_to(&key, coins(5)).await;
    let body = app.buy(&key, "packId=2&quantity=2").await.success().clone();
    assert_eq!(
        (int(&body["user"], "gems"), int(&body["user"], "coins")),
        (400, 5)
    );
    assert_eq!(pack_count(&body["user"], 2), 2);
    let body = app.buy(&key, "packId=3&quantity=1").await.success().clone();
    assert_eq!(int(&body["user"], "gems"), 0);
    assert_eq!(pack_count(&body["user"], 3), 1);
    assert_eq!(pack_count(&body["user"], 2), 2);
    let last = app.ledger_of(&key).await.pop().expect("a ledger row");
    assert_eq!((last.currency, last.delta), (Currency::Gems, -400));
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_running_deal_is_bought_once_per_run(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let (device, _) = app.new_device().await;
    let key = app.key_of_device(&device).await;
    app.grant_to(&key, gems(1200)).await;
    app.buy(&key, "timedDealId=1&quantity=2")
        .await
        .error_naming(400, "invalid_parameter", "quantity");
    let body = app
        .buy(&key, "timedDealId=1&quantity=1")
        .await
        .success()
        .clone();
    assert_eq!(
        body["rewards"],
        json!([
            {"type": "item", "itemId": 44, "itemSku": "outfit-polar-medic", "quantity": 1},
            {"type": "item", "itemId": 54, "itemSku": "glider-snowflake", "quantity": 1},
            {"type": "pack", "packId": 3, "packSku": "winter-chest", "quantity": 1},
            {"type": "coins", "quantity": 1000},
        ])
    );
    let user = &body["user"];
    assert_eq!((int(user, "gems"), int(user, "coins")), (700, 1000));
    assert!(owns(user, 44) && owns(user, 54));
    assert_eq!(pack_count(user, 3), 1);
    let ledger = app.ledger_of(&key).await;
    let deal_rows: Vec<_> = ledger
        .iter()
        .filter(|entry| entry.reference == "deal:1")
        .map(|entry| (entry.currency, entry.delta, entry.reason.as_str()))
        .collect();
    assert_eq!(
        deal_rows,
        [
            (Currency::Gems, -500, "buy"),
            (Currency::Coins, 1000, "buy")
        ]
    );

    let before = app.snapshot(&key).await;
    app.buy(&key, "timedDealId=1&quantity=1")
        .await
        .error(409, "already_claimed");
    assert_eq!(app.snapshot(&key).await, before);

    // The deal repeats every four weeks: its next run (from 2026-12-27) is bought once more,
    // and its items, owned already, give their coins instead. (Keys last 30 days.)
    app.clock.set(datetime!(2026-12-27 00:00 UTC));
    let key = app.key_of_device(&device).await;
    app.grant_to(&key, gems(500)).await;
    let shop = app
        .get(&format!(
            "/api/shop/available?sections=timedDeals&userKey={key}"
        ))
        .await
        .success()
        .clone();
    let listed = &shop["timedDeals"][0];
    assert_eq!(
        (listed["id"].as_i64(), listed["can_purchase"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(listed["created"]["date"], "2026-12-27 00:00:00.000000");
    assert_eq!(listed["expires"]["date"], "2027-01-24 00:00:00.000000");
    app.buy(&key, "timedDealId=1&quantity=1").await.success();
    app.buy(&key, "timedDealId=1&quantity=1")
        .await
        .error(409, "already_claimed");
    app.assert_key_ledger_balanced(&key).await;
}

/// A deal's experience reward gives the levels it reaches in the same purchase: the answer's
/// user has the new level and is not stale, and the levels' rewards are among the deal's
/// rewards and in its ledger rows.
async fn a_deals_experience_reaches_its_levels_in_the_same_purchase(app: TestApp) {
    app.clock.set(datetime!(2026-01-01 12:00 UTC));
    let content = Content::shipped();
    let curve = &content.progression.levels;
    let key = app.new_key().await;
    app.grant_to(&key, coins(4000)).await;
    let body = app
        .buy(&key, "timedDealId=2&quantity=1")
        .await
        .success()
        .clone();
    let user = &body["user"];
    let experience = int(user, "experience");
    assert_eq!(experience, 1500, "the deal's experience");
    let level = curve.level_for(experience);
    assert!(level > 2, "the deal passes two levels at least");
    assert_eq!(int(user, "level"), level);
    assert_eq!(user["progression"]["isStale"], false);
    let level_coins: Vec<i64> = (2..=level)
        .flat_map(|level| curve.rewards_for(level))
        .filter_map(|reward| match reward {
            RewardSpec::Coins(quantity) => Some(quantity),
            _ => None,
        })
        .collect();
    let answered_coins: Vec<i64> = body["rewards"]
        .as_array()
        .expect("rewards")
        .iter()
        .filter(|reward| reward["type"] == "coins")
        .map(|reward| int(reward, "quantity"))
        .collect();
    assert_eq!(answered_coins, level_coins);
    let deal_coins: Vec<i64> = app
        .ledger_of(&key)
        .await
        .iter()
        .filter(|entry| entry.reference == "deal:2" && entry.currency == Currency::Coins)
        .map(|entry| entry.delta)
        .collect();
    assert_eq!(deal_coins[0], -4000);
    assert_eq!(deal_coins[1..], level_coins);
    assert_eq!(int(user, "coins"), level_coins.iter().sum::<i64>());
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_deal_gives_coins_for_items_already_owned(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    app.grant_to(&key, gems(500)).await;
    app.grant_to(&key, items(&["outfit-polar-medic"])).await;
    let body = app
        .buy(&key, "timedDealId=1&quantity=1")
        .await
        .success()
        .clone();
    let rewards = body["rewards"].as_array().expect("rewards");
    assert_eq!(rewards.len(), 4, "{rewards:?}");
    assert_eq!(rewards[0]["type"], "coins", "{rewards:?}");
    assert_eq!(rewards[0]["duplicateItemId"], 44, "{rewards:?}");
    let duplicate_coins = int(&rewards[0], "quantity");
    assert!(duplicate_coins > 0);
    assert_eq!(rewards[1]["itemId"], 54);
    assert_eq!(int(&body["user"], "coins"), 1000 + duplicate_coins);
    assert_eq!(int(&body["user"], "gems"), 0);
    app.assert_key_ledger_balanced(&key).await;
}

async fn closed_deals_are_409(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let (device, _) = app.new_device().await;
    let key = app.key_of_device(&device).await;
    app.grant_to(&key, coins(10_000)).await;
    app.grant_to(&key, gems(10_000)).await;
    let before = app.snapshot(&key).await;
    // Deal 2 ended in January 2026; deal 3 starts on 2027-03-20.
    for deal in [2, 3] {
        app.buy(&key, &format!("timedDealId={deal}&quantity=1"))
            .await
            .error(409, "deal_closed");
    }
    assert_eq!(app.snapshot(&key).await, before);

    // Starts are included, ends excluded. (Keys last 30 days: sign in again after a jump.)
    app.clock.set(datetime!(2027-04-10 00:00 UTC));
    let key = app.key_of_device(&device).await;
    app.buy(&key, "timedDealId=3&quantity=1")
        .await
        .error(409, "deal_closed");
    app.clock.set(datetime!(2027-03-20 00:00 UTC));
    let body = app
        .buy(&key, "timedDealId=3&quantity=1")
        .await
        .success()
        .clone();
    assert_eq!(pack_count(&body["user"], 2), 2);
    assert_eq!(int(&body["user"], "gems"), 10_000 - 800 + 100);
    app.assert_key_ledger_balanced(&key).await;
}

async fn buying_needs_a_valid_key(app: TestApp) {
    app.post("/api/user/short/buy?itemId=16&quantity=1")
        .await
        .error(401, "invalid_user_key");
    let unknown = "0".repeat(48);
    app.post(&format!("/api/user/{unknown}/buy?itemId=16&quantity=1"))
        .await
        .error(401, "invalid_user_key");
}
