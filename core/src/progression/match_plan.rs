//! What one finished match gives one player: the steps that apply it and the summary answered
//! to the game server.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::counters::{
    challenge_counter, evolution_counter, quest_counter, tier_claim, track_counter,
};
use super::levels::plan_levels;
use crate::content::{Content, RewardTrack};
use crate::domain::{ChallengeId, QuestId, TrackId};
use crate::economy::reward_steps;
use crate::store::{Currency, Progress, Step};

/// What a match did for one player, besides the rewards it granted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerSummary {
    /// The player's account id.
    pub account_id: i64,
    /// Experience gained.
    pub experience: i64,
    /// Coins the match itself gave (besides those of levels, quests and tiers; 0 in the
    /// answers stored before matches gave coins).
    #[serde(default)]
    pub coins: i64,
    /// The level before the match.
    pub level_before: i64,
    /// The level after it.
    pub level_after: i64,
    /// The quests the match moved.
    pub quests: Vec<QuestStep>,
    /// The reward tracks the match moved.
    pub tracks: Vec<TrackStep>,
}

/// A quest's progress after the match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestStep {
    /// The quest.
    pub id: QuestId,
    /// Progress after the match.
    pub value: i64,
    /// Progress needed.
    pub required: i64,
    /// Whether the match completed it (its reward is among the match's rewards).
    pub completed: bool,
}

/// A reward track's progress after the match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackStep {
    /// The track.
    pub id: TrackId,
    /// Track experience gained.
    pub experience: i64,
    /// Stars gained (from track levels and completed challenges).
    pub stars: i64,
    /// The tier before the match.
    pub tier_before: i64,
    /// The tier after it.
    pub tier_after: i64,
    /// The challenges the match completed.
    pub challenges_completed: Vec<ChallengeId>,
    /// Whether the player has the track (a free track, or its pass): only then do new tiers
    /// grant their rewards.
    pub owned: bool,
}

/// The steps that apply one match to a player whose progress is `progress`, and the summary.
///
/// `stats` are the statistics quests and challenges count
/// ([`progress_stats`](super::progress_stats)), `experience` and `coins` what the match itself
/// gives, `ended` when the match ended: the quests and tracks running then are the ones that
/// move. The levels are those reached with all the experience the match gives
/// ([`plan_levels`]).
pub fn plan_player(
    content: &Content,
    account_id: i64,
    progress: &Progress,
    stats: &BTreeMap<String, i64>,
    (experience, coins): (i64, i64),
    ended: OffsetDateTime,
) -> (Vec<Step>, PlayerSummary) {
    let catalog = &content.catalog;
    let mut steps = vec![Step::RequireProgressVersion {
        version: progress.version,
    }];
    if experience > 0 {
        steps.push(Step::AddExperience { amount: experience });
    }
    if coins > 0 {
        steps.push(Step::Credit {
            currency: Currency::Coins,
            amount: coins,
        });
    }
    let mut quests = Vec::new();
    for quest in content.quests.active(ended) {
        let Some(gain) = stats.get(&quest.stat_key) else {
            continue;
        };
        let counter = quest_counter(quest.id);
        let (value, completed, mut advance) = advance(progress, &counter, *gain, quest.required);
        steps.append(&mut advance);
        if completed {
            steps.push(Step::Once {
                key: counter,
                steps: reward_steps(catalog, std::slice::from_ref(&quest.reward)),
            });
        }
        quests.push(QuestStep {
            id: quest.id,
            value,
            required: quest.required,
            completed,
        });
    }
    let tracks = content
        .tracks_at(ended)
        .map(|track| plan_track(content, &track, progress, stats, experience, &mut steps))
        .collect();
    // Last: the levels come from all the match's experience, its own and that of the quest,
    // evolution and tier rewards it granted.
    let levels = plan_levels(content, progress, &mut steps);
    let summary = PlayerSummary {
        account_id,
        experience,
        coins,
        level_before: levels.before,
        level_after: levels.after,
        quests,
        tracks,
    };
    (steps, summary)
}

/// Moves a counter by `gain` towards `required` (never past it, never again once reached):
/// its value after, whether this move reached it, and the step that sets it.
fn advance(progress: &Progress, counter: &str, gain: i64, required: i64) -> (i64, bool, Vec<Step>) {
    let before = progress.counter(counter);
    if before >= required || gain <= 0 {
        return (before, false, Vec::new());
    }
    let after = before.saturating_add(gain).min(required);
    let step = Step::SetProgress {
        counter: counter.to_owned(),
        value: after,
    };
    (after, after >= required, vec![step])
}

/// One running track's part of a match: experience, track levels and their stars, challenges
/// and their stars, evolutions, and the rewards of the tiers reached.
fn plan_track(
    content: &Content,
    track: &RewardTrack,
    progress: &Progress,
    stats: &BTreeMap<String, i64>,
    experience: i64,
    steps: &mut Vec<Step>,
) -> TrackStep {
    let catalog = &content.catalog;
    let experience_counter = track_counter(track.id, "experience");
    let experience_before = progress.counter(&experience_counter);
    let experience_after = experience_before.saturating_add(experience);
    if experience > 0 {
        steps.push(Step::SetProgress {
            counter: experience_counter,
            value: experience_after,
        });
    }
    let levels_gained = track.level_for(experience_after) - track.level_for(experience_before);
    let mut stars = levels_gained * track.stars_per_level;
    let mut challenges_completed = Vec::new();
    for challenge in &track.challenges {
        let Some(gain) = stats.get(&challenge.stat_key) else {
            continue;
        };
        let counter = challenge_counter(challenge.id);
        let (_, completed, mut advance) = advance(progress, &counter, *gain, challenge.required);
        steps.append(&mut advance);
        if completed {
            steps.push(Step::Once {
                key: counter,
                steps: Vec::new(),
            });
            stars += challenge.stars;
            challenges_completed.push(challenge.id);
        }
    }
    for evolution in &track.evolutions {
        let Some(gain) = stats.get(&evolution.stat_key) else {
            continue;
        };
        if !progress.items.contains(&evolution.required_item) {
            continue;
        }
        let counter = evolution_counter(evolution.id);
        let (_, completed, mut advance) = advance(progress, &counter, *gain, evolution.required);
        steps.append(&mut advance);
        if completed {
            steps.push(Step::Once {
                key: counter,
                steps: reward_steps(catalog, std::slice::from_ref(&evolution.reward)),
            });
        }
    }
    let stars_counter = track_counter(track.id, "stars");
    let stars_before = progress.counter(&stars_counter);
    let stars_after = stars_before.saturating_add(stars);
    let tier_before = track.tier_for(stars_before);
    let tier_after = track.tier_for(stars_after);
    let owned = track.is_stock || progress.track_passes.contains(&track.id);
    if stars > 0 {
        steps.push(Step::SetProgress {
            counter: stars_counter,
            value: stars_after,
        });
    }
    if owned {
        steps.extend(tier_grants(content, track, tier_before + 1..=tier_after));
    }
    TrackStep {
        id: track.id,
        experience,
        stars,
        tier_before,
        tier_after,
        challenges_completed,
        owned,
    }
}

/// The once-only grants of the rewards of `tiers`.
pub(super) fn tier_grants(
    content: &Content,
    track: &RewardTrack,
    tiers: std::ops::RangeInclusive<i64>,
) -> impl Iterator<Item = Step> {
    tiers.map(move |tier| Step::Once {
        key: tier_claim(track.id, tier),
        steps: reward_steps(&content.catalog, track.tier_rewards(tier)),
    })
}
