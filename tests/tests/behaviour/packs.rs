//! `POST /api/user/{userKey}/pack/open`: consuming one pack, the server's roll, duplicates.

use std::collections::HashSet;

use safezone_tests::economy::{coins, int, items, owns, pack_count, packs};
use safezone_tests::{TestApp, each_combination};
use serde_json::Value;

each_combination!(
    opening_without_a_pack_is_409,
    opening_consumes_one_pack_and_grants_its_draws,
    each_pack_gives_its_items_per_open,
    pack_id_errors,
    owned_drops_become_the_packs_duplicate_coins,
);

/// `(pack id, items_per_open, duplicate_coins)` of the shipped packs.
const PACKS: [(i64, usize, i64); 3] = [(1, 1, 150), (2, 2, 400), (3, 3, 500)];

/// The item ids of a pack's drop table, as the shop lists them.
async fn drop_items(app: &TestApp, pack: i64) -> HashSet<i64> {
    let shop = app
        .get("/api/shop/available?sections=packs")
        .await
        .success()
        .clone();
    shop["packs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["id"] == pack)
        .and_then(|entry| entry["rewards"].as_array())
        .into_iter()
        .flatten()
        .map(|drop| int(drop, "item_id"))
        .collect()
}

/// The SKUs of a pack's drop table.
async fn drop_skus(app: &TestApp, pack: i64) -> Vec<String> {
    let shop = app
        .get("/api/shop/available?sections=packs")
        .await
        .success()
        .clone();
    shop["packs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["id"] == pack)
        .and_then(|entry| entry["rewards"].as_array())
        .into_iter()
        .flatten()
        .map(|drop| drop["item_sku"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Asserts that one open's rewards are `count` draws from `drops`: new items, or
/// `duplicate_coins` coins marked with the duplicate item's id.
fn assert_draws(rewards: &Value, count: usize, drops: &HashSet<i64>, duplicate_coins: i64) {
    let rewards = rewards.as_array().expect("rewards");
    assert_eq!(rewards.len(), count, "{rewards:?}");
    for reward in rewards {
        match reward["type"].as_str() {
            Some("item") => {
                assert!(drops.contains(&int(reward, "itemId")), "{reward}");
                assert_eq!(reward["quantity"], 1, "{reward}");
                assert!(reward["itemSku"].is_string(), "{reward}");
            }
            Some("coins") => {
                assert!(drops.contains(&int(reward, "duplicateItemId")), "{reward}");
                assert_eq!(int(reward, "quantity"), duplicate_coins, "{reward}");
            }
            _ => panic!("not a draw: {reward}"),
        }
    }
}

async fn opening_without_a_pack_is_409(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(5000)).await;
    let before = app.snapshot(&key).await;
    for pack in [1, 2, 3] {
        app.open_pack(&key, pack)
            .await
            .error(409, "no_pack_to_open");
    }
    assert_eq!(app.snapshot(&key).await, before);
    // Having one kind of pack opens nothing of another.
    app.grant_to(&key, packs("basic-chest", 1)).await;
    let before = app.snapshot(&key).await;
    app.open_pack(&key, 2).await.error(409, "no_pack_to_open");
    assert_eq!(app.snapshot(&key).await, before);
}

async fn opening_consumes_one_pack_and_grants_its_draws(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, coins(1500)).await;
    let bought = app.buy(&key, "packId=1&quantity=2").await.success().clone();
    assert_eq!(pack_count(&bought["user"], 1), 2);
    let drops = drop_items(&app, 1).await;

    for left in [1, 0] {
        let body = app.open_pack(&key, 1).await.success().clone();
        assert_draws(&body["rewards"], 1, &drops, 150);
        assert_eq!(pack_count(&body["user"], 1), left);
        for reward in body["rewards"].as_array().into_iter().flatten() {
            if reward["type"] == "item" {
                assert!(owns(&body["user"], int(reward, "itemId")));
            }
        }
    }
    let user = app.user(&key).await;
    assert_eq!(
        user["packs"],
        serde_json::json!([]),
        "an emptied pack is not listed"
    );
    let before = app.snapshot(&key).await;
    app.open_pack(&key, 1).await.error(409, "no_pack_to_open");
    assert_eq!(app.snapshot(&key).await, before);
    app.assert_key_ledger_balanced(&key).await;
}

async fn each_pack_gives_its_items_per_open(app: TestApp) {
    let key = app.new_key().await;
    for (pack, per_open, duplicate_coins) in PACKS {
        let sku = match pack {
            1 => "basic-chest",
            2 => "rare-chest",
            _ => "winter-chest",
        };
        app.grant_to(&key, packs(sku, 2)).await;
        let drops = drop_items(&app, pack).await;
        for left in [1, 0] {
            let body = app.open_pack(&key, pack).await.success().clone();
            assert_draws(&body["rewards"], per_open, &drops, duplicate_coins);
            assert_eq!(pack_count(&body["user"], pack), left);
        }
    }
    let ledger = app.ledger_of(&key).await;
    assert!(
        ledger
            .iter()
            .all(|entry| entry.delta > 0 && (entry.reason == "pack" || entry.reason == "grant")),
        "{ledger:#?}"
    );
    app.assert_key_ledger_balanced(&key).await;
}

async fn pack_id_errors(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, packs("basic-chest", 1)).await;
    let before = app.snapshot(&key).await;
    app.post(&format!("/api/user/{key}/pack/open"))
        .await
        .error_naming(400, "missing_parameter", "packId");
    app.post(&format!("/api/user/{key}/pack/open?packId="))
        .await
        .error_naming(400, "missing_parameter", "packId");
    for value in ["abc", "0", "-1", "1.0", "99999999999999999999"] {
        app.post(&format!("/api/user/{key}/pack/open?packId={value}"))
            .await
            .error_naming(400, "invalid_parameter", "packId");
    }
    for value in ["4", "99", "9223372036854775807"] {
        app.open_pack(&key, value.parse().unwrap_or_default())
            .await
            .error(404, "not_in_catalog");
    }
    app.post("/api/user/short/pack/open?packId=1")
        .await
        .error(401, "invalid_user_key");
    assert_eq!(app.snapshot(&key).await, before);
}

async fn owned_drops_become_the_packs_duplicate_coins(app: TestApp) {
    let key = app.new_key().await;
    let skus = drop_skus(&app, 1).await;
    let sku_refs: Vec<&str> = skus.iter().map(String::as_str).collect();
    app.grant_to(&key, items(&sku_refs)).await;
    app.grant_to(&key, packs("basic-chest", 6)).await;
    let drops = drop_items(&app, 1).await;
    assert_eq!(drops.len(), skus.len());
    let licenses = app.snapshot(&key).await.licenses;

    for opened in 1..=6 {
        let body = app.open_pack(&key, 1).await.success().clone();
        let rewards = body["rewards"].as_array().expect("rewards");
        assert_eq!(rewards.len(), 1, "{rewards:?}");
        let reward = &rewards[0];
        assert_eq!(reward["type"], "coins", "{reward}");
        assert_eq!(int(reward, "quantity"), 150, "{reward}");
        assert!(drops.contains(&int(reward, "duplicateItemId")), "{reward}");
        assert_eq!(int(&body["user"], "coins"), 150 * opened);
        assert_eq!(pack_count(&body["user"], 1), 6 - opened);
    }
    assert_eq!(app.snapshot(&key).await.licenses, licenses);
    let pack_rows: Vec<(i64, String)> = app
        .ledger_of(&key)
        .await
        .into_iter()
        .filter(|entry| entry.reason == "pack")
        .map(|entry| (entry.delta, entry.reference))
        .collect();
    assert_eq!(pack_rows, vec![(150, "open:1".to_owned()); 6]);
    app.assert_key_ledger_balanced(&key).await;
}
