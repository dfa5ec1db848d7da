//! `POST /internal/matches`: the game servers' match reports (DESIGN.md section 5).
//!
//! A game server authenticates with the configured credential (`Authorization: Bearer ...`)
//! and reports a finished match once it ends. The report is checked whole, every player's
//! progress is planned ([`progression::plan_player`]), and the store records the match, its
//! statistics and every player's change in one transaction. Players who cannot take part
//! (banned, no such account, a user key that opens none) are skipped, never a reason to refuse
//! the report. A repeated match id changes nothing and answers the first report's result,
//! before the repeat itself is checked.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::shared::change::{PLANNING_ATTEMPTS, before_planning_again, refused};
use super::shared::session;
use super::views::RewardView;
use crate::App;
use crate::content::Content;
use crate::hooks::PlayerMatchResult;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{ErrorBody, Success};
use crate::progression::{
    MatchReport, MatchReportBody, PlayerRef, PlayerSummary, plan_player, progress_stats,
    stored_stats,
};
use crate::store::{
    AccountId, Change, Currency, Granted, MatchApplied, MatchId, MatchRecord, PlayerResult,
    Progress, Refusal, Step,
};

/// What is stored with a match and answered for it: each player's summary, and the players
/// left out.
#[derive(Serialize, Deserialize)]
struct MatchSummary {
    players: Vec<PlayerSummary>,
    #[serde(deserialize_with = "stored_skips")]
    skipped: Vec<SkippedPlayer>,
}

/// The answer: `{status, matchId, players: [summary + rewards], skipped: [{accountId or player,
/// reason}]}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MatchAnswer<'a> {
    /// The report's match id.
    match_id: &'a str,
    /// What the match did for each player, in report order.
    players: Vec<PlayerAnswer<'a>>,
    /// The players left out, in report order.
    skipped: &'a [SkippedPlayer],
}

/// One player's summary and the rewards the match granted.
#[derive(Serialize, ToSchema)]
struct PlayerAnswer<'a> {
    #[serde(flatten)]
    #[schema(value_type = PlayerSummary)]
    summary: &'a PlayerSummary,
    rewards: Vec<RewardView<'a>>,
}

/// A player the match left out, named by `accountId`, or by `player` (the index of its line in
/// the report) when its line's `userKey` opens no account.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SkippedPlayer {
    /// The account (absent for `user_key_unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    account_id: Option<i64>,
    /// The index of the player's line in the report's `players` (only for `user_key_unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    player: Option<usize>,
    reason: SkipReason,
}

/// Why a match left a player out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum SkipReason {
    /// An operator banned the account.
    AccountBanned,
    /// No account has this id: it never existed, or it was deleted (a deleted account leaves
    /// no account behind to tell the two apart).
    AccountUnknown,
    /// No account holds this user key now: unknown, expired or revoked.
    UserKeyUnknown,
}

impl SkippedPlayer {
    /// The account `account`, left out for `reason`.
    fn account(account: AccountId, reason: SkipReason) -> Self {
        Self {
            account_id: Some(account.0),
            player: None,
            reason,
        }
    }
}

/// A skipped player as a match's summary stores it: the answer's entry, or a bare account id,
/// which is how summaries stored before other reasons existed listed a banned player.
#[derive(Deserialize)]
#[serde(untagged)]
enum StoredSkip {
    Entry(SkippedPlayer),
    Banned(i64),
}

