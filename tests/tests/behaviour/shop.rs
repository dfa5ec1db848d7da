//! `GET /api/shop/available`: sections, the items signature, `can_purchase` with and without a
//! key, deal windows and in-app purchase products.

use safezone_core::content::{Content, SHIPPED};
use safezone_tests::economy::{coins, gems, int};
use safezone_tests::{TestApp, each_combination};
use serde_json::Value;
use time::macros::datetime;

each_combination!(
    every_section_by_default,
    sections_select_the_keys,
    unknown_sections_are_400,
    owned_items_cannot_be_purchased_with_a_key,
    stock_and_pack_only_items_are_never_purchasable,
    deal_windows_decide_listing_and_purchase,
    iaps_list_dollars_as_floats,
    invalid_keys_are_401,
);

each_combination!(content = live_catalog_labels; the_shop_answers_item_labels_as_written);

/// Where the shop lists things.
const SHOP: &str = "/api/shop/available";

/// The keys of a JSON object, sorted.
fn keys(body: &Value) -> Vec<String> {
    let mut keys: Vec<String> = body
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

/// The entry with this id in a section's list.
fn entry(list: &Value, id: i64) -> Value {
    list.as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no entry {id} in {list}"))
}

/// The ids in a section's list.
fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|entry| int(entry, "id"))
        .collect()
}

async fn every_section_by_default(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let body = app.get(SHOP).await.success().clone();
    assert_eq!(
        keys(&body),
        [
            "iaps",
            "items",
            "itemsSignature",
            "packs",
            "status",
            "timedDeals"
        ]
    );
    let signature = body["itemsSignature"].as_str().unwrap_or_default();
    assert!(!signature.is_empty(), "{body}");
    assert_eq!(signature, Content::shipped().catalog.items_signature);
    let items = body["items"].as_array().expect("items");
    assert!(items.len() >= 60, "{} items", items.len());
    for item in items {
        assert_eq!(
            keys(item),
            [
                "can_purchase",
                "category",
                "cost_coins",
                "cost_gems",
                "id",
                "is_stock",
                "name",
                "order",
                "rarity",
                "sku",
                "type"
            ],
            "{item}"
        );
        let rarity = item["rarity"].as_str().unwrap_or_default();
        assert!(
            ["Common", "Uncommon", "Rare", "Epic", "Legendary", "Mythic"].contains(&rarity),
            "{item}"
        );
    }
    let packs = body["packs"].as_array().expect("packs");
    assert!(packs.len() >= 3);
    for pack in packs {
        let rewards = pack["rewards"].as_array().expect("drop table");
        assert!(!rewards.is_empty(), "{pack}");
        for drop in rewards {
            assert_eq!(
                keys(drop),
                ["id", "item_id", "item_sku", "pack_id", "weighting"],
                "{drop}"
            );
            assert_eq!(drop["pack_id"], pack["id"]);
        }
    }
    assert!(body["timedDeals"].is_array());
    assert!(body["iaps"].is_array());
    let again = app.get(SHOP).await.success().clone();
    assert_eq!(again["itemsSignature"], body["itemsSignature"]);
    let all = app
        .get(&format!("{SHOP}?sections=all"))
        .await
        .success()
        .clone();
    assert_eq!(all, body);
}

async fn sections_select_the_keys(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let full = app.get(SHOP).await.success().clone();
    let items = app
        .get(&format!("{SHOP}?sections=items"))
        .await
        .success()
        .clone();
    assert_eq!(keys(&items), ["items", "itemsSignature", "status"]);
    assert_eq!(items["items"], full["items"]);
    assert_eq!(items["itemsSignature"], full["itemsSignature"]);
    let two = app
        .get(&format!("{SHOP}?sections=packs,timedDeals"))
        .await
        .success()
        .clone();
    assert_eq!(
        keys(&two),
        ["itemsSignature", "packs", "status", "timedDeals"]
    );
    assert_eq!(two["packs"], full["packs"]);
    assert_eq!(two["timedDeals"], full["timedDeals"]);
    let iaps = app
        .get(&format!("{SHOP}?sections=iaps"))
        .await
        .success()
        .clone();
    assert_eq!(keys(&iaps), ["iaps", "itemsSignature", "status"]);
}

