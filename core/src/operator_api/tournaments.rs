//! The tournaments under `/operator/api/tournaments`: the newest, one with its whitelist and
//! entrants, and, audited, creating, editing (before it ends; the mode, opening and whitelist
//! rule before it opens), closing and editing the whitelist.

use serde::Deserialize;
use serde_json::{Value, json};

use super::audited::{self, Audit, Reasoned, Write, as_is};
use super::fields::{ListQuery, invalid, optional_time, time};
use super::{OperatorState, auth, views};
use crate::api::shared::community::unknown;
use crate::api::shared::params::TournamentCodePath;
use crate::domain::{FriendCode, GameMode};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{
    Closing, NewTournament, NotOpen, Tournament, TournamentCode, TournamentEdit,
    TournamentEditRefusal, WHITELIST_EDIT_MAX, WhitelistEdit,
};

/// A tournament as operators see it: its window, its state now, its places.
fn view(tournament: &Tournament, now: time::OffsetDateTime) -> Value {
    let state = match tournament.window.check(now) {
        Ok(()) => "open",
        Err(NotOpen::Upcoming { .. }) => "upcoming",
        Err(NotOpen::Ended { .. }) => "ended",
        Err(NotOpen::Closed { .. }) => "closed",
    };
    json!({
        "code": tournament.code.as_str(),
        "mode": tournament.mode.as_str(),
        "opens": views::rfc3339(tournament.window.opens),
        "closes": views::rfc3339(tournament.window.closes),
        "closed": tournament.window.closed_at.map(views::rfc3339),
        "state": state,
        "capacity": tournament.capacity,
        "entrants": tournament.entrants,
        "whitelistOnly": tournament.whitelist_only,
    })
}

/// Friend codes as text.
fn codes(codes: &[FriendCode]) -> Vec<String> {
    codes.iter().map(ToString::to_string).collect()
}

/// `GET /tournaments?limit=`: the newest tournaments (100 unless `limit`), the last created
/// first.
pub(super) async fn list(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = ListQuery::read(&incoming)?;
    let now = state.app.clock.now();
    let tournaments: Vec<Value> = state
        .app
        .store
        .tournaments(query.most())
        .await?
        .iter()
        .map(|tournament| view(tournament, now))
        .collect();
    Ok(Reply::success(&json!({ "tournaments": tournaments })))
}

/// `GET /tournaments/{tournamentCode}`: the tournament, its whitelist (in the order added)
/// and its entrants (in the order they joined, with when).
pub(super) async fn show(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let TournamentCodePath { code } = TournamentCodePath::read(&incoming)?;
    let store = state.app.store.as_ref();
    let tournament = store
        .tournament(&code)
        .await?
        .ok_or_else(|| unknown(&code))?;
    let whitelist = store.whitelist(&code).await?.unwrap_or_default();
    let entrants: Vec<Value> = store
        .tournament_entrants(&code)
        .await?
        .unwrap_or_default()
        .iter()
        .map(|entrant| {
            json!({
                "friendCode": entrant.friend_code.to_string(),
                "joined": views::rfc3339(entrant.joined),
            })
        })
        .collect();
    Ok(Reply::success(&json!({
        "tournament": view(&tournament, state.app.clock.now()),
        "whitelist": codes(&whitelist),
        "entrants": entrants,
    })))
}

/// The tournament as stored now, as operators see it.
async fn current(state: &OperatorState, code: &TournamentCode) -> Result<Value, ApiError> {
    let tournament = state
        .app
        .store
        .tournament(code)
        .await?
        .ok_or_else(|| unknown(code))?;
    Ok(view(&tournament, state.app.clock.now()))
}

/// `mode` read as a game mode.
fn mode(text: &str) -> Result<GameMode, ApiError> {
    GameMode::parse(text).ok_or_else(|| invalid("mode", "must be one of solo, duo, squad, limited"))
}

/// The body of `create`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateBody {
    code: String,
    mode: String,
    /// RFC 3339; now when left out.
    opens: Option<String>,
    /// RFC 3339.
    closes: String,
    capacity: i64,
    #[serde(default)]
    whitelist_only: bool,
    reason: String,
}

