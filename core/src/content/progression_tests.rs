//! Tests of the progression sections (the level curve, quests, reward tracks): the shipped file,
//! the arithmetic, the daily rotation, and one test per kind of error a designer can make.

use std::collections::{BTreeMap, HashSet};

use time::macros::datetime;

use super::testing::{MINIMAL, assert_refused, parse, with_shop};
use super::{
    Content, DAILY_QUEST_ID_BASE, LevelCurve, MAX_LEVEL, MAX_LEVEL_EXPERIENCE, MatchAward, Price,
    RewardSpec, RewardTrack, SHIPPED,
};
use crate::domain::{ChallengeId, EvolutionId, ItemId, PackId, QuestId, TrackId};

// --- The shipped content -------------------------------------------------------------------

#[test]
fn shipped_progression_is_the_designed_one() {
    let progression = parse(SHIPPED).progression;
    assert_eq!(
        progression.match_experience,
        MatchAward {
            base: 50,
            per_kill: 25,
            per_minute_alive: 10,
            win_bonus: 200,
            top10_bonus: 50,
        }
    );
    let levels = &progression.levels;
    assert_eq!(
        (levels.max_level, levels.first, levels.increment),
        (100, 500, 100)
    );
    assert_eq!(levels.every_level, [RewardSpec::Coins(100)]);
    let milestones: Vec<i64> = levels.milestones.keys().copied().collect();
    assert_eq!(milestones, (1..=10).map(|n| n * 10).collect::<Vec<_>>());
    let granted: Vec<RewardSpec> = levels.milestones.values().flatten().copied().collect();
    assert!(granted.iter().any(|r| matches!(r, RewardSpec::Item(_))));
    assert!(granted.iter().any(|r| matches!(r, RewardSpec::Pack { .. })));
    assert!(granted.iter().any(|r| matches!(r, RewardSpec::Gems(_))));
    assert_eq!(levels.rewards_for(2), [RewardSpec::Coins(100)]);
    assert_eq!(
        levels.rewards_for(10),
        [
            RewardSpec::Coins(100),
            RewardSpec::Pack {
                pack: PackId(1),
                quantity: 1
            }
        ]
    );
}

#[test]
fn shipped_quests_run_in_season_1() {
    let quests = parse(SHIPPED).quests;
    assert_eq!(quests.fixed.len(), 4);
    let now = datetime!(2026-12-01 12:00 UTC);
    let active = quests.active(now);
    let fixed: Vec<QuestId> = active
        .iter()
        .map(|quest| quest.id)
        .filter(|id| id.0 < DAILY_QUEST_ID_BASE)
        .collect();
    assert_eq!(fixed, [QuestId(2), QuestId(3), QuestId(4)]);
    let keys: Vec<&str> = active
        .iter()
        .take(3)
        .map(|quest| quest.stat_key.as_str())
        .collect();
    assert_eq!(keys, ["mode_wins_squad", "damage", "rounds"]);
    assert_eq!(active.len(), 6, "three fixed, three daily: {active:?}");
    assert!(quests.fixed.iter().any(|quest| quest.ends <= now));

    let daily = quests.daily.as_ref().unwrap();
    assert_eq!(daily.count, 3);
    assert_eq!(daily.templates.len(), 8);
    let stats: HashSet<&str> = daily
        .templates
        .iter()
        .map(|template| template.stat_key.as_str())
        .collect();
    for stat in [
        "kills",
        "wins",
        "top10",
        "rounds",
        "time_alive",
        "damage",
        "chests",
        "mode_games_duo",
    ] {
        assert!(stats.contains(stat), "no daily quest counts {stat}");
    }
}

#[test]
fn shipped_tracks_are_season_1_free_and_premium_and_an_ended_season_0() {
    let content = parse(SHIPPED);
    let tracks = &content.tracks;
    assert_eq!(tracks.len(), 3);
    let ids: Vec<TrackId> = tracks.iter().map(|track| track.id).collect();
    assert_eq!(ids, [TrackId(1), TrackId(2), TrackId(3)]);
    let now = datetime!(2026-12-01 12:00 UTC);

    let free = &tracks[0];
    assert!(free.is_stock && !free.is_repeatable);
    assert_eq!((free.season, free.max_tier, free.tiers.len()), (1, 20, 20));
    assert!(free.cost.is_free() && free.discount.is_none());
    assert!(free.price_at(now).is_free());

    let premium = &tracks[1];
    assert!(!premium.is_stock && premium.is_repeatable);
    assert_eq!(
        (premium.season, premium.max_tier, premium.tiers.len()),
        (1, 30, 30)
    );
    assert_eq!(
        premium.cost,
        Price {
            coins: 0,
            gems: 950
        }
    );
    assert_eq!(premium.cost_gems_per_tier, 150);
    assert_eq!(
        premium.price_at(now),
        Price {
            coins: 0,
            gems: 750
        }
    );
    assert_eq!(
        premium.price_at(datetime!(2027-01-01 00:00 UTC)),
        Price {
            coins: 0,
            gems: 950
        }
    );
    assert_eq!(premium.evolutions.len(), 1);
    let evolution = &premium.evolutions[0];
    let item = content.catalog.item(evolution.required_item).unwrap();
    assert!(!item.is_stock);

    for track in &tracks[..2] {
        assert!(track.is_running(now));
        assert_eq!(track.starts, datetime!(2026-11-01 00:00 UTC));
        assert_eq!(track.ends, datetime!(2027-02-21 00:00 UTC));
        assert_eq!(track.repeat_every, Some(time::Duration::weeks(16)));
        assert_eq!(
            (
                track.stars_per_tier,
                track.experience_per_level,
                track.stars_per_level,
                track.max_level
            ),
            (10, 1000, 5, 100)
        );
        assert_eq!(track.challenges.len(), 4);
        assert!(
            track
                .challenges
                .iter()
                .all(|challenge| (5..=20).contains(&challenge.stars))
        );
        let rewards: Vec<&RewardSpec> = track.tiers.iter().flat_map(|t| &t.rewards).collect();
        assert!(rewards.iter().any(|r| matches!(r, RewardSpec::Item(_))));
        assert!(rewards.iter().any(|r| matches!(r, RewardSpec::Pack { .. })));
        assert!(rewards.iter().any(|r| matches!(r, RewardSpec::Coins(_))));
        assert!(rewards.iter().any(|r| matches!(r, RewardSpec::Gems(_))));
    }

    let ended = &tracks[2];
    assert_eq!(ended.season, 0);
    assert!(!ended.is_running(now));
    assert!(ended.is_running(datetime!(2026-07-01 00:00 UTC)));
    assert_eq!(ended.starts, datetime!(2026-06-01 00:00 UTC));
    assert_eq!(ended.ends, datetime!(2026-11-01 00:00 UTC));
}

