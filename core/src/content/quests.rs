//! Quests (`[quests]`): fixed quests that run for a time window, and the daily quests drawn
//! each UTC day from templates. Also the checks that quests share with reward-track challenges
//! and evolutions: stat keys, required counts and a single reward.

use serde::Deserialize;
use time::{Duration, OffsetDateTime};
use toml::Spanned;

use super::catalog::Catalog;
use super::checks::{Entry, Unique};
use super::progression::unindexed;
use super::recurrence;
use super::rewards::{self, RewardSection, RewardSpec};
use super::{ContentError, Locate};
use crate::domain::QuestId;

/// A daily quest's id is `day * DAILY_QUEST_ID_BASE + template id`, where `day` counts UTC days
/// since 1970-01-01; template ids stay below it, fixed quest ids below
/// [`MAX_FIXED_QUEST_ID`], so that no two quests ever share an id.
pub const DAILY_QUEST_ID_BASE: i64 = 1000;

/// The highest id of a fixed quest: 999 999, below every daily quest's id from 1972 on.
pub const MAX_FIXED_QUEST_ID: i64 = 999_999;

/// The highest id of a daily quest template.
pub const MAX_TEMPLATE_ID: i64 = DAILY_QUEST_ID_BASE - 1;

/// The highest count a quest, challenge or evolution may require of its stat.
pub const MAX_REQUIRED: i64 = 1_000_000_000;

/// The longest stat key, in characters.
pub const MAX_STAT_KEY_LEN: usize = 64;

/// The seconds of a day.
const DAY_SECONDS: i64 = 86_400;

/// A quest: reach `required` of the stat `stat_key` between `starts` and `ends` to earn
/// `reward`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quest {
    /// Its id: a fixed quest's from the file (1 to [`MAX_FIXED_QUEST_ID`]), a daily quest's
    /// from its day and template (see [`DAILY_QUEST_ID_BASE`]).
    pub id: QuestId,
    /// Its name, as shown to players.
    pub name: String,
    /// The stat it counts (`kills`, `mode_wins_squad`, ...): 1 to [`MAX_STAT_KEY_LEN`] of
    /// `a-z`, `0-9` and `_`.
    pub stat_key: String,
    /// How much of the stat completes it, 1 to [`MAX_REQUIRED`].
    pub required: i64,
    /// What completing it grants.
    pub reward: RewardSpec,
    /// When it starts.
    pub starts: OffsetDateTime,
    /// When it ends; after `starts`.
    pub ends: OffsetDateTime,
}

/// Every quest of the content file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuestBook {
    /// The fixed quests, running or not, sorted by id.
    pub fixed: Vec<Quest>,
    /// The daily quests, if any.
    pub daily: Option<DailyQuests>,
}

/// The daily quests: each UTC day, `count` of the templates, drawn from the day alone (the same
/// on every server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailyQuests {
    /// How many quests each day has, 1 to the number of templates.
    pub count: usize,
    /// The templates, sorted by id.
    pub templates: Vec<QuestTemplate>,
}

/// What a daily quest is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestTemplate {
    /// Its id, 1 to [`MAX_TEMPLATE_ID`]; unique among templates.
    pub id: i64,
    /// The quests' name.
    pub name: String,
    /// The stat the quests count (see [`Quest::stat_key`]).
    pub stat_key: String,
    /// How much of the stat completes a quest, 1 to [`MAX_REQUIRED`].
    pub required: i64,
    /// What completing a quest grants.
    pub reward: RewardSpec,
}

impl QuestBook {
    /// The quests running at `now`: the fixed ones with `starts <= now < ends`, then the day's
    /// daily quests (from that UTC midnight to the next), each group sorted by id.
    ///
    /// ```
    /// use safezone_core::content::Content;
    /// use time::macros::datetime;
    ///
    /// let quests = Content::shipped().quests;
    /// let today = quests.active(datetime!(2026-12-01 12:00 UTC));
    /// let again = quests.active(datetime!(2026-12-01 23:59:59 UTC));
    /// assert_eq!(today, again);
    /// ```
    pub fn active(&self, now: OffsetDateTime) -> Vec<Quest> {
        let running = self
            .fixed
            .iter()
            .filter(|quest| quest.starts <= now && now < quest.ends)
            .cloned();
        let daily = self
            .daily
            .as_ref()
            .map_or_else(Vec::new, |daily| daily.on(now));
        running.chain(daily).collect()
    }
}

