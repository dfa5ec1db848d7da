//! Planning against the shipped content: what a match, a pass purchase and a skip plan.

use std::collections::BTreeMap;

use time::OffsetDateTime;
use time::macros::datetime;

use super::*;
use crate::content::{Content, RewardSpec, RewardTrack};
use crate::store::{Currency, Progress, Step};

const IN_SEASON: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn once_keys(steps: &[Step]) -> Vec<&str> {
    steps
        .iter()
        .filter_map(|step| match step {
            Step::Once { key, .. } => Some(key.as_str()),
            _ => None,
        })
        .collect()
}

fn stats(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), *value))
        .collect()
}

fn fresh() -> Progress {
    Progress {
        level: 1,
        ..Progress::default()
    }
}

#[test]
fn a_match_levels_up_once_per_level_reached_under_the_plans_version() {
    let content = Content::shipped();
    let curve = &content.progression.levels;
    let progress = Progress {
        version: 7,
        ..fresh()
    };
    let gained = curve.total_for(3) + 1;
    let (steps, summary) = plan_player(&content, 1, &progress, &stats(&[]), (gained, 0), IN_SEASON);
    assert_eq!(steps[0], Step::RequireProgressVersion { version: 7 });
    assert!(steps.contains(&Step::AddExperience { amount: gained }));
    assert!(steps.contains(&Step::SetLevel { level: 3 }));
    let levels: Vec<&str> = once_keys(&steps)
        .into_iter()
        .filter(|key| key.starts_with("level/"))
        .collect();
    assert_eq!(levels, ["level/2", "level/3"]);
    assert_eq!((summary.level_before, summary.level_after), (1, 3));
}

#[test]
fn levels_never_go_down_nor_grant_again() {
    let content = Content::shipped();
    let progress = Progress {
        level: 5,
        ..fresh()
    };
    let (steps, summary) = plan_player(&content, 1, &progress, &stats(&[]), (10, 0), IN_SEASON);
    assert!(
        !steps
            .iter()
            .any(|step| matches!(step, Step::SetLevel { .. }))
    );
    assert!(
        once_keys(&steps)
            .iter()
            .all(|key| !key.starts_with("level/"))
    );
    assert_eq!(summary.level_after, 5);
}

#[test]
fn a_quest_completes_once_and_progress_stops_at_required() {
    let content = Content::shipped();
    let quest = content
        .quests
        .active(IN_SEASON)
        .into_iter()
        .next()
        .expect("a running quest");
    let counter = quest_counter(quest.id);
    let almost = Progress {
        counters: BTreeMap::from([(counter.clone(), quest.required - 1)]),
        ..fresh()
    };
    let gain = stats(&[(quest.stat_key.as_str(), 5)]);
    let (steps, summary) = plan_player(&content, 1, &almost, &gain, (0, 0), IN_SEASON);
    assert!(steps.contains(&Step::SetProgress {
        counter: counter.clone(),
        value: quest.required,
    }));
    assert!(once_keys(&steps).contains(&counter.as_str()));
    assert!(
        summary
            .quests
            .iter()
            .any(|step| step.id == quest.id && step.completed)
    );

    let done = Progress {
        counters: BTreeMap::from([(counter.clone(), quest.required)]),
        ..fresh()
    };
    let (steps, _) = plan_player(&content, 1, &done, &gain, (0, 0), IN_SEASON);
    assert!(!once_keys(&steps).contains(&counter.as_str()));
    assert!(
        !steps
            .iter()
            .any(|step| matches!(step, Step::SetProgress { counter: key, .. } if *key == counter))
    );
}

/// The shipped premium track that runs at [`IN_SEASON`].
fn running_premium(content: &Content) -> &RewardTrack {
    content
        .tracks
        .iter()
        .find(|track| !track.is_stock && track.is_running(IN_SEASON))
        .expect("a premium track")
}

