//! Tests of the economy sections: the shipped catalog, the items' signature, and one test per
//! kind of error a designer can make.

use std::collections::HashSet;

use time::macros::datetime;

use super::testing::{MINIMAL, SHOP, assert_refused, assert_refused_at, parse, with_shop};
use super::{Content, Rarity, Recurrence, RewardSpec, SHIPPED, Schedule};
use crate::domain::{DealId, IapId, ItemId, PackId};

// --- The shipped content -------------------------------------------------------------------

#[test]
fn shipped_catalog_is_big_and_varied() {
    let content = parse(SHIPPED);
    let catalog = &content.catalog;

    assert!(catalog.items.len() >= 60, "{} items", catalog.items.len());
    let rarities: HashSet<Rarity> = catalog.items.iter().map(|item| item.rarity).collect();
    assert_eq!(rarities.len(), Rarity::ALL.len(), "{rarities:?}");
    let kinds: HashSet<&str> = catalog
        .items
        .iter()
        .map(|item| item.kind.as_str())
        .collect();
    for kind in [
        "outfit",
        "emote",
        "glider",
        "weapon-skin",
        "backpack",
        "spray",
        "banner",
    ] {
        assert!(kinds.contains(kind), "no {kind}");
    }
    let categories: HashSet<&str> = catalog
        .items
        .iter()
        .map(|item| item.category.as_str())
        .collect();
    assert!(categories.len() >= 3, "{categories:?}");

    let stock: Vec<_> = catalog.items.iter().filter(|item| item.is_stock).collect();
    assert!(stock.len() >= 3);
    assert!(
        stock
            .iter()
            .all(|item| item.price.is_free() && !item.is_for_sale())
    );
    assert!(
        catalog
            .items
            .iter()
            .any(|item| item.price.coins > 0 && item.price.gems == 0)
    );
    assert!(
        catalog
            .items
            .iter()
            .any(|item| item.price.gems > 0 && item.price.coins == 0)
    );
    let pack_only: Vec<_> = catalog
        .items
        .iter()
        .filter(|item| !item.is_stock && item.price.is_free())
        .collect();
    assert!(pack_only.len() >= 2);
    for item in pack_only {
        assert!(!item.is_for_sale());
        let drops = catalog.packs.iter().flat_map(|pack| &pack.drops);
        assert!(
            drops.clone().any(|drop| drop.item == item.id),
            "{} is in no pack",
            item.sku
        );
    }
    assert!(
        catalog
            .items
            .windows(2)
            .all(|pair| (pair[0].order, pair[0].id) < (pair[1].order, pair[1].id)),
        "items are sorted by (order, id)"
    );

    assert!(catalog.packs.len() >= 3);
    for sku in ["basic-chest", "rare-chest", "winter-chest"] {
        let pack = catalog.pack_by_sku(sku).unwrap();
        assert!(pack.is_for_sale());
        assert!(!pack.drops.is_empty());
    }

    let now = datetime!(2026-11-22 12:00 UTC);
    let deals = &catalog.timed_deals;
    assert!(deals.iter().any(|deal| deal.running_at(now).is_some()));
    assert!(
        deals.iter().any(|deal| deal.runs.ends <= now),
        "one has ended"
    );
    assert!(
        deals.iter().any(|deal| deal.runs.starts > now),
        "one is to come"
    );
    assert!(
        deals
            .iter()
            .all(|deal| !deal.rewards.is_empty() && !deal.price.is_free())
    );

    let currency = |reward: fn(&RewardSpec) -> bool| {
        catalog
            .iaps
            .iter()
            .any(|iap| iap.kind == "currency" && iap.rewards.iter().any(reward))
    };
    assert!(currency(|reward| matches!(reward, RewardSpec::Coins(_))));
    assert!(currency(|reward| matches!(reward, RewardSpec::Gems(_))));
    assert!(catalog.iaps.iter().any(|iap| iap.kind == "bundle"));
    let handful = catalog
        .iaps
        .iter()
        .find(|iap| iap.sku == "gems-handful")
        .unwrap();
    assert_eq!(handful.cost_cents, 499);

    let names: Vec<&str> = content
        .reward_types
        .iter()
        .map(|kind| kind.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "first",
            "gift",
            "recurring",
            "bonus",
            "social",
            "premium",
            "coming_soon"
        ]
    );
    let schedules: Vec<Schedule> = content
        .reward_types
        .iter()
        .map(|kind| kind.schedule)
        .collect();
    assert_eq!(
        schedules,
        [
            Schedule::Once,
            Schedule::EveryHours(4),
            Schedule::PerDay(3),
            Schedule::PerDay(1),
            Schedule::Once,
            Schedule::PerDay(1),
            Schedule::Never,
        ]
    );
    let basic_chest = catalog.pack_by_sku("basic-chest").unwrap().id;
    assert_eq!(
        content.reward_types[0].rewards,
        [
            RewardSpec::Gems(100),
            RewardSpec::Coins(1000),
            RewardSpec::Pack {
                pack: basic_chest,
                quantity: 1
            }
        ]
    );
    assert_eq!(content.reward_types[1].rewards, [RewardSpec::Coins(150)]);
    assert!(content.reward_types[5].requires_premium);
    assert!(
        content
            .reward_types
            .iter()
            .filter(|kind| kind.requires_premium)
            .count()
            == 1
    );
    assert!(content.reward_types[6].rewards.is_empty());
    assert_eq!(content.friend_code.rename_cost_gems, 40);
}