async fn unknown_sections_are_400(app: TestApp) {
    for sections in ["weapons", "items,bogus", "Items", "timeddeals"] {
        app.get(&format!("{SHOP}?sections={sections}"))
            .await
            .error_naming(400, "invalid_parameter", "sections");
    }
}

async fn owned_items_cannot_be_purchased_with_a_key(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    app.grant_to(&key, coins(400)).await;
    app.buy(&key, "itemId=16&quantity=1").await.success();

    let mine = app
        .get(&format!("{SHOP}?sections=items&userKey={key}"))
        .await
        .success()
        .clone();
    assert_eq!(entry(&mine["items"], 16)["can_purchase"], false);
    assert_eq!(entry(&mine["items"], 17)["can_purchase"], true);
    // Funds never matter: the account has 0 coins and 0 gems now.
    assert_eq!(entry(&mine["items"], 45)["can_purchase"], true);
    assert_eq!(entry(&mine["items"], 15)["can_purchase"], true);

    let anonymous = app
        .get(&format!("{SHOP}?sections=items"))
        .await
        .success()
        .clone();
    assert_eq!(entry(&anonymous["items"], 16)["can_purchase"], true);
    let stranger = app.new_key().await;
    let theirs = app
        .get(&format!("{SHOP}?sections=items&userKey={stranger}"))
        .await
        .success()
        .clone();
    assert_eq!(entry(&theirs["items"], 16)["can_purchase"], true);
    assert_eq!(mine["itemsSignature"], theirs["itemsSignature"]);
}

async fn stock_and_pack_only_items_are_never_purchasable(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(10_000)).await;
    for path in [
        format!("{SHOP}?sections=items"),
        format!("{SHOP}?sections=items&userKey={key}"),
    ] {
        let body = app.get(&path).await.success().clone();
        for item in body["items"].as_array().expect("items") {
            let free = item["cost_coins"] == 0 && item["cost_gems"] == 0;
            if item["is_stock"] == true {
                assert!(free, "a stock item has a price: {item}");
                assert_eq!(item["can_purchase"], false, "{item}");
            } else if free {
                assert_eq!(item["can_purchase"], false, "pack-only: {item}");
            }
        }
        // Stock items 1 to 8; the Mythic Blizzard King only comes from packs.
        for id in [1, 8, 47] {
            assert_eq!(entry(&body["items"], id)["can_purchase"], false, "{id}");
        }
    }
}

