//! What `GET /api/config` answers, prepared once for each content a node serves
//! ([`PreparedConfig`]): the parts only the content decides serialized once, and the whole
//! answers kept per kind of caller until their timers move on.

use std::collections::HashMap;
use std::sync::RwLock;

use bytes::Bytes;
use serde::Serialize;
use serde_json::value::RawValue;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::content::{Announcement, Content, Extras, PatchNotes, PreviewedSeason};
use crate::domain::{ApiDate, GameMode, format_plain_datetime};

/// `{config, extras}`; the parts that only the content decides come prepared
/// ([`PreparedConfig`]).
#[derive(Serialize, ToSchema)]
pub(crate) struct ConfigAnswer<'a> {
    #[schema(value_type = ConfigView)]
    config: &'a RawValue,
    extras: ExtrasView<'a>,
}

/// The client configuration.
#[derive(Serialize, ToSchema)]
pub(crate) struct ConfigView<'a> {
    maintenance: bool,
    /// Whether this client's platform and versions must update first.
    update_required: bool,
    disable_udp: bool,
    version: &'a str,
    environment: &'a str,
    endpoint: &'a str,
    regions: &'a [String],
    /// The game modes the content names, in its order, with their team sizes.
    modes: &'a [ModeView<'a>],
}

/// A game mode: `{name, team_size}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct ModeView<'a> {
    /// The mode's name, as match reports and leaderboards name it.
    #[schema(value_type = GameMode)]
    name: &'a str,
    /// Players per team (content data for clients: a match report carries no teams).
    #[schema(minimum = 1, maximum = 100)]
    team_size: u8,
}

/// The extras (none when `isPolledUpdate=true`).
#[derive(Serialize, Default, ToSchema)]
pub(crate) struct ExtrasView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Announcement>)]
    announcement: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limited_event: Option<LimitedEventView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PatchNotes>)]
    patch_notes: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ab_test: Option<AbTestView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    season_preview: Option<SeasonPreviewView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Value>)]
    giveaway: Option<&'a RawValue>,
    /// The changelog, as the content file writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 10000)]
    changelog: Option<&'a RawValue>,
}

/// A limited-time event that has not ended.
#[derive(Serialize, ToSchema)]
pub(crate) struct LimitedEventView<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    tagline: &'a str,
    ends: ApiDate,
}

/// The caller's group of the A/B test (signed-in callers only).
#[derive(Serialize, ToSchema)]
pub(crate) struct AbTestView<'a> {
    id: &'a str,
    group: &'a str,
}

/// A season preview whose timer runs.
#[derive(Serialize, ToSchema)]
pub(crate) struct SeasonPreviewView {
    season: i64,
    /// Day 1 is the season's first day; 0 before it starts.
    #[schema(minimum = 0)]
    current_day: i64,
    /// `YYYY-MM-DD HH:MM:SS` in UTC.
    #[schema(pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$")]
    timer_ends: String,
}

/// What of the request and the caller an answer depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Asker {
    pub(crate) update_required: bool,
    pub(crate) polled: bool,
    /// The caller's A/B group, by its place in the test's groups (signed-in callers while a
    /// test runs and the extras are asked for).
    pub(crate) group: Option<usize>,
}

/// What of the time an answer depends on (nothing for a poll).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Timers {
    /// When the limited event ends, while it is shown.
    pub(crate) event_ends: Option<OffsetDateTime>,
    /// The season preview, while its timer runs.
    pub(crate) season: Option<SeasonKey>,
}

/// The season preview's figures at a time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeasonKey {
    season: i64,
    /// Day 1 is the season's first day; before it starts, the day is 0.
    current_day: i64,
    timer_ends: OffsetDateTime,
}

impl SeasonKey {
    pub(crate) fn at(preview: PreviewedSeason, now: OffsetDateTime) -> Self {
        let elapsed = now - preview.starts;
        let current_day = if elapsed.is_negative() {
            0
        } else {
            elapsed.whole_days() + 1
        };
        Self {
            season: preview.season,
            current_day,
            timer_ends: preview.timer_ends,
        }
    }
}

