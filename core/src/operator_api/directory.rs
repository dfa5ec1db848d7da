//! `GET /operator/api/players/list`: players found by the start of a friend code or a name,
//! or listed (the newest, the banned, by last sign-in), a page at a time with a cursor.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::views::When;
use crate::http::ApiError;
use crate::http::params::{WholeNumber, request_parameters};
use crate::store::{PLAYER_PAGE_MAX, PlayerCursor, PlayerListing, PlayerSummary};

/// How many players a page holds unless asked for fewer.
const DEFAULT_LIMIT: u32 = 50;

request_parameters! {
    /// Which players, and where the page starts.
    pub(crate) struct PlayersQuery {
        /// `newest` (the default), `banned`, `last_sign_in`, or with `search`: `friend_code` (the default) or `name`
        list: Option<String> = Query "list",
        /// The start of the friend codes (`snee`, `Sneeza#00`) or names to find, letter case aside
        search: Option<String> = Query "search",
        /// Where the page starts: the `next` of the page before
        after: Option<String> = Query "after",
        /// At most this many players (50 unless given)
        limit: Option<WholeNumber<1, 100>> = Query "limit",
    }
}

impl PlayersQuery {
    /// The listing the query names; 400 naming `list` or `search` otherwise.
    fn listing(&self) -> Result<PlayerListing, ApiError> {
        let list = self.list.as_deref();
        match (list, self.search.clone()) {
            (None | Some("friend_code"), Some(search)) => Ok(PlayerListing::FriendCode(search)),
            (Some("name"), Some(search)) => Ok(PlayerListing::Name(search)),
            (Some("friend_code" | "name"), None) => Err(ApiError::invalid(
                "search",
                "is required to find players by friend code or name",
            )),
            (_, Some(_)) => Err(ApiError::invalid(
                "list",
                "must be `friend_code` or `name` with `search`",
            )),
            (None | Some("newest"), None) => Ok(PlayerListing::Newest),
            (Some("banned"), None) => Ok(PlayerListing::Banned),
            (Some("last_sign_in"), None) => Ok(PlayerListing::LastSignIn),
            (Some(_), None) => Err(ApiError::invalid(
                "list",
                "must be one of newest, banned, last_sign_in, friend_code, name",
            )),
        }
    }
}

/// One player of a list.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlayerRow {
    /// The account's id.
    pub id: i64,
    /// Its friend code.
    pub friend_code: String,
    /// The name the player chose, if any (untrusted text).
    pub name: Option<String>,
    /// Its level.
    pub level: i64,
    /// Its coins.
    pub coins: i64,
    /// Its gems.
    pub gems: i64,
    /// Whether it is banned.
    pub banned: bool,
    /// When it was created.
    pub created: When,
    /// When it last signed in, as the activity rollup saw it (`null`: not seen).
    pub last_sign_in: Option<When>,
}

impl PlayerRow {
    /// A player as a list shows it.
    fn of(player: PlayerSummary) -> Self {
        Self {
            id: player.id.0,
            friend_code: player.friend_code.to_string(),
            name: player.name,
            level: player.level,
            coins: player.coins,
            gems: player.gems,
            banned: player.banned,
            created: player.created.into(),
            last_sign_in: player.last_sign_in.map(When::from),
        }
    }
}

/// One page of players.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct PlayersAnswer {
    /// The players, in the listing's order.
    pub players: Vec<PlayerRow>,
    /// Where the next page starts (`after`); `null` on the last page.
    pub next: Option<String>,
}

/// `GET /players/list`.
pub(crate) struct Players;

impl Endpoint for Players {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/players/list";
    const ID: &'static str = "players";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "Players a page at a time (at most 100, 50 unless `limit`): \
        those whose friend code (or, with `list=name`, display name) starts with `search`, \
        letter case aside, by friend code (or name); otherwise the newest, the banned \
        (`list=banned`) or by last sign-in (`list=last_sign_in`). `next` is the `after` of the \
        next page; a cursor of another listing is a 400.";
    type Params = PlayersQuery;
    type Answer = PlayersAnswer;
}

impl Reads for Players {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<PlayersQuery>,
    ) -> Result<PlayersAnswer, ApiError> {
        let query = call.params;
        let listing = query.listing()?;
        let after = query
            .after
            .as_deref()
            .map(|text| {
                PlayerCursor::parse(text)
                    .filter(|cursor| cursor.fits(&listing))
                    .ok_or_else(|| {
                        ApiError::invalid("after", "is not the `next` of a page of this listing")
                    })
            })
            .transpose()?;
        let limit = query.limit.map_or(DEFAULT_LIMIT, |limit| {
            u32::try_from(limit.0).unwrap_or(PLAYER_PAGE_MAX)
        });
        let page = state
            .app
            .store
            .players(&listing, after.as_ref(), limit)
            .await?;
        Ok(PlayersAnswer {
            players: page.players.into_iter().map(PlayerRow::of).collect(),
            next: page.next.map(|cursor| cursor.to_string()),
        })
    }
}
