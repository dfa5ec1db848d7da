//! Buying a reward track's pass and skipping its tiers.

use time::OffsetDateTime;

use super::counters::track_counter;
use super::levels::plan_levels;
use super::match_plan::tier_grants;
use crate::content::{Content, RewardTrack};
use crate::store::{Currency, Progress, Step};

/// Why a track cannot be bought or skipped, before anything is tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrackRefusal {
    /// The track's season is not running.
    NotRunning,
    /// A free track has no pass to buy.
    Free,
    /// Skipping needs the track: its pass, unless it is free.
    NotOwned,
    /// The track's tiers cannot be bought (`cost_gems_per_tier` is 0).
    NotSkippable,
    /// The skip would pass the last tier; `available` tiers can still be skipped.
    PastMaxTier {
        /// How many tiers are left to skip.
        available: i64,
    },
}

/// The steps of buying `track`'s pass at `now` for an account with `progress`: pay the price
/// (the discounted one while it runs), take the pass, and get the rewards of every tier already
/// reached, with the levels their experience reaches.
pub fn plan_track_buy(
    content: &Content,
    track: &RewardTrack,
    progress: &Progress,
    now: OffsetDateTime,
) -> Result<Vec<Step>, TrackRefusal> {
    if !track.is_running(now) {
        return Err(TrackRefusal::NotRunning);
    }
    if track.is_stock {
        return Err(TrackRefusal::Free);
    }
    let price = track.price_at(now);
    let mut steps = vec![Step::RequireProgressVersion {
        version: progress.version,
    }];
    for (currency, amount) in [(Currency::Coins, price.coins), (Currency::Gems, price.gems)] {
        if amount > 0 {
            steps.push(Step::Debit { currency, amount });
        }
    }
    steps.push(Step::GrantTrackPass { track: track.id });
    let reached = track.tier_for(progress.counter(&track_counter(track.id, "stars")));
    steps.extend(tier_grants(content, track, 1..=reached));
    plan_levels(content, progress, &mut steps);
    Ok(steps)
}

/// The steps of skipping `tiers` tiers of `track` at `now`: pay `cost_gems_per_tier` for each,
/// move the stars on by as many tiers, and get the skipped tiers' rewards with the levels their
/// experience reaches. Never past the last tier.
pub fn plan_track_skip(
    content: &Content,
    track: &RewardTrack,
    progress: &Progress,
    tiers: i64,
    now: OffsetDateTime,
) -> Result<Vec<Step>, TrackRefusal> {
    if !track.is_running(now) {
        return Err(TrackRefusal::NotRunning);
    }
    if track.cost_gems_per_tier == 0 {
        return Err(TrackRefusal::NotSkippable);
    }
    if !track.is_stock && !progress.track_passes.contains(&track.id) {
        return Err(TrackRefusal::NotOwned);
    }
    let stars_counter = track_counter(track.id, "stars");
    let stars = progress.counter(&stars_counter);
    let tier = track.tier_for(stars);
    let available = (track.max_tier - tier).max(0);
    if tiers > available {
        return Err(TrackRefusal::PastMaxTier { available });
    }
    let mut steps = vec![
        Step::RequireProgressVersion {
            version: progress.version,
        },
        Step::Debit {
            currency: Currency::Gems,
            amount: track.cost_gems_per_tier * tiers,
        },
        Step::SetProgress {
            counter: stars_counter,
            value: stars + tiers * track.stars_per_tier,
        },
    ];
    steps.extend(tier_grants(content, track, tier + 1..=tier + tiers));
    plan_levels(content, progress, &mut steps);
    Ok(steps)
}
