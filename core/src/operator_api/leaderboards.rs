//! `GET /operator/api/leaderboards?mode=&window=&category=&friendCode=`: any live board as this
//! node holds it: its first rows, and a player's row with its neighbours (the rows just above
//! and below it).

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::players::unknown_account;
use crate::api::shared::boards::boards_error;
use crate::domain::{FriendCode, GameMode};
use crate::http::ApiError;
use crate::http::params::request_parameters;
use crate::leaderboard::{BoardId, Category, Standing, TimeWindow};

/// How many rows above and below a player the answer shows.
const AROUND: usize = 5;

request_parameters! {
    /// The board, and optionally a player on it.
    pub(crate) struct BoardQuery {
        /// The game mode
        mode: GameMode = Query "mode",
        /// The time window
        window: TimeWindow = Query "window",
        /// What the board ranks by
        category: Category = Query "category",
        /// A player whose row and neighbours to show (`Name#1234`)
        friend_code: Option<FriendCode> = Query "friendCode",
    }
}

impl BoardQuery {
    /// The first board: solo, for all time, by wins.
    pub(crate) fn first() -> Self {
        Self {
            mode: GameMode::Solo,
            window: TimeWindow::All,
            category: Category::Wins,
            friend_code: None,
        }
    }
}

/// The names a board is chosen by, and the ones a query chose (the first board's without one).
pub(crate) struct BoardChoices {
    /// Every mode's name.
    pub modes: Vec<&'static str>,
    /// Every window's name.
    pub windows: Vec<&'static str>,
    /// Every category's name.
    pub categories: Vec<&'static str>,
    /// The mode chosen.
    pub mode: &'static str,
    /// The window chosen.
    pub window: &'static str,
    /// The category chosen.
    pub category: &'static str,
}

impl BoardChoices {
    /// Every name, and those `query` chose.
    pub(crate) fn of(query: Option<&BoardQuery>) -> Self {
        let first = BoardQuery::first();
        let chosen = query.unwrap_or(&first);
        Self {
            modes: GameMode::ALL.iter().map(|mode| mode.as_str()).collect(),
            windows: TimeWindow::ALL
                .iter()
                .map(|window| window.as_str())
                .collect(),
            categories: Category::ALL
                .iter()
                .map(|category| category.as_str())
                .collect(),
            mode: chosen.mode.as_str(),
            window: chosen.window.as_str(),
            category: chosen.category.as_str(),
        }
    }
}

/// One row of a board.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BoardRow {
    /// The place (from 1; ties share it).
    pub rank: u64,
    /// The player's friend code.
    pub friend_code: String,
    /// Rounds played in the mode and window.
    pub rounds: u32,
    /// Wins.
    pub wins: u32,
    /// Placements in the top ten.
    pub top10: u32,
    /// Kills.
    pub kills: u32,
    /// Seconds alive.
    pub time_alive: u64,
}

impl BoardRow {
    /// A standing as a row.
    fn of(standing: &Standing) -> Self {
        let totals = &standing.totals;
        Self {
            rank: standing.rank,
            friend_code: standing.friend_code.to_string(),
            rounds: totals.rounds,
            wins: totals.wins,
            top10: totals.top10,
            kills: totals.kills,
            time_alive: totals.time_alive,
        }
    }
}

/// A board as operators see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct BoardAnswer {
    /// The board's first rows, best first.
    pub top: Vec<BoardRow>,
    /// The player's row and its neighbours, best first (`null`: no player asked for, or not
    /// ranked on this board: no game in its mode and window, too few rounds for a ratio, or
    /// banned).
    pub around: Option<Vec<BoardRow>>,
}

/// `GET /leaderboards`.
pub(crate) struct Leaderboard;

impl Endpoint for Leaderboard {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/leaderboards";
    const ID: &'static str = "leaderboard";
    const TAG: &'static str = "leaderboards";
    const ABOUT: &'static str = "Any live board (mode, window, category) as this node holds \
        it: its first rows and, with `friendCode`, the player's row with up to five rows above \
        and below it (404 `unknown_user` for no such player). Finding the neighbours reads the \
        whole board once: an operator's look, not a player's request.";
    type Params = BoardQuery;
    type Answer = BoardAnswer;
}

impl Reads for Leaderboard {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<BoardQuery>) -> Result<BoardAnswer, ApiError> {
        let query = call.params;
        let id = BoardId {
            mode: query.mode,
            window: query.window,
            category: query.category,
        };
        let boards = &state.app.leaderboards;
        let top = boards.view(id, None).await.map_err(boards_error)?.top;
        let around = match query.friend_code {
            None => None,
            Some(code) => {
                let account = state
                    .app
                    .store
                    .account_by_friend_code(&code)
                    .await?
                    .ok_or_else(unknown_account)?;
                boards
                    .neighbourhood(id, account.id, AROUND)
                    .await
                    .map_err(boards_error)?
                    .map(|rows| rows.iter().map(BoardRow::of).collect())
            }
        };
        Ok(BoardAnswer {
            top: top.standings.iter().map(BoardRow::of).collect(),
            around,
        })
    }
}