async fn deal_windows_decide_listing_and_purchase(app: TestApp) {
    app.clock.set(datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let deals = |body: &Value| body["timedDeals"].clone();

    let body = app
        .get(&format!("{SHOP}?sections=timedDeals&userKey={key}"))
        .await
        .success()
        .clone();
    // Deal 2 ended in 2026-01 and deal 3 starts on 2027-03-20: neither is listed.
    assert_eq!(ids(&deals(&body)), [1]);
    let running = entry(&deals(&body), 1);
    assert_eq!(running["can_purchase"], true);
    assert_eq!(running["cost_gems"], 500);
    assert_eq!(running["undiscounted_cost_gems"], 1100);
    // The Starter Kit runs four weeks at a time from 2026-11-01: its second run.
    assert_eq!(running["created"]["date"], "2026-11-29 00:00:00.000000");
    assert_eq!(running["expires"]["date"], "2026-12-27 00:00:00.000000");
    assert!(!running["rewards"].as_array().expect("rewards").is_empty());

    app.grant_to(&key, gems(500)).await;
    // A deal not started is not sold either, and the refusal takes nothing.
    app.buy(&key, "timedDealId=3&quantity=1")
        .await
        .error(409, "deal_closed");
    app.buy(&key, "timedDealId=1&quantity=1").await.success();
    let body = app
        .get(&format!("{SHOP}?sections=timedDeals&userKey={key}"))
        .await
        .success()
        .clone();
    assert_eq!(entry(&deals(&body), 1)["can_purchase"], false);
    let anonymous = app
        .get(&format!("{SHOP}?sections=timedDeals"))
        .await
        .success()
        .clone();
    assert_eq!(entry(&deals(&anonymous), 1)["can_purchase"], true);

    // From its start on, deal 3 is listed and sold (to a new player: keys last 30 days).
    app.clock.set(datetime!(2027-03-20 00:00 UTC));
    let spring = app
        .get(&format!("{SHOP}?sections=timedDeals"))
        .await
        .success()
        .clone();
    assert_eq!(ids(&deals(&spring)), [1, 3]);
    assert_eq!(entry(&deals(&spring), 3)["can_purchase"], true);
    let key = app.new_key().await;
    app.grant_to(&key, gems(800)).await;
    app.buy(&key, "timedDealId=3&quantity=1").await.success();

    app.clock.set(datetime!(2027-07-01 00:00 UTC));
    let summer = app
        .get(&format!("{SHOP}?sections=timedDeals"))
        .await
        .success()
        .clone();
    // Deal 3 has ended; the Starter Kit, which repeats, is on sale in its run of the day.
    assert_eq!(ids(&deals(&summer)), [1]);
    assert_eq!(
        entry(&deals(&summer), 1)["created"]["date"],
        "2027-06-13 00:00:00.000000"
    );
}

async fn iaps_list_dollars_as_floats(app: TestApp) {
    let body = app
        .get(&format!("{SHOP}?sections=iaps"))
        .await
        .success()
        .clone();
    let iaps = body["iaps"].as_array().expect("iaps");
    assert!(iaps.len() >= 2);
    for iap in iaps {
        assert!(iap["cost_dollars"].is_f64(), "{iap}");
        for field in ["id", "sku", "name", "type", "apple_id", "google_id"] {
            assert!(!iap[field].is_null(), "{field}: {iap}");
        }
        assert!(iap["rewards"].is_array());
        assert!(iap["quantity"].is_i64());
    }
    let pouch = entry(&body["iaps"], 1);
    assert_eq!(pouch["cost_dollars"].as_f64(), Some(1.99));
    assert_eq!(pouch["sku"], "coins-pouch");
    assert_eq!(
        pouch["rewards"],
        serde_json::json!([{"type": "coins", "quantity": 2500}])
    );
    assert_eq!(
        entry(&body["iaps"], 5)["cost_dollars"].as_f64(),
        Some(49.99)
    );
}

async fn invalid_keys_are_401(app: TestApp) {
    app.get(&format!("{SHOP}?userKey=short"))
        .await
        .error(401, "invalid_user_key");
    let unknown = "0".repeat(48);
    app.get(&format!("{SHOP}?userKey={unknown}"))
        .await
        .error(401, "invalid_user_key");
}

/// The Ranger outfit as the shipped content file writes it.
const RANGER: &str = "sku = \"outfit-ranger\"\nname = \"Ranger\"\ntype = \"outfit\"\n\
                      category = \"classic\"";

/// The shipped content with the Ranger outfit labelled as the live catalog labels its items:
/// `type = "OutfitSkin"`, `category = "Outfit"`.
fn live_catalog_labels() -> Content {
    assert!(SHIPPED.contains(RANGER));
    let labelled = RANGER
        .replace("type = \"outfit\"", "type = \"OutfitSkin\"")
        .replace("category = \"classic\"", "category = \"Outfit\"");
    Content::parse(
        &SHIPPED.replacen(RANGER, &labelled, 1),
        "live catalog labels",
    )
    .expect("a content file with the live catalog's labels loads")
}

/// A content file may carry the live catalog's own item labels (`OutfitSkin`, `Outfit`): the
/// shop answers them as written, for typed clients that switch on them.
async fn the_shop_answers_item_labels_as_written(app: TestApp) {
    let body = app.get(SHOP).await.success().clone();
    let ranger = body["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|item| item["sku"] == "outfit-ranger")
        .cloned()
        .expect("the Ranger outfit is listed");
    assert_eq!(ranger["type"], "OutfitSkin", "{ranger}");
    assert_eq!(ranger["category"], "Outfit", "{ranger}");
    let recruit = entry(&body["items"], 1);
    assert_eq!(recruit["type"], "outfit", "{recruit}");
    assert_eq!(recruit["category"], "starter", "{recruit}");
}