/// The parts of the answer that only the content decides, serialized once per content: the
/// configuration (for either `update_required`) and the extras that do not depend on the time
/// or the caller; and the whole answers last sent, one per kind of caller and request.
pub(crate) struct PreparedConfig {
    config_current: Box<RawValue>,
    config_update_required: Box<RawValue>,
    announcement: Option<Box<RawValue>>,
    patch_notes: Option<Box<RawValue>>,
    giveaway: Option<Box<RawValue>>,
    changelog: Option<Box<RawValue>>,
    /// The newest answer's bytes per kind of asker, each replaced when its timers move on
    /// (about once a day: a season's day, an event's end). At most four answers per A/B group,
    /// and four for callers without one, for the content's life.
    answers: RwLock<HashMap<Asker, (Timers, Bytes)>>,
}

impl PreparedConfig {
    /// Serializes what `content` alone decides.
    pub(crate) fn new(content: &Content) -> Self {
        let client = &content.client;
        let modes: Vec<ModeView<'_>> = (content.modes.modes().iter())
            .map(|rule| ModeView {
                name: rule.mode.as_str(),
                team_size: rule.team_size,
            })
            .collect();
        let config = |update_required| {
            raw(&ConfigView {
                maintenance: client.maintenance,
                update_required,
                disable_udp: client.disable_udp,
                version: &client.version,
                environment: &client.environment,
                endpoint: &client.endpoint,
                regions: &client.regions,
                modes: &modes,
            })
        };
        let extras = &content.extras;
        Self {
            config_current: config(false),
            config_update_required: config(true),
            announcement: extras.announcement.as_ref().map(raw),
            patch_notes: extras.patch_notes.as_ref().map(raw),
            giveaway: extras.giveaway.as_ref().map(raw),
            changelog: extras.changelog.as_ref().map(raw),
            answers: RwLock::new(HashMap::new()),
        }
    }

    /// The answer kept for `asker` at `timers`, if any.
    pub(crate) fn answer(&self, asker: Asker, timers: Timers) -> Option<Bytes> {
        let answers = self
            .answers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (kept, body) = answers.get(&asker)?;
        (*kept == timers).then(|| body.clone())
    }

    /// Keeps `body` as the answer for `asker` at `timers`, in place of one whose timers moved
    /// on; answers `body`.
    pub(crate) fn keep(&self, asker: Asker, timers: Timers, body: Bytes) -> Bytes {
        self.answers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(asker, (timers, body.clone()));
        body
    }

    /// The answer for `asker` at `timers`.
    pub(crate) fn view<'a>(
        &'a self,
        extras: &'a Extras,
        asker: Asker,
        timers: Timers,
    ) -> ConfigAnswer<'a> {
        let config = if asker.update_required {
            &self.config_update_required
        } else {
            &self.config_current
        };
        let extras = if asker.polled {
            ExtrasView::default()
        } else {
            ExtrasView {
                announcement: self.announcement.as_deref(),
                limited_event: extras.limited_event.as_ref().zip(timers.event_ends).map(
                    |(event, ends)| LimitedEventView {
                        name: &event.name,
                        kind: &event.kind,
                        tagline: &event.tagline,
                        ends: ApiDate(ends),
                    },
                ),
                patch_notes: self.patch_notes.as_deref(),
                ab_test: extras
                    .ab_test
                    .as_ref()
                    .zip(asker.group)
                    .map(|(test, group)| AbTestView {
                        id: &test.id,
                        group: test.groups.get(group).map_or("", String::as_str),
                    }),
                season_preview: timers.season.map(|season| SeasonPreviewView {
                    season: season.season,
                    current_day: season.current_day,
                    timer_ends: format_plain_datetime(season.timer_ends),
                }),
                giveaway: self.giveaway.as_deref(),
                changelog: self.changelog.as_deref(),
            }
        };
        ConfigAnswer { config, extras }
    }
}

/// `value` as JSON text. The content's types are plain data: serializing them cannot fail.
fn raw<T: Serialize>(value: T) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).unwrap_or_else(|error| {
        unreachable!("the content's client configuration serializes: {error}")
    })
}
