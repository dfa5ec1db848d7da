//! The recorded matches: `GET /operator/api/matches` (the newest reported first, a page at a
//! time), `GET /operator/api/matches/{matchId}` (one match with every player's result) and
//! `POST /operator/api/matches/{matchId}/players/{accountId}/remove-result` (one player's
//! result leaves the match and every leaderboard, audited).

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::OperatorState;
use super::change_call::{ReasonBody, Write};
use super::endpoint::{Changes, Endpoint, NoBody, Read, Reads};
use super::players::{existing, unknown_account};
use super::views::{AccountView, When};
use crate::domain::GameMode;
use crate::http::params::{
    ParamValue, PositiveId, Sent, WholeNumber, request_parameters, text_schema,
};
use crate::http::{ApiError, ErrorCode};
use crate::store::{
    AccountId, MATCH_ID_MAX_CHARS, MATCH_PAGE_MAX, MatchCursor, MatchId, MatchResult, MatchResults,
    MatchSummary, ResultRemoval,
};

/// How many matches a page holds unless asked for fewer.
const DEFAULT_LIMIT: u32 = 50;

/// A match id as a game server reported it.
impl ParamValue for MatchId {
    fn from_param(text: &str) -> Result<Self, String> {
        MatchId::parse(text).ok_or_else(|| {
            format!(
                "must be a match id: 1 to {MATCH_ID_MAX_CHARS} letters, digits, `-`, `_`, `.` \
                 or `:`"
            )
        })
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .pattern(Some(format!("^[A-Za-z0-9._:-]{{1,{MATCH_ID_MAX_CHARS}}}$")))
            .into()
    }
}

impl Sent for MatchId {
    fn sent(&self) -> Option<String> {
        Some(self.as_str().to_owned())
    }
}

request_parameters! {
    /// Where the page of matches starts.
    pub(crate) struct MatchesQuery {
        /// Where the page starts: the `next` of the page before
        after: Option<String> = Query "after",
        /// At most this many matches (50 unless given)
        limit: Option<WholeNumber<1, 100>> = Query "limit",
    }
}

request_parameters! {
    /// The match of the path.
    pub(crate) struct MatchPath {
        /// The match's id, as its game server reported it
        id: MatchId = Path "matchId",
    }
}

request_parameters! {
    /// The match and the player of the path.
    pub(crate) struct MatchPlayerPath {
        /// The match's id, as its game server reported it
        id: MatchId = Path "matchId",
        /// The player's account id
        account: PositiveId = Path "accountId",
    }
}

/// 404 `unknown_match`.
fn unknown_match(id: &MatchId) -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownMatch,
        message: format!("no match has the id `{}`", id.as_str()),
    }
}

/// A recorded match.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MatchRow {
    /// The game server's id for it.
    pub id: String,
    /// The mode it was played in (`solo`, `duo`, `squad`, `limited`).
    #[schema(value_type = GameMode)]
    pub mode: String,
    /// When it started.
    pub started: When,
    /// When it ended.
    pub ended: When,
    /// When it was reported.
    pub reported: When,
    /// How many players have a result in it now (removed results and those of deleted
    /// accounts are gone).
    pub players: u32,
}

impl MatchRow {
    /// A match as the API shows it.
    fn of(summary: &MatchSummary) -> Self {
        Self {
            id: summary.id.as_str().to_owned(),
            mode: summary.mode.as_str().to_owned(),
            started: summary.started.into(),
            ended: summary.ended.into(),
            reported: summary.reported.into(),
            players: summary.players,
        }
    }
}

/// One page of matches.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct MatchesAnswer {
    /// The matches, newest reported first.
    pub matches: Vec<MatchRow>,
    /// Where the next page starts (`after`); `null` on the last page.
    pub next: Option<String>,
}

/// `GET /matches`.
pub(crate) struct Matches;

impl Endpoint for Matches {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/matches";
    const ID: &'static str = "matches";
    const TAG: &'static str = "matches";
    const ABOUT: &'static str = "The recorded matches, newest reported first, a page at a time \
        (at most 100, 50 unless `limit`), each with how many players have a result in it; \
        `next` is the `after` of the next page.";
    type Params = MatchesQuery;
    type Answer = MatchesAnswer;
}