impl Reasoned for CreateBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /tournaments` `{code, mode, opens?, closes, capacity, whitelistOnly?, reason}`:
/// creates the tournament (409 `tournament_code_taken`); audited `tournament-create` on
/// `tournament:CODE`.
pub(super) async fn create(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let audit = |sent: &Value| Audit {
        action: "tournament-create",
        target: format!(
            "tournament:{}",
            sent["code"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
        ),
    };
    audited::audited(
        state,
        incoming,
        audit,
        Ok(()),
        |state, write: Write<(), CreateBody>| async move {
            let now = state.app.clock.now();
            let body = &write.body;
            let code = crate::api::tournament_code(&body.code)
                .map_err(|problem| invalid("code", problem))?;
            let tournament = NewTournament {
                code: code.clone(),
                mode: mode(&body.mode)?,
                opens: optional_time("opens", body.opens.as_deref())?.unwrap_or(now),
                closes: time("closes", &body.closes)?,
                capacity: body.capacity,
                whitelist_only: body.whitelist_only,
                now,
            };
            tournament
                .check_fields()
                .map_err(|(field, problem)| invalid(field, format!("is refused: {problem}")))?;
            let store = state.app.store.as_ref();
            if !store.create_tournament(tournament, write.audit()).await? {
                return Err(ApiError::Conflict {
                    code: ErrorCode::TournamentCodeTaken,
                    message: format!("another tournament has the code `{code}`"),
                });
            }
            Ok(code)
        },
        |state, code| async move { Ok(json!({ "tournament": current(&state, &code).await? })) },
    )
    .await
}

/// The tournament of the path, and its audit on `tournament:CODE` as `action`.
fn tournament_call(
    incoming: &Incoming,
    action: &'static str,
) -> (Result<TournamentCode, ApiError>, Audit) {
    let target = format!(
        "tournament:{}",
        incoming
            .path("tournamentCode")
            .unwrap_or_default()
            .to_ascii_lowercase()
    );
    let code = TournamentCodePath::read(incoming).map(|path| path.code);
    (code, Audit { action, target })
}

/// The body of `edit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EditBody {
    mode: Option<String>,
    /// RFC 3339.
    opens: Option<String>,
    /// RFC 3339.
    closes: Option<String>,
    capacity: Option<i64>,
    whitelist_only: Option<bool>,
    reason: String,
}

impl Reasoned for EditBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /tournaments/{tournamentCode}` `{mode?, opens?, closes?, capacity?, whitelistOnly?,
/// reason}`: before it ends (409 `tournament_ended` or `tournament_closed` after); `mode`,
/// `opens` and `whitelistOnly` only before it opens (409 `tournament_started`); audited
/// `tournament-edit`.
pub(super) async fn edit(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let (code, audit) = tournament_call(&incoming, "tournament-edit");
    audited::audited(
        state,
        incoming,
        |_| audit,
        code,
        |state, write: Write<TournamentCode, EditBody>| async move {
            let body = &write.body;
            let edit = TournamentEdit {
                code: write.path.clone(),
                mode: body.mode.as_deref().map(mode).transpose()?,
                opens: optional_time("opens", body.opens.as_deref())?,
                closes: optional_time("closes", body.closes.as_deref())?,
                capacity: body.capacity,
                whitelist_only: body.whitelist_only,
                now: state.app.clock.now(),
            };
            edit.check().map_err(|problem| ApiError::InvalidBody {
                reason: problem.to_string(),
            })?;
            match state.app.store.edit_tournament(edit, write.audit()).await? {
                Ok(tournament) => {
                    let answer = view(&tournament, state.app.clock.now());
                    Ok(json!({ "tournament": answer }))
                }
                Err(refusal) => Err(edit_refused(&write.path, refusal)),
            }
        },
        as_is,
    )
    .await
}

/// A refused edit as the operator API answers it.
fn edit_refused(code: &TournamentCode, refusal: TournamentEditRefusal) -> ApiError {
    match refusal {
        TournamentEditRefusal::Unknown => unknown(code),
        TournamentEditRefusal::Over(NotOpen::Closed { .. }) => ApiError::Conflict {
            code: ErrorCode::TournamentClosed,
            message: format!("tournament `{code}` was closed: it no longer changes"),
        },
        TournamentEditRefusal::Over(_) => ApiError::Conflict {
            code: ErrorCode::TournamentEnded,
            message: format!("tournament `{code}` has ended: it no longer changes"),
        },
        TournamentEditRefusal::Started { field } => ApiError::Conflict {
            code: ErrorCode::TournamentStarted,
            message: format!("tournament `{code}` has opened: `{field}` no longer changes"),
        },
        TournamentEditRefusal::BadWindow => invalid(
            "closes",
            "must be after `opens` and after now (with `opens` as given or stored)",
        ),
        TournamentEditRefusal::BelowEntrants { entrants } => invalid(
            "capacity",
            format!("must be at least the {entrants} accounts that joined"),
        ),
    }
}

/// The body of `close`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CloseBody {
    reason: String,
}

