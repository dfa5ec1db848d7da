//! The content file: the human-edited catalog and rules (the client configuration, the shop,
//! the claimable reward types, the friend-code rules, the level curve, quests and reward
//! tracks), loaded and validated once at start-up.
//!
//! It is TOML. Loading rejects unknown keys, wrong types and bad values with a message that names
//! the file, the line and the problem.

mod catalog;
mod checks;
mod client;
mod deals;
mod error;
mod extras;
mod friend_code;
mod iaps;
mod items;
mod packs;
mod price;
mod progression;
mod quests;
mod recurrence;
mod reward_types;
mod rewards;
mod tracks;

pub use catalog::Catalog;
pub use client::ClientConfig;
pub use deals::TimedDeal;
pub use error::ContentError;
pub use extras::{
    AbTest, Announcement, Extras, LimitedEvent, PatchNote, PatchNotes, PreviewedSeason,
    SeasonPreview,
};
pub use friend_code::FriendCodeRules;
pub use iaps::{IapProduct, MAX_COST_CENTS};
pub use items::{Item, Rarity};
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

use serde::Deserialize;
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
    /// The text it was read from.
    text: Arc<str>,
}

/// The file as written, before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentFile {
    client: client::ClientSection,
    #[serde(default)]
    extras: extras::ExtrasSection,
    #[serde(default)]
    items: Vec<toml::Spanned<items::ItemSection>>,
    #[serde(default)]
    packs: Vec<toml::Spanned<packs::PackSection>>,
    #[serde(default)]
    timed_deals: Vec<toml::Spanned<deals::DealSection>>,
    #[serde(default)]
    iaps: Vec<toml::Spanned<iaps::IapSection>>,
    #[serde(default)]
    reward_types: Vec<toml::Spanned<reward_types::RewardTypeSection>>,
    friend_code: friend_code::FriendCodeSection,
    progression: progression::ProgressionSection,
    #[serde(default)]
    quests: quests::QuestsSection,
    #[serde(default)]
    tracks: Vec<toml::Spanned<tracks::TrackSection>>,
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
        let file: ContentFile =
            toml::from_str(text).map_err(|error| ContentError::syntax(origin, text, &error))?;
        let locate = |span: std::ops::Range<usize>, key: &str, problem: String| {
            ContentError::at(origin, text, span, key, problem)
        };
        let catalog = catalog::CatalogSections {
            items: file.items,
            packs: file.packs,
            timed_deals: file.timed_deals,
            iaps: file.iaps,
        }
        .validate(&locate)?;
        let tracks = tracks::validate(file.tracks, &catalog, &locate)?;
        Ok(Self {
            client: file.client.validate(&locate)?,
            extras: file.extras.validate(&tracks, &locate)?,
            reward_types: reward_types::validate(file.reward_types, &catalog, &locate)?,
            friend_code: file.friend_code.validate(&locate)?,
            progression: file.progression.validate(&catalog, &locate)?,
            quests: file.quests.validate(&catalog, &locate)?,
            tracks,
            catalog,
            text: Arc::from(text),
        })
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

/// Turns a spanned problem into a [`ContentError`]; given to each section's validation.
pub(crate) type Locate<'a> = dyn Fn(std::ops::Range<usize>, &str, String) -> ContentError + 'a;

#[cfg(test)]
mod catalog_tests;
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
}