impl DailyQuests {
    /// The daily quests of the UTC day of `now`, sorted by id.
    fn on(&self, now: OffsetDateTime) -> Vec<Quest> {
        let day = now.unix_timestamp().div_euclid(DAY_SECONDS);
        let Ok(starts) = OffsetDateTime::from_unix_timestamp(day.saturating_mul(DAY_SECONDS))
        else {
            return Vec::new();
        };
        let Some(ends) = starts.checked_add(Duration::DAY) else {
            return Vec::new();
        };
        let mut picked: Vec<&QuestTemplate> = draw(day, self.templates.len(), self.count)
            .into_iter()
            .filter_map(|index| self.templates.get(index))
            .collect();
        picked.sort_by_key(|template| template.id);
        picked
            .into_iter()
            .map(|template| Quest {
                id: QuestId(
                    day.saturating_mul(DAILY_QUEST_ID_BASE)
                        .saturating_add(template.id),
                ),
                name: template.name.clone(),
                stat_key: template.stat_key.clone(),
                required: template.required,
                reward: template.reward,
                starts,
                ends,
            })
            .collect()
    }
}

/// `count` distinct indexes below `len`, drawn from `day` alone: a partial Fisher-Yates shuffle
/// driven by SplitMix64 seeded with the day. Written out here rather than taken from a library
/// so that an upgrade can never change the quests of a day.
fn draw(day: i64, len: usize, count: usize) -> Vec<usize> {
    let mut state = u64::from_le_bytes(day.to_le_bytes());
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut indexes: Vec<usize> = (0..len).collect();
    let count = count.min(len);
    for at in 0..count {
        let left = (len - at) as u64;
        // `left` is at most `len`, so the remainder fits a usize.
        let offset = usize::try_from(next() % left).unwrap_or(0);
        indexes.swap(at, at + offset);
    }
    indexes.truncate(count);
    indexes
}

/// `[quests]` as written.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct QuestsSection {
    #[serde(default)]
    fixed: Vec<Spanned<FixedQuestSection>>,
    daily: Option<DailySection>,
}

/// `[[quests.fixed]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixedQuestSection {
    id: Spanned<i64>,
    name: Spanned<String>,
    stat_key: Spanned<String>,
    required: Spanned<i64>,
    reward: Spanned<RewardSection>,
    starts: Spanned<toml::value::Datetime>,
    ends: Spanned<toml::value::Datetime>,
}

/// `[quests.daily]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DailySection {
    count: Spanned<usize>,
    templates: Spanned<Vec<Spanned<TemplateSection>>>,
}

/// `[[quests.daily.templates]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateSection {
    id: Spanned<i64>,
    name: Spanned<String>,
    stat_key: Spanned<String>,
    required: Spanned<i64>,
    reward: Spanned<RewardSection>,
}

impl QuestsSection {
    /// Validates the quests; their rewards name items and packs of `catalog`.
    pub(super) fn validate(
        self,
        catalog: &Catalog,
        locate: &Locate<'_>,
    ) -> Result<QuestBook, ContentError> {
        let mut ids = Unique::new("id");
        let mut fixed = Vec::with_capacity(self.fixed.len());
        for (index, section) in self.fixed.iter().enumerate() {
            let section = section.get_ref();
            let label = format!("quest {}", section.id.get_ref());
            let keys = unindexed(locate, format!("quests.fixed[{index}].reward"));
            let entry = Entry::new(&keys, "quests.fixed", index, label);
            let quest = section.validate(&entry, catalog)?;
            ids.claim(&entry, section.id.span(), "id", quest.id.0)?;
            fixed.push(quest);
        }
        fixed.sort_by_key(|quest| quest.id);
        let daily = self
            .daily
            .map(|daily| daily.validate(catalog, locate))
            .transpose()?;
        Ok(QuestBook { fixed, daily })
    }
}

