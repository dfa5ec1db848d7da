//! Player progression (`[progression]`): the experience a match gives, and the level curve with
//! the rewards of each level.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::catalog::Catalog;
use super::checks::{Entry, Unique};
use super::rewards::{self, RewardSection, RewardSpec};
use super::{ContentError, Locate};

/// The highest player level a level curve may have.
pub const MAX_LEVEL: i64 = 1000;

/// The most experience the first level-up (`first`) or each step up (`increment`) may take.
/// With [`MAX_LEVEL`] it keeps the experience of the whole curve far below `i64::MAX`.
pub const MAX_LEVEL_EXPERIENCE: i64 = 10_000_000;

/// The most experience each part of a match's experience (`base`, `per_kill`, ...) may give.
pub const MAX_MATCH_EXPERIENCE: i64 = 100_000;

/// How players gain experience, coins and levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progression {
    /// The experience a finished match gives.
    pub match_experience: MatchAward,
    /// The coins a finished match gives (none when the file leaves `[progression.match_coins]`
    /// out).
    pub match_coins: MatchAward,
    /// The levels, and what reaching each one grants.
    pub levels: LevelCurve,
}

/// What a finished match gives (experience or coins); each part is 0 to
/// [`MAX_MATCH_EXPERIENCE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchAward {
    /// For playing at all.
    pub base: i64,
    /// For each kill.
    pub per_kill: i64,
    /// For each whole minute alive.
    pub per_minute_alive: i64,
    /// For winning (placement 1).
    pub win_bonus: i64,
    /// For finishing in the top 10 (placements 1 to 10, the winner included).
    pub top10_bonus: i64,
}

impl MatchAward {
    /// The award of a match finished at `placement` (1 for the winner) with `kills` kills
    /// after `time_alive_secs` seconds alive: `base + per_kill * kills + per_minute_alive *
    /// whole minutes`, plus `win_bonus` for placement 1 and `top10_bonus` for placements 1 to 10.
    /// Negative counts count as 0; the sum saturates instead of overflowing.
    ///
    /// ```
    /// use safezone_core::content::Content;
    ///
    /// let experience = Content::shipped().progression.match_experience;
    /// let win = experience.for_result(1, 3, 125);
    /// let expected = experience.base + 3 * experience.per_kill + 2 * experience.per_minute_alive
    ///     + experience.win_bonus + experience.top10_bonus;
    /// assert_eq!(win, expected);
    /// ```
    pub fn for_result(&self, placement: i64, kills: i64, time_alive_secs: i64) -> i64 {
        let minutes = time_alive_secs.max(0) / 60;
        let mut total = self
            .base
            .saturating_add(self.per_kill.saturating_mul(kills.max(0)))
            .saturating_add(self.per_minute_alive.saturating_mul(minutes));
        if placement == 1 {
            total = total.saturating_add(self.win_bonus);
        }
        if (1..=10).contains(&placement) {
            total = total.saturating_add(self.top10_bonus);
        }
        total
    }
}

/// The player levels: from level 1, going from `level` to `level + 1` takes
/// `first + increment * (level - 1)` experience, up to `max_level`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelCurve {
    /// The highest level, 2 to [`MAX_LEVEL`].
    pub max_level: i64,
    /// The experience from level 1 to level 2, 1 to [`MAX_LEVEL_EXPERIENCE`].
    pub first: i64,
    /// How much more each further level takes than the one before, 0 to
    /// [`MAX_LEVEL_EXPERIENCE`].
    pub increment: i64,
    /// What reaching any level above 1 grants; may be empty.
    pub every_level: Vec<RewardSpec>,
    /// What reaching some levels grants on top of `every_level`: level (2 to `max_level`) to
    /// rewards (never empty).
    pub milestones: BTreeMap<i64, Vec<RewardSpec>>,
}

impl LevelCurve {
    /// The experience from `level` to `level + 1`: `first + increment * (level - 1)`; `None` at
    /// `max_level` and above. Levels below 1 count as 1.
    pub fn required_for_next(&self, level: i64) -> Option<i64> {
        let level = level.max(1);
        (level < self.max_level).then(|| {
            self.first
                .saturating_add(self.increment.saturating_mul(level - 1))
        })
    }

    /// The total experience needed to reach `level` from nothing: 0 for level 1. Levels are
    /// clamped to 1 ..= `max_level`.
    pub fn total_for(&self, level: i64) -> i64 {
        // The sum of `first + increment * (l - 1)` for l = 1 .. level - 1.
        let steps = level.clamp(1, self.max_level.max(1)) - 1;
        let triangle = steps.saturating_mul(steps - 1) / 2;
        self.first
            .saturating_mul(steps)
            .saturating_add(self.increment.saturating_mul(triangle))
    }

    /// The level of a player with `experience` in total: the highest level whose
    /// [`total_for`](Self::total_for) it reaches, 1 to `max_level`.
    ///
    /// ```
    /// use safezone_core::content::Content;
    ///
    /// let levels = Content::shipped().progression.levels;
    /// assert_eq!(levels.level_for(0), 1);
    /// assert_eq!(levels.level_for(levels.total_for(7)), 7);
    /// assert_eq!(levels.level_for(levels.total_for(7) - 1), 6);
    /// assert_eq!(levels.level_for(i64::MAX), levels.max_level);
    /// ```
    pub fn level_for(&self, experience: i64) -> i64 {
        // The totals grow with the level: search for the last one at or below `experience`.
        let (mut reached, mut beyond) = (1, self.max_level.max(1) + 1);
        while beyond - reached > 1 {
            let middle = reached + (beyond - reached) / 2;
            if self.total_for(middle) <= experience {
                reached = middle;
            } else {
                beyond = middle;
            }
        }
        reached
    }