#[test]
fn the_shipped_repeatable_track_repeats_its_last_tier() {
    let tracks = parse(SHIPPED).tracks;
    let premium = &tracks[1];
    assert_eq!(premium.tier_for(premium.stars_per_tier * 45), 45);
    assert_eq!(premium.tier_rewards(45), premium.tier_rewards(30));
    assert!(
        premium
            .tier_rewards(30)
            .iter()
            .all(|reward| !matches!(reward, RewardSpec::Item(_)))
    );
}

#[test]
fn errors_in_the_shipped_progression_name_their_line() {
    // A designer's slip in each new section is reported with its line.
    let text = SHIPPED.replacen(
        "stat_key = \"mode_wins_squad\"",
        "stat_key = \"mode wins\"",
        1,
    );
    assert_refused(
        &text,
        "stat_key = \"mode wins\"",
        "quests.fixed[1].stat_key",
        "quest 2: `mode wins` is not a stat key",
    );
    let text = SHIPPED.replacen("{ tier = 7, rewards", "{ tier = 6, rewards", 1);
    assert_refused(
        &text,
        "{ tier = 6, rewards = [{ type = \"item\", sku = \"emote-shiver\"",
        "tracks[0].tiers[6].tier",
        "tier 6 is already used",
    );
    let text = SHIPPED.replacen(
        "required_item = \"outfit-frostbite\"",
        "required_item = \"outfit-frost\"",
        1,
    );
    assert_refused(
        &text,
        "required_item = ",
        "tracks[1].evolutions[0].required_item",
        "there is no item `outfit-frost`",
    );
}

// --- The level curve -----------------------------------------------------------------------

fn curve(max_level: i64, first: i64, increment: i64) -> LevelCurve {
    LevelCurve {
        max_level,
        first,
        increment,
        every_level: vec![RewardSpec::Coins(100)],
        milestones: BTreeMap::from([(5, vec![RewardSpec::Gems(50)])]),
    }
}

#[test]
fn each_level_takes_first_plus_increments() {
    let levels = curve(100, 500, 100);
    assert_eq!(levels.required_for_next(1), Some(500));
    assert_eq!(levels.required_for_next(2), Some(600));
    assert_eq!(levels.required_for_next(99), Some(500 + 100 * 98));
    assert_eq!(levels.required_for_next(100), None);
    assert_eq!(levels.required_for_next(101), None);
    assert_eq!(levels.required_for_next(0), Some(500));
    assert_eq!(levels.total_for(1), 0);
    assert_eq!(levels.total_for(2), 500);
    assert_eq!(levels.total_for(3), 1100);
    assert_eq!(levels.total_for(0), 0);
    assert_eq!(levels.total_for(101), levels.total_for(100));
    for level in 1..100 {
        assert_eq!(
            Some(levels.total_for(level + 1) - levels.total_for(level)),
            levels.required_for_next(level),
            "level {level}"
        );
    }
}

#[test]
fn level_for_inverts_total_for() {
    for levels in [curve(100, 500, 100), curve(2, 1, 0), curve(1000, 7, 3)] {
        assert_eq!(levels.level_for(i64::MIN), 1);
        assert_eq!(levels.level_for(-1), 1);
        assert_eq!(levels.level_for(0), 1);
        for level in 2..=levels.max_level {
            let total = levels.total_for(level);
            assert_eq!(levels.level_for(total), level);
            assert_eq!(levels.level_for(total - 1), level - 1);
        }
        let top = levels.total_for(levels.max_level);
        assert_eq!(levels.level_for(top + 1_000_000), levels.max_level);
        assert_eq!(levels.level_for(i64::MAX), levels.max_level);
    }
}

#[test]
fn the_steepest_curve_allowed_does_not_overflow() {
    let levels = curve(MAX_LEVEL, MAX_LEVEL_EXPERIENCE, MAX_LEVEL_EXPERIENCE);
    let expected: i128 = (1..i128::from(MAX_LEVEL))
        .map(|level| i128::from(MAX_LEVEL_EXPERIENCE) * level)
        .sum();
    assert_eq!(i128::from(levels.total_for(MAX_LEVEL)), expected);
    assert!(expected < i128::from(i64::MAX) / 1000);
    assert_eq!(levels.level_for(levels.total_for(MAX_LEVEL)), MAX_LEVEL);
    assert_eq!(
        levels.level_for(levels.total_for(MAX_LEVEL) - 1),
        MAX_LEVEL - 1
    );
}

#[test]
fn level_rewards_are_every_level_then_the_milestone() {
    let levels = curve(10, 500, 100);
    assert!(levels.rewards_for(1).is_empty());
    assert!(levels.rewards_for(0).is_empty());
    assert!(levels.rewards_for(11).is_empty());
    assert_eq!(levels.rewards_for(4), [RewardSpec::Coins(100)]);
    assert_eq!(
        levels.rewards_for(5),
        [RewardSpec::Coins(100), RewardSpec::Gems(50)]
    );
    assert_eq!(levels.rewards_for(10), [RewardSpec::Coins(100)]);
}

#[test]
fn match_experience_adds_its_parts() {
    let experience = MatchAward {
        base: 50,
        per_kill: 25,
        per_minute_alive: 10,
        win_bonus: 200,
        top10_bonus: 50,
    };
    assert_eq!(experience.for_result(1, 0, 0), 50 + 200 + 50);
    assert_eq!(experience.for_result(10, 2, 119), 50 + 50 + 10 + 50);
    assert_eq!(experience.for_result(11, 2, 120), 50 + 50 + 20);
    assert_eq!(experience.for_result(0, 0, 0), 50);
    assert_eq!(experience.for_result(50, -3, -60), 50);
    assert_eq!(experience.for_result(1, i64::MAX, i64::MAX), i64::MAX);
}

