//! Reward tracks (`[[tracks]]`, the season passes): stars earned by levels and challenges unlock
//! tiers of rewards; evolutions upgrade an owned item when a stat is reached.

use std::borrow::Cow;

use serde::Deserialize;
use time::{Duration, OffsetDateTime};
use toml::Spanned;

use super::catalog::Catalog;
use super::checks::{Entry, Unique};
use super::price::{self, MAX_PRICE, Price};
use super::progression::unindexed;
use super::quests::{MAX_REQUIRED, one_reward, stat_key};
use super::recurrence::{self, OCCURRENCE_ID_STRIDE, Recurrence};
use super::rewards::{self, RewardSection, RewardSpec};
use super::{ContentError, Locate};
use crate::domain::{ChallengeId, EvolutionId, ItemId, TrackId};

/// The highest season number.
pub const MAX_SEASON: i64 = 10_000;

/// The highest `max_level` and `max_tier` of a track.
pub const MAX_TRACK_LEVEL: i64 = 1000;

/// The most experience one track level may take (`experience_per_level`).
pub const MAX_TRACK_EXPERIENCE_PER_LEVEL: i64 = 10_000_000;

/// The most stars a track level gives, a tier takes or a challenge gives.
pub const MAX_STARS: i64 = 1_000_000;

/// The highest id of a track, challenge or evolution in the file: the ids of a repeating
/// track's later occurrences lie above it (see [`OCCURRENCE_ID_STRIDE`]).
pub const MAX_TRACK_ID: i64 = OCCURRENCE_ID_STRIDE - 1;

/// A reward track: a season pass of `max_tier` tiers.
///
/// Track experience makes track levels (`experience_per_level` each, up to `max_level`); each
/// level gives `stars_per_level` stars, each challenge its `stars`; every `stars_per_tier`
/// stars unlock the next tier.
///
/// A track with `repeat_every` runs again every that long, each run (occurrence) a new season:
/// occurrence `n` has the season `season + n`, dates `n * repeat_every` later, and ids (its own,
/// its challenges' and its evolutions') `n *` [`OCCURRENCE_ID_STRIDE`] higher, so that its pass
/// and its progress start afresh. [`Content::tracks`](super::Content::tracks) holds each track
/// as written, occurrence 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardTrack {
    /// Its id, stable across releases; unique.
    pub id: TrackId,
    /// Its name as written: `{season}` in it stands for the season's number (see
    /// [`RewardTrack::shown_name`]).
    pub name: String,
    /// The season it belongs to, 0 to [`MAX_SEASON`] as written.
    pub season: i64,
    /// Which run of the track this is: 0 as written.
    pub occurrence: i64,
    /// The time between the starts of two runs, for a track that repeats.
    pub repeat_every: Option<Duration>,
    /// Whether it is the free track every player owns (then it has no price and no discount).
    pub is_stock: bool,
    /// Whether tiers go on past `max_tier`, each repeating the last tier's rewards.
    pub is_repeatable: bool,
    /// The pass's price: zero for a stock track, never zero otherwise.
    pub cost: Price,
    /// A lower price for a while, if any.
    pub discount: Option<TrackDiscount>,
    /// The gems each tier bought ahead (skipped) costs, 0 to [`MAX_PRICE`]; 0 when tiers
    /// cannot be bought.
    pub cost_gems_per_tier: i64,
    /// The highest track level, 1 to [`MAX_TRACK_LEVEL`].
    pub max_level: i64,
    /// The experience of each track level, 1 to [`MAX_TRACK_EXPERIENCE_PER_LEVEL`].
    pub experience_per_level: i64,
    /// The stars each track level gives, 0 to [`MAX_STARS`].
    pub stars_per_level: i64,
    /// The number of tiers, 1 to [`MAX_TRACK_LEVEL`].
    pub max_tier: i64,
    /// The stars each tier takes, 1 to [`MAX_STARS`].
    pub stars_per_tier: i64,
    /// When it starts.
    pub starts: OffsetDateTime,
    /// When it ends; after `starts`.
    pub ends: OffsetDateTime,
    /// Tiers 1 to `max_tier`, in order, each once.
    pub tiers: Vec<Tier>,
    /// The challenges, in file order.
    pub challenges: Vec<Challenge>,
    /// The evolutions, in file order.
    pub evolutions: Vec<Evolution>,
}

/// A lower price of a track until a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackDiscount {
    /// The discounted price: not free, nowhere above the track's price, and below it.
    pub cost: Price,
    /// When the discount ends; after the track starts, at the latest when it ends.
    pub ends: OffsetDateTime,
}

