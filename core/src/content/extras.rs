//! The optional extras of `GET /api/config`: announcement, limited event, patch notes, A/B test,
//! season preview, giveaway and changelog (a text).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use toml::Spanned;

use super::checks::Entry;
use super::progression::unindexed;
use super::recurrence::{self, Recurrence};
use super::{ContentError, Locate, RewardTrack};

/// The extras as validated; each is optional.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// A banner shown in the client.
    pub announcement: Option<Announcement>,
    /// A time-limited event, shown while a run of it runs.
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
    /// When it is shown: from `starts` (from the beginning of time when the file leaves it
    /// out) until `ends`, and again every `repeat_weeks` weeks when it repeats.
    pub runs: Recurrence,
}

impl LimitedEvent {
    /// When the run shown at `now` ends; `None` when no run is shown.
    pub fn shown_until(&self, now: OffsetDateTime) -> Option<OffsetDateTime> {
        self.runs.running_at(now).map(|run| run.ends)
    }
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

/// A season preview: the season's number and its dates, as written or as a reward track's.
#[derive(Debug, Clone)]
pub struct SeasonPreview {
    /// The first season's number; each later run's is one more.
    pub season: i64,
    /// From when (day 1 of the season) until when (the timer's end) the first season runs, and
    /// how often a new one starts.
    pub runs: Recurrence,
}

/// The season a preview shows at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewedSeason {
    /// Its number.
    pub season: i64,
    /// Its day 1.
    pub starts: OffsetDateTime,
    /// When the preview's timer runs out.
    pub timer_ends: OffsetDateTime,
}

impl SeasonPreview {
    /// The season shown at `now`: the one running, or else the next; `None` once the last
    /// has ended.
    pub fn at(&self, now: OffsetDateTime) -> Option<PreviewedSeason> {
        let run = self.runs.current_or_next(now)?;
        Some(PreviewedSeason {
            season: self.season.checked_add(run.number)?,
            starts: run.starts,
            timer_ends: run.ends,
        })
    }
}

/// `[extras]` as written.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExtrasSection {
    announcement: Option<Announcement>,
    limited_event: Option<LimitedEventSection>,
    patch_notes: Option<PatchNotes>,
    ab_test: Option<AbTestSection>,
    season_preview: Option<Spanned<SeasonPreviewSection>>,
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
    starts: Option<Spanned<toml::value::Datetime>>,
    ends: Spanned<toml::value::Datetime>,
    repeat_weeks: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AbTestSection {
    id: String,
    groups: Spanned<Vec<String>>,
}

/// `[extras.season_preview]`: either `track` alone, or `season`, `starts`, `timer_ends` and
/// an optional `repeat_weeks`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeasonPreviewSection {
    track: Option<Spanned<i64>>,
    season: Option<Spanned<i64>>,
    starts: Option<Spanned<toml::value::Datetime>>,
    timer_ends: Option<Spanned<toml::value::Datetime>>,
    repeat_weeks: Option<Spanned<i64>>,
}

impl ExtrasSection {
    /// Validates the extras; a season preview may follow one of `tracks`.
    pub(super) fn validate(
        self,
        tracks: &[RewardTrack],
        locate: &Locate<'_>,
    ) -> Result<Extras, ContentError> {
        let limited_event = self
            .limited_event
            .map(|event| event.validate(locate))
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
            .map(|preview| validate_season_preview(&preview, tracks, locate))
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

impl LimitedEventSection {
    /// Shown from `starts` (or always) until `ends`; `repeat_weeks` needs `starts`.
    fn validate(self, locate: &Locate<'_>) -> Result<LimitedEvent, ContentError> {
        const PATH: &str = "extras.limited_event";
        let keys = unindexed(locate, PATH.to_owned());
        let entry = Entry::new(&keys, PATH, 0, "the limited event".to_owned());
        let runs = match (&self.starts, &self.repeat_weeks) {
            (Some(starts), repeat_weeks) => {
                recurrence::validate(&entry, starts, &self.ends, repeat_weeks.as_ref())?
            }
            (None, Some(repeat_weeks)) => {
                return Err(entry.error(
                    repeat_weeks.span(),
                    "repeat_weeks",
                    "a repeating event needs `starts`, the start of its first run",
                ));
            }
            (None, None) => Recurrence::once(
                OffsetDateTime::UNIX_EPOCH,
                entry.instant(&self.ends, "ends")?,
            ),
        };
        Ok(LimitedEvent {
            name: self.name,
            kind: self.kind,
            tagline: self.tagline,
            runs,
        })
    }
}

/// The season preview: the running season of the reward track `track` (its number, its first
/// day and its end), or the season and dates written.
fn validate_season_preview(
    section: &Spanned<SeasonPreviewSection>,
    tracks: &[RewardTrack],
    locate: &Locate<'_>,
) -> Result<SeasonPreview, ContentError> {
    const PATH: &str = "extras.season_preview";
    let keys = unindexed(locate, PATH.to_owned());
    let entry = Entry::new(&keys, PATH, 0, "the season preview".to_owned());
    let preview = section.get_ref();
    if let Some(track_id) = &preview.track {
        let written = [
            ("season", preview.season.as_ref().map(Spanned::span)),
            ("starts", preview.starts.as_ref().map(Spanned::span)),
            ("timer_ends", preview.timer_ends.as_ref().map(Spanned::span)),
            (
                "repeat_weeks",
                preview.repeat_weeks.as_ref().map(Spanned::span),
            ),
        ];
        if let Some((field, Some(span))) = written.into_iter().find(|(_, span)| span.is_some()) {
            return Err(entry.error(
                span,
                field,
                "a preview of a `track` takes the season and its dates from the track: leave \
                 out season, starts, timer_ends and repeat_weeks",
            ));
        }
        let track = tracks
            .iter()
            .find(|track| track.id.0 == *track_id.get_ref())
            .ok_or_else(|| {
                entry.error(
                    track_id.span(),
                    "track",
                    format!("there is no reward track {}", track_id.get_ref()),
                )
            })?;
        return Ok(SeasonPreview {
            season: track.season,
            runs: Recurrence {
                starts: track.starts,
                ends: track.ends,
                every: track.repeat_every,
            },
        });
    }
    let required = |field: &str| {
        entry.error(
            section.span(),
            field,
            format!("needs `{field}`, or `track` (a reward track to follow)"),
        )
    };
    let season = preview.season.as_ref().ok_or_else(|| required("season"))?;
    let starts = preview.starts.as_ref().ok_or_else(|| required("starts"))?;
    let timer_ends = (preview.timer_ends.as_ref()).ok_or_else(|| required("timer_ends"))?;
    Ok(SeasonPreview {
        season: entry.int(season, "season", 0..=super::MAX_SEASON)?,
        runs: recurrence::validate_named(
            &entry,
            starts,
            (timer_ends, "timer_ends"),
            preview.repeat_weeks.as_ref(),
        )?,
    })
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
