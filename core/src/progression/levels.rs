//! Levels: every change that gives experience also gives the levels that experience reaches,
//! and their rewards, in the same change. One place for every planner (a match, buying or
//! skipping a track, a claim, a deal, a purchase), so that the stored level never lags behind
//! the experience.

use super::counters::level_claim;
use crate::content::Content;
use crate::economy::reward_steps;
use crate::store::{Progress, Step};

/// The level before and after a planned change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Levels {
    /// The stored level the plan was made from.
    pub before: i64,
    /// The level the change leaves.
    pub after: i64,
}

/// Appends to `steps`, planned from `progress`, the level reached with all the experience they
/// add (nested once-only grants included) and the once-only rewards of every level passed.
/// Those rewards' own experience counts too: a level reward of experience may reach further
/// levels. Levels never go down. The plan must require `progress`'s version
/// ([`Step::RequireProgressVersion`]): the level is computed from its experience.
pub fn plan_levels(content: &Content, progress: &Progress, steps: &mut Vec<Step>) -> Levels {
    let curve = &content.progression.levels;
    let before = progress.level;
    let mut experience = progress.experience.saturating_add(experience_of(steps));
    let mut level = before;
    let mut grants = Vec::new();
    // Each round passes at least one level, and the curve ends at `max_level`.
    loop {
        let reached = curve.level_for(experience).max(level);
        if reached == level {
            break;
        }
        for passed in level + 1..=reached {
            let rewards = reward_steps(&content.catalog, &curve.rewards_for(passed));
            experience = experience.saturating_add(experience_of(&rewards));
            grants.push(Step::Once {
                key: level_claim(passed),
                steps: rewards,
            });
        }
        level = reached;
    }
    if level != before {
        steps.push(Step::SetLevel { level });
        steps.append(&mut grants);
    }
    Levels {
        before,
        after: level,
    }
}

/// `steps` as a change planned from `progress`: when they give experience, they require the
/// progress unchanged and give the levels reached ([`plan_levels`]); otherwise they are left
/// as they are, needing no progress.
pub fn with_levels(content: &Content, progress: &Progress, mut steps: Vec<Step>) -> Vec<Step> {
    if experience_of(&steps) == 0 {
        return steps;
    }
    steps.insert(
        0,
        Step::RequireProgressVersion {
            version: progress.version,
        },
    );
    plan_levels(content, progress, &mut steps);
    steps
}

/// The experience `steps` add, counting those nested in once-only grants.
pub fn experience_of(steps: &[Step]) -> i64 {
    steps.iter().fold(0, |total: i64, step| {
        total.saturating_add(match step {
            Step::AddExperience { amount } => *amount,
            Step::Once { steps, .. } => experience_of(steps),
            _ => 0,
        })
    })
}
