//! `GET /api/profile/{friendCode}`: an account's public profile and its statistics per window
//! and mode.

use serde::Serialize;
use utoipa::openapi::schema::{AdditionalProperties, Object, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::shared::boards::boards_error;
use super::shared::session;
use super::views::ClanView;
use super::views::StatsView;
use crate::App;
use crate::domain::{ApiDate, FriendCode, GameMode};
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::leaderboard::{TimeWindow, WindowTotals};
use crate::openapi::{ErrorBody, KeyMismatch, Success, UserKeyRequired};
use crate::store::Account;

/// `{status, user, stats, friend}`.
#[derive(Serialize, ToSchema)]
struct ProfileAnswer<'a> {
    user: PublicUser<'a>,
    stats: WindowStats,
    /// Whether the caller and the player are friends (`false` on the caller's own profile).
    friend: bool,
}

/// The account's public fields: never its key, e-mail or sign-in identity.
#[derive(Serialize, ToSchema)]
struct PublicUser<'a> {
    id: i64,
    /// The player's name: its friend code's, as on the leaderboards.
    name: &'a str,
    avatar: Option<&'a str>,
    #[schema(value_type = FriendCode)]
    friend_code: String,
    status: &'a str,
    experience: i64,
    level: i64,
    created: ApiDate,
    clans: Vec<ClanView<'a>>,
}

/// `stats`: window -> mode -> statistics.
#[derive(Serialize, ToSchema)]
struct WindowStats {
    #[serde(rename = "24h")]
    day: ModeStats,
    #[serde(rename = "7d")]
    week: ModeStats,
    #[serde(rename = "1m")]
    month: ModeStats,
    #[serde(rename = "1y")]
    year: ModeStats,
    all: ModeStats,
}

/// One window's statistics per mode, in the content's order of modes.
struct ModeStats(Vec<(GameMode, StatsView)>);

impl PartialSchema for ModeStats {
    fn schema() -> RefOr<Schema> {
        Object::builder()
            .description(Some(
                "One window's statistics per mode: each mode the content names (`[[modes]]`), \
                 keyed by its name",
            ))
            .additional_properties(Some(AdditionalProperties::RefOr(RefOr::Ref(
                Ref::from_schema_name(StatsView::name()),
            ))))
            .into()
    }
}

impl ToSchema for ModeStats {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((StatsView::name().into(), StatsView::schema()));
        StatsView::schemas(schemas);
    }
}

impl Serialize for ModeStats {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(mode, stats)| (mode.as_str(), stats)))
    }
}

impl WindowStats {
    /// The statistics of `modes`, each with its totals per window ([`TimeWindow::ALL`] order).
    fn new(modes: &[GameMode], totals: &[WindowTotals]) -> Self {
        let window = |index: usize| {
            ModeStats(
                modes
                    .iter()
                    .zip(totals)
                    .map(|(mode, totals)| (*mode, StatsView::new(&totals[index])))
                    .collect(),
            )
        };
        Self {
            day: window(TimeWindow::Day.index()),
            week: window(TimeWindow::Week.index()),
            month: window(TimeWindow::Month.index()),
            year: window(TimeWindow::Year.index()),
            all: window(TimeWindow::All.index()),
        }
    }
}

parameters! {
    /// The account of `GET /api/profile/{friendCode}`.
    struct ProfilePath {
        /// The account's friend code, percent-encoded (`#` as `%23`)
        code: FriendCode = Path "friendCode",
    }
}

/// `GET /api/profile/{friendCode}?userKey=` (key required; the code percent-encoded, `#` as
/// `%23`): `{status, user, stats, friend}`, 404 for a code nobody has.
#[utoipa::path(
    get,
    path = "/api/profile/{friendCode}",
    tag = "leaderboards",
    operation_id = "profile",
    description = "An account's public profile, its statistics per time window and mode, and \
        whether the caller and the player are friends.",
    params(ProfilePath),
    responses(
        (status = 200, description = "The profile", body = Success<ProfileAnswer>),
        (status = 400, description = "Not a friend code (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 404, description = "No player has this friend code (`profile_not_found`)", body = ErrorBody),
        (status = 503, description = "This node is still loading its leaderboards \
            (`leaderboards_loading`), the database does not answer (`database_unavailable`) or \
            the request took too long (`timeout`)", body = ErrorBody,
            headers(("Retry-After" = u32, description = "Seconds to wait before asking again \
                (while loading)"))),
    )
)]
pub(super) async fn profile(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let viewer = session::required(&app, &incoming).await?.account.id;
    let code = ProfilePath::read(&incoming)?.code;
    let account = app
        .store
        .account_by_friend_code(&code)
        .await?
        .ok_or_else(|| ApiError::NotFound {
            code: ErrorCode::ProfileNotFound,
            message: format!("no player has the friend code `{code}`"),
        })?;
    let clan = app.store.clan_of(account.id).await?;
    let friend = viewer != account.id && app.store.are_friends(viewer, account.id).await?;
    let modes: Vec<GameMode> = (app.content.current().content.modes.modes().iter())
        .map(|rule| rule.mode)
        .collect();
    let totals = app
        .leaderboards
        .totals_of(account.id, &modes)
        .await
        .map_err(boards_error)?;
    let stats = WindowStats::new(&modes, &totals);
    Ok(Reply::success(&ProfileAnswer {
        user: public_user(&account, clan.as_ref()),
        stats,
        friend,
    }))
}

fn public_user<'a>(account: &'a Account, clan: Option<&'a crate::store::Clan>) -> PublicUser<'a> {
    PublicUser {
        id: account.id.0,
        name: account.friend_code.name(),
        avatar: account.avatar.as_deref(),
        friend_code: account.friend_code.to_string(),
        status: &account.status,
        experience: account.experience,
        level: account.level,
        created: ApiDate(account.created),
        clans: clan.into_iter().map(ClanView::new).collect(),
    }
}
