//! `POST /internal/matches`: the game servers' match reports (DESIGN.md section 5).
//!
//! A game server authenticates with the configured credential (`Authorization: Bearer ...`)
//! and reports a finished match once it ends. The report is checked whole, every player's
//! progress is planned ([`progression::plan_player`]), and the store records the match, its
//! statistics and every player's change in one transaction. A repeated match id changes
//! nothing and answers the first report's result, before the repeat itself is checked.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::change::{PLANNING_ATTEMPTS, before_planning_again, refused};
use super::reward_view::RewardView;
use super::session;
use crate::App;
use crate::content::Content;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{ErrorBody, Success};
use crate::progression::{
    MatchReport, MatchReportBody, PlayerRef, PlayerSummary, plan_player, progress_stats,
    stored_stats,
};
use crate::store::{
    AccountId, Change, Granted, MatchApplied, MatchId, MatchRecord, PlayerResult, Progress, Refusal,
};

/// What is stored with a match and answered for it: each player's summary, and the players
/// left out because an operator banned them.
#[derive(Serialize, Deserialize)]
struct MatchSummary {
    players: Vec<PlayerSummary>,
    skipped: Vec<i64>,
}

/// The answer: `{status, matchId, players: [summary + rewards], skipped: [{accountId, reason}]}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MatchAnswer<'a> {
    /// The report's match id.
    match_id: &'a str,
    /// What the match did for each player, in report order.
    players: Vec<PlayerAnswer<'a>>,
    /// The players left out.
    skipped: Vec<SkippedPlayer>,
}

/// One player's summary and the rewards the match granted.
#[derive(Serialize, ToSchema)]
struct PlayerAnswer<'a> {
    #[serde(flatten)]
    #[schema(value_type = PlayerSummary)]
    summary: &'a PlayerSummary,
    rewards: Vec<RewardView<'a>>,
}

/// A player the match left out: `reason` is `account_banned`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SkippedPlayer {
    account_id: i64,
    #[schema(pattern = "^account_banned$")]
    reason: &'static str,
}

/// `POST /internal/matches` (game-server credential required): records a finished match.
#[utoipa::path(
    post,
    path = "/internal/matches",
    tag = "matches",
    operation_id = "reportMatch",
    description = "A game server reports a finished match: the match, its statistics and every \
        player's experience, levels, quests and reward tracks are recorded in one transaction. \
        A repeated `matchId` changes nothing and answers the first report's result (with \
        `Idempotent-Replayed: true`). Banned players are left out (`skipped`).",
    request_body = MatchReportBody,
    security(("gameServer" = [])),
    responses(
        (status = 200, description = "The match was recorded (or had been)", body = Success<MatchAnswer>,
            headers(("Idempotent-Replayed" = String, description = "`true` when this answers a \
                repeated `matchId` and nothing changed"))),
        (status = 400, description = "The body is missing or not a valid report, or two lines \
            are one account (`invalid_body`)", body = ErrorBody),
        (status = 401, description = "No game-server credential, or another one \
            (`missing_server_credential`, `invalid_server_credential`)", body = ErrorBody),
        (status = 409, description = "A player's progress kept changing (`progress_changed`), or \
            a grant went past a limit (`balance_limit`, `pack_limit`)", body = ErrorBody),
        (status = 422, description = "A player names no existing account (`unknown_player`)", body = ErrorBody),
        (status = 501, description = "No game-server credential is configured \
            (`not_configured`)", body = ErrorBody),
    )
)]
pub(super) async fn report(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    authorize(&app, &incoming)?;
    let body: MatchReportBody = incoming.json_body().await?;
    // A repeat (a game server retrying) is answered before anything else is checked or
    // planned: it is the same match, however long ago it ended.
    if let Some(id) = body.match_id()
        && let Some(recorded) = app.store.recorded_match(&id).await?
    {
        app.metrics.business.match_replayed();
        return answer(
            &app.content,
            &id,
            &recorded.summary,
            &recorded.granted,
            true,
        );
    }
    let report = body
        .check(app.clock.now())
        .map_err(|error| ApiError::InvalidBody {
            reason: error.to_string(),
        })?;
    let accounts = resolve_players(&app, &report).await?;
    let mut banned = BTreeSet::new();
    // Planned again when a player's progress moved meanwhile (another match, a track purchase)
    // or a player turned out to be banned.
    for attempt in 1..=PLANNING_ATTEMPTS {
        let (record, changes) = plan(&app, &report, &accounts, &banned).await?;
        match app.store.report_match(&record, &changes).await? {
            MatchApplied::Done(granted) => {
                app.leaderboards.changed_here();
                app.metrics
                    .business
                    .match_recorded(record.players.len(), &granted);
                return answer(&app.content, &report.id, &record.summary, &granted, false);
            }
            MatchApplied::Replayed { summary, granted } => {
                app.metrics.business.match_replayed();
                return answer(&app.content, &report.id, &summary, &granted, true);
            }
            MatchApplied::Refused {
                refusal: Refusal::Stale,
                ..
            } => {
                tracing::debug!(
                    attempt,
                    "a player's progress moved while planning; planning again"
                );
                before_planning_again(attempt).await;
            }
            MatchApplied::Refused {
                account,
                refusal: Refusal::Banned,
            } => {
                banned.insert(account);
            }
            MatchApplied::Refused {
                account,
                refusal: Refusal::NoAccount,
            } => {
                return Err(unknown_player(
                    player_index(&accounts, account),
                    "accountId",
                ));
            }
            MatchApplied::Refused { refusal, .. } => {
                return Err(refused(&app.content.catalog, refusal));
            }
        }
    }
    Err(refused(&app.content.catalog, Refusal::Stale))
}

