//! `GET /api/profile/{friendCode}`: an account's public profile and its statistics per window
//! and mode.

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::boards::boards_error;
use super::shared::session;
use super::views::ClanView;
use super::views::StatsView;
use crate::App;
use crate::domain::{ApiDate, FriendCode};
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::leaderboard::Totals;
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

/// One window's statistics per mode.
#[derive(Serialize, ToSchema)]
struct ModeStats {
    solo: StatsView,
    duo: StatsView,
    squad: StatsView,
    limited: StatsView,
}

impl ModeStats {
    fn new([solo, duo, squad, limited]: &[Totals; 4]) -> Self {
        Self {
            solo: StatsView::new(solo),
            duo: StatsView::new(duo),
            squad: StatsView::new(squad),
            limited: StatsView::new(limited),
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
    let [day, week, month, year, all] = app
        .leaderboards
        .totals_of(account.id)
        .await
        .map_err(boards_error)?;
    let stats = WindowStats {
        day: ModeStats::new(&day),
        week: ModeStats::new(&week),
        month: ModeStats::new(&month),
        year: ModeStats::new(&year),
        all: ModeStats::new(&all),
    };
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
