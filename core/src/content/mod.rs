//! The content file: the human-edited catalog and rules (the client configuration, the shop,
//! the claimable reward types, the friend-code rules, the level curve, quests and reward
//! tracks, the game modes and their boards), loaded and validated once at start-up.
//!
//! It is TOML. Loading rejects unknown keys, wrong types and bad values with a message that names
//! the file, the line and the problem: every section's first problem (a section that needs
//! another, as the tracks need the catalog, is checked only when that one passed).

mod catalog;
mod checks;
mod client;
mod deals;
mod error;
mod extras;
mod friend_code;
mod iaps;
mod items;
mod modes;
mod packs;
mod price;
mod progression;
mod quests;
mod recurrence;
mod reward_types;
mod rewards;
mod sections;
mod tracks;

pub use catalog::Catalog;
pub use client::ClientConfig;
pub use deals::TimedDeal;
pub use error::{ContentError, ContentProblem};
pub use extras::{
    AbTest, Announcement, Extras, LimitedEvent, PatchNote, PatchNotes, PreviewedSeason,
    SeasonPreview,
};
pub use friend_code::FriendCodeRules;
pub use iaps::{IapProduct, MAX_COST_CENTS};
pub use items::{Item, Rarity};
pub use modes::{GameModes, MAX_MODES, MAX_TEAM_SIZE, ModeRule};
pub use packs::{Drop, MAX_ITEMS_PER_OPEN, Pack};
pub use price::{MAX_PRICE, Price};
pub use progression::{
    LevelCurve, MAX_LEVEL, MAX_LEVEL_EXPERIENCE, MAX_MATCH_EXPERIENCE, MatchAward, Progression,
};
pub use quests::{
    DAILY_QUEST_ID_BASE, DailyQuests, MAX_FIXED_QUEST_ID, MAX_REQUIRED, MAX_STAT_KEY_LEN,
    MAX_TEMPLATE_ID, Quest, QuestBook, QuestTemplate,
};
pub use recurrence::{MAX_REPEAT_WEEKS, OCCURRENCE_ID_STRIDE, Occurrence, Recurrence};
pub use reward_types::{MAX_HOURS, MAX_TIMES_PER_DAY, RewardType, Schedule};
pub use rewards::{MAX_REWARD_QUANTITY, RewardSpec};
pub use tracks::{
    Challenge, Evolution, MAX_SEASON, MAX_STARS, MAX_TRACK_EXPERIENCE_PER_LEVEL, MAX_TRACK_ID,
    MAX_TRACK_LEVEL, RewardTrack, Tier, TrackDiscount,
};

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use time::OffsetDateTime;

use crate::domain::TrackId;

/// The shipped default content file.
pub const SHIPPED: &str = include_str!("../../content/safezone.toml");

/// Everything the game designers decide, validated.
#[derive(Debug, Clone)]
pub struct Content {
    /// What `GET /api/config` tells clients.
    pub client: ClientConfig,
    /// The optional extras of `GET /api/config`.
    pub extras: Extras,
    /// The shop: items, packs, timed deals and in-app purchase products.
    pub catalog: Catalog,
    /// The claimable reward types (first, gift, recurring, bonus, social, premium,
    /// coming_soon), in file order.
    pub reward_types: Vec<RewardType>,
    /// Friend-code rules.
    pub friend_code: FriendCodeRules,
    /// Player experience and levels (`[progression]`).
    pub progression: Progression,
    /// The fixed and daily quests (`[quests]`).
    pub quests: QuestBook,
    /// The reward tracks (season passes) as written, running or not, in file order
    /// (`[[tracks]]`); the runs of a repeating track come from [`Content::track`] and
    /// [`Content::tracks_at`].
    pub tracks: Vec<RewardTrack>,
    /// The game modes and which boards they have (`[[modes]]`, `[boards]`).
    pub modes: GameModes,
    /// The text it was read from.
    text: Arc<str>,
}

impl Content {
    /// The content file that ships with Safezone.
    ///
    /// # Panics
    /// Never for a released build: a test loads the shipped file.
    pub fn shipped() -> Self {
        match Self::parse(SHIPPED, "shipped content") {
            Ok(content) => content,
            Err(error) => panic!("{error}"),
        }
    }