/// Reads a stored summary's `skipped`, of either form.
fn stored_skips<'de, D>(deserializer: D) -> Result<Vec<SkippedPlayer>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let stored: Vec<StoredSkip> = Deserialize::deserialize(deserializer)?;
    Ok(stored
        .into_iter()
        .map(|skip| match skip {
            StoredSkip::Entry(entry) => entry,
            StoredSkip::Banned(account) => {
                SkippedPlayer::account(AccountId(account), SkipReason::AccountBanned)
            }
        })
        .collect())
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
        `Idempotent-Replayed: true`). Players who cannot take part are left out and listed in \
        `skipped`, however many: banned accounts (`account_banned`), account ids that name no \
        account, never created or deleted (`account_unknown`), and user keys that open no \
        account, unknown, expired or revoked (`user_key_unknown`, named by their line's index \
        as `player`). A report is refused only when it is malformed.",
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
        (status = 501, description = "No game-server credential is configured \
            (`not_configured`)", body = ErrorBody),
    )
)]
pub(super) async fn report(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    authorize(&app, &incoming)?;
    let body: MatchReportBody = incoming.json_body().await?;
    // A repeat (a game server retrying) is answered before anything else is checked or
    // planned: it is the same match, however long ago it ended.
    if let Some(id) = body.match_id()
        && let Some(recorded) = app.store.recorded_match(&id).await?
    {
        app.metrics.business.match_replayed();
        return answer(
            &published.content,
            &id,
            &recorded.summary,
            &recorded.granted,
            true,
        );
    }
    let report = body
        .check(app.clock.now(), &published.content.modes)
        .map_err(|error| ApiError::InvalidBody {
            reason: error.to_string(),
        })?;
    let accounts = resolve_players(&app, &report).await?;
    // Planned again when a player's progress moved meanwhile (another match, a track purchase)
    // or a player was banned or deleted meanwhile: each plan reads every player afresh, so it
    // learns of all such players at once.
    for attempt in 1..=PLANNING_ATTEMPTS {
        let (record, changes) = plan(&app, &report, &accounts).await?;
        match app.store.report_match(&record, &changes).await? {
            MatchApplied::Done(granted) => {
                app.leaderboards.changed_here();
                app.metrics
                    .business
                    .match_recorded(record.players.len(), &granted);
                return answer(
                    &published.content,
                    &report.id,
                    &record.summary,
                    &granted,
                    false,
                );
            }
            MatchApplied::Replayed { summary, granted } => {
                app.metrics.business.match_replayed();
                return answer(&published.content, &report.id, &summary, &granted, true);
            }
            MatchApplied::Refused {
                account,
                refusal: refusal @ (Refusal::Stale | Refusal::Banned | Refusal::NoAccount),
            } => {
                tracing::debug!(
                    attempt,
                    account = account.0,
                    %refusal,
                    "a player's progress or account changed while planning; planning again"
                );
                before_planning_again(attempt).await;
            }
            MatchApplied::Refused { refusal, .. } => {
                return Err(refused(&published.content.catalog, refusal));
            }
        }
    }
    Err(refused(&published.content.catalog, Refusal::Stale))
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
            code: ErrorCode::InvalidServerCredential,
            message: "the game-server credential is not the configured one".to_owned(),
        }),
        None => Err(ApiError::Unauthorized {
            code: ErrorCode::MissingServerCredential,
            message: "match reports need `Authorization: Bearer <game-server credential>`"
                .to_owned(),
        }),
    }
}