#[test]
fn lookups_find_every_entry_and_nothing_else() {
    let catalog = parse(SHIPPED).catalog;
    for item in &catalog.items {
        assert_eq!(catalog.item(item.id), Some(item));
        assert_eq!(catalog.item_by_sku(&item.sku), Some(item));
    }
    for pack in &catalog.packs {
        assert_eq!(
            catalog.pack(pack.id).map(|found| &found.sku),
            Some(&pack.sku)
        );
        assert_eq!(
            catalog.pack_by_sku(&pack.sku).map(|found| found.id),
            Some(pack.id)
        );
    }
    for deal in &catalog.timed_deals {
        assert_eq!(catalog.timed_deal(deal.id), Some(deal));
    }
    for iap in &catalog.iaps {
        assert_eq!(catalog.iap(iap.id), Some(iap));
    }
    assert!(catalog.item(ItemId(9999)).is_none());
    assert!(catalog.item_by_sku("outfit-nobody").is_none());
    assert!(catalog.pack(PackId(9999)).is_none());
    assert!(catalog.pack_by_sku("basic-chest ").is_none());
    assert!(catalog.timed_deal(DealId(9999)).is_none());
    assert!(catalog.iap(IapId(9999)).is_none());
}

#[test]
fn lookups_stay_right_when_the_lists_are_changed() {
    let mut catalog = parse(SHIPPED).catalog;
    catalog.items.reverse();
    let ranger = catalog.item_by_sku("outfit-ranger").unwrap();
    assert_eq!(ranger.sku, "outfit-ranger");
    assert_eq!(catalog.item(ranger.id).unwrap().sku, "outfit-ranger");
}

#[test]
fn a_shop_may_be_empty() {
    let content = parse(MINIMAL);
    assert!(content.catalog.items.is_empty());
    assert!(content.catalog.packs.is_empty());
    assert!(content.reward_types.is_empty());
    assert_eq!(content.catalog.items_signature.len(), 64);
}

// --- The items' signature ------------------------------------------------------------------

#[test]
fn items_signature_is_stable_and_follows_every_change() {
    let first = parse(SHIPPED).catalog.items_signature;
    let second = parse(SHIPPED).catalog.items_signature;
    assert_eq!(first, second);
    assert_eq!(first.len(), 64);
    assert!(
        first
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    );

    let ranger = "sku = \"outfit-ranger\"\nname = \"Ranger\"\ntype = \"outfit\"\n\
                  category = \"classic\"\nrarity = \"Uncommon\"\ncost_coins = 1200";
    assert!(SHIPPED.contains(ranger));
    let changed = |from: &str, to: &str| {
        let text = SHIPPED.replacen(ranger, &ranger.replacen(from, to, 1), 1);
        assert_ne!(text, SHIPPED);
        parse(&text).catalog.items_signature
    };
    let pricier = changed("cost_coins = 1200", "cost_coins = 1300");
    assert_ne!(pricier, first, "a price change changes the signature");
    assert_eq!(pricier, changed("cost_coins = 1200", "cost_coins = 1300"));
    assert_ne!(changed("cost_coins = 1200", "cost_gems = 1200"), first);
    assert_ne!(changed("name = \"Ranger\"", "name = \"Rangers\""), first);
    assert_ne!(changed("rarity = \"Uncommon\"", "rarity = \"Rare\""), first);
    assert_ne!(
        changed("category = \"classic\"", "category = \"winter-storm\""),
        first
    );

    let cheaper_chest = SHIPPED.replacen("cost_coins = 750", "cost_coins = 700", 1);
    assert_eq!(
        parse(&cheaper_chest).catalog.items_signature,
        first,
        "packs are not items"
    );
}

// --- Items ---------------------------------------------------------------------------------

const ITEM: &str = r#"
[[items]]
id = 7
sku = "outfit-frostbite"
name = "Frostbite"
type = "outfit"
category = "winter-storm"
rarity = "Epic"
cost_gems = 1200
"#;

#[test]
fn an_item_is_read_whole() {
    let catalog = parse(&format!("{MINIMAL}{ITEM}")).catalog;
    let item = catalog.item(ItemId(7)).unwrap();
    assert_eq!(item.sku, "outfit-frostbite");
    assert_eq!(item.name, "Frostbite");
    assert_eq!(item.kind, "outfit");
    assert_eq!(item.category, "winter-storm");
    assert_eq!(item.rarity, Rarity::Epic);
    assert_eq!((item.price.coins, item.price.gems), (0, 1200));
    assert!(!item.is_stock && item.is_for_sale());
    assert_eq!(item.order, 0);
}