    /// What reaching `level` grants: `every_level`, then the milestone's rewards of that level.
    /// Nothing for level 1 (where everyone starts) or a level outside the curve.
    pub fn rewards_for(&self, level: i64) -> Vec<RewardSpec> {
        if !(2..=self.max_level).contains(&level) {
            return Vec::new();
        }
        let milestone = self.milestones.get(&level).map_or(&[][..], Vec::as_slice);
        self.every_level.iter().chain(milestone).copied().collect()
    }
}

/// `[progression]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProgressionSection {
    match_experience: MatchAwardSection,
    match_coins: Option<MatchAwardSection>,
    levels: LevelsSection,
}

/// `[progression.match_experience]` and `[progression.match_coins]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchAwardSection {
    base: Spanned<i64>,
    per_kill: Spanned<i64>,
    per_minute_alive: Spanned<i64>,
    win_bonus: Spanned<i64>,
    top10_bonus: Spanned<i64>,
}

/// `[progression.levels]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelsSection {
    max_level: Spanned<i64>,
    first: Spanned<i64>,
    increment: Spanned<i64>,
    #[serde(default)]
    every_level: Vec<Spanned<RewardSection>>,
    #[serde(default)]
    milestones: Vec<Spanned<MilestoneSection>>,
}

/// `[[progression.levels.milestones]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MilestoneSection {
    level: Spanned<i64>,
    rewards: Spanned<Vec<Spanned<RewardSection>>>,
}

impl ProgressionSection {
    /// Validates the progression; its rewards name items and packs of `catalog`.
    pub(super) fn validate(
        self,
        catalog: &Catalog,
        locate: &Locate<'_>,
    ) -> Result<Progression, ContentError> {
        Ok(Progression {
            match_experience: self.match_experience.validate(
                "progression.match_experience",
                "match experience",
                locate,
            )?,
            match_coins: self
                .match_coins
                .map(|coins| coins.validate("progression.match_coins", "match coins", locate))
                .transpose()?
                .unwrap_or_default(),
            levels: self.levels.validate(catalog, locate)?,
        })
    }
}

impl MatchAwardSection {
    /// The award of the table at `path`, named `label` in errors.
    fn validate(
        &self,
        path: &str,
        label: &str,
        locate: &Locate<'_>,
    ) -> Result<MatchAward, ContentError> {
        let keys = unindexed(locate, path.to_owned());
        let entry = Entry::new(&keys, path, 0, label.to_owned());
        let part =
            |value: &Spanned<i64>, field: &str| entry.int(value, field, 0..=MAX_MATCH_EXPERIENCE);
        Ok(MatchAward {
            base: part(&self.base, "base")?,
            per_kill: part(&self.per_kill, "per_kill")?,
            per_minute_alive: part(&self.per_minute_alive, "per_minute_alive")?,
            win_bonus: part(&self.win_bonus, "win_bonus")?,
            top10_bonus: part(&self.top10_bonus, "top10_bonus")?,
        })
    }
}

impl LevelsSection {
    fn validate(&self, catalog: &Catalog, locate: &Locate<'_>) -> Result<LevelCurve, ContentError> {
        const PATH: &str = "progression.levels";
        let keys = unindexed(locate, PATH.to_owned());
        let entry = Entry::new(&keys, PATH, 0, "level curve".to_owned());
        let max_level = entry.int(&self.max_level, "max_level", 2..=MAX_LEVEL)?;
        let first = entry.int(&self.first, "first", 1..=MAX_LEVEL_EXPERIENCE)?;
        let increment = entry.int(&self.increment, "increment", 0..=MAX_LEVEL_EXPERIENCE)?;
        let every_level =
            rewards::validate_list(&entry, "every_level", &self.every_level, catalog)?;
        let mut levels = Unique::new("level");
        let mut milestones = BTreeMap::new();
        for (index, milestone) in self.milestones.iter().enumerate() {
            let milestone = milestone.get_ref();
            let label = format!("milestone level {}", milestone.level.get_ref());
            let line = entry.nested("milestones", index, label);
            let level = line.int(&milestone.level, "level", 2..=max_level)?;
            levels.claim(&line, milestone.level.span(), "level", level)?;
            if milestone.rewards.get_ref().is_empty() {
                return Err(line.error(
                    milestone.rewards.span(),
                    "rewards",
                    "a milestone needs at least one reward",
                ));
            }
            let rewards =
                rewards::validate_list(&line, "rewards", milestone.rewards.get_ref(), catalog)?;
            milestones.insert(level, rewards);
        }
        Ok(LevelCurve {
            max_level,
            first,
            increment,
            every_level,
            milestones,
        })
    }
}

/// A [`Locate`] for a table that is not an entry of an array (`[progression.levels]`, a
/// `reward = { ... }`), to build an [`Entry`] on: an entry names its keys `path[0].field`, and
/// this writes them `path.field`.
pub(super) fn unindexed<'a>(
    locate: &'a Locate<'a>,
    path: String,
) -> impl Fn(Range<usize>, &str, String) -> ContentError + 'a {
    let indexed = format!("{path}[0]");
    move |span, key, problem| {
        let key = key
            .strip_prefix(&indexed)
            .map_or_else(|| key.to_owned(), |rest| format!("{path}{rest}"));
        locate(span, &key, problem)
    }
}