/// One tier of a track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tier {
    /// Its number, 1 to the track's `max_tier`.
    pub tier: i64,
    /// What reaching it grants; never empty.
    pub rewards: Vec<RewardSpec>,
}

/// A challenge of a track: reach `required` of a stat for `stars` stars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// Its id; unique across all tracks.
    pub id: ChallengeId,
    /// Its name, as shown to players.
    pub name: String,
    /// The stat it counts (see [`Quest::stat_key`](super::Quest::stat_key)).
    pub stat_key: String,
    /// How much of the stat completes it, 1 to [`MAX_REQUIRED`].
    pub required: i64,
    /// The stars completing it gives, 1 to [`MAX_STARS`].
    pub stars: i64,
}

/// An evolution of a track: players who own `required_item` and reach `required` of a stat get
/// `reward`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evolution {
    /// Its id; unique across all tracks.
    pub id: EvolutionId,
    /// The item it evolves (written as its SKU); it exists in the catalog.
    pub required_item: ItemId,
    /// Its name, as shown to players.
    pub name: String,
    /// The stat it counts (see [`Quest::stat_key`](super::Quest::stat_key)).
    pub stat_key: String,
    /// How much of the stat completes it, 1 to [`MAX_REQUIRED`].
    pub required: i64,
    /// What completing it grants.
    pub reward: RewardSpec,
}

impl RewardTrack {
    /// Whether it runs at `now`: `starts <= now < ends`.
    pub fn is_running(&self, now: OffsetDateTime) -> bool {
        self.starts <= now && now < self.ends
    }

    /// Its name as players see it: `{season}` replaced by the season's number.
    pub fn shown_name(&self) -> Cow<'_, str> {
        if self.name.contains("{season}") {
            Cow::Owned(self.name.replace("{season}", &self.season.to_string()))
        } else {
            Cow::Borrowed(&self.name)
        }
    }

    /// The run of this track at `now`: itself, a later occurrence of a repeating track, or
    /// `None` when none runs.
    pub fn running_at(&self, now: OffsetDateTime) -> Option<Cow<'_, Self>> {
        let window = Recurrence {
            starts: self.starts,
            ends: self.ends,
            every: self.repeat_every,
        };
        let run = window.running_at(now)?;
        self.later(run.number)
    }

    /// The run `runs` occurrences after this one: itself for 0; `None` for a negative number,
    /// or when the track does not repeat (or the dates leave the calendar).
    pub fn later(&self, runs: i64) -> Option<Cow<'_, Self>> {
        match runs {
            0 => return Some(Cow::Borrowed(self)),
            ..0 => return None,
            1.. => {}
        }
        let shift = self.repeat_every?.checked_mul(i32::try_from(runs).ok()?)?;
        let ids = runs.checked_mul(OCCURRENCE_ID_STRIDE)?;
        let mut run = self.clone();
        run.id = TrackId(self.id.0.checked_add(ids)?);
        run.season = self.season.checked_add(runs)?;
        run.occurrence = self.occurrence.checked_add(runs)?;
        run.starts = self.starts.checked_add(shift)?;
        run.ends = self.ends.checked_add(shift)?;
        if let Some(discount) = &mut run.discount {
            discount.ends = discount.ends.checked_add(shift)?;
        }
        for challenge in &mut run.challenges {
            challenge.id = ChallengeId(challenge.id.0.checked_add(ids)?);
        }
        for evolution in &mut run.evolutions {
            evolution.id = EvolutionId(evolution.id.0.checked_add(ids)?);
        }
        Some(Cow::Owned(run))
    }

    /// The tier reached with `stars`: `stars / stars_per_tier`, at most `max_tier` unless the
    /// track is repeatable (0 before the first tier).
    pub fn tier_for(&self, stars: i64) -> i64 {
        let tier = stars.max(0) / self.stars_per_tier.max(1);
        if self.is_repeatable {
            tier
        } else {
            tier.min(self.max_tier)
        }
    }

    /// The track level reached with `experience`: `experience / experience_per_level`, at most
    /// `max_level` (0 before the first level).
    pub fn level_for(&self, experience: i64) -> i64 {
        (experience.max(0) / self.experience_per_level.max(1)).min(self.max_level)
    }

    /// What reaching `tier` grants: that tier's rewards up to `max_tier`; past it, the last
    /// tier's on a repeatable track and nothing otherwise; nothing for tiers below 1.
    pub fn tier_rewards(&self, tier: i64) -> &[RewardSpec] {
        let at = if tier > self.max_tier && self.is_repeatable {
            self.tiers.len().checked_sub(1)
        } else {
            usize::try_from(tier - 1).ok()
        };
        at.and_then(|at| self.tiers.get(at))
            .map_or(&[], |tier| tier.rewards.as_slice())
    }

    /// What the pass costs at `now`: the discount's price until it ends, then `cost`.
    pub fn price_at(&self, now: OffsetDateTime) -> Price {
        match self.discount {
            Some(discount) if now < discount.ends => discount.cost,
            _ => self.cost,
        }
    }
}