#[test]
fn duplicate_item_ids_are_refused() {
    let text = with_shop(&ITEM.replace("id = 7", "id = 1"));
    assert_refused(
        &text,
        "id = 1\nsku = \"outfit-frostbite",
        "items[2].id",
        "id 1 is already used by item `outfit-ranger`",
    );
}

#[test]
fn duplicate_item_skus_are_refused() {
    let text = with_shop(&ITEM.replace("outfit-frostbite", "outfit-ranger"));
    let at = "sku = \"outfit-ranger\"\nname = \"Frostbite\"";
    assert_refused(
        &text,
        at,
        "items[2].sku",
        "sku outfit-ranger is already used by item `outfit-ranger`",
    );
}

#[test]
fn malformed_skus_are_refused() {
    for bad in ["Outfit-Frostbite", "outfit_frostbite", "9-outfit", ""] {
        let text = format!(
            "{MINIMAL}{}",
            ITEM.replace("\"outfit-frostbite\"", &format!("\"{bad}\""))
        );
        assert_refused(
            &text,
            &format!("sku = \"{bad}\""),
            "items[0].sku",
            "is not a SKU",
        );
    }
    let long = format!("outfit-{}", "x".repeat(60));
    let text = format!("{MINIMAL}{}", ITEM.replace("outfit-frostbite", &long));
    assert_refused(&text, &long, "items[0].sku", "is not a SKU");
}

#[test]
fn an_item_sku_starts_with_its_type() {
    let text = format!(
        "{MINIMAL}{}",
        ITEM.replace("type = \"outfit\"", "type = \"emote\"")
    );
    assert_refused(
        &text,
        "sku = ",
        "items[0].sku",
        "starts with its type: `emote-...`",
    );
}

#[test]
fn item_types_and_categories_are_labels_sent_as_written() {
    for (kind, category) in [
        ("OutfitSkin", "Outfit"),
        ("Outfit Skin", "Winter Storm 2026"),
        ("outfit", "Équipe été"),
    ] {
        let item = ITEM
            .replace("type = \"outfit\"", &format!("type = \"{kind}\""))
            .replace("\"winter-storm\"", &format!("\"{category}\""));
        let catalog = parse(&format!("{MINIMAL}{item}")).catalog;
        let item = catalog.item(ItemId(7)).unwrap();
        assert_eq!(
            (item.kind.as_str(), item.category.as_str()),
            (kind, category)
        );
        assert_eq!(item.sku, "outfit-frostbite");
    }
    let longest = "x".repeat(32);
    let item = ITEM
        .replace(
            "type = \"outfit\"",
            &format!("type = \"X{}\"", &longest[1..]),
        )
        .replace("\"winter-storm\"", &format!("\"{longest}\""));
    let catalog = parse(&format!("{MINIMAL}{item}")).catalog;
    assert_eq!(catalog.item(ItemId(7)).unwrap().category, longest);
}

#[test]
fn empty_long_and_hidden_labels_are_refused_at_their_line() {
    let too_long = "x".repeat(33);
    let cases = [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        (too_long.as_str(), "is longer than 32 characters"),
        ("Outfit\\u0007Skin", "(U+0007 at character 7)"),
        ("Outfit\\tSkin", "(U+0009 at character 7)"),
        ("Outfit\\u200BSkin", "(U+200B at character 7)"),
    ];
    for (bad, problem) in cases {
        let written = format!("\"{bad}\"");
        let text = format!(
            "{MINIMAL}{}",
            ITEM.replace("\"outfit\"\n", &format!("{written}\n"))
        );
        assert_refused(
            &text,
            &format!("type = {written}"),
            "items[0].type",
            problem,
        );
        let text = format!("{MINIMAL}{}", ITEM.replace("\"winter-storm\"", &written));
        assert_refused(
            &text,
            &format!("category = {written}"),
            "items[0].category",
            problem,
        );
    }
}

#[test]
fn negative_and_huge_prices_are_refused() {
    let text = format!(
        "{MINIMAL}{}",
        ITEM.replace("cost_gems = 1200", "cost_gems = -5")
    );
    assert_refused(
        &text,
        "cost_gems = -5",
        "items[0].cost_gems",
        "-5 is out of range; write 0 to 1000000000",
    );
    let text = format!(
        "{MINIMAL}{}",
        ITEM.replace("cost_gems = 1200", "cost_coins = 1000000001")
    );
    assert_refused(
        &text,
        "cost_coins = 1000000001",
        "items[0].cost_coins",
        "out of range",
    );
}

#[test]
fn a_stock_item_has_no_price() {
    let text = format!(
        "{MINIMAL}{}",
        ITEM.replace("cost_gems = 1200", "cost_gems = 1200\nis_stock = true")
    );
    assert_refused(
        &text,
        "cost_gems = 1200",
        "items[0].cost_gems",
        "must be free",
    );
}