impl FixedQuestSection {
    fn validate(&self, entry: &Entry<'_, '_>, catalog: &Catalog) -> Result<Quest, ContentError> {
        let id = QuestId(entry.int(&self.id, "id", 1..=MAX_FIXED_QUEST_ID)?);
        let name = entry.name(&self.name, "name")?;
        let stat_key = stat_key(entry, &self.stat_key)?;
        let required = entry.int(&self.required, "required", 1..=MAX_REQUIRED)?;
        let reward = one_reward(entry, &self.reward, catalog)?;
        let runs = recurrence::validate(entry, &self.starts, &self.ends, None)?;
        let (starts, ends) = (runs.starts, runs.ends);
        Ok(Quest {
            id,
            name,
            stat_key,
            required,
            reward,
            starts,
            ends,
        })
    }
}

impl DailySection {
    fn validate(self, catalog: &Catalog, locate: &Locate<'_>) -> Result<DailyQuests, ContentError> {
        const PATH: &str = "quests.daily";
        let keys = unindexed(locate, PATH.to_owned());
        let daily = Entry::new(&keys, PATH, 0, "daily quests".to_owned());
        let sections = self.templates.get_ref();
        if sections.is_empty() {
            return Err(daily.error(
                self.templates.span(),
                "templates",
                "needs at least one template",
            ));
        }
        let mut ids = Unique::new("id");
        let mut templates = Vec::with_capacity(sections.len());
        for (index, section) in sections.iter().enumerate() {
            let section = section.get_ref();
            let label = format!("daily quest template {}", section.id.get_ref());
            let keys = unindexed(locate, format!("{PATH}.templates[{index}].reward"));
            let entry = Entry::new(&keys, &format!("{PATH}.templates"), index, label);
            let template = section.validate(&entry, catalog)?;
            ids.claim(&entry, section.id.span(), "id", template.id)?;
            templates.push(template);
        }
        templates.sort_by_key(|template| template.id);
        let count = daily.int(&self.count, "count", 1..=templates.len())?;
        Ok(DailyQuests { count, templates })
    }
}

impl TemplateSection {
    fn validate(
        &self,
        entry: &Entry<'_, '_>,
        catalog: &Catalog,
    ) -> Result<QuestTemplate, ContentError> {
        Ok(QuestTemplate {
            id: entry.int(&self.id, "id", 1..=MAX_TEMPLATE_ID)?,
            name: entry.name(&self.name, "name")?,
            stat_key: stat_key(entry, &self.stat_key)?,
            required: entry.int(&self.required, "required", 1..=MAX_REQUIRED)?,
            reward: one_reward(entry, &self.reward, catalog)?,
        })
    }
}

/// The `stat_key` of `entry`: 1 to [`MAX_STAT_KEY_LEN`] of `a-z`, `0-9` and `_`.
pub(super) fn stat_key(
    entry: &Entry<'_, '_>,
    value: &Spanned<String>,
) -> Result<String, ContentError> {
    let key = value.get_ref();
    let well_formed = (1..=MAX_STAT_KEY_LEN).contains(&key.len())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if well_formed {
        Ok(key.clone())
    } else {
        Err(entry.error(
            value.span(),
            "stat_key",
            format!(
                "`{key}` is not a stat key; write 1 to {MAX_STAT_KEY_LEN} of a-z, 0-9 and _ \
                 (e.g. kills, mode_wins_squad)"
            ),
        ))
    }
}

/// The one reward `reward = { ... }` of `entry`, validated like an entry of a list of rewards.
/// Build `entry` on [`unindexed`] for its `reward`, so that errors name `...reward.sku` rather
/// than `...reward[0].sku`.
pub(super) fn one_reward(
    entry: &Entry<'_, '_>,
    section: &Spanned<RewardSection>,
    catalog: &Catalog,
) -> Result<RewardSpec, ContentError> {
    let list = rewards::validate_list(entry, "reward", std::slice::from_ref(section), catalog)?;
    list.first()
        .copied()
        .ok_or_else(|| entry.error(section.span(), "reward", "needs a reward"))
}