/// `[[tracks]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TrackSection {
    id: Spanned<i64>,
    name: Spanned<String>,
    season: Spanned<i64>,
    #[serde(default)]
    is_stock: bool,
    #[serde(default)]
    is_repeatable: bool,
    cost_coins: Option<Spanned<i64>>,
    cost_gems: Option<Spanned<i64>>,
    discount: Option<Spanned<DiscountSection>>,
    cost_gems_per_tier: Spanned<i64>,
    max_level: Spanned<i64>,
    experience_per_level: Spanned<i64>,
    stars_per_level: Spanned<i64>,
    max_tier: Spanned<i64>,
    stars_per_tier: Spanned<i64>,
    starts: Spanned<toml::value::Datetime>,
    ends: Spanned<toml::value::Datetime>,
    repeat_weeks: Option<Spanned<i64>>,
    tiers: Spanned<Vec<Spanned<TierSection>>>,
    #[serde(default)]
    challenges: Vec<Spanned<ChallengeSection>>,
    #[serde(default)]
    evolutions: Vec<Spanned<EvolutionSection>>,
}

/// `[tracks.discount]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscountSection {
    cost_coins: Option<Spanned<i64>>,
    cost_gems: Option<Spanned<i64>>,
    ends: Spanned<toml::value::Datetime>,
}

/// `[[tracks.tiers]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TierSection {
    tier: Spanned<i64>,
    rewards: Spanned<Vec<Spanned<RewardSection>>>,
}

/// `[[tracks.challenges]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChallengeSection {
    id: Spanned<i64>,
    name: Spanned<String>,
    stat_key: Spanned<String>,
    required: Spanned<i64>,
    stars: Spanned<i64>,
}

/// `[[tracks.evolutions]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EvolutionSection {
    id: Spanned<i64>,
    required_item: Spanned<String>,
    name: Spanned<String>,
    stat_key: Spanned<String>,
    required: Spanned<i64>,
    reward: Spanned<RewardSection>,
}

/// The ids that must be unique across all tracks.
struct TrackIds {
    tracks: Unique<i64>,
    challenges: Unique<i64>,
    evolutions: Unique<i64>,
}

/// Validates the tracks, in file order; their rewards and evolutions name items and packs of
/// `catalog`.
pub(super) fn validate(
    sections: Vec<Spanned<TrackSection>>,
    catalog: &Catalog,
    locate: &Locate<'_>,
) -> Result<Vec<RewardTrack>, ContentError> {
    let mut ids = TrackIds {
        tracks: Unique::new("id"),
        challenges: Unique::new("challenge id"),
        evolutions: Unique::new("evolution id"),
    };
    let mut tracks = Vec::with_capacity(sections.len());
    for (index, section) in sections.iter().enumerate() {
        let section = section.get_ref();
        let entry = Entry::new(
            locate,
            "tracks",
            index,
            format!("track {}", section.id.get_ref()),
        );
        let track = section.validate(&entry, index, &mut ids, catalog, locate)?;
        ids.tracks
            .claim(&entry, section.id.span(), "id", track.id.0)?;
        tracks.push(track);
    }
    Ok(tracks)
}