#[test]
fn empty_names_are_refused() {
    for blank in ["", "   "] {
        let text = format!(
            "{MINIMAL}{}",
            ITEM.replace("\"Frostbite\"", &format!("\"{blank}\""))
        );
        assert_refused(
            &text,
            "name = ",
            "items[0].name",
            "item `outfit-frostbite`: must not be empty",
        );
    }
}

#[test]
fn bad_rarities_are_refused() {
    for bad in ["epic", "Epik", "Ultra"] {
        let text = format!(
            "{MINIMAL}{}",
            ITEM.replace("\"Epic\"", &format!("\"{bad}\""))
        );
        assert_refused(&text, "rarity", "items[0].rarity", "is not a rarity");
    }
}

#[test]
fn every_rarity_is_read_by_its_name() {
    for rarity in Rarity::ALL {
        let text = format!(
            "{MINIMAL}{}",
            ITEM.replace("\"Epic\"", &format!("\"{}\"", rarity.as_str()))
        );
        assert_eq!(parse(&text).catalog.items[0].rarity, rarity);
        assert_eq!(
            serde_json::to_string(&rarity).unwrap(),
            format!("\"{}\"", rarity.as_str())
        );
    }
}

#[test]
fn ids_are_positive() {
    let text = format!("{MINIMAL}{}", ITEM.replace("id = 7", "id = 0"));
    assert_refused(&text, "id = 0", "items[0].id", "out of range");
}