// --- Progression errors --------------------------------------------------------------------

#[test]
fn match_experience_parts_are_bounded() {
    let text = MINIMAL.replace("per_kill = 25", "per_kill = -1");
    assert_refused(
        &text,
        "per_kill = -1",
        "progression.match_experience.per_kill",
        "match experience: -1 is out of range; write 0 to 100000",
    );
    let text = MINIMAL.replace("win_bonus = 200", "win_bonus = 100001");
    assert_refused(
        &text,
        "win_bonus",
        "progression.match_experience.win_bonus",
        "out of range",
    );
}

#[test]
fn level_curve_numbers_are_bounded() {
    for (from, to, key, problem) in [
        (
            "max_level = 100",
            "max_level = 1",
            "max_level",
            "1 is out of range; write 2 to 1000",
        ),
        (
            "max_level = 100",
            "max_level = 1001",
            "max_level",
            "1001 is out of range; write 2 to 1000",
        ),
        (
            "first = 500",
            "first = 0",
            "first",
            "0 is out of range; write 1 to 10000000",
        ),
        (
            "first = 500",
            "first = 10000001",
            "first",
            "10000001 is out of range; write 1 to 10000000",
        ),
        (
            "increment = 100",
            "increment = -1",
            "increment",
            "-1 is out of range; write 0 to 10000000",
        ),
    ] {
        let text = MINIMAL.replace(from, to);
        assert_refused(
            &text,
            to,
            &format!("progression.levels.{key}"),
            &format!("level curve: {problem}"),
        );
    }
}

const MILESTONES: &str = r#"
every_level = [{ type = "coins", quantity = 100 }]

[[progression.levels.milestones]]
level = 10
rewards = [{ type = "pack", sku = "basic-chest" }]

[[progression.levels.milestones]]
level = 20
rewards = [{ type = "item", sku = "outfit-ranger" }, { type = "gems", quantity = 50 }]
"#;

/// The minimal file with [`MILESTONES`] in its level curve, then the shop.
fn with_milestones(milestones: &str) -> String {
    format!("{MINIMAL}{milestones}{}", super::testing::SHOP)
}

#[test]
fn a_level_curve_is_read_whole() {
    let levels = parse(&with_milestones(MILESTONES)).progression.levels;
    assert_eq!(levels.every_level, [RewardSpec::Coins(100)]);
    assert_eq!(
        levels.milestones,
        BTreeMap::from([
            (
                10,
                vec![RewardSpec::Pack {
                    pack: PackId(1),
                    quantity: 1
                }]
            ),
            (20, vec![RewardSpec::Item(ItemId(1)), RewardSpec::Gems(50)]),
        ])
    );
    assert!(parse(MINIMAL).progression.levels.every_level.is_empty());
}

#[test]
fn milestone_levels_are_on_the_curve_and_unique() {
    for (level, problem) in [
        ("level = 1", "write 2 to 100"),
        ("level = 101", "write 2 to 100"),
        (
            "level = 10",
            "level 10 is already used by milestone level 10",
        ),
    ] {
        let text = with_milestones(&MILESTONES.replace("level = 20", level));
        let at = text.rfind(level).unwrap();
        super::testing::assert_refused_at(
            &text,
            at,
            "progression.levels.milestones[1].level",
            problem,
        );
    }
}

#[test]
fn milestones_need_known_rewards() {
    let text = with_milestones(&MILESTONES.replace(
        "rewards = [{ type = \"pack\", sku = \"basic-chest\" }]",
        "rewards = []",
    ));
    assert_refused(
        &text,
        "rewards = []",
        "progression.levels.milestones[0].rewards",
        "milestone level 10: a milestone needs at least one reward",
    );
    let text = with_milestones(&MILESTONES.replace("outfit-ranger", "outfit-nobody"));
    assert_refused(
        &text,
        "outfit-nobody",
        "progression.levels.milestones[1].rewards[0].sku",
        "there is no item `outfit-nobody`",
    );
    let text = with_milestones(&MILESTONES.replace("quantity = 100 }]", "quantity = 0 }]"));
    assert_refused(
        &text,
        "every_level",
        "progression.levels.every_level[0].quantity",
        "level curve: 0 is out of range",
    );
    let text = with_milestones(&MILESTONES.replace("outfit-ranger", "emote-wave"));
    assert_refused(
        &text,
        "emote-wave\" }, {",
        "progression.levels.milestones[1].rewards[0].sku",
        "stock item",
    );
}

#[test]
fn progression_is_required_and_closed() {
    let start = MINIMAL.find("[progression.match_experience]").unwrap();
    let error = Content::parse(&MINIMAL[..start], "test.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("progression"), "{error}");
    let text = MINIMAL.replace("increment = 100", "increment = 100\nincrememt = 5");
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("incrememt"), "{error}");
    assert!(error.contains("line "), "{error}");
}

// --- Quests --------------------------------------------------------------------------------

const QUESTS: &str = r#"
[[quests.fixed]]
id = 7
name = "Win 3 squad games"
stat_key = "mode_wins_squad"
required = 3
reward = { type = "gems", quantity = 100 }
starts = 2026-11-01T00:00:00Z
ends = 2027-07-01T00:00:00Z

[[quests.fixed]]
id = 3
name = "Open a chest"
stat_key = "chests"
required = 1
reward = { type = "item", sku = "outfit-ranger" }
starts = 2026-12-01T00:00:00Z
ends = 2026-12-08T00:00:00Z

[quests.daily]
count = 2

[[quests.daily.templates]]
id = 1
name = "Get 10 kills"
stat_key = "kills"
required = 10
reward = { type = "coins", quantity = 200 }

[[quests.daily.templates]]
id = 2
name = "Win a game"
stat_key = "wins"
required = 1
reward = { type = "pack", sku = "basic-chest", quantity = 2 }

[[quests.daily.templates]]
id = 3
name = "Play 5 games"
stat_key = "rounds"
required = 5
reward = { type = "experience", quantity = 300 }

[[quests.daily.templates]]
id = 999
name = "Survive 30 minutes"
stat_key = "time_alive"
required = 1800
reward = { type = "gems", quantity = 10 }
"#;

