//! `GET /api/leaderboard/live` (alias `/api/leaderboard`): a live board's first rows and the
//! caller's own row with its rank.

use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::shared::boards::{boards_error, served_board};
use super::views::StatsView;
use crate::App;
use crate::content::GameModes;
use crate::domain::{FriendCode, GameMode};
use crate::http::key_owner;
use crate::http::params::parameters;
use crate::http::presented_keys::presented_keys;
use crate::http::{ApiError, Incoming, Reply};
use crate::leaderboard::{BoardId, Category, Standing, TimeWindow, TopRows};
use crate::openapi::{ErrorBody, KeyMismatch, PresentedUserKeyInvalid, Success};
use crate::store::AccountId;

/// Room for the caller's own row and the envelope around the rendered rows.
const OWN_ROW_AND_ENVELOPE: usize = 512;

/// `{status, players, user}`.
#[derive(Serialize, ToSchema)]
struct BoardReply<'a> {
    /// The board's first rows, best first.
    #[schema(value_type = Vec<RowView>)]
    players: &'a RawValue,
    /// The caller's own row with its rank; null when the caller is not ranked on this board:
    /// no key, no game in its mode and window, fewer than 10 rounds on a ratio board, or
    /// banned. A row never has a null rank.
    user: Option<RowView<'a>>,
}

/// A row: `{rank, name, friend_code, rounds, wins, top10, winrate, kills, kills_per_round,
/// time_alive}`.
#[derive(Serialize, ToSchema)]
struct RowView<'a> {
    /// The place on the board (from 1).
    #[schema(minimum = 1)]
    rank: u64,
    /// The name part of the friend code.
    name: &'a str,
    #[schema(value_type = FriendCode)]
    friend_code: String,
    #[serde(flatten)]
    stats: StatsView,
}

impl<'a> RowView<'a> {
    fn new(standing: &'a Standing) -> Self {
        Self {
            rank: standing.rank,
            name: standing.friend_code.name(),
            friend_code: standing.friend_code.to_string(),
            stats: StatsView::new(&standing.totals),
        }
    }
}

/// `GET /api/leaderboard/live?mode=&time=&category=&userKey=` (all optional; the content's first
/// mode, `all`, `wins` by default): `{status, players, user}`.
#[utoipa::path(
    get,
    path = "/api/leaderboard/live",
    tag = "leaderboards",
    operation_id = "liveLeaderboard",
    description = "A live board's first rows and, with a key, the caller's own row and rank \
        (`user`); `user` is null when the caller is not ranked on the board (no game in its \
        mode and window, fewer than 10 rounds on a ratio board, or banned), so that no row has \
        a null rank. Also served at `/api/leaderboard`.",
    params(BoardParams),
    responses(
        (status = 200, description = "The board", body = Success<BoardReply>),
        (status = 400, description = "A `mode` the content does not name, or a `time` or \
            `category` without boards (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
        (status = 503, description = "This node is still loading its leaderboards \
            (`leaderboards_loading`), the database does not answer (`database_unavailable`) or \
            the request took too long (`timeout`)", body = ErrorBody,
            headers(("Retry-After" = u32, description = "Seconds to wait before asking again \
                (while loading)"))),
    )
)]
pub(super) async fn live(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let board = BoardParams::read(&incoming)?.board(&app.content.current().content.modes)?;
    let caller = caller(&app, &incoming).await?;
    let answer = app
        .leaderboards
        .view(board, caller)
        .await
        .map_err(boards_error)?;
    let players = render(&answer.top)?;
    // The rendered rows, the caller's row and the envelope.
    let size = players.get().len() + OWN_ROW_AND_ENVELOPE;
    Ok(Reply::success_sized(
        &BoardReply {
            players,
            user: answer.user.as_ref().map(RowView::new),
        },
        size,
    ))
}

/// The first rows as JSON, rendered once per version of the board.
fn render(top: &TopRows) -> Result<&RawValue, ApiError> {
    if let Some(rendered) = top.rendered.get() {
        return Ok(rendered);
    }
    let rows: Vec<RowView<'_>> = top.standings.iter().map(RowView::new).collect();
    let rendered = serde_json::value::to_raw_value(&rows).map_err(|error| ApiError::Internal {
        detail: format!("cannot render leaderboard rows: {error}"),
    })?;
    Ok(top.rendered.get_or_init(|| rendered))
}

/// The caller's account, from keys resolved a moment ago when possible (the board is public:
/// a key only picks the caller's own row), named by the rule of the session.
async fn caller(app: &App, incoming: &Incoming) -> Result<Option<AccountId>, ApiError> {
    let keys = presented_keys(incoming);
    key_owner::named_account(&keys, |text| key_owner::recent_account(&**app, text))
        .await?
        .into_caller()
}

parameters! {
    /// The parameters of `GET /api/leaderboard/live`.
    struct BoardParams {
        /// The game mode: a mode named by the content (its first mode, `solo` in the shipped
        /// content, when left out)
        mode: Option<GameMode> = Query "mode",
        /// The time window (`all` when left out)
        window: Option<TimeWindow> = Query "time",
        /// What the board ranks by (`wins` when left out)
        category: Option<Category> = Query "category",
    }
}

impl BoardParams {
    /// The board asked for, if the content has it.
    fn board(&self, served: &GameModes) -> Result<BoardId, ApiError> {
        served_board(
            served,
            self.mode,
            self.window.unwrap_or(TimeWindow::All),
            self.category.unwrap_or(Category::Wins),
        )
    }
}