/// The account every player's line names, in report order: `None` for a user key that opens no
/// account (it is skipped). Two lines for one account are 400.
async fn resolve_players(
    app: &App,
    report: &MatchReport,
) -> Result<Vec<Option<AccountId>>, ApiError> {
    let mut accounts = Vec::with_capacity(report.players.len());
    for player in &report.players {
        accounts.push(match &player.player {
            PlayerRef::Account(account) => Some(*account),
            PlayerRef::Key(key) => session::resolve(app, key.as_str())
                .await?
                .map(|session| session.account.id),
        });
    }
    let mut first_line: HashMap<AccountId, usize> = HashMap::new();
    for (index, account) in accounts.iter().enumerate() {
        let Some(account) = account else { continue };
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

/// Plans the report from the players' progress now, read in one go: the match record and one
/// change per player who can take part; the others (banned, no such account, a user key that
/// opens none) are the summary's `skipped`.
async fn plan(
    app: &App,
    report: &MatchReport,
    accounts: &[Option<AccountId>],
) -> Result<(MatchRecord, Vec<Change>), ApiError> {
    let published = app.content.current();
    let named: Vec<AccountId> = accounts.iter().flatten().copied().collect();
    let progress: HashMap<AccountId, Progress> =
        app.store.progress(&named).await?.into_iter().collect();
    let now = app.clock.now();
    let (match_experience, match_coins) = (
        &published.content.progression.match_experience,
        &published.content.progression.match_coins,
    );
    let mut players = Vec::new();
    let mut changes = Vec::new();
    let mut summaries = Vec::new();
    let mut skipped = Vec::new();
    for (index, (player, account)) in report.players.iter().zip(accounts).enumerate() {
        let Some(account) = account else {
            skipped.push(SkippedPlayer {
                account_id: None,
                player: Some(index),
                reason: SkipReason::UserKeyUnknown,
            });
            continue;
        };
        let Some(progress) = progress.get(account) else {
            skipped.push(SkippedPlayer::account(*account, SkipReason::AccountUnknown));
            continue;
        };
        if progress.banned {
            skipped.push(SkippedPlayer::account(*account, SkipReason::AccountBanned));
            continue;
        }
        let stats = stored_stats(
            player.placement,
            player.kills,
            player.time_alive_secs,
            &player.stats,
        );
        let result = (player.placement, player.kills, player.time_alive_secs);
        let (steps, mut summary) = plan_player(
            &published.content,
            account.0,
            progress,
            &progress_stats(report.mode, &stats),
            (
                match_experience.for_result(result.0, result.1, result.2),
                match_coins.for_result(result.0, result.1, result.2),
            ),
            report.ended,
        );
        let result = PlayerResult {
            account: *account,
            placement: player.placement,
            kills: player.kills,
            time_alive_secs: player.time_alive_secs,
            stats,
        };
        let mut change = Change {
            account: *account,
            now,
            reason: "match".to_owned(),
            reference: report.id.as_str().to_owned(),
            idempotency: None,
            steps,
        };
        let planned_coins = own_coins(&change.steps);
        app.hooks
            .adjust_match_result(&mut change, || PlayerMatchResult {
                match_id: report.id.as_str().to_owned(),
                mode: report.mode,
                ended: report.ended,
                result: result.clone(),
            });
        summary.coins += own_coins(&change.steps) - planned_coins;
        players.push(result);
        changes.push(change);
        summaries.push(summary);
    }
    let summary = serde_json::to_string(&MatchSummary {
        players: summaries,
        skipped,
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

/// The coins a player's change gives in its own credits (the match's, and those a studio's
/// hook added or scaled), besides the rewards of levels, quests and tiers.
fn own_coins(steps: &[Step]) -> i64 {
    steps
        .iter()
        .map(|step| match step {
            Step::Credit {
                currency: Currency::Coins,
                amount,
            } => *amount,
            _ => 0,
        })
        .sum()
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
        skipped: &summary.skipped,
    });
    Ok(if replayed {
        reply.with_header(
            http::HeaderName::from_static(super::shared::change::IDEMPOTENT_REPLAYED),
            "true",
        )
    } else {
        reply
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_stored_with_bare_banned_ids_still_read() {
        let old: MatchSummary =
            serde_json::from_str(r#"{"players": [], "skipped": [7, 3]}"#).expect("an old summary");
        let new: MatchSummary = serde_json::from_str(
            r#"{"players": [], "skipped": [{"player": 2, "reason": "user_key_unknown"},
                {"accountId": 9, "reason": "account_unknown"}]}"#,
        )
        .expect("a summary");
        let answered = |summary: &MatchSummary| {
            serde_json::to_value(&summary.skipped).expect("skips serialize")
        };
        assert_eq!(
            answered(&old),
            serde_json::json!([
                {"accountId": 7, "reason": "account_banned"},
                {"accountId": 3, "reason": "account_banned"},
            ])
        );
        assert_eq!(
            answered(&new),
            serde_json::json!([
                {"player": 2, "reason": "user_key_unknown"},
                {"accountId": 9, "reason": "account_unknown"},
            ])
        );
    }
}