impl TrackSection {
    fn validate(
        &self,
        entry: &Entry<'_, '_>,
        index: usize,
        ids: &mut TrackIds,
        catalog: &Catalog,
        locate: &Locate<'_>,
    ) -> Result<RewardTrack, ContentError> {
        let id = TrackId(entry.int(&self.id, "id", 1..=MAX_TRACK_ID)?);
        let name = entry.name(&self.name, "name")?;
        let season = entry.int(&self.season, "season", 0..=MAX_SEASON)?;
        let cost = self.cost(entry)?;
        let runs =
            recurrence::validate(entry, &self.starts, &self.ends, self.repeat_weeks.as_ref())?;
        let (starts, ends) = (runs.starts, runs.ends);
        let discount = self.discount(entry, cost, starts, ends)?;
        let max_tier = entry.int(&self.max_tier, "max_tier", 1..=MAX_TRACK_LEVEL)?;
        Ok(RewardTrack {
            id,
            name,
            season,
            occurrence: 0,
            repeat_every: runs.every,
            is_stock: self.is_stock,
            is_repeatable: self.is_repeatable,
            cost,
            discount,
            cost_gems_per_tier: entry.int(
                &self.cost_gems_per_tier,
                "cost_gems_per_tier",
                0..=MAX_PRICE,
            )?,
            max_level: entry.int(&self.max_level, "max_level", 1..=MAX_TRACK_LEVEL)?,
            experience_per_level: entry.int(
                &self.experience_per_level,
                "experience_per_level",
                1..=MAX_TRACK_EXPERIENCE_PER_LEVEL,
            )?,
            stars_per_level: entry.int(&self.stars_per_level, "stars_per_level", 0..=MAX_STARS)?,
            max_tier,
            stars_per_tier: entry.int(&self.stars_per_tier, "stars_per_tier", 1..=MAX_STARS)?,
            starts,
            ends,
            tiers: self.tiers(entry, max_tier, catalog)?,
            challenges: self.challenges(entry, &mut ids.challenges)?,
            evolutions: self.evolutions(entry, index, &mut ids.evolutions, catalog, locate)?,
        })
    }

    /// The pass's price: none for a stock track, some for any other.
    fn cost(&self, entry: &Entry<'_, '_>) -> Result<Price, ContentError> {
        let stock = self.is_stock.then_some("a stock track");
        let cost = price::cost(entry, &self.cost_coins, &self.cost_gems, stock)?;
        if !self.is_stock && cost.is_free() {
            return Err(entry.error(
                self.id.span(),
                "cost_coins",
                "a track that is not stock needs a price in coins or gems (cost_coins, \
                 cost_gems); a free track is written is_stock = true",
            ));
        }
        Ok(cost)
    }

    /// The discount, if any: only on a track that is not stock, cheaper than `cost`, ending
    /// while the track runs.
    fn discount(
        &self,
        entry: &Entry<'_, '_>,
        cost: Price,
        starts: OffsetDateTime,
        ends: OffsetDateTime,
    ) -> Result<Option<TrackDiscount>, ContentError> {
        let Some(spanned) = &self.discount else {
            return Ok(None);
        };
        if self.is_stock {
            return Err(entry.error(
                spanned.span(),
                "discount",
                "a stock track is free: it has no discount",
            ));
        }
        let section = spanned.get_ref();
        let discounted =
            price::validate(entry, &section.cost_coins, &section.cost_gems, "discount.")?;
        let cheaper = discounted.coins <= cost.coins
            && discounted.gems <= cost.gems
            && discounted != cost
            && !discounted.is_free();
        if !cheaper {
            let coins_at_fault = discounted.coins > cost.coins
                || (section.cost_gems.is_none() && section.cost_coins.is_some());
            let (value, field) = if coins_at_fault {
                (&section.cost_coins, "discount.cost_coins")
            } else {
                (&section.cost_gems, "discount.cost_gems")
            };
            let span = value.as_ref().map_or_else(|| spanned.span(), Spanned::span);
            return Err(entry.error(
                span,
                field,
                format!(
                    "the discount ({} coins, {} gems) must be cheaper than the track's price \
                     ({} coins, {} gems), and not free",
                    discounted.coins, discounted.gems, cost.coins, cost.gems
                ),
            ));
        }
        let discount_ends = entry.instant(&section.ends, "discount.ends")?;
        if discount_ends <= starts || discount_ends > ends {
            return Err(entry.error(
                section.ends.span(),
                "discount.ends",
                format!(
                    "the discount ends at {}, not while the track runs ({} to {})",
                    section.ends.get_ref(),
                    self.starts.get_ref(),
                    self.ends.get_ref()
                ),
            ));
        }
        Ok(Some(TrackDiscount {
            cost: discounted,
            ends: discount_ends,
        }))
    }

