//! `GET /api/config`: the client configuration and the extras.

use serde::Serialize;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{params, session};
use crate::App;
use crate::content::{AbTest, Announcement, Extras, PatchNotes, PreviewedSeason};
use crate::domain::{ApiDate, ClientVersion, format_plain_datetime};
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{ErrorBody, KeyMismatch, PresentedUserKeyInvalid, Success};
use crate::store::AccountId;

/// `{config, extras}`.
#[derive(Serialize, ToSchema)]
struct ConfigAnswer<'a> {
    config: ConfigView<'a>,
    extras: ExtrasView<'a>,
}

/// The client configuration.
#[derive(Serialize, ToSchema)]
struct ConfigView<'a> {
    maintenance: bool,
    /// Whether this client's platform and versions must update first.
    update_required: bool,
    disable_udp: bool,
    version: &'a str,
    environment: &'a str,
    endpoint: &'a str,
    regions: &'a [String],
}

/// The extras (none when `isPolledUpdate=true`).
#[derive(Serialize, Default, ToSchema)]
struct ExtrasView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    announcement: Option<&'a Announcement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limited_event: Option<LimitedEventView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch_notes: Option<&'a PatchNotes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ab_test: Option<AbTestView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    season_preview: Option<SeasonPreviewView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Value>)]
    giveaway: Option<&'a serde_json::Value>,
    /// The changelog, as the content file writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 10000)]
    changelog: Option<&'a str>,
}

/// A limited-time event that has not ended.
#[derive(Serialize, ToSchema)]
struct LimitedEventView<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    tagline: &'a str,
    ends: ApiDate,
}

/// The caller's group of the A/B test (signed-in callers only).
#[derive(Serialize, ToSchema)]
struct AbTestView<'a> {
    id: &'a str,
    group: &'a str,
}

/// A season preview whose timer runs.
#[derive(Serialize, ToSchema)]
struct SeasonPreviewView {
    season: i64,
    /// Day 1 is the season's first day; 0 before it starts.
    #[schema(minimum = 0)]
    current_day: i64,
    /// `YYYY-MM-DD HH:MM:SS` in UTC.
    #[schema(pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$")]
    timer_ends: String,
}

/// Answers `{status, config, extras}`.
#[utoipa::path(
    get,
    path = "/api/config",
    tag = "config",
    operation_id = "clientConfig",
    description = "The client configuration and the extras.",
    params(
        ("platform" = Option<String>, Query, description = "The client's platform", pattern = "^(web|windows|android|ios)$"),
        ("version" = Option<String>, Query, description = "The client's version", pattern = "^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$"),
        ("version2" = Option<String>, Query, description = "The anti-cheat's version", pattern = "^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$"),
        ("isPolledUpdate" = Option<bool>, Query, description = "`true` for the client's periodic poll: the extras are left out"),
    ),
    responses(
        (status = 200, description = "The configuration", body = Success<ConfigAnswer>),
        (status = 400, description = "A bad `platform`, `version`, `version2` or `isPolledUpdate` (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
///
/// `platform` (web, windows, android, ios), `version` and `version2` decide `update_required`;
/// a bad value of any is a 400 naming it. `userKey` is optional: with a valid key the account's
/// A/B group is included. `isPolledUpdate=true` marks the client's periodic poll, which only
/// acts on `config`: the extras are left out (`extras: {}`).
pub(super) async fn client_config(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let query = &incoming.query;
    let platform = params::platform(query)?;
    let version = version_param(query.optional("version"), "version")?;
    let anticheat = version_param(query.optional("version2"), "version2")?;
    let polled = query.optional_bool("isPolledUpdate")?.unwrap_or(false);
    let caller = session::optional(&app, &incoming).await?;

    let client = &app.content.client;
    let config = ConfigView {
        maintenance: client.maintenance,
        update_required: client.update_required(platform, version, anticheat),
        disable_udp: client.disable_udp,
        version: &client.version,
        environment: &client.environment,
        endpoint: &client.endpoint,
        regions: &client.regions,
    };
    let extras = if polled {
        ExtrasView::default()
    } else {
        extras_view(
            &app.content.extras,
            app.clock.now(),
            caller.map(|session| session.account.id),
        )
    };
    Ok(Reply::success(&ConfigAnswer { config, extras }))
}

fn version_param(
    text: Option<&str>,
    name: &'static str,
) -> Result<Option<ClientVersion>, ApiError> {
    text.map(|text| {
        ClientVersion::parse(text)
            .ok_or_else(|| ApiError::invalid(name, "must be a dotted version such as 2.8.1"))
    })
    .transpose()
}

fn extras_view(extras: &Extras, now: OffsetDateTime, account: Option<AccountId>) -> ExtrasView<'_> {
    ExtrasView {
        announcement: extras.announcement.as_ref(),
        limited_event: extras.limited_event.as_ref().and_then(|event| {
            Some(LimitedEventView {
                name: &event.name,
                kind: &event.kind,
                tagline: &event.tagline,
                ends: ApiDate(event.shown_until(now)?),
            })
        }),
        patch_notes: extras.patch_notes.as_ref(),
        ab_test: extras
            .ab_test
            .as_ref()
            .zip(account)
            .map(|(test, account)| AbTestView {
                id: &test.id,
                group: ab_group(test, account),
            }),
        season_preview: extras
            .season_preview
            .as_ref()
            .and_then(|preview| preview.at(now))
            .map(|season| season_preview_view(season, now)),
        giveaway: extras.giveaway.as_ref(),
        changelog: extras.changelog.as_deref(),
    }
}

/// The account's group: a hash of test id and account id, so it never changes for them.
fn ab_group(test: &AbTest, account: AccountId) -> &str {
    let digest = Sha256::digest(format!("{}:{}", test.id, account.0));
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let groups = test.groups.len() as u64;
    let index = usize::try_from(u64::from_be_bytes(first) % groups).unwrap_or_default();
    test.groups.get(index).map_or("", String::as_str)
}

/// Day 1 is the season's first day; before it starts, the day is 0.
fn season_preview_view(preview: PreviewedSeason, now: OffsetDateTime) -> SeasonPreviewView {
    let elapsed = now - preview.starts;
    let current_day = if elapsed.is_negative() {
        0
    } else {
        elapsed.whole_days() + 1
    };
    SeasonPreviewView {
        season: preview.season,
        current_day,
        timer_ends: format_plain_datetime(preview.timer_ends),
    }
}
