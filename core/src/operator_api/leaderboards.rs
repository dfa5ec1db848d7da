//! `GET /operator/api/leaderboards?mode=&window=&category=&friendCode=`: any live board as this
//! node holds it: its first rows, and a player's row with its neighbours (the rows just above
//! and below it).

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::players::unknown_account;
use crate::api::shared::boards::{boards_error, served_board};
use crate::domain::{FriendCode, GameMode};
use crate::http::ApiError;
use crate::http::params::request_parameters;
use crate::leaderboard::{Category, Standing, TimeWindow};

/// How many rows above and below a player the answer shows.
const AROUND: usize = 5;

request_parameters! {
    /// The board, and optionally a player on it.
    pub(crate) struct BoardQuery {
        /// The game mode, one the content has (its first mode when left out)
        mode: Option<GameMode> = Query "mode",
        /// The time window
        window: TimeWindow = Query "window",
        /// What the board ranks by
        category: Category = Query "category",
        /// A player whose row and neighbours to show (`Name#1234`)
        friend_code: Option<FriendCode> = Query "friendCode",
    }
}

impl BoardQuery {
    /// The first board: the content's first mode, for all time, by wins.
    pub(crate) fn first() -> Self {
        Self {
            mode: None,
            window: TimeWindow::All,
            category: Category::Wins,
            friend_code: None,
        }
    }
}

/// The names a board is chosen by, and the ones a query chose (the first board's without one).
pub(crate) struct BoardChoices {
    /// Every mode's name.
    pub modes: Vec<String>,
    /// Every window's name.
    pub windows: Vec<String>,
    /// Every category's name.
    pub categories: Vec<String>,
    /// The mode chosen.
    pub mode: String,
    /// The window chosen.
    pub window: String,
    /// The category chosen.
    pub category: String,
}

impl BoardChoices {
    /// The boards the content has, as `answer` lists them, and those `query` chose; without
    /// an answer (a refused query), only the ones chosen.
    pub(crate) fn of(query: Option<&BoardQuery>, answer: Option<&BoardAnswer>) -> Self {
        let first = BoardQuery::first();
        let chosen = query.unwrap_or(&first);
        let mode = match (chosen.mode, answer) {
            (Some(mode), _) => mode.to_string(),
            (None, Some(answer)) => answer.mode.clone(),
            (None, None) => String::new(),
        };
        let window = chosen.window.as_str().to_owned();
        let category = chosen.category.as_str().to_owned();
        match answer {
            Some(answer) => Self {
                modes: answer.modes.clone(),
                windows: answer.windows.clone(),
                categories: answer.categories.clone(),
                mode,
                window,
                category,
            },
            None => Self {
                modes: vec![mode.clone()],
                windows: vec![window.clone()],
                categories: vec![category.clone()],
                mode,
                window,
                category,
            },
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

/// A board as operators see it, and the boards the content has.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct BoardAnswer {
    /// The board's mode (the content's first when the query named none).
    pub mode: String,
    /// The content's modes, in its order.
    pub modes: Vec<String>,
    /// The windows that have boards.
    pub windows: Vec<String>,
    /// The categories that have boards.
    pub categories: Vec<String>,
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
        let content = state.app.content.current();
        let served = &content.content.modes;
        let id = served_board(served, query.mode, query.window, query.category)?;
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
            mode: id.mode.to_string(),
            modes: served
                .modes()
                .iter()
                .map(|rule| rule.mode.to_string())
                .collect(),
            windows: served
                .windows()
                .iter()
                .map(|window| window.as_str().to_owned())
                .collect(),
            categories: (served.categories().iter())
                .map(|category| category.as_str().to_owned())
                .collect(),
            top: top.standings.iter().map(BoardRow::of).collect(),
            around,
        })
    }
}