    /// Tiers 1 to `max_tier`, each once, each with rewards; the last tier of a repeatable track
    /// grants no item (it repeats, and an item is owned at most once).
    fn tiers(
        &self,
        entry: &Entry<'_, '_>,
        max_tier: i64,
        catalog: &Catalog,
    ) -> Result<Vec<Tier>, ContentError> {
        let mut numbers = Unique::new("tier");
        let mut tiers = Vec::with_capacity(self.tiers.get_ref().len());
        for (index, section) in self.tiers.get_ref().iter().enumerate() {
            let section = section.get_ref();
            let label = format!("tier {} of {}", section.tier.get_ref(), entry.label());
            let line = entry.nested("tiers", index, label);
            let tier = line.int(&section.tier, "tier", 1..=max_tier)?;
            numbers.claim(&line, section.tier.span(), "tier", tier)?;
            if section.rewards.get_ref().is_empty() {
                return Err(line.error(
                    section.rewards.span(),
                    "rewards",
                    "a tier needs at least one reward",
                ));
            }
            let rewards =
                rewards::validate_list(&line, "rewards", section.rewards.get_ref(), catalog)?;
            let item = rewards
                .iter()
                .position(|reward| matches!(reward, RewardSpec::Item(_)));
            if let Some(at) = item
                && tier == max_tier
                && self.is_repeatable
            {
                let span = section
                    .rewards
                    .get_ref()
                    .get(at)
                    .map_or_else(|| section.rewards.span(), Spanned::span);
                return Err(line.error(
                    span,
                    &format!("rewards[{at}]"),
                    "the last tier of a repeatable track repeats, and an item is owned at most \
                     once: grant coins, gems, experience or packs here",
                ));
            }
            tiers.push(Tier { tier, rewards });
        }
        tiers.sort_by_key(|tier| tier.tier);
        let missing = (1..=max_tier).find(|number| {
            tiers
                .binary_search_by_key(number, |tier| tier.tier)
                .is_err()
        });
        if let Some(missing) = missing {
            return Err(entry.error(
                self.tiers.span(),
                "tiers",
                format!("tier {missing} is missing; list every tier from 1 to {max_tier} once"),
            ));
        }
        Ok(tiers)
    }

    /// The challenges; their ids are claimed in `ids`, shared by all tracks.
    fn challenges(
        &self,
        entry: &Entry<'_, '_>,
        ids: &mut Unique<i64>,
    ) -> Result<Vec<Challenge>, ContentError> {
        let mut challenges = Vec::with_capacity(self.challenges.len());
        for (index, section) in self.challenges.iter().enumerate() {
            let section = section.get_ref();
            let label = format!("challenge {} of {}", section.id.get_ref(), entry.label());
            let line = entry.nested("challenges", index, label);
            let id = ChallengeId(line.int(&section.id, "id", 1..=MAX_TRACK_ID)?);
            ids.claim(&line, section.id.span(), "id", id.0)?;
            challenges.push(Challenge {
                id,
                name: line.name(&section.name, "name")?,
                stat_key: stat_key(&line, &section.stat_key)?,
                required: line.int(&section.required, "required", 1..=MAX_REQUIRED)?,
                stars: line.int(&section.stars, "stars", 1..=MAX_STARS)?,
            });
        }
        Ok(challenges)
    }

    /// The evolutions of the track `track` (its index); their ids are claimed in `ids`, shared
    /// by all tracks.
    fn evolutions(
        &self,
        entry: &Entry<'_, '_>,
        track: usize,
        ids: &mut Unique<i64>,
        catalog: &Catalog,
        locate: &Locate<'_>,
    ) -> Result<Vec<Evolution>, ContentError> {
        let mut evolutions = Vec::with_capacity(self.evolutions.len());
        for (index, section) in self.evolutions.iter().enumerate() {
            let section = section.get_ref();
            let label = format!("evolution {} of {}", section.id.get_ref(), entry.label());
            let path = format!("tracks[{track}].evolutions");
            let keys = unindexed(locate, format!("{path}[{index}].reward"));
            let line = Entry::new(&keys, &path, index, label);
            let id = EvolutionId(line.int(&section.id, "id", 1..=MAX_TRACK_ID)?);
            ids.claim(&line, section.id.span(), "id", id.0)?;
            let sku = section.required_item.get_ref();
            let item = catalog.item_by_sku(sku).ok_or_else(|| {
                line.error(
                    section.required_item.span(),
                    "required_item",
                    format!("there is no item `{sku}`"),
                )
            })?;
            evolutions.push(Evolution {
                id,
                required_item: item.id,
                name: line.name(&section.name, "name")?,
                stat_key: stat_key(&line, &section.stat_key)?,
                required: line.int(&section.required, "required", 1..=MAX_REQUIRED)?,
                reward: one_reward(&line, &section.reward, catalog)?,
            });
        }
        Ok(evolutions)
    }
}