#[test]
fn quests_are_read_whole() {
    let quests = parse(&with_shop(QUESTS)).quests;
    let ids: Vec<QuestId> = quests.fixed.iter().map(|quest| quest.id).collect();
    assert_eq!(ids, [QuestId(3), QuestId(7)], "sorted by id");
    let quest = &quests.fixed[1];
    assert_eq!(quest.name, "Win 3 squad games");
    assert_eq!(quest.stat_key, "mode_wins_squad");
    assert_eq!(quest.required, 3);
    assert_eq!(quest.reward, RewardSpec::Gems(100));
    assert_eq!(quest.starts, datetime!(2026-11-01 00:00 UTC));
    assert_eq!(quest.ends, datetime!(2027-07-01 00:00 UTC));
    assert_eq!(quests.fixed[0].reward, RewardSpec::Item(ItemId(1)));
    let daily = quests.daily.unwrap();
    assert_eq!(daily.count, 2);
    let template_ids: Vec<i64> = daily.templates.iter().map(|t| t.id).collect();
    assert_eq!(template_ids, [1, 2, 3, 999]);
    assert_eq!(
        daily.templates[1].reward,
        RewardSpec::Pack {
            pack: PackId(1),
            quantity: 2
        }
    );
    let empty = parse(MINIMAL).quests;
    assert!(empty.fixed.is_empty() && empty.daily.is_none());
    assert!(empty.active(datetime!(2026-12-01 00:00 UTC)).is_empty());
}

#[test]
fn fixed_quests_are_active_inside_their_window() {
    let mut quests = parse(&with_shop(QUESTS)).quests;
    quests.daily = None;
    let ids = |now| -> Vec<i64> { quests.active(now).iter().map(|q| q.id.0).collect() };
    assert_eq!(ids(datetime!(2026-10-31 23:59:59 UTC)), Vec::<i64>::new());
    assert_eq!(ids(datetime!(2026-11-01 00:00 UTC)), [7]);
    assert_eq!(ids(datetime!(2026-12-01 00:00 UTC)), [3, 7]);
    assert_eq!(ids(datetime!(2026-12-07 23:59:59 UTC)), [3, 7]);
    assert_eq!(ids(datetime!(2026-12-08 00:00 UTC)), [7]);
    assert_eq!(ids(datetime!(2027-07-01 00:00 UTC)), Vec::<i64>::new());
}

#[test]
fn daily_quests_are_drawn_from_the_day_alone() {
    let quests = parse(&with_shop(QUESTS)).quests;
    let again = parse(&with_shop(QUESTS)).quests;
    let morning = datetime!(2026-12-01 00:00 UTC);
    let today = quests.active(morning);
    assert_eq!(today.len(), 4, "two fixed, two daily");
    let daily = &today[2..];
    assert_eq!(again.active(morning), today);
    assert_eq!(quests.active(datetime!(2026-12-01 23:59:59.999 UTC)), today);
    // 2026-12-01 is day 20 788 since 1970-01-01.
    let day = 20_788;
    for quest in daily {
        let template = quest.id.0 - day * DAILY_QUEST_ID_BASE;
        assert!([1, 2, 3, 999].contains(&template), "{quest:?}");
        assert_eq!(quest.starts, datetime!(2026-12-01 00:00 UTC));
        assert_eq!(quest.ends, datetime!(2026-12-02 00:00 UTC));
    }
    assert!(daily[0].id < daily[1].id, "distinct, sorted by id");
    // The same UTC day seen from another offset.
    assert_eq!(
        quests.active(datetime!(2026-12-01 01:00 +02:00)),
        quests.active(datetime!(2026-11-30 23:00 UTC))
    );
}

#[test]
fn daily_quests_change_at_utc_midnight() {
    let quests = parse(&with_shop(QUESTS)).quests;
    let mut drawn = HashSet::new();
    let mut differs = 0;
    let mut evening = datetime!(2026-11-30 23:59:59 UTC);
    for _ in 0..60 {
        let before = quests.active(evening);
        let after = quests.active(evening + time::Duration::SECOND);
        let day = evening.unix_timestamp().div_euclid(86_400);
        let templates = |list: &[super::Quest], day: i64| -> Vec<i64> {
            list.iter()
                .filter(|q| q.id.0 >= DAILY_QUEST_ID_BASE)
                .map(|q| q.id.0 - day * DAILY_QUEST_ID_BASE)
                .collect()
        };
        let (old, new) = (templates(&before, day), templates(&after, day + 1));
        assert_eq!(old.len(), 2);
        assert_eq!(new.len(), 2);
        assert!(old.iter().chain(&new).all(|id| (1..=999).contains(id)));
        let daily_after: Vec<_> = after
            .iter()
            .filter(|q| q.id.0 >= DAILY_QUEST_ID_BASE)
            .collect();
        assert!(
            daily_after
                .iter()
                .all(|q| q.starts == evening + time::Duration::SECOND)
        );
        differs += usize::from(old != new);
        drawn.extend(new);
        evening += time::Duration::DAY;
    }
    assert!(differs > 20, "only {differs} of 60 days changed quests");
    assert_eq!(
        drawn,
        HashSet::from([1, 2, 3, 999]),
        "every template comes up"
    );
}

#[test]
fn every_template_can_be_drawn_at_once() {
    let text = with_shop(&QUESTS.replace("count = 2", "count = 4"));
    let quests = parse(&text).quests;
    let daily: Vec<i64> = quests
        .active(datetime!(2030-01-01 12:00 UTC))
        .iter()
        .map(|quest| quest.id.0 % DAILY_QUEST_ID_BASE)
        .collect();
    assert_eq!(daily, [1, 2, 3, 999]);
}

#[test]
fn quest_ids_are_bounded_and_unique() {
    for (id, problem) in [
        ("id = 0", "write 1 to 999999"),
        ("id = 1000000", "write 1 to 999999"),
    ] {
        let text = with_shop(&QUESTS.replacen("id = 7", id, 1));
        assert_refused(&text, id, "quests.fixed[0].id", problem);
    }
    let text = with_shop(&QUESTS.replacen("id = 3\nname = \"Open", "id = 7\nname = \"Open", 1));
    assert_refused(
        &text,
        "id = 7\nname = \"Open",
        "quests.fixed[1].id",
        "id 7 is already used by quest 7",
    );
    for (id, problem) in [
        ("id = 0", "write 1 to 999"),
        ("id = 1000", "write 1 to 999"),
        ("id = 1", "id 1 is already used by daily quest template 1"),
    ] {
        let text = with_shop(&QUESTS.replacen("id = 999", id, 1));
        let at = text.find("name = \"Survive").unwrap() - id.len() - 1;
        super::testing::assert_refused_at(&text, at, "quests.daily.templates[3].id", problem);
    }
}