    /// Reads and validates the content file at `path`.
    pub fn load(path: &Path) -> Result<Self, ContentError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| ContentError::unreadable(&origin, &error))?;
        Self::parse(&text, &origin)
    }

    /// Validates content text; `origin` names it in errors (a path, or "shipped content").
    ///
    /// ```
    /// use safezone_core::content::{Content, SHIPPED};
    ///
    /// let content = Content::parse(SHIPPED, "safezone.toml").unwrap();
    /// assert!(content.catalog.item_by_sku("outfit-ranger").is_some());
    ///
    /// let broken = SHIPPED.replacen("maintenance = false", "maintenance = 3", 1);
    /// let error = Content::parse(&broken, "safezone.toml").unwrap_err();
    /// assert!(error.to_string().contains("safezone.toml: line 13:"), "{error}");
    /// ```
    pub fn parse(text: &str, origin: &str) -> Result<Self, ContentError> {
        let (sections, mut problems) = sections::read(text, origin);
        let locate = |span: std::ops::Range<usize>, key: &str, problem: String| {
            ContentError::at(origin, text, span, key, problem)
        };
        let p = &mut problems;
        let catalog = match (
            sections.items,
            sections.packs,
            sections.timed_deals,
            sections.iaps,
        ) {
            (Some(items), Some(packs), Some(timed_deals), Some(iaps)) => kept(
                p,
                catalog::CatalogSections {
                    items,
                    packs,
                    timed_deals,
                    iaps,
                }
                .validate(&locate),
            ),
            _ => None,
        };
        let tracks = (sections.tracks)
            .zip(catalog.as_ref())
            .and_then(|(tracks, catalog)| kept(p, tracks::validate(tracks, catalog, &locate)));
        let client = (sections.client).and_then(|client| kept(p, client.validate(&locate)));
        let extras = (sections.extras)
            .zip(tracks.as_deref())
            .and_then(|(extras, tracks)| kept(p, extras.validate(tracks, &locate)));
        let reward_types = (sections.reward_types)
            .zip(catalog.as_ref())
            .and_then(|(types, catalog)| kept(p, reward_types::validate(types, catalog, &locate)));
        let friend_code = (sections.friend_code).and_then(|rules| kept(p, rules.validate(&locate)));
        let progression = (sections.progression)
            .zip(catalog.as_ref())
            .and_then(|(progression, catalog)| kept(p, progression.validate(catalog, &locate)));
        let quests = (sections.quests)
            .zip(catalog.as_ref())
            .and_then(|(quests, catalog)| kept(p, quests.validate(catalog, &locate)));
        let modes = (sections.modes)
            .zip(sections.boards)
            .and_then(|(modes, boards)| kept(p, modes::validate(modes, boards, &locate)));
        match (
            modes,
            client,
            extras,
            reward_types,
            friend_code,
            progression,
            quests,
            tracks,
            catalog,
        ) {
            (
                Some(modes),
                Some(client),
                Some(extras),
                Some(reward_types),
                Some(friend_code),
                Some(progression),
                Some(quests),
                Some(tracks),
                Some(catalog),
            ) if problems.is_empty() => Ok(Self {
                client,
                extras,
                reward_types,
                friend_code,
                progression,
                quests,
                tracks,
                catalog,
                modes,
                text: Arc::from(text),
            }),
            // A section is missing only with a problem: its own or that of one it needs.
            _ => Err(ContentError::merge(problems)),
        }
    }

    /// The text of the content file this content was read from (its fields may have been
    /// changed since, by code).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The reward track `id`: one as written, or a later run of a repeating one (whose id is
    /// `n *` [`OCCURRENCE_ID_STRIDE`] above the written id), running or not.
    pub fn track(&self, id: TrackId) -> Option<Cow<'_, RewardTrack>> {
        let (runs, written) = (
            id.0.div_euclid(OCCURRENCE_ID_STRIDE),
            id.0.rem_euclid(OCCURRENCE_ID_STRIDE),
        );
        self.tracks
            .iter()
            .find(|track| track.id.0 == written)
            .and_then(|track| track.later(runs))
    }

    /// The runs of the reward tracks that run at `now`, in file order.
    pub fn tracks_at(&self, now: OffsetDateTime) -> impl Iterator<Item = Cow<'_, RewardTrack>> {
        self.tracks
            .iter()
            .filter_map(move |track| track.running_at(now))
    }
}

/// The value of `result`, or `None` with its problem added to `problems`.
fn kept<T>(problems: &mut Vec<ContentError>, result: Result<T, ContentError>) -> Option<T> {
    result.map_err(|error| problems.push(error)).ok()
}

/// Turns a spanned problem into a [`ContentError`]; given to each section's validation.
pub(crate) type Locate<'a> = dyn Fn(std::ops::Range<usize>, &str, String) -> ContentError + 'a;

#[cfg(test)]
mod catalog_tests;
#[cfg(test)]
mod modes_tests;
#[cfg(test)]
mod progression_tests;
#[cfg(test)]
mod recurrence_tests;

/// Helpers for the content tests: a minimal valid file, and checks of errors.
#[cfg(test)]
mod testing {
    use super::Content;

    /// The smallest valid content file: a client configuration, the friend-code rules, the
    /// progression without rewards, an empty shop, no reward types, quests or tracks. Tests
    /// append sections to it.
    pub(super) const MINIMAL: &str = r#"
[client]
maintenance = false
disable_udp = false
version = "1.0.0"
environment = "test"
endpoint = "wss://localhost:7777"
regions = ["eu-west"]

[friend_code]
rename_cost_gems = 250

[progression.match_experience]
base = 50
per_kill = 25
per_minute_alive = 10
win_bonus = 200
top10_bonus = 50

[progression.levels]
max_level = 100
first = 500
increment = 100
"#;

