//! `GET /operator/api/status`: this node as an operator sees it: its version, the content
//! version it serves, its leaderboards and its database; and the caller's token.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use crate::http::ApiError;
use crate::http::params::NoParams;
use crate::store::{OperatorRole, OperatorToken};

/// An operator token as the API names it to its holder.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct TokenView {
    /// The token's name.
    pub name: String,
    /// `read` or `full`.
    pub role: String,
}

impl TokenView {
    /// Whether the token may change anything (a read-only one may only read).
    pub fn can_write(&self) -> bool {
        self.role == OperatorRole::Full.as_str()
    }

    /// The token's name and role.
    pub(super) fn of(token: &OperatorToken) -> Self {
        Self {
            name: token.name.clone(),
            role: token.role.as_str().to_owned(),
        }
    }
}

/// The content file the node was started with.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ContentFile {
    /// Its path (`null`: the shipped content).
    pub path: Option<String>,
    /// Whether it is what the node serves (a published version wins over it).
    pub served: bool,
}

/// The node's leaderboards.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct BoardsView {
    /// Whether they are loaded and answering.
    pub ready: bool,
    /// The match log results read so far by the load.
    pub loaded_results: u64,
    /// The players they know.
    pub players: usize,
}

/// One of the database's connection pools.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct PoolView {
    /// `main`, or `writer` for SQLite's writer.
    pub name: String,
    /// Connections open.
    pub open: u32,
    /// Connections idle.
    pub idle: u32,
    /// The most it opens.
    pub max: u32,
}

/// The node's database.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct DatabaseView {
    /// Whether it answers.
    pub reachable: bool,
    /// Why not, when it does not.
    pub error: Option<String>,
    /// Its pools.
    pub pools: Vec<PoolView>,
}

/// This node as an operator sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct StatusAnswer {
    /// The caller's token.
    pub token: TokenView,
    /// The node's version.
    pub version: String,
    /// The published content version it serves (0: the content it started with).
    pub content_version: i64,
    /// The content file it was started with.
    pub content_file: ContentFile,
    /// Its leaderboards.
    pub leaderboards: BoardsView,
    /// Its database.
    pub database: DatabaseView,
}

/// `GET /status`.
pub(crate) struct Status;

impl Endpoint for Status {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/status";
    const ID: &'static str = "status";
    const TAG: &'static str = "status";
    const ABOUT: &'static str = "This node's version, published content version (0: the \
        content it started with), the content file it was started with (`null`: the shipped \
        one) and whether it is what it serves (a published version wins over it), whether its \
        leaderboards are loaded, and whether its database answers, with its pools; and the \
        caller's token, its name and role (what the console shows and which forms it offers).";
    type Params = NoParams;
    type Answer = StatusAnswer;
}

impl Reads for Status {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<NoParams>) -> Result<StatusAnswer, ApiError> {
        let app = &state.app;
        let boards = app.leaderboards.status();
        let database = app.store.ping().await;
        let pools = app
            .store
            .pools()
            .into_iter()
            .map(|pool| PoolView {
                name: pool.name.to_owned(),
                open: pool.open,
                idle: pool.idle,
                max: pool.max,
            })
            .collect();
        let content_version = app.content.current().version;
        Ok(StatusAnswer {
            token: TokenView::of(&call.token),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            content_version,
            content_file: ContentFile {
                path: app.settings.content_file.clone(),
                served: content_version == 0,
            },
            leaderboards: BoardsView {
                ready: boards.ready,
                loaded_results: boards.loaded_results,
                players: boards.players,
            },
            database: DatabaseView {
                reachable: database.is_ok(),
                error: database.err().map(|error| error.to_string()),
                pools,
            },
        })
    }
}