#[test]
fn tiers_grant_only_on_tracks_the_player_has() {
    let content = Content::shipped();
    let premium = running_premium(&content);
    // Enough experience for two track levels: stars for at least one tier.
    let experience = premium.experience_per_level * 2;
    let tier_key = format!("track/{}/tier/1", premium.id.0);
    let (steps, summary) = plan_player(
        &content,
        1,
        &fresh(),
        &stats(&[]),
        (experience, 0),
        IN_SEASON,
    );
    let step = summary
        .tracks
        .iter()
        .find(|track| track.id == premium.id)
        .expect("the premium track moved");
    assert!(step.tier_after >= 1 && !step.owned);
    assert!(!once_keys(&steps).contains(&tier_key.as_str()));

    let owner = Progress {
        track_passes: [premium.id].into(),
        ..fresh()
    };
    let (steps, _) = plan_player(&content, 1, &owner, &stats(&[]), (experience, 0), IN_SEASON);
    assert!(once_keys(&steps).contains(&tier_key.as_str()));
}

#[test]
fn buying_a_pass_pays_once_and_grants_the_tiers_reached() {
    let content = Content::shipped();
    let premium = running_premium(&content);
    let progress = Progress {
        counters: BTreeMap::from([(
            track_counter(premium.id, "stars"),
            premium.stars_per_tier * 3 + 1,
        )]),
        ..fresh()
    };
    let steps = plan_track_buy(&content, premium, &progress, IN_SEASON).expect("for sale");
    assert!(steps.contains(&Step::Debit {
        currency: Currency::Gems,
        amount: premium.price_at(IN_SEASON).gems,
    }));
    assert!(steps.contains(&Step::GrantTrackPass { track: premium.id }));
    assert_eq!(
        once_keys(&steps),
        (1..=3)
            .map(|tier| format!("track/{}/tier/{tier}", premium.id.0))
            .collect::<Vec<_>>()
    );
    let free = content
        .tracks
        .iter()
        .find(|track| track.is_stock)
        .expect("free");
    assert_eq!(
        plan_track_buy(&content, free, &progress, IN_SEASON),
        Err(TrackRefusal::Free)
    );
    let after_season = premium.ends;
    assert_eq!(
        plan_track_buy(&content, premium, &progress, after_season),
        Err(TrackRefusal::NotRunning)
    );
}

#[test]
fn skipping_needs_the_track_and_stops_at_the_last_tier() {
    let content = Content::shipped();
    let premium = running_premium(&content);
    assert_eq!(
        plan_track_skip(&content, premium, &fresh(), 1, IN_SEASON),
        Err(TrackRefusal::NotOwned)
    );
    let owner = Progress {
        track_passes: [premium.id].into(),
        counters: BTreeMap::from([(
            track_counter(premium.id, "stars"),
            premium.stars_per_tier * (premium.max_tier - 2),
        )]),
        ..fresh()
    };
    assert_eq!(
        plan_track_skip(&content, premium, &owner, 3, IN_SEASON),
        Err(TrackRefusal::PastMaxTier { available: 2 })
    );
    let steps = plan_track_skip(&content, premium, &owner, 2, IN_SEASON).expect("two left");
    assert!(steps.contains(&Step::Debit {
        currency: Currency::Gems,
        amount: premium.cost_gems_per_tier * 2,
    }));
    assert_eq!(once_keys(&steps).len(), 2);
}

/// The levels of a plan's steps, with its once-only grants' keys.
fn level_keys(steps: &[Step]) -> Vec<&str> {
    once_keys(steps)
        .into_iter()
        .filter(|key| key.starts_with("level/"))
        .collect()
}

