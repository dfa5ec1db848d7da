//! The optional extras of `GET /api/config`: announcement, limited event, patch notes, A/B test,
//! season preview, giveaway and changelog (a text).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use toml::Spanned;

use super::{ContentError, Locate};

/// The extras as validated; each is optional.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// A banner shown in the client.
    pub announcement: Option<Announcement>,
    /// A time-limited event, shown until it ends.
    pub limited_event: Option<LimitedEvent>,
    /// The notes of the current patch.
    pub patch_notes: Option<PatchNotes>,
    /// An A/B test; each signed-in account falls in one group, always the same.
    pub ab_test: Option<AbTest>,
    /// The preview of a coming or running season.
    pub season_preview: Option<SeasonPreview>,
    /// A giveaway, passed to clients as written.
    pub giveaway: Option<serde_json::Value>,
    /// The changelog: text shown as written (not blank, at most 10,000 characters).
    pub changelog: Option<String>,
}

/// The longest changelog the content file may hold, in characters.
const CHANGELOG_MAX_CHARS: usize = 10_000;

/// A banner: `{type, title, message, action}`.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Announcement {
    /// How it is styled.
    #[serde(rename = "type")]
    pub kind: AnnouncementKind,
    /// Its title.
    pub title: String,
    /// Its text.
    pub message: String,
    /// What its button does, if it has one (an address or a client action name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// The style of an announcement.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AnnouncementKind {
    /// Neutral.
    Info,
    /// Something to heed.
    Warning,
    /// Something serious.
    Danger,
}

/// A limited-time event.
#[derive(Debug, Clone)]
pub struct LimitedEvent {
    /// The event's name.
    pub name: String,
    /// The event's kind, as the client knows it.
    pub kind: String,
    /// A one-line pitch.
    pub tagline: String,
    /// When it ends; it is no longer shown after.
    pub ends: OffsetDateTime,
}

/// Patch notes: `{id, title, items}`.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchNotes {
    /// The patch's number.
    pub id: u32,
    /// The patch's title.
    pub title: String,
    /// The notes.
    pub items: Vec<PatchNote>,
}

/// One patch note.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchNote {
    /// Its title.
    pub title: String,
    /// Its text.
    pub description: String,
    /// An image address.
    pub image: String,
}

/// An A/B test with its groups.
#[derive(Debug, Clone)]
pub struct AbTest {
    /// The test's id.
    pub id: String,
    /// The groups; never empty.
    pub groups: Vec<String>,
}

/// A season preview: the season's number and its dates.
#[derive(Debug, Clone)]
pub struct SeasonPreview {
    /// The season's number.
    pub season: u32,
    /// When the season starts (day 1).
    pub starts: OffsetDateTime,
    /// When the preview's timer runs out.
    pub timer_ends: OffsetDateTime,
}