#[test]
fn stat_keys_are_short_snake_case() {
    let long = format!("stat_key = \"{}\"", "k".repeat(65));
    for bad in [
        "stat_key = \"\"",
        "stat_key = \"Kills\"",
        "stat_key = \"mode-wins\"",
        "stat_key = \"mode wins\"",
        long.as_str(),
    ] {
        let text = with_shop(&QUESTS.replacen("stat_key = \"mode_wins_squad\"", bad, 1));
        assert_refused(&text, bad, "quests.fixed[0].stat_key", "is not a stat key");
        let text = with_shop(&QUESTS.replacen("stat_key = \"time_alive\"", bad, 1));
        assert_refused(
            &text,
            bad,
            "quests.daily.templates[3].stat_key",
            "daily quest template 999",
        );
    }
    let longest = format!("stat_key = \"{}\"", "k".repeat(64));
    parse(&with_shop(&QUESTS.replacen(
        "stat_key = \"kills\"",
        &longest,
        1,
    )));
}

#[test]
fn quest_names_are_not_empty() {
    let text = with_shop(&QUESTS.replacen("name = \"Win 3 squad games\"", "name = \"  \"", 1));
    assert_refused(
        &text,
        "name = \"  \"",
        "quests.fixed[0].name",
        "quest 7: must not be empty",
    );
    let text = with_shop(&QUESTS.replacen("name = \"Win a game\"", "name = \"\"", 1));
    assert_refused(
        &text,
        "name = \"\"",
        "quests.daily.templates[1].name",
        "daily quest template 2: must not be empty",
    );
}

#[test]
fn quests_require_a_positive_count() {
    for required in ["required = 0", "required = -5", "required = 1000000001"] {
        let text = with_shop(&QUESTS.replacen("required = 3", required, 1));
        assert_refused(&text, required, "quests.fixed[0].required", "out of range");
        let text = with_shop(&QUESTS.replacen("required = 1800", required, 1));
        assert_refused(
            &text,
            required,
            "quests.daily.templates[3].required",
            "out of range",
        );
    }
}

#[test]
fn quest_rewards_are_checked_like_every_reward() {
    for (from, to, key, problem) in [
        (
            "{ type = \"gems\", quantity = 100 }",
            "{ type = \"gems\", quantity = 0 }",
            "quests.fixed[0].reward.quantity",
            "quest 7: 0 is out of range",
        ),
        (
            "{ type = \"gems\", quantity = 100 }",
            "{ type = \"item\", sku = \"outfit-nobody\" }",
            "quests.fixed[0].reward.sku",
            "there is no item `outfit-nobody`",
        ),
        (
            "{ type = \"gems\", quantity = 100 }",
            "{ type = \"item\", sku = \"emote-wave\" }",
            "quests.fixed[0].reward.sku",
            "stock item",
        ),
        (
            "{ type = \"gems\", quantity = 100 }",
            "{ type = \"stars\", quantity = 1 }",
            "quests.fixed[0].reward.type",
            "not a reward type",
        ),
        (
            "{ type = \"gems\", quantity = 10 }",
            "{ type = \"pack\", sku = \"gold-chest\" }",
            "quests.daily.templates[3].reward.sku",
            "there is no pack `gold-chest`",
        ),
    ] {
        let text = with_shop(&QUESTS.replacen(from, to, 1));
        assert_refused(&text, to, key, problem);
    }
}

#[test]
fn quest_windows_are_ordered() {
    for ends in ["ends = 2026-11-01T00:00:00Z", "ends = 2026-10-01T00:00:00Z"] {
        let text = with_shop(&QUESTS.replacen("ends = 2027-07-01T00:00:00Z", ends, 1));
        assert_refused(&text, ends, "quests.fixed[0].ends", "before it starts");
    }
    let text =
        with_shop(&QUESTS.replacen("starts = 2026-11-01T00:00:00Z", "starts = 2026-11-01", 1));
    assert_refused(
        &text,
        "starts = 2026-11-01\n",
        "quests.fixed[0].starts",
        "needs a date, a time and an offset",
    );
}

#[test]
fn the_daily_count_fits_the_templates() {
    for count in ["count = 0", "count = 5"] {
        let text = with_shop(&QUESTS.replacen("count = 2", count, 1));
        assert_refused(&text, count, "quests.daily.count", "daily quests: ");
    }
    let text = with_shop("\n[quests.daily]\ncount = 1\ntemplates = []\n");
    assert_refused(
        &text,
        "templates = []",
        "quests.daily.templates",
        "needs at least one template",
    );
}

#[test]
fn unknown_quest_keys_are_refused() {
    let text = with_shop(&QUESTS.replacen("required = 3", "required = 3\nrequird = 4", 1));
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("requird"), "{error}");
    assert!(error.contains("line "), "{error}");
    let text = with_shop(&QUESTS.replacen("count = 2", "count = 2\nrotation = 1", 1));
    let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
    assert!(error.contains("rotation"), "{error}");
}

// --- Reward tracks -------------------------------------------------------------------------

const TRACK: &str = r#"
[[tracks]]
id = 1
name = "Winter Pass"
season = 1
is_repeatable = true
cost_gems = 950
cost_gems_per_tier = 150
max_level = 10
experience_per_level = 1000
stars_per_level = 5
max_tier = 3
stars_per_tier = 10
starts = 2026-11-01T00:00:00Z
ends = 2027-03-01T00:00:00Z
tiers = [
    { tier = 1, rewards = [{ type = "item", sku = "outfit-ranger" }] },
    { tier = 3, rewards = [{ type = "pack", sku = "basic-chest" }] },
    { tier = 2, rewards = [{ type = "coins", quantity = 200 }, { type = "gems", quantity = 20 }] },
]