impl Reads for Matches {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<MatchesQuery>,
    ) -> Result<MatchesAnswer, ApiError> {
        let query = call.params;
        let after = query
            .after
            .as_deref()
            .map(|text| {
                MatchCursor::parse(text)
                    .ok_or_else(|| ApiError::invalid("after", "is not the `next` of a page"))
            })
            .transpose()?;
        let limit = query.limit.map_or(DEFAULT_LIMIT, |limit| {
            u32::try_from(limit.0).unwrap_or(MATCH_PAGE_MAX)
        });
        let page = state
            .app
            .store
            .recent_matches(after.as_ref(), limit)
            .await?;
        Ok(MatchesAnswer {
            matches: page.matches.iter().map(MatchRow::of).collect(),
            next: page.next.map(|cursor| cursor.to_string()),
        })
    }
}

/// One player's result in a match.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MatchResultRow {
    /// The player's account id.
    pub account_id: i64,
    /// The player's friend code now.
    pub friend_code: String,
    /// Final placement, 1 for the winner.
    pub placement: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive: i64,
}

impl MatchResultRow {
    /// A result as the API shows it.
    fn of(result: &MatchResult) -> Self {
        Self {
            account_id: result.account.0,
            friend_code: result.friend_code.to_string(),
            placement: result.placement,
            kills: result.kills,
            time_alive: result.time_alive_secs,
        }
    }
}

/// A match with its results.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct MatchResultsAnswer {
    /// The match.
    #[serde(rename = "match")]
    pub summary: MatchRow,
    /// Every player's result, best placement first.
    pub results: Vec<MatchResultRow>,
}

impl MatchResultsAnswer {
    /// A match and its results as the API shows them.
    fn of(found: &MatchResults) -> Self {
        Self {
            summary: MatchRow::of(&found.summary),
            results: found.results.iter().map(MatchResultRow::of).collect(),
        }
    }
}

/// `GET /matches/{matchId}`.
pub(crate) struct ShowMatch;

impl Endpoint for ShowMatch {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/matches/{matchId}";
    const ID: &'static str = "match";
    const TAG: &'static str = "matches";
    const ABOUT: &'static str = "One recorded match with every player's result still in the \
        match log (account, friend code, placement, kills, seconds alive), best placement \
        first; 404 `unknown_match`.";
    type Params = MatchPath;
    type Answer = MatchResultsAnswer;
}

impl Reads for ShowMatch {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<MatchPath>,
    ) -> Result<MatchResultsAnswer, ApiError> {
        let id = call.params.id;
        let found = state
            .app
            .store
            .match_results(&id)
            .await?
            .ok_or_else(|| unknown_match(&id))?;
        Ok(MatchResultsAnswer::of(&found))
    }
}

/// A player's result removed from a match, or not there.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MatchResultRemoved {
    /// The account.
    pub account: AccountView,
    /// The match.
    pub match_id: String,
    /// Whether a result was removed (`false`: the player had no result in the match, or it was
    /// removed before; nothing changed).
    pub removed: bool,
}

/// `POST /matches/{matchId}/players/{accountId}/remove-result`.
pub(crate) struct RemoveResult;

impl Endpoint for RemoveResult {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/matches/{matchId}/players/{accountId}/remove-result";
    const ID: &'static str = "removeResult";
    const TAG: &'static str = "matches";
    const ABOUT: &'static str = "The player's result in the match leaves the match log and every \
        leaderboard, on every node (each follows the account log and counts again the player's \
        other results); `removed: false` when the player has no result in the match. 404 \
        `unknown_match`, `unknown_user`.";
    type Params = MatchPlayerPath;
    type Answer = MatchResultRemoved;
}

impl Changes for RemoveResult {
    const ACTION: &'static str = "remove-result";
    const TARGET: &'static str = "account:{accountId}";
    type Body = ReasonBody;
    type Changed = (AccountId, MatchId, bool);

    async fn change(
        state: OperatorState,
        call: Write<MatchPlayerPath, ReasonBody>,
    ) -> Result<(AccountId, MatchId, bool), ApiError> {
        let id = call.path.id.clone();
        let account = AccountId(call.path.account.0);
        let store = state.app.store.as_ref();
        if store.match_results(&id).await?.is_none() {
            return Err(unknown_match(&id));
        }
        let now = state.app.clock.now();
        let removal = store
            .remove_result(&id, account, now, call.audit())
            .await?
            .ok_or_else(unknown_account)?;
        let removed = removal == ResultRemoval::Removed;
        if removed {
            state.app.leaderboards.changed_here();
        }
        Ok((account, id, removed))
    }

    async fn answer(
        state: OperatorState,
        (account, id, removed): (AccountId, MatchId, bool),
    ) -> Result<MatchResultRemoved, ApiError> {
        let account = existing(&state, account).await?;
        Ok(MatchResultRemoved {
            account: AccountView::of(&account),
            match_id: id.as_str().to_owned(),
            removed,
        })
    }
}