/// Refuses a caller without the game servers' credential.
fn authorize(app: &App, incoming: &Incoming) -> Result<(), ApiError> {
    let Some(token) = &app.settings.game_server_token else {
        return Err(ApiError::Unconfigured {
            what: "a game-server credential (--game-server-token)",
        });
    };
    match incoming.bearer() {
        Some(presented) if token.matches(presented) => Ok(()),
        Some(_) => Err(ApiError::Unauthorized {
            code: "invalid_server_credential",
            message: "the game-server credential is not the configured one".to_owned(),
        }),
        None => Err(ApiError::Unauthorized {
            code: "missing_server_credential",
            message: "match reports need `Authorization: Bearer <game-server credential>`"
                .to_owned(),
        }),
    }
}

/// The account of every player, in report order; a player with an unknown account or key is
/// 422 naming it, and two lines for one account are 400.
async fn resolve_players(app: &App, report: &MatchReport) -> Result<Vec<AccountId>, ApiError> {
    let mut accounts = Vec::with_capacity(report.players.len());
    for (index, player) in report.players.iter().enumerate() {
        accounts.push(match &player.player {
            PlayerRef::Account(account) => *account,
            PlayerRef::Key(key) => session::resolve(app, key.as_str())
                .await?
                .map(|session| session.account.id)
                .ok_or_else(|| unknown_player(index, "userKey"))?,
        });
    }
    let mut first_line: HashMap<AccountId, usize> = HashMap::new();
    for (index, account) in accounts.iter().enumerate() {
        if let Some(first) = first_line.insert(*account, index) {
            return Err(ApiError::InvalidBody {
                reason: format!(
                    "`players[{index}]` is the same account as `players[{first}]` ({})",
                    account.0
                ),
            });
        }
    }
    Ok(accounts)
}

/// Plans the report from the players' progress now: the match record and one change per
/// player not `banned`.
async fn plan(
    app: &App,
    report: &MatchReport,
    accounts: &[AccountId],
    banned: &BTreeSet<AccountId>,
) -> Result<(MatchRecord, Vec<Change>), ApiError> {
    let progress: HashMap<AccountId, Progress> =
        app.store.progress(accounts).await?.into_iter().collect();
    let now = app.clock.now();
    let match_experience = &app.content.progression.match_experience;
    let mut players = Vec::new();
    let mut changes = Vec::new();
    let mut summaries = Vec::new();
    for (index, (player, account)) in report.players.iter().zip(accounts).enumerate() {
        if banned.contains(account) {
            continue;
        }
        let progress = progress
            .get(account)
            .ok_or_else(|| unknown_player(index, "accountId"))?;
        let stats = stored_stats(
            player.placement,
            player.kills,
            player.time_alive_secs,
            &player.stats,
        );
        let experience =
            match_experience.for_result(player.placement, player.kills, player.time_alive_secs);
        let (steps, summary) = plan_player(
            &app.content,
            account.0,
            progress,
            &progress_stats(report.mode, &stats),
            experience,
            report.ended,
        );
        players.push(PlayerResult {
            account: *account,
            placement: player.placement,
            kills: player.kills,
            time_alive_secs: player.time_alive_secs,
            stats,
        });
        changes.push(Change {
            account: *account,
            now,
            reason: "match".to_owned(),
            reference: report.id.as_str().to_owned(),
            idempotency: None,
            steps,
        });
        summaries.push(summary);
    }
    let summary = serde_json::to_string(&MatchSummary {
        players: summaries,
        skipped: banned.iter().map(|account| account.0).collect(),
    })
    .map_err(|error| ApiError::Internal {
        detail: format!("match summary: {error}"),
    })?;
    let record = MatchRecord {
        id: report.id.clone(),
        mode: report.mode,
        started: report.started,
        ended: report.ended,
        reported: now,
        players,
        summary,
    };
    Ok((record, changes))
}

/// The answer from a stored summary and the grants of each player's change.
fn answer(
    content: &Content,
    match_id: &MatchId,
    summary: &str,
    granted: &[Vec<Granted>],
    replayed: bool,
) -> Result<Reply, ApiError> {
    let summary: MatchSummary =
        serde_json::from_str(summary).map_err(|error| ApiError::Internal {
            detail: format!("stored match summary: {error}"),
        })?;
    let players = summary
        .players
        .iter()
        .zip(granted)
        .map(|(summary, granted)| PlayerAnswer {
            summary,
            rewards: RewardView::all_granted(&content.catalog, granted),
        })
        .collect();
    let reply = Reply::success(&MatchAnswer {
        match_id: match_id.as_str(),
        players,
        skipped: summary
            .skipped
            .iter()
            .map(|account_id| SkippedPlayer {
                account_id: *account_id,
                reason: "account_banned",
            })
            .collect(),
    });
    Ok(if replayed {
        reply.with_header(
            http::HeaderName::from_static(super::change::IDEMPOTENT_REPLAYED),
            "true",
        )
    } else {
        reply
    })
}

/// The index of `account` among the report's players (0 when absent, which cannot happen).
fn player_index(accounts: &[AccountId], account: AccountId) -> usize {
    accounts
        .iter()
        .position(|candidate| *candidate == account)
        .unwrap_or_default()
}

/// 422 `unknown_player`: the report names an account that does not exist.
fn unknown_player(index: usize, field: &str) -> ApiError {
    ApiError::Unprocessable {
        code: "unknown_player",
        message: format!("`players[{index}].{field}` names no existing account"),
    }
}