impl Reasoned for CloseBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /tournaments/{tournamentCode}/close` `{reason}`: nobody joins any more; answers the
/// tournament with `closedNow` (false when it was closed already); audited `tournament-close`.
pub(super) async fn close(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let (code, audit) = tournament_call(&incoming, "tournament-close");
    audited::audited(
        state,
        incoming,
        |_| audit,
        code,
        |state, write: Write<TournamentCode, CloseBody>| async move {
            let now = state.app.clock.now();
            let store = state.app.store.as_ref();
            let closed_now = match store
                .close_tournament(&write.path, now, write.audit())
                .await?
            {
                Closing::Closed => true,
                Closing::AlreadyClosed => false,
                Closing::Unknown => return Err(unknown(&write.path)),
            };
            Ok((write.path, closed_now))
        },
        |state, (code, closed_now)| async move {
            let tournament = current(&state, &code).await?;
            Ok(json!({ "tournament": tournament, "closedNow": closed_now }))
        },
    )
    .await
}

/// The body of `whitelist`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WhitelistBody {
    #[serde(default)]
    add: Vec<String>,
    #[serde(default)]
    remove: Vec<String>,
    reason: String,
}

impl Reasoned for WhitelistBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// The entries of the list `field`, each a friend code (`Name#0001`).
fn friend_codes(field: &str, entries: &[String]) -> Result<Vec<FriendCode>, ApiError> {
    entries
        .iter()
        .map(|entry| {
            FriendCode::parse(entry)
                .map_err(|error| invalid(field, format!("holds `{entry}`: {error}")))
        })
        .collect()
}

/// `POST /tournaments/{tournamentCode}/whitelist` `{add?: [friendCode], remove?: [friendCode],
/// reason}` in one transaction: answers the whitelist after, and the friend codes no account
/// has (nothing was done for those); audited `whitelist`.
pub(super) async fn whitelist(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let (code, audit) = tournament_call(&incoming, "whitelist");
    audited::audited(
        state,
        incoming,
        |_| audit,
        code,
        |state, write: Write<TournamentCode, WhitelistBody>| async move {
            let body = &write.body;
            if body.add.is_empty() && body.remove.is_empty() {
                return Err(invalid("add", "or `remove` must name a friend code"));
            }
            if body.add.len() + body.remove.len() > WHITELIST_EDIT_MAX {
                return Err(invalid(
                    "add",
                    format!("and `remove` name more than {WHITELIST_EDIT_MAX} friend codes"),
                ));
            }
            let edit = WhitelistEdit {
                code: write.path.clone(),
                replace: false,
                add: friend_codes("add", &body.add)?,
                remove: friend_codes("remove", &body.remove)?,
                now: state.app.clock.now(),
            };
            let edited = state
                .app
                .store
                .edit_whitelist(edit, write.audit())
                .await?
                .ok_or_else(|| unknown(&write.path))?;
            Ok(json!({
                "whitelist": codes(&edited.whitelist),
                "unknown": codes(&edited.unknown),
            }))
        },
        as_is,
    )
    .await
}
