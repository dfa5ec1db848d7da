//! The claimable reward types (`[[reward_types]]`): what each grants and how often it can be
//! claimed.

use serde::Deserialize;
use toml::Spanned;

use super::catalog::Catalog;
use super::checks::{Entry, Unique};
use super::rewards::{self, RewardSection, RewardSpec};
use super::{ContentError, Locate};

/// The longest gap between two claims of an [`Schedule::EveryHours`] type: 30 days.
pub const MAX_HOURS: u32 = 720;

/// The most claims per day of a [`Schedule::PerDay`] type.
pub const MAX_TIMES_PER_DAY: u32 = 100;

/// A reward type players claim (`first`, `gift`, `recurring`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardType {
    /// Its name, as clients ask for it: 1 to 32 of `a-z`, `0-9` and `_`; unique.
    pub name: String,
    /// How often it can be claimed.
    pub schedule: Schedule,
    /// Whether only premium subscribers may claim it.
    pub requires_premium: bool,
    /// What a claim grants; empty only for a [`Schedule::Never`] type.
    pub rewards: Vec<RewardSpec>,
}

/// How often a reward type can be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Once per account, ever (`schedule = "once"`).
    Once,
    /// Again once this many hours, 1 to [`MAX_HOURS`], have passed since the last claim
    /// (`schedule = "every_hours"`, `hours = 4`).
    EveryHours(u32),
    /// Up to this many times, 1 to [`MAX_TIMES_PER_DAY`], per UTC day
    /// (`schedule = "per_day"`, `times = 3`).
    PerDay(u32),
    /// Not claimable (yet): listed, never available (`schedule = "never"`).
    Never,
}

/// The schedules as written.
const KNOWN: [&str; 4] = ["once", "every_hours", "per_day", "never"];

/// `[[reward_types]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RewardTypeSection {
    name: Spanned<String>,
    schedule: Spanned<String>,
    hours: Option<Spanned<u32>>,
    times: Option<Spanned<u32>>,
    #[serde(default)]
    requires_premium: bool,
    rewards: Option<Spanned<Vec<Spanned<RewardSection>>>>,
}

/// Validates the reward types, in file order; their rewards name items and packs of `catalog`.
pub(super) fn validate(
    sections: Vec<Spanned<RewardTypeSection>>,
    catalog: &Catalog,
    locate: &Locate<'_>,
) -> Result<Vec<RewardType>, ContentError> {
    let mut names = Unique::new("name");
    let mut types = Vec::with_capacity(sections.len());
    for (index, section) in sections.into_iter().enumerate() {
        let span = section.span();
        let section = section.into_inner();
        let entry = Entry::new(
            locate,
            "reward_types",
            index,
            format!("reward type `{}`", section.name.get_ref()),
        );
        let reward_type = section.validate(&entry, span, catalog)?;
        names.claim(
            &entry,
            section.name.span(),
            "name",
            reward_type.name.clone(),
        )?;
        types.push(reward_type);
    }
    Ok(types)
}

impl RewardTypeSection {
    fn validate(
        &self,
        entry: &Entry<'_, '_>,
        span: std::ops::Range<usize>,
        catalog: &Catalog,
    ) -> Result<RewardType, ContentError> {
        let name = self.name.get_ref();
        let well_formed = (1..=32).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !well_formed {
            return Err(entry.error(
                self.name.span(),
                "name",
                "a reward type's name is 1 to 32 of a-z, 0-9 and _",
            ));
        }
        let schedule = self.schedule(entry, span.clone())?;
        let sections = self.rewards.as_ref().map_or(&[][..], |list| list.get_ref());
        let rewards = rewards::validate_list(entry, "rewards", sections, catalog)?;
        if rewards.is_empty() && schedule != Schedule::Never {
            let span = self.rewards.as_ref().map_or(span, Spanned::span);
            return Err(entry.error(
                span,
                "rewards",
                "needs at least one reward (only a `never` type may have none)",
            ));
        }
        Ok(RewardType {
            name: name.clone(),
            schedule,
            requires_premium: self.requires_premium,
            rewards,
        })
    }

    fn schedule(
        &self,
        entry: &Entry<'_, '_>,
        span: std::ops::Range<usize>,
    ) -> Result<Schedule, ContentError> {
        let schedule = self.schedule.get_ref().as_str();
        let needed = |value: &Option<Spanned<u32>>, field: &str| {
            value.clone().ok_or_else(|| {
                entry.error(
                    span.clone(),
                    field,
                    format!("schedule = \"{schedule}\" needs `{field}`"),
                )
            })
        };
        let misplaced = [
            (&self.hours, "hours", "every_hours"),
            (&self.times, "times", "per_day"),
        ]
        .into_iter()
        .find(|(value, _, owner)| {
            value.is_some() && schedule != *owner && KNOWN.contains(&schedule)
        });
        if let Some((Some(value), field, owner)) = misplaced {
            return Err(entry.error(
                value.span(),
                field,
                format!("`{field}` belongs to schedule = \"{owner}\", not \"{schedule}\""),
            ));
        }
        let parsed = match schedule {
            "once" => Schedule::Once,
            "never" => Schedule::Never,
            "every_hours" => {
                let hours = needed(&self.hours, "hours")?;
                Schedule::EveryHours(entry.int(&hours, "hours", 1..=MAX_HOURS)?)
            }
            "per_day" => {
                let times = needed(&self.times, "times")?;
                Schedule::PerDay(entry.int(&times, "times", 1..=MAX_TIMES_PER_DAY)?)
            }
            _ => {
                return Err(entry.error(
                    self.schedule.span(),
                    "schedule",
                    format!(
                        "`{schedule}` is not a schedule; write once, every_hours, per_day or never"
                    ),
                ));
            }
        };
        Ok(parsed)
    }
}