[tracks.discount]
cost_gems = 750
ends = 2027-01-01T00:00:00Z

[[tracks.challenges]]
id = 11
name = "Get 25 kills"
stat_key = "kills"
required = 25
stars = 5

[[tracks.challenges]]
id = 12
name = "Win 5 games"
stat_key = "wins"
required = 5
stars = 20

[[tracks.evolutions]]
id = 21
required_item = "outfit-ranger"
name = "Ranger: Night Ops"
stat_key = "kills"
required = 100
reward = { type = "gems", quantity = 50 }
"#;

const FREE_TRACK: &str = r#"
[[tracks]]
id = 2
name = "Free Track"
season = 1
is_stock = true
cost_gems_per_tier = 100
max_level = 10
experience_per_level = 1000
stars_per_level = 5
max_tier = 2
stars_per_tier = 10
starts = 2026-11-01T00:00:00Z
ends = 2027-03-01T00:00:00Z

[[tracks.tiers]]
tier = 1
rewards = [{ type = "coins", quantity = 100 }]

[[tracks.tiers]]
tier = 2
rewards = [{ type = "item", sku = "outfit-ranger" }]

[[tracks.challenges]]
id = 13
name = "Play 10 games"
stat_key = "rounds"
required = 10
stars = 10
"#;

/// The premium [`TRACK`] and the [`FREE_TRACK`] as read.
fn tracks() -> (RewardTrack, RewardTrack) {
    let mut tracks = parse(&with_shop(&format!("{TRACK}{FREE_TRACK}"))).tracks;
    let free = tracks.pop().unwrap();
    (tracks.pop().unwrap(), free)
}

#[test]
fn a_track_is_read_whole() {
    let (track, free) = tracks();
    assert_eq!(track.id, TrackId(1));
    assert_eq!(track.name, "Winter Pass");
    assert_eq!(track.season, 1);
    assert!(!track.is_stock && track.is_repeatable);
    assert_eq!(
        track.cost,
        Price {
            coins: 0,
            gems: 950
        }
    );
    let discount = track.discount.unwrap();
    assert_eq!(
        discount.cost,
        Price {
            coins: 0,
            gems: 750
        }
    );
    assert_eq!(discount.ends, datetime!(2027-01-01 00:00 UTC));
    assert_eq!(
        (
            track.cost_gems_per_tier,
            track.max_level,
            track.experience_per_level,
            track.stars_per_level,
            track.max_tier,
            track.stars_per_tier
        ),
        (150, 10, 1000, 5, 3, 10)
    );
    assert_eq!(track.starts, datetime!(2026-11-01 00:00 UTC));
    assert_eq!(track.ends, datetime!(2027-03-01 00:00 UTC));
    let tiers: Vec<i64> = track.tiers.iter().map(|tier| tier.tier).collect();
    assert_eq!(tiers, [1, 2, 3], "sorted");
    assert_eq!(track.tiers[0].rewards, [RewardSpec::Item(ItemId(1))]);
    assert_eq!(
        track.tiers[1].rewards,
        [RewardSpec::Coins(200), RewardSpec::Gems(20)]
    );
    let challenges: Vec<(ChallengeId, &str, i64, i64)> = track
        .challenges
        .iter()
        .map(|c| (c.id, c.stat_key.as_str(), c.required, c.stars))
        .collect();
    assert_eq!(
        challenges,
        [
            (ChallengeId(11), "kills", 25, 5),
            (ChallengeId(12), "wins", 5, 20)
        ]
    );
    assert_eq!(track.challenges[0].name, "Get 25 kills");
    let evolution = &track.evolutions[0];
    assert_eq!(evolution.id, EvolutionId(21));
    assert_eq!(evolution.required_item, ItemId(1));
    assert_eq!(evolution.name, "Ranger: Night Ops");
    assert_eq!(
        (evolution.stat_key.as_str(), evolution.required),
        ("kills", 100)
    );
    assert_eq!(evolution.reward, RewardSpec::Gems(50));

    assert!(free.is_stock && !free.is_repeatable);
    assert!(free.cost.is_free() && free.discount.is_none());
    assert_eq!(free.tiers.len(), 2);
    assert!(free.evolutions.is_empty());
}

#[test]
fn tiers_are_capped_unless_repeatable() {
    let (repeatable, capped) = tracks();
    for track in [&repeatable, &capped] {
        assert_eq!(track.tier_for(-10), 0);
        assert_eq!(track.tier_for(0), 0);
        assert_eq!(track.tier_for(9), 0);
        assert_eq!(track.tier_for(10), 1);
        assert_eq!(track.tier_for(29), 2);
    }
    assert_eq!(capped.tier_for(30), 2);
    assert_eq!(capped.tier_for(i64::MAX), 2);
    assert_eq!(repeatable.tier_for(30), 3);
    assert_eq!(repeatable.tier_for(75), 7);
    assert_eq!(repeatable.tier_for(i64::MAX), i64::MAX / 10);

    assert!(repeatable.tier_rewards(0).is_empty());
    assert!(repeatable.tier_rewards(-1).is_empty());
    assert_eq!(repeatable.tier_rewards(1), [RewardSpec::Item(ItemId(1))]);
    let last = [RewardSpec::Pack {
        pack: PackId(1),
        quantity: 1,
    }];
    assert_eq!(repeatable.tier_rewards(3), last);
    assert_eq!(repeatable.tier_rewards(4), last);
    assert_eq!(repeatable.tier_rewards(i64::MAX), last);
    assert_eq!(capped.tier_rewards(2), [RewardSpec::Item(ItemId(1))]);
    assert!(capped.tier_rewards(3).is_empty());
}

#[test]
fn track_levels_prices_and_windows() {
    let (track, free) = tracks();
    assert_eq!(track.level_for(-1), 0);
    assert_eq!(track.level_for(999), 0);
    assert_eq!(track.level_for(1000), 1);
    assert_eq!(track.level_for(9999), 9);
    assert_eq!(track.level_for(10_000), 10);
    assert_eq!(track.level_for(i64::MAX), 10);

    let gems = |gems| Price { coins: 0, gems };
    assert_eq!(track.price_at(datetime!(2026-11-01 00:00 UTC)), gems(750));
    assert_eq!(
        track.price_at(datetime!(2026-12-31 23:59:59 UTC)),
        gems(750)
    );
    assert_eq!(track.price_at(datetime!(2027-01-01 00:00 UTC)), gems(950));
    assert!(free.price_at(datetime!(2026-12-01 00:00 UTC)).is_free());

    assert!(!track.is_running(datetime!(2026-10-31 23:59:59 UTC)));
    assert!(track.is_running(datetime!(2026-11-01 00:00 UTC)));
    assert!(track.is_running(datetime!(2027-02-28 23:59:59 UTC)));
    assert!(!track.is_running(datetime!(2027-03-01 00:00 UTC)));
}