/// `[extras]` as written.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExtrasSection {
    announcement: Option<Announcement>,
    limited_event: Option<LimitedEventSection>,
    patch_notes: Option<PatchNotes>,
    ab_test: Option<AbTestSection>,
    season_preview: Option<SeasonPreviewSection>,
    giveaway: Option<serde_json::Value>,
    changelog: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitedEventSection {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    tagline: String,
    ends: Spanned<toml::value::Datetime>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AbTestSection {
    id: String,
    groups: Spanned<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeasonPreviewSection {
    season: u32,
    starts: Spanned<toml::value::Datetime>,
    timer_ends: Spanned<toml::value::Datetime>,
}

impl ExtrasSection {
    pub(super) fn validate(self, locate: &Locate<'_>) -> Result<Extras, ContentError> {
        let limited_event = self
            .limited_event
            .map(|event| {
                Ok::<_, ContentError>(LimitedEvent {
                    ends: instant(&event.ends, "extras.limited_event.ends", locate)?,
                    name: event.name,
                    kind: event.kind,
                    tagline: event.tagline,
                })
            })
            .transpose()?;
        let ab_test = self
            .ab_test
            .map(|test| {
                if test.groups.get_ref().is_empty() {
                    return Err(locate(
                        test.groups.span(),
                        "extras.ab_test.groups",
                        "needs at least one group".to_owned(),
                    ));
                }
                Ok(AbTest {
                    id: test.id,
                    groups: test.groups.into_inner(),
                })
            })
            .transpose()?;
        let season_preview = self
            .season_preview
            .map(|preview| {
                Ok::<_, ContentError>(SeasonPreview {
                    season: preview.season,
                    starts: instant(&preview.starts, "extras.season_preview.starts", locate)?,
                    timer_ends: instant(
                        &preview.timer_ends,
                        "extras.season_preview.timer_ends",
                        locate,
                    )?,
                })
            })
            .transpose()?;
        let changelog = self
            .changelog
            .map(|changelog| validate_changelog(changelog, locate))
            .transpose()?;
        Ok(Extras {
            announcement: self.announcement,
            limited_event,
            patch_notes: self.patch_notes,
            ab_test,
            season_preview,
            giveaway: self.giveaway,
            changelog,
        })
    }
}

/// The changelog's text: not blank, at most [`CHANGELOG_MAX_CHARS`] characters.
fn validate_changelog(
    changelog: Spanned<String>,
    locate: &Locate<'_>,
) -> Result<String, ContentError> {
    let text = changelog.get_ref();
    let problem = if text.trim().is_empty() {
        "must not be empty".to_owned()
    } else if text.chars().count() > CHANGELOG_MAX_CHARS {
        format!("is longer than {CHANGELOG_MAX_CHARS} characters")
    } else {
        return Ok(changelog.into_inner());
    };
    Err(locate(changelog.span(), "extras.changelog", problem))
}

/// A TOML date-time with an offset (`2026-12-31T23:59:59Z`) as a point in time.
fn instant(
    value: &Spanned<toml::value::Datetime>,
    key: &str,
    locate: &Locate<'_>,
) -> Result<OffsetDateTime, ContentError> {
    let text = value.get_ref().to_string();
    OffsetDateTime::parse(&text, &time::format_description::well_known::Rfc3339).map_err(|_| {
        locate(
            value.span(),
            key,
            format!("`{text}` needs a date, a time and an offset, e.g. 2026-12-31T23:59:59Z"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{MINIMAL, assert_refused, parse};
    use super::super::{Content, SHIPPED};

    #[test]
    fn the_shipped_changelog_is_text() {
        let changelog = Content::shipped().extras.changelog.unwrap();
        assert!(changelog.starts_with("2.8.1: "), "{changelog}");
        assert!(SHIPPED.contains(&changelog));
    }

    #[test]
    fn a_changelog_is_read_as_written() {
        let text = format!("{MINIMAL}\n[extras]\nchangelog = \"2.0: faster matchmaking\"\n");
        assert_eq!(
            parse(&text).extras.changelog.as_deref(),
            Some("2.0: faster matchmaking")
        );
        assert_eq!(parse(MINIMAL).extras.changelog, None);
    }

    #[test]
    fn a_blank_or_huge_changelog_is_refused() {
        for blank in ["", "  \\n "] {
            let text = format!("{MINIMAL}\n[extras]\nchangelog = \"{blank}\"\n");
            assert_refused(
                &text,
                "changelog = ",
                "extras.changelog",
                "must not be empty",
            );
        }
        let huge = "é".repeat(10_001);
        let text = format!("{MINIMAL}\n[extras]\nchangelog = \"{huge}\"\n");
        assert_refused(
            &text,
            "changelog = ",
            "extras.changelog",
            "is longer than 10000 characters",
        );
        let longest = format!("{MINIMAL}\n[extras]\nchangelog = \"{}\"\n", &huge[2..]);
        assert!(parse(&longest).extras.changelog.is_some());
    }

    #[test]
    fn a_changelog_table_is_refused_at_its_line() {
        let text = format!("{MINIMAL}\n[extras.changelog]\nurl = \"https://example.com\"\n");
        let error = Content::parse(&text, "test.toml").unwrap_err().to_string();
        let line = text[..text.find("[extras.changelog]").unwrap()]
            .matches('\n')
            .count()
            + 1;
        assert!(error.contains(&format!("line {line}")), "{error}");
        assert!(error.contains("string"), "{error}");
    }
}