#[test]
fn a_matchs_experience_rewards_count_towards_its_levels() {
    let content = Content::shipped();
    let curve = &content.progression.levels;
    let stock = content
        .tracks
        .iter()
        .find(|track| track.is_stock && track.is_running(IN_SEASON))
        .expect("a free track");
    let tier = (1..=stock.max_tier)
        .find(|&tier| matches!(stock.tier_rewards(tier), [RewardSpec::Experience(_)]))
        .expect("a tier of experience");
    let [RewardSpec::Experience(reward)] = stock.tier_rewards(tier) else {
        unreachable!("found above")
    };
    // One track level short of the tier, and the match's experience short of the next level
    // without the tier's: at the first level whose step is longer than both together.
    let stars = stock.stars_per_tier * tier - stock.stars_per_level;
    let gained = stock.experience_per_level;
    let next = (2..=curve.max_level)
        .find(|&level| curve.total_for(level) - gained - reward >= curve.total_for(level - 1))
        .expect("a long enough level");
    let progress = Progress {
        experience: curve.total_for(next) - gained - reward,
        level: next - 1,
        counters: BTreeMap::from([(track_counter(stock.id, "stars"), stars)]),
        ..fresh()
    };
    assert_eq!(curve.level_for(progress.experience + gained), next - 1);
    let (steps, summary) = plan_player(&content, 1, &progress, &stats(&[]), (gained, 0), IN_SEASON);
    assert_eq!(summary.tracks[0].tier_after, tier);
    assert_eq!(
        (summary.level_before, summary.level_after),
        (next - 1, next)
    );
    assert!(steps.contains(&Step::SetLevel { level: next }));
    assert_eq!(level_keys(&steps), [format!("level/{next}")]);
}

#[test]
fn a_level_reward_of_experience_reaches_further_levels() {
    let mut content = Content::shipped();
    let curve = &mut content.progression.levels;
    // Level 2 at 500, 3 at 1100, 4 at 1800: each level's 600 reaches the next but one.
    curve.every_level = vec![RewardSpec::Experience(600)];
    curve.milestones.clear();
    let mut steps = vec![Step::AddExperience { amount: 500 }];
    let levels = plan_levels(&content, &fresh(), &mut steps);
    // 500 -> level 2 (+600 = 1100) -> level 3 (+600 = 1700), short of level 4.
    assert_eq!(
        levels,
        Levels {
            before: 1,
            after: 3
        }
    );
    assert_eq!(level_keys(&steps), ["level/2", "level/3"]);
    assert_eq!(experience_of(&steps), 1_700);
}

#[test]
fn changes_without_experience_need_no_progress_and_others_require_it() {
    let content = Content::shipped();
    let coins = vec![Step::Credit {
        currency: Currency::Coins,
        amount: 10,
    }];
    let progress = Progress {
        version: 4,
        ..fresh()
    };
    assert_eq!(with_levels(&content, &progress, coins.clone()), coins);
    let steps = with_levels(
        &content,
        &progress,
        vec![Step::Once {
            key: "deal/9".to_owned(),
            steps: vec![Step::AddExperience { amount: 10 }],
        }],
    );
    assert_eq!(steps[0], Step::RequireProgressVersion { version: 4 });
    assert!(
        level_keys(&steps).is_empty(),
        "10 experience reach no level"
    );
    let steps = with_levels(
        &content,
        &progress,
        vec![Step::AddExperience { amount: 600 }],
    );
    assert_eq!(steps[0], Step::RequireProgressVersion { version: 4 });
    assert!(steps.contains(&Step::SetLevel { level: 2 }));
    assert_eq!(level_keys(&steps), ["level/2"]);
}

#[test]
fn buying_a_pass_gives_the_levels_of_its_tiers_experience() {
    let content = Content::shipped();
    let premium = running_premium(&content);
    let tier = (1..=premium.max_tier)
        .find(|&tier| matches!(premium.tier_rewards(tier), [RewardSpec::Experience(_)]))
        .expect("a tier of experience");
    let progress = Progress {
        counters: BTreeMap::from([(
            track_counter(premium.id, "stars"),
            premium.stars_per_tier * tier,
        )]),
        ..fresh()
    };
    let steps = plan_track_buy(&content, premium, &progress, IN_SEASON).expect("for sale");
    let level = content.progression.levels.level_for(experience_of(&steps));
    assert!(level > 1);
    assert!(steps.contains(&Step::SetLevel { level }));
    assert_eq!(
        level_keys(&steps).len(),
        usize::try_from(level - 1).expect("a level")
    );
}