#[test]
fn track_numbers_are_bounded() {
    for (from, to, key) in [
        ("id = 1\n", "id = 0\n", "id"),
        ("season = 1", "season = -1", "season"),
        ("season = 1", "season = 10001", "season"),
        ("max_level = 10", "max_level = 0", "max_level"),
        ("max_level = 10", "max_level = 1001", "max_level"),
        (
            "experience_per_level = 1000",
            "experience_per_level = 0",
            "experience_per_level",
        ),
        (
            "stars_per_level = 5",
            "stars_per_level = -1",
            "stars_per_level",
        ),
        ("max_tier = 3", "max_tier = 0", "max_tier"),
        ("max_tier = 3", "max_tier = 1001", "max_tier"),
        (
            "stars_per_tier = 10",
            "stars_per_tier = 0",
            "stars_per_tier",
        ),
        (
            "stars_per_tier = 10",
            "stars_per_tier = 1000001",
            "stars_per_tier",
        ),
        (
            "cost_gems_per_tier = 150",
            "cost_gems_per_tier = -1",
            "cost_gems_per_tier",
        ),
        ("cost_gems = 950", "cost_gems = 1000000001", "cost_gems"),
    ] {
        let text = with_shop(&TRACK.replacen(from, to, 1));
        assert_refused(&text, to, &format!("tracks[0].{key}"), "is out of range");
    }
}

#[test]
fn stock_tracks_are_free_and_others_are_not() {
    let text =
        with_shop(&FREE_TRACK.replacen("is_stock = true", "is_stock = true\ncost_gems = 100", 1));
    assert_refused(
        &text,
        "cost_gems = 100",
        "tracks[0].cost_gems",
        "a stock track is owned by every player: it must be free",
    );
    let text = with_shop(&FREE_TRACK.replacen(
        "ends = 2027-03-01T00:00:00Z",
        "ends = 2027-03-01T00:00:00Z\ndiscount = { cost_gems = 0, ends = 2027-01-01T00:00:00Z }",
        1,
    ));
    assert_refused(
        &text,
        "discount = ",
        "tracks[0].discount",
        "a stock track is free: it has no discount",
    );
    let text = with_shop(&TRACK.replacen("cost_gems = 950\n", "", 1));
    assert_refused(
        &text,
        "id = 1\nname = \"Winter Pass\"",
        "tracks[0].cost_coins",
        "a track that is not stock needs a price",
    );
}

#[test]
fn a_discount_is_cheaper_than_the_pass() {
    for (discount, key) in [
        ("cost_gems = 950\nends = 2027-01", "discount.cost_gems"),
        ("cost_gems = 1000\nends = 2027-01", "discount.cost_gems"),
        ("cost_gems = 0\nends = 2027-01", "discount.cost_gems"),
        (
            "cost_coins = 10\ncost_gems = 700\nends = 2027-01",
            "discount.cost_coins",
        ),
    ] {
        let text = with_shop(&TRACK.replacen("cost_gems = 750\nends = 2027-01", discount, 1));
        let at = text.find("[tracks.discount]").unwrap() + "[tracks.discount]\n".len();
        super::testing::assert_refused_at(
            &text,
            at,
            &format!("tracks[0].{key}"),
            "must be cheaper than the track's price",
        );
    }
    let text = with_shop(&TRACK.replacen("cost_gems = 750\n", "", 1));
    assert_refused(
        &text,
        "[tracks.discount]",
        "tracks[0].discount.cost_gems",
        "the discount (0 coins, 0 gems) must be cheaper than the track's price (0 coins, 950 gems)",
    );
}

#[test]
fn a_discount_ends_while_the_track_runs() {
    for ends in ["ends = 2026-11-01T00:00:00Z", "ends = 2027-03-01T00:00:01Z"] {
        let text = with_shop(&TRACK.replacen("ends = 2027-01-01T00:00:00Z", ends, 1));
        assert_refused(
            &text,
            ends,
            "tracks[0].discount.ends",
            "not while the track runs",
        );
    }
    let text = with_shop(&TRACK.replacen(
        "ends = 2027-01-01T00:00:00Z",
        "ends = 2027-03-01T00:00:00Z",
        1,
    ));
    parse(&text);
}

#[test]
fn track_windows_are_ordered() {
    let text = with_shop(&TRACK.replacen(
        "ends = 2027-03-01T00:00:00Z",
        "ends = 2026-11-01T00:00:00Z",
        1,
    ));
    assert_refused(
        &text,
        "ends = 2026-11-01",
        "tracks[0].ends",
        "track 1: ends at 2026-11-01T00:00:00Z before it starts",
    );
}

#[test]
fn tiers_are_exactly_one_to_max_tier() {
    let text = with_shop(&TRACK.replacen("max_tier = 3", "max_tier = 4", 1));
    assert_refused(
        &text,
        "tiers = [",
        "tracks[0].tiers",
        "tier 4 is missing; list every tier from 1 to 4 once",
    );
    let text = with_shop(&FREE_TRACK.replacen("\ntier = 2\n", "\ntier = 1\n", 1));
    let at = text.rfind("\ntier = 1\n").unwrap() + 1;
    super::testing::assert_refused_at(
        &text,
        at,
        "tracks[0].tiers[1].tier",
        "tier 1 is already used",
    );
    for (tier, problem) in [
        ("{ tier = 0,", "write 1 to 3"),
        ("{ tier = 4,", "write 1 to 3"),
    ] {
        let text = with_shop(&TRACK.replacen("{ tier = 3,", tier, 1));
        assert_refused(&text, tier, "tracks[0].tiers[1].tier", problem);
    }
    let text = with_shop(&FREE_TRACK.replacen("\ntier = 2\n", "\ntier = 3\n", 1));
    assert_refused(
        &text,
        "tier = 3\nrewards",
        "tracks[0].tiers[1].tier",
        "write 1 to 2",
    );
    let text = with_shop(&FREE_TRACK.replacen(
        "rewards = [{ type = \"coins\", quantity = 100 }]",
        "rewards = []",
        1,
    ));
    assert_refused(
        &text,
        "rewards = []",
        "tracks[0].tiers[0].rewards",
        "tier 1 of track 2: a tier needs at least one reward",
    );
}