#[test]
fn unknown_item_keys_are_refused() {
    let text = format!(
        "{MINIMAL}{}",
        ITEM.replace("cost_gems = 1200", "cost_gem = 1200")
    );
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    let line = text[..text.find("cost_gem = ").unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert!(error.contains("cost_gem"), "{error}");
    assert!(error.contains(&format!("line {line}:")), "{error}");
}

// --- Packs ---------------------------------------------------------------------------------

#[test]
fn a_pack_is_read_whole() {
    let catalog = parse(&with_shop("")).catalog;
    let pack = catalog.pack(PackId(1)).unwrap();
    assert_eq!(pack.sku, "basic-chest");
    assert_eq!(pack.name, "Basic Chest");
    assert_eq!((pack.price.coins, pack.price.gems), (500, 0));
    assert_eq!(pack.items_per_open, 1);
    assert_eq!(pack.duplicate_coins, 100);
    assert_eq!(pack.drops.len(), 1);
    assert_eq!(pack.drops[0].item, ItemId(1));
    assert_eq!(pack.drops[0].item_sku, "outfit-ranger");
    assert_eq!(pack.drops[0].weight, 1);
}

#[test]
fn drops_may_be_written_as_tables() {
    let text = SHOP.replace(
        "drops = [{ sku = \"outfit-ranger\", weight = 1 }]",
        "[[packs.drops]]\nsku = \"outfit-ranger\"\nweight = 3",
    );
    let catalog = parse(&format!("{MINIMAL}{text}")).catalog;
    assert_eq!(catalog.packs[0].drops[0].weight, 3);
}

fn with_drops(drops: &str) -> String {
    with_shop("").replace("drops = [{ sku = \"outfit-ranger\", weight = 1 }]", drops)
}

#[test]
fn unknown_skus_in_drop_tables_are_refused() {
    let text = with_drops(
        "drops = [{ sku = \"outfit-ranger\", weight = 1 }, { sku = \"outfit-nobody\", weight = 1 }]",
    );
    assert_refused(
        &text,
        "drops = ",
        "packs[0].drops[1].sku",
        "pack `basic-chest`: there is no item `outfit-nobody`",
    );
}

#[test]
fn empty_drop_tables_are_refused() {
    let text = with_drops("drops = []");
    assert_refused(
        &text,
        "drops = []",
        "packs[0].drops",
        "the drop table is empty",
    );
}

#[test]
fn zero_weights_are_refused() {
    let text = with_drops("drops = [\n  { sku = \"outfit-ranger\", weight = 0 },\n]");
    assert_refused(
        &text,
        "weight = 0",
        "packs[0].drops[0].weight",
        "a weight of 0 never drops",
    );
}

#[test]
fn negative_weights_are_refused() {
    let text = with_drops("drops = [\n  { sku = \"outfit-ranger\", weight = -1 },\n]");
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    let line = text[..text.find("weight = -1").unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert!(error.contains(&format!("line {line}")), "{error}");
}

#[test]
fn total_weights_past_u32_are_refused() {
    let text = with_shop(
        r#"
[[items]]
id = 3
sku = "outfit-scout"
name = "Scout"
type = "outfit"
category = "classic"
rarity = "Common"
"#,
    )
    .replace(
        "drops = [{ sku = \"outfit-ranger\", weight = 1 }]",
        "drops = [{ sku = \"outfit-ranger\", weight = 4000000000 }, { sku = \"outfit-scout\", weight = 4000000000 }]",
    );
    assert_refused(&text, "drops = ", "packs[0].drops", "below 2^32");
}

#[test]
fn an_item_twice_in_a_drop_table_is_refused() {
    let text = with_drops(
        "drops = [{ sku = \"outfit-ranger\", weight = 1 }, { sku = \"outfit-ranger\", weight = 2 }]",
    );
    assert_refused(&text, "drops = ", "packs[0].drops[1].sku", "listed twice");
}

#[test]
fn stock_items_do_not_drop() {
    let text = with_drops("drops = [{ sku = \"emote-wave\", weight = 1 }]");
    assert_refused(&text, "drops = ", "packs[0].drops[0].sku", "stock item");
}

#[test]
fn items_per_open_is_1_to_10() {
    for bad in [0, 11] {
        let text = with_shop("").replace("items_per_open = 1", &format!("items_per_open = {bad}"));
        assert_refused(
            &text,
            "items_per_open",
            "packs[0].items_per_open",
            "write 1 to 10",
        );
    }
}

#[test]
fn duplicate_pack_ids_and_skus_are_refused() {
    let second = "\n[[packs]]\nid = 2\nsku = \"basic-chest\"\nname = \"Again\"\nitems_per_open = 1\n\
                  duplicate_coins = 0\ndrops = [{ sku = \"outfit-ranger\", weight = 1 }]\n";
    let text = with_shop(second);
    assert_refused(
        &text,
        "sku = \"basic-chest\"\nname = \"Again",
        "packs[1].sku",
        "already used by pack `basic-chest`",
    );
    let text = with_shop(
        &second
            .replace("id = 2", "id = 1")
            .replace("\"basic-chest\"", "\"big-chest\""),
    );
    assert_refused(
        &text,
        "id = 1\nsku = \"big-chest",
        "packs[1].id",
        "id 1 is already used",
    );
}

#[test]
fn unknown_drop_keys_are_refused() {
    let text = with_drops("drops = [{ sku = \"outfit-ranger\", weigth = 1 }]");
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("weigth"), "{error}");
}

// --- Timed deals ---------------------------------------------------------------------------

const DEAL: &str = r#"
[[timed_deals]]
id = 1
sku = "deal-ranger"
name = "Ranger Deal"
cost_gems = 100
undiscounted_cost_gems = 200
starts = 2026-11-01T00:00:00Z
ends = 2026-12-01T00:00:00Z
rewards = [
    { type = "item", sku = "outfit-ranger" },
    { type = "pack", sku = "basic-chest" },
    { type = "pack", sku = "basic-chest", quantity = 2 },
    { type = "coins", quantity = 10 },
    { type = "gems", quantity = 20 },
    { type = "experience", quantity = 30 },
]
"#;

#[test]
fn a_deal_is_read_whole() {
    let catalog = parse(&with_shop(DEAL)).catalog;
    let deal = catalog.timed_deal(DealId(1)).unwrap();
    assert_eq!(deal.sku, "deal-ranger");
    assert_eq!(deal.name, "Ranger Deal");
    assert_eq!((deal.price.coins, deal.price.gems), (0, 100));
    assert_eq!((deal.undiscounted.coins, deal.undiscounted.gems), (0, 200));
    assert_eq!(
        deal.runs,
        Recurrence::once(
            datetime!(2026-11-01 00:00 UTC),
            datetime!(2026-12-01 00:00 UTC)
        )
    );
    let pack = PackId(1);
    assert_eq!(
        deal.rewards,
        [
            RewardSpec::Item(ItemId(1)),
            RewardSpec::Pack { pack, quantity: 1 },
            RewardSpec::Pack { pack, quantity: 2 },
            RewardSpec::Coins(10),
            RewardSpec::Gems(20),
            RewardSpec::Experience(30),
        ]
    );
    assert!(
        deal.running_at(datetime!(2026-10-31 23:59:59 UTC))
            .is_none()
    );
    assert!(deal.running_at(datetime!(2026-11-01 00:00 UTC)).is_some());
    assert!(
        deal.running_at(datetime!(2026-11-30 23:59:59 UTC))
            .is_some()
    );
    assert!(deal.running_at(datetime!(2026-12-01 00:00 UTC)).is_none());
}

#[test]
fn inverted_deal_windows_are_refused() {
    let text =
        with_shop(&DEAL.replace("ends = 2026-12-01T00:00:00Z", "ends = 2026-10-01T00:00:00Z"));
    assert_refused(&text, "ends = ", "timed_deals[0].ends", "before it starts");
    let text =
        with_shop(&DEAL.replace("ends = 2026-12-01T00:00:00Z", "ends = 2026-11-01T00:00:00Z"));
    assert_refused(&text, "ends = ", "timed_deals[0].ends", "before it starts");
}

#[test]
fn deal_times_need_an_offset() {
    let text =
        with_shop(&DEAL.replace("ends = 2026-12-01T00:00:00Z", "ends = 2026-12-01T00:00:00"));
    assert_refused(
        &text,
        "ends = ",
        "timed_deals[0].ends",
        "needs a date, a time and an offset",
    );
}

#[test]
fn deals_need_a_price_and_rewards() {
    let text = with_shop(&DEAL.replace("cost_gems = 100\nundiscounted_cost_gems = 200\n", ""));
    assert_refused(
        &text,
        "sku = \"deal-ranger\"",
        "timed_deals[0].cost_coins",
        "needs a price",
    );
    let start = DEAL.find("rewards = [").unwrap();
    let text = with_shop(&format!("{}rewards = []\n", &DEAL[..start]));
    assert_refused(
        &text,
        "rewards = []",
        "timed_deals[0].rewards",
        "at least one reward",
    );
}

#[test]
fn a_discount_is_never_a_markup() {
    let text = with_shop(&DEAL.replace(
        "undiscounted_cost_gems = 200",
        "undiscounted_cost_gems = 50",
    ));
    assert_refused(
        &text,
        "undiscounted_cost_gems",
        "timed_deals[0].undiscounted_cost_gems",
        "below the deal's own price",
    );
}

#[test]
fn duplicate_deal_ids_are_refused() {
    let second = DEAL.replace("deal-ranger", "deal-ranger-two");
    let text = with_shop(&format!("{DEAL}{second}"));
    assert_refused(
        &text,
        "id = 1\nsku = \"deal-ranger-two",
        "timed_deals[1].id",
        "id 1 is already used by timed deal `deal-ranger`",
    );
}

#[test]
fn unknown_skus_in_rewards_are_refused() {
    let text = with_shop(&DEAL.replace(
        "{ type = \"item\", sku = \"outfit-ranger\" }",
        "{ type = \"item\", sku = \"outfit-nobody\" }",
    ));
    assert_refused(
        &text,
        "outfit-nobody",
        "timed_deals[0].rewards[0].sku",
        "there is no item `outfit-nobody`",
    );
    let text = with_shop(&DEAL.replace(
        "{ type = \"pack\", sku = \"basic-chest\" }",
        "{ type = \"pack\", sku = \"gold-chest\" }",
    ));
    assert_refused(
        &text,
        "gold-chest",
        "timed_deals[0].rewards[1].sku",
        "there is no pack `gold-chest`",
    );
}

#[test]
fn malformed_rewards_are_refused() {
    let reward = "{ type = \"coins\", quantity = 10 }";
    for (bad, key, problem) in [
        (
            "{ type = \"coins\", quantity = 0 }",
            "quantity",
            "write 1 to 1000000",
        ),
        (
            "{ type = \"coins\", quantity = 1000001 }",
            "quantity",
            "write 1 to 1000000",
        ),
        ("{ type = \"coins\" }", "quantity", "needs a quantity"),
        (
            "{ type = \"coins\", quantity = 5, sku = \"outfit-ranger\" }",
            "sku",
            "has no sku",
        ),
        (
            "{ type = \"item\", sku = \"outfit-ranger\", quantity = 2 }",
            "quantity",
            "at most once",
        ),
        (
            "{ type = \"item\", sku = \"emote-wave\" }",
            "sku",
            "stock item",
        ),
        ("{ type = \"pack\" }", "sku", "needs the sku"),
        (
            "{ type = \"pack\", sku = \"basic-chest\", quantity = -1 }",
            "quantity",
            "write 1 to",
        ),
        (
            "{ type = \"star\", quantity = 1 }",
            "type",
            "is not a reward type",
        ),
    ] {
        let text = with_shop(&DEAL.replace(reward, bad));
        assert_refused(
            &text,
            bad,
            &format!("timed_deals[0].rewards[3].{key}"),
            problem,
        );
    }
    let text = with_shop(&DEAL.replace(reward, "{ type = \"coins\", amount = 10 }"));
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("amount"), "{error}");
}