    /// Two items (one for sale, one stock) and a pack, for tests of what refers to them.
    pub(super) const SHOP: &str = r#"
[[items]]
id = 1
sku = "outfit-ranger"
name = "Ranger"
type = "outfit"
category = "classic"
rarity = "Rare"
cost_coins = 1200

[[items]]
id = 2
sku = "emote-wave"
name = "Wave"
type = "emote"
category = "starter"
rarity = "Common"
is_stock = true

[[packs]]
id = 1
sku = "basic-chest"
name = "Basic Chest"
cost_coins = 500
items_per_open = 1
duplicate_coins = 100
drops = [{ sku = "outfit-ranger", weight = 1 }]
"#;

    /// [`MINIMAL`], then [`SHOP`], then `more`.
    pub(super) fn with_shop(more: &str) -> String {
        format!("{MINIMAL}{SHOP}{more}")
    }

    /// Parses `text`, which must be valid.
    pub(super) fn parse(text: &str) -> Content {
        Content::parse(text, "test.toml").unwrap()
    }

    /// Asserts that `text` is refused with an error naming the line where `at` first appears,
    /// the key `key` (or a key ending with it) and a problem containing `problem`.
    #[track_caller]
    pub(super) fn assert_refused(text: &str, at: &str, key: &str, problem: &str) {
        let offset = text
            .find(at)
            .unwrap_or_else(|| panic!("`{at}` is not in the text"));
        assert_refused_at(text, offset, key, problem);
    }

    /// Asserts that `text` is refused with an error naming the line of byte `offset`, the key
    /// `key` (or a key ending with it) and a problem containing `problem`.
    #[track_caller]
    pub(super) fn assert_refused_at(text: &str, offset: usize, key: &str, problem: &str) {
        let error = match Content::parse(text, "test.toml") {
            Ok(_) => panic!("accepted, but should fail at `{key}`:\n{text}"),
            Err(error) => error.to_string(),
        };
        let line = text[..offset].matches('\n').count() + 1;
        assert!(error.starts_with("content file test.toml:"), "{error}");
        assert!(
            error.contains(&format!(" line {line}:")),
            "not line {line}: {error}"
        );
        assert!(
            error.contains(&format!("{key}`: ")),
            "not key {key}: {error}"
        );
        assert!(error.contains(problem), "not `{problem}`: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_content_is_valid() {
        let content = Content::parse(SHIPPED, "shipped").unwrap();
        assert!(!content.client.regions.is_empty());
    }

    #[test]
    fn errors_name_line_and_key() {
        let text = SHIPPED.replacen("android = \"2.7.5\"", "android = \"2.x\"", 1);
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        assert!(error.contains("test.toml"), "{error}");
        assert!(error.contains("client.minimum_version.android"), "{error}");
        assert!(error.contains("line "), "{error}");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let text = SHIPPED.replacen("[client]", "[client]\nmaintenence = true", 1);
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        assert!(error.contains("maintenence"), "{error}");
        assert!(error.contains("line "), "{error}");
    }

    /// The line of the first appearance of `at` in `text`.
    fn line_of(text: &str, at: &str) -> usize {
        text[..text.find(at).unwrap()].matches('\n').count() + 1
    }

    #[test]
    fn every_section_reports_its_problem() {
        let text = SHIPPED
            .replacen("maintenance = false", "maintenance = 3", 1)
            .replacen("sku = \"outfit-ranger\"", "sku = \"Outfit Ranger\"", 1)
            .replacen("rename_cost_gems = ", "rename_cost_gems = -", 1)
            .replacen("[client]", "surprise = 1\n[client]", 1);
        let error = Content::parse(&text, "test.toml").unwrap_err();
        let lines: Vec<_> = error.problems().iter().map(ContentProblem::line).collect();
        let expected = [
            line_of(&text, "surprise"),
            line_of(&text, "maintenance = 3"),
            line_of(&text, "Outfit Ranger"),
            line_of(&text, "rename_cost_gems"),
        ];
        assert_eq!(lines, expected.map(Some), "{error}");
        assert_eq!(error.line(), Some(expected[0]));
        assert!(error.to_string().contains("surprise"), "{error}");
        assert_eq!(error.to_string().lines().count(), 4, "{error}");
    }

    #[test]
    fn a_file_that_is_not_toml_has_one_problem() {
        let error = Content::parse("[client\nmaintenance = 3\n", "test.toml").unwrap_err();
        assert_eq!(error.problems().len(), 1, "{error}");
        assert_eq!(error.line(), Some(1));
    }
}