#[test]
fn tier_rewards_are_checked_like_every_reward() {
    let text = with_shop(&TRACK.replacen("sku = \"basic-chest\"", "sku = \"gold-chest\"", 1));
    assert_refused(
        &text,
        "gold-chest",
        "tracks[0].tiers[1].rewards[0].sku",
        "there is no pack `gold-chest`",
    );
    let text = with_shop(&TRACK.replacen(
        "{ type = \"gems\", quantity = 20 }",
        "{ type = \"gems\", quantity = -20 }",
        1,
    ));
    assert_refused(
        &text,
        "quantity = -20",
        "tracks[0].tiers[2].rewards[1].quantity",
        "out of range",
    );
}

#[test]
fn the_last_tier_of_a_repeatable_track_grants_no_item() {
    let text = with_shop(&TRACK.replacen(
        "{ type = \"pack\", sku = \"basic-chest\" }",
        "{ type = \"pack\", sku = \"basic-chest\" }, { type = \"item\", sku = \"outfit-ranger\" }",
        1,
    ));
    assert_refused(
        &text,
        "{ type = \"item\", sku = \"outfit-ranger\" }] },\n    { tier = 2",
        "tracks[0].tiers[1].rewards[1]",
        "the last tier of a repeatable track repeats",
    );
    // Without is_repeatable the same tier is fine.
    let text = text.replacen("is_repeatable = true", "is_repeatable = false", 1);
    parse(&text);
}

#[test]
fn challenges_are_checked() {
    for (from, to, key, problem) in [
        ("id = 11", "id = 0", "id", "write 1 to"),
        ("required = 25", "required = 0", "required", "out of range"),
        ("stars = 5", "stars = 0", "stars", "write 1 to 1000000"),
        (
            "stars = 5",
            "stars = 1000001",
            "stars",
            "write 1 to 1000000",
        ),
        (
            "stat_key = \"kills\"",
            "stat_key = \"Kills\"",
            "stat_key",
            "is not a stat key",
        ),
        (
            "name = \"Get 25 kills\"",
            "name = \" \"",
            "name",
            "must not be empty",
        ),
    ] {
        let text = with_shop(&TRACK.replacen(from, to, 1));
        assert_refused(
            &text,
            to,
            &format!("tracks[0].challenges[0].{key}"),
            problem,
        );
    }
}

#[test]
fn challenge_and_evolution_ids_are_unique_across_tracks() {
    let second = FREE_TRACK.replacen("id = 13", "id = 11", 1);
    let text = with_shop(&format!("{TRACK}{second}"));
    assert_refused(
        &text,
        "id = 11\nname = \"Play",
        "tracks[1].challenges[0].id",
        "challenge id 11 is already used by challenge 11 of track 1",
    );
    let second = format!(
        "{FREE_TRACK}\n[[tracks.evolutions]]\nid = 21\nrequired_item = \"emote-wave\"\n\
         name = \"Wave\"\nstat_key = \"wins\"\nrequired = 1\nreward = {{ type = \"coins\", quantity = 5 }}\n"
    );
    let text = with_shop(&format!("{TRACK}{second}"));
    assert_refused(
        &text,
        "id = 21\nrequired_item = \"emote-wave\"",
        "tracks[1].evolutions[0].id",
        "evolution id 21 is already used by evolution 21 of track 1",
    );
    // A stock item may be evolved.
    let second = second.replacen("id = 21", "id = 22", 1);
    parse(&with_shop(&format!("{TRACK}{second}")));
}

#[test]
fn track_ids_are_unique() {
    let second = FREE_TRACK.replacen("id = 2\n", "id = 1\n", 1);
    let text = with_shop(&format!("{TRACK}{second}"));
    assert_refused(
        &text,
        "id = 1\nname = \"Free",
        "tracks[1].id",
        "id 1 is already used by track 1",
    );
}

#[test]
fn evolutions_are_checked() {
    for (from, to, key, problem) in [
        (
            "required_item = \"outfit-ranger\"",
            "required_item = \"outfit-nobody\"",
            "required_item",
            "evolution 21 of track 1: there is no item `outfit-nobody`",
        ),
        ("id = 21", "id = -21", "id", "write 1 to"),
        ("required = 100", "required = 0", "required", "out of range"),
        (
            "stat_key = \"kills\"\nrequired = 100",
            "stat_key = \"k!lls\"\nrequired = 100",
            "stat_key",
            "is not a stat key",
        ),
        (
            "reward = { type = \"gems\", quantity = 50 }",
            "reward = { type = \"item\", sku = \"outfit-nobody\" }",
            "reward.sku",
            "there is no item `outfit-nobody`",
        ),
        (
            "reward = { type = \"gems\", quantity = 50 }",
            "reward = { type = \"gems\" }",
            "reward.quantity",
            "a `gems` reward needs a quantity",
        ),
    ] {
        let text = with_shop(&TRACK.replacen(from, to, 1));
        assert_refused(
            &text,
            to,
            &format!("tracks[0].evolutions[0].{key}"),
            problem,
        );
    }
}

#[test]
fn unknown_track_keys_are_refused() {
    for (from, to, unknown) in [
        ("season = 1", "season = 1\nseasons = 2", "seasons"),
        (
            "cost_gems = 750",
            "cost_gems = 750\ncost_dollars = 5",
            "cost_dollars",
        ),
        ("stars = 5", "stars = 5\nreward = 3", "reward"),
        ("{ tier = 1,", "{ tier = 1, stars = 4,", "stars"),
    ] {
        let text = with_shop(&TRACK.replacen(from, to, 1));
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        assert!(error.contains(unknown), "{error}");
        assert!(error.contains("line "), "{error}");
    }
}