// --- In-app purchase products -----------------------------------------------------------------

const IAP: &str = r#"
[[iaps]]
id = 1
sku = "gems-handful"
name = "Handful of Gems"
type = "currency"
apple_id = "com.example.gems.handful"
google_id = "gems_handful"
cost_dollars = 4.99
quantity = 500
rewards = [{ type = "gems", quantity = 500 }]
"#;

#[test]
fn a_product_is_read_whole() {
    let catalog = parse(&with_shop(IAP)).catalog;
    let iap = catalog.iap(IapId(1)).unwrap();
    assert_eq!(iap.sku, "gems-handful");
    assert_eq!(iap.name, "Handful of Gems");
    assert_eq!(iap.kind, "currency");
    assert_eq!(iap.apple_id, "com.example.gems.handful");
    assert_eq!(iap.google_id, "gems_handful");
    assert_eq!(iap.cost_cents, 499);
    assert_eq!(iap.quantity, 500);
    assert_eq!(iap.rewards, [RewardSpec::Gems(500)]);

    let whole = with_shop(&IAP.replace("cost_dollars = 4.99", "cost_dollars = 5"));
    assert_eq!(parse(&whole).catalog.iaps[0].cost_cents, 500);
}

#[test]
fn bad_dollar_prices_are_refused() {
    for bad in ["4.999", "-0.99", "10000.01"] {
        let text = with_shop(&IAP.replace("4.99", bad));
        assert_refused(
            &text,
            "cost_dollars",
            "iaps[0].cost_dollars",
            "at most two decimals, from 0 to 10000",
        );
    }
}

#[test]
fn product_types_are_known() {
    let text = with_shop(&IAP.replace("\"currency\"", "\"coins\""));
    assert_refused(
        &text,
        "type = \"coins\"",
        "iaps[0].type",
        "write currency, bundle or subscription",
    );
    let text = with_shop(&IAP.replace(
        "{ type = \"gems\", quantity = 500 }",
        "{ type = \"item\", sku = \"outfit-ranger\" }",
    ));
    assert_refused(&text, "rewards = ", "iaps[0].rewards", "make it a `bundle`");
    let text = with_shop(&IAP.replace("rewards = [{ type = \"gems\", quantity = 500 }]", ""));
    assert_refused(&text, "[[iaps]]", "iaps[0].rewards", "at least one reward");
    let subscription = IAP
        .replace("\"currency\"", "\"subscription\"")
        .replace("rewards = [{ type = \"gems\", quantity = 500 }]", "");
    assert!(
        parse(&with_shop(&subscription)).catalog.iaps[0]
            .rewards
            .is_empty()
    );
}

#[test]
fn duplicate_product_ids_skus_and_store_ids_are_refused() {
    let other = IAP
        .replace("id = 1", "id = 2")
        .replace("\"gems-handful\"", "\"gems-sack\"")
        .replace("\"com.example.gems.handful\"", "\"com.example.gems.sack\"")
        .replace("\"gems_handful\"", "\"gems_sack\"");
    for (from, to, key) in [
        ("id = 2", "id = 1", "iaps[1].id"),
        ("\"gems-sack\"", "\"gems-handful\"", "iaps[1].sku"),
        (
            "\"com.example.gems.sack\"",
            "\"com.example.gems.handful\"",
            "iaps[1].apple_id",
        ),
        ("\"gems_sack\"", "\"gems_handful\"", "iaps[1].google_id"),
    ] {
        let text = with_shop(&format!("{IAP}{}", other.replacen(from, to, 1)));
        // The second product's line with the repeated value.
        let second = text.rfind("[[iaps]]").unwrap();
        let offset = second + text[second..].find(to).unwrap();
        assert_refused_at(
            &text,
            offset,
            key,
            "is already used by in-app purchase `gems-handful`",
        );
    }
}

// --- Reward types and friend codes -----------------------------------------------------------

#[test]
fn reward_types_are_read_in_order() {
    let text = with_shop(
        r#"
[[reward_types]]
name = "gift"
schedule = "every_hours"
hours = 4
rewards = [{ type = "coins", quantity = 150 }]

[[reward_types]]
name = "daily_2"
schedule = "per_day"
times = 3
requires_premium = true
rewards = [{ type = "item", sku = "outfit-ranger" }]

[[reward_types]]
name = "later"
schedule = "never"
"#,
    );
    let types = parse(&text).reward_types;
    assert_eq!(types.len(), 3);
    assert_eq!(types[0].name, "gift");
    assert_eq!(types[0].schedule, Schedule::EveryHours(4));
    assert!(!types[0].requires_premium);
    assert_eq!(types[1].schedule, Schedule::PerDay(3));
    assert!(types[1].requires_premium);
    assert_eq!(types[1].rewards, [RewardSpec::Item(ItemId(1))]);
    assert_eq!(types[2].schedule, Schedule::Never);
    assert!(types[2].rewards.is_empty());
}

const GIFT: &str = r#"
[[reward_types]]
name = "gift"
schedule = "every_hours"
hours = 4
rewards = [{ type = "coins", quantity = 150 }]
"#;

#[test]
fn schedules_take_only_their_own_numbers() {
    let text = with_shop(&GIFT.replace("\"every_hours\"", "\"per_day\""));
    assert_refused(
        &text,
        "hours = 4",
        "reward_types[0].hours",
        "`hours` belongs to schedule = \"every_hours\"",
    );
    let text = with_shop(&GIFT.replace("\"every_hours\"", "\"once\""));
    assert_refused(&text, "hours = 4", "reward_types[0].hours", "not \"once\"");
    let text = with_shop(&GIFT.replace("hours = 4", "times = 4"));
    assert_refused(
        &text,
        "times = 4",
        "reward_types[0].times",
        "`times` belongs to schedule = \"per_day\"",
    );
    let text = with_shop(&GIFT.replace("hours = 4\n", ""));
    assert_refused(
        &text,
        "[[reward_types]]",
        "reward_types[0].hours",
        "needs `hours`",
    );
    let text = with_shop(
        &GIFT
            .replace("\"every_hours\"", "\"per_day\"")
            .replace("hours = 4", ""),
    );
    assert_refused(
        &text,
        "[[reward_types]]",
        "reward_types[0].times",
        "needs `times`",
    );
    let text = with_shop(&GIFT.replace("\"every_hours\"", "\"hourly\""));
    assert_refused(
        &text,
        "\"hourly\"",
        "reward_types[0].schedule",
        "is not a schedule",
    );
}

#[test]
fn schedule_numbers_are_bounded() {
    for bad in ["hours = 0", "hours = 721"] {
        let text = with_shop(&GIFT.replace("hours = 4", bad));
        assert_refused(&text, bad, "reward_types[0].hours", "write 1 to 720");
    }
    for bad in ["times = 0", "times = 101"] {
        let text = with_shop(
            &GIFT
                .replace("\"every_hours\"", "\"per_day\"")
                .replace("hours = 4", bad),
        );
        assert_refused(&text, bad, "reward_types[0].times", "write 1 to 100");
    }
}

#[test]
fn reward_type_names_are_unique_and_well_formed() {
    let text = with_shop(&format!("{GIFT}{GIFT}"));
    let second = text.rfind("name = \"gift\"").unwrap();
    assert_refused_at(
        &text,
        second,
        "reward_types[1].name",
        "name gift is already used by reward type `gift`",
    );
    for bad in ["", "Gift", "gift-box", &"a".repeat(33)] {
        let text = with_shop(&GIFT.replace("\"gift\"", &format!("\"{bad}\"")));
        let at = format!("name = \"{bad}\"");
        assert_refused(
            &text,
            &at,
            "reward_types[0].name",
            "1 to 32 of a-z, 0-9 and _",
        );
    }
}

#[test]
fn only_never_types_may_have_no_rewards() {
    let text = with_shop(&GIFT.replace(
        "rewards = [{ type = \"coins\", quantity = 150 }]",
        "rewards = []",
    ));
    assert_refused(
        &text,
        "rewards = []",
        "reward_types[0].rewards",
        "needs at least one reward",
    );
    let text = with_shop(&GIFT.replace("rewards = [{ type = \"coins\", quantity = 150 }]", ""));
    assert_refused(
        &text,
        "[[reward_types]]",
        "reward_types[0].rewards",
        "needs at least one reward",
    );
    let text = with_shop(
        &GIFT
            .replace("rewards = [{ type = \"coins\", quantity = 150 }]", "")
            .replace("\"every_hours\"\nhours = 4", "\"never\""),
    );
    assert_eq!(parse(&text).reward_types[0].schedule, Schedule::Never);
}

#[test]
fn unknown_skus_in_reward_types_are_refused() {
    let text = with_shop(&GIFT.replace(
        "{ type = \"coins\", quantity = 150 }",
        "{ type = \"pack\", sku = \"gold-chest\" }",
    ));
    assert_refused(
        &text,
        "gold-chest",
        "reward_types[0].rewards[0].sku",
        "reward type `gift`: there is no pack `gold-chest`",
    );
}

#[test]
fn unknown_reward_type_keys_are_refused() {
    let text = with_shop(&GIFT.replace("hours = 4", "hours = 4\npremium = true"));
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("premium"), "{error}");
}

#[test]
fn the_friend_code_rename_cost_is_bounded() {
    let text = MINIMAL.replace("rename_cost_gems = 250", "rename_cost_gems = -1");
    assert_refused(
        &text,
        "rename_cost_gems",
        "friend_code.rename_cost_gems",
        "write 0 to 1000000000",
    );
    let text = MINIMAL.replace("rename_cost_gems = 250", "rename_cost_gems = 0");
    assert_eq!(parse(&text).friend_code.rename_cost_gems, 0);
    let text = MINIMAL.replace("rename_cost_gems = 250", "rename_cost_gem = 250");
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("rename_cost_gem"), "{error}");
}

#[test]
fn the_friend_code_rules_are_required() {
    let text = MINIMAL.replace("[friend_code]\nrename_cost_gems = 250\n", "");
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("friend_code"), "{error}");
}

#[test]
fn errors_in_the_shipped_file_name_its_line() {
    let text = SHIPPED.replacen(
        "{ sku = \"spray-gg\", weight = 90 }",
        "{ sku = \"spray-gg\", weight = 0 }",
        1,
    );
    assert_refused(
        &text,
        "{ sku = \"spray-gg\", weight = 0 }",
        "packs[0].drops[6].weight",
        "pack `basic-chest`",
    );
    let text = SHIPPED.replacen("rarity = \"Mythic\"", "rarity = \"Mystic\"", 1);
    assert_refused(
        &text,
        "rarity = \"Mystic\"",
        "rarity",
        "`Mystic` is not a rarity",
    );
    let text = SHIPPED.replacen(
        "ends = 2026-11-29T00:00:00Z",
        "ends = 2026-10-30T23:59:59Z",
        1,
    );
    assert_refused(
        &text,
        "ends = 2026-10-30",
        "timed_deals[0].ends",
        "timed deal `deal-winter-starter`: ends at",
    );
}
