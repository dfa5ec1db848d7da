//! The tournaments under `/operator/api/tournaments`: the newest, one with its whitelist and
//! entrants, and, audited, creating, editing (before it ends; the mode, opening and whitelist
//! rule before it opens), closing and editing the whitelist.

use http::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::OperatorState;
use super::change_call::{ReasonBody, Write, reasoned};
use super::endpoint::{Changes, Endpoint, NoBody, Read, Reads};
use super::fields::{ListQuery, invalid, optional_time, time};
use super::views::When;
use crate::api::shared::community::unknown;
pub(crate) use crate::api::shared::params::TournamentCodePath;
use crate::domain::{FriendCode, GameMode};
use crate::http::params::NoParams;
use crate::http::{ApiError, ErrorCode};
use crate::store::{
    Closing, NewTournament, NotOpen, Tournament, TournamentCode, TournamentEdit,
    TournamentEditRefusal, WHITELIST_EDIT_MAX, WhitelistEdit,
};

/// A tournament as operators see it: its window, its state now, its places.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TournamentView {
    /// Its code.
    pub code: String,
    /// Its game mode.
    pub mode: String,
    /// When it opens.
    pub opens: When,
    /// When it closes.
    pub closes: When,
    /// When an operator closed it (`null`: not closed).
    pub closed: Option<When>,
    /// `open`, `upcoming`, `ended` or `closed`.
    pub state: String,
    /// How many may join.
    pub capacity: i64,
    /// How many joined.
    pub entrants: i64,
    /// Whether only the whitelist may join.
    pub whitelist_only: bool,
}

impl TournamentView {
    /// Whether it still changes (upcoming or open): an edit or a closing is worth offering.
    pub fn changes(&self) -> bool {
        matches!(self.state.as_str(), "upcoming" | "open")
    }

    /// A tournament as it stands at `now`.
    fn of(tournament: &Tournament, now: time::OffsetDateTime) -> Self {
        let state = match tournament.window.check(now) {
            Ok(()) => "open",
            Err(NotOpen::Upcoming { .. }) => "upcoming",
            Err(NotOpen::Ended { .. }) => "ended",
            Err(NotOpen::Closed { .. }) => "closed",
        };
        Self {
            code: tournament.code.as_str().to_owned(),
            mode: tournament.mode.as_str().to_owned(),
            opens: tournament.window.opens.into(),
            closes: tournament.window.closes.into(),
            closed: tournament.window.closed_at.map(When::from),
            state: state.to_owned(),
            capacity: tournament.capacity,
            entrants: tournament.entrants,
            whitelist_only: tournament.whitelist_only,
        }
    }
}

/// Friend codes as text.
fn codes(codes: &[FriendCode]) -> Vec<String> {
    codes.iter().map(ToString::to_string).collect()
}

/// The tournament as stored now, as operators see it.
async fn current(state: &OperatorState, code: &TournamentCode) -> Result<TournamentView, ApiError> {
    let tournament = state
        .app
        .store
        .tournament(code)
        .await?
        .ok_or_else(|| unknown(code))?;
    Ok(TournamentView::of(&tournament, state.app.clock.now()))
}

/// The newest tournaments.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct TournamentsAnswer {
    /// The last created first.
    pub tournaments: Vec<TournamentView>,
}

/// `GET /tournaments`.
pub(crate) struct Tournaments;

impl Endpoint for Tournaments {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/tournaments";
    const ID: &'static str = "tournaments";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str =
        "The newest tournaments (100 unless `limit`), the last created first.";
    type Params = ListQuery;
    type Answer = TournamentsAnswer;
}

impl Reads for Tournaments {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<ListQuery>,
    ) -> Result<TournamentsAnswer, ApiError> {
        let now = state.app.clock.now();
        let tournaments = state
            .app
            .store
            .tournaments(call.params.most())
            .await?
            .iter()
            .map(|tournament| TournamentView::of(tournament, now))
            .collect();
        Ok(TournamentsAnswer { tournaments })
    }
}

/// An account that joined a tournament.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EntrantView {
    /// Its friend code.
    pub friend_code: String,
    /// When it joined.
    pub joined: When,
}

/// One tournament with its whitelist and entrants.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct TournamentAnswer {
    /// The tournament.
    pub tournament: TournamentView,
    /// Its whitelist, in the order added.
    pub whitelist: Vec<String>,
    /// Its entrants, in the order they joined.
    pub entrants: Vec<EntrantView>,
}

/// `GET /tournaments/{tournamentCode}`.
pub(crate) struct ShowTournament;

impl Endpoint for ShowTournament {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/tournaments/{tournamentCode}";
    const ID: &'static str = "tournament";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str = "The tournament, its whitelist (in the order added) and its \
        entrants (in the order they joined, with when).";
    type Params = TournamentCodePath;
    type Answer = TournamentAnswer;
}

impl Reads for ShowTournament {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<TournamentCodePath>,
    ) -> Result<TournamentAnswer, ApiError> {
        let code = call.params.code;
        let store = state.app.store.as_ref();
        let tournament = store
            .tournament(&code)
            .await?
            .ok_or_else(|| unknown(&code))?;
        let whitelist = store.whitelist(&code).await?.unwrap_or_default();
        let entrants = store
            .tournament_entrants(&code)
            .await?
            .unwrap_or_default()
            .iter()
            .map(|entrant| EntrantView {
                friend_code: entrant.friend_code.to_string(),
                joined: entrant.joined.into(),
            })
            .collect();
        Ok(TournamentAnswer {
            tournament: TournamentView::of(&tournament, state.app.clock.now()),
            whitelist: codes(&whitelist),
            entrants,
        })
    }
}

/// `mode` read as a game mode the content served by `state` has.
fn mode(state: &OperatorState, text: &str) -> Result<GameMode, ApiError> {
    let modes = &state.app.content.current().content.modes;
    GameMode::parse(text)
        .filter(|mode| modes.has(*mode))
        .ok_or_else(|| invalid("mode", modes.unknown_mode()))
}

/// The body of `create`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct CreateTournamentBody {
    /// Its code.
    pub code: String,
    /// Its game mode.
    pub mode: String,
    /// When it opens, RFC 3339; now when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens: Option<String>,
    /// When it closes, RFC 3339.
    pub closes: String,
    /// How many may join.
    pub capacity: i64,
    /// Whether only the whitelist may join.
    #[serde(default)]
    pub whitelist_only: bool,
    /// Why, for the audit.
    pub reason: String,
}

/// One tournament as it stands after a change.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct TournamentChanged {
    /// The tournament.
    pub tournament: TournamentView,
}

/// `POST /tournaments`.
pub(crate) struct CreateTournament;

impl Endpoint for CreateTournament {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/tournaments";
    const ID: &'static str = "createTournament";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str = "Creates the tournament (409 `tournament_code_taken`); \
        audited `tournament-create` on `tournament:CODE`.";
    type Params = NoParams;
    type Answer = TournamentChanged;
}

impl Changes for CreateTournament {
    const ACTION: &'static str = "tournament-create";
    const TARGET: &'static str = "tournament";
    type Body = CreateTournamentBody;
    type Changed = TournamentCode;

    /// `tournament:CODE`, the code as sent, in lower case.
    fn target(_: &[(String, String)], sent: &Value) -> String {
        format!(
            "tournament:{}",
            sent["code"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
        )
    }

    async fn change(
        state: OperatorState,
        write: Write<NoParams, CreateTournamentBody>,
    ) -> Result<TournamentCode, ApiError> {
        let now = state.app.clock.now();
        let body = &write.body;
        let code =
            crate::api::tournament_code(&body.code).map_err(|problem| invalid("code", problem))?;
        let tournament = NewTournament {
            code: code.clone(),
            mode: mode(&state, &body.mode)?,
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
    }

    async fn answer(
        state: OperatorState,
        code: TournamentCode,
    ) -> Result<TournamentChanged, ApiError> {
        let tournament = current(&state, &code).await?;
        Ok(TournamentChanged { tournament })
    }
}

/// The body of `edit`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct EditTournamentBody {
    /// A new game mode (before it opens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// A new opening time, RFC 3339 (before it opens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens: Option<String>,
    /// A new closing time, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes: Option<String>,
    /// A new capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    /// Whether only the whitelist may join (before it opens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitelist_only: Option<bool>,
    /// Why, for the audit.
    pub reason: String,
}

/// `POST /tournaments/{tournamentCode}`.
pub(crate) struct EditTournament;

impl Endpoint for EditTournament {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/tournaments/{tournamentCode}";
    const ID: &'static str = "editTournament";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str = "Before it ends (409 `tournament_ended` or `tournament_closed` \
        after); `mode`, `opens` and `whitelistOnly` only before it opens (409 \
        `tournament_started`); audited `tournament-edit`.";
    type Params = TournamentCodePath;
    type Answer = TournamentChanged;
}

impl Changes for EditTournament {
    const ACTION: &'static str = "tournament-edit";
    const TARGET: &'static str = "tournament:{tournamentCode}";
    type Body = EditTournamentBody;
    type Changed = TournamentChanged;

    async fn change(
        state: OperatorState,
        write: Write<TournamentCodePath, EditTournamentBody>,
    ) -> Result<TournamentChanged, ApiError> {
        let code = &write.path.code;
        let body = &write.body;
        let edit = TournamentEdit {
            code: code.clone(),
            mode: (body.mode.as_deref())
                .map(|text| mode(&state, text))
                .transpose()?,
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
            Ok(tournament) => Ok(TournamentChanged {
                tournament: TournamentView::of(&tournament, state.app.clock.now()),
            }),
            Err(refusal) => Err(edit_refused(code, refusal)),
        }
    }

    async fn answer(
        _: OperatorState,
        changed: TournamentChanged,
    ) -> Result<TournamentChanged, ApiError> {
        Ok(changed)
    }
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

/// A tournament closed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TournamentClosed {
    /// The tournament as it stands.
    pub tournament: TournamentView,
    /// `false` when it was closed already.
    pub closed_now: bool,
}

/// `POST /tournaments/{tournamentCode}/close`.
pub(crate) struct CloseTournament;

impl Endpoint for CloseTournament {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/tournaments/{tournamentCode}/close";
    const ID: &'static str = "closeTournament";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str = "Nobody joins any more; answers the tournament with \
        `closedNow` (false when it was closed already); audited `tournament-close`.";
    type Params = TournamentCodePath;
    type Answer = TournamentClosed;
}

impl Changes for CloseTournament {
    const ACTION: &'static str = "tournament-close";
    const TARGET: &'static str = "tournament:{tournamentCode}";
    type Body = ReasonBody;
    type Changed = (TournamentCode, bool);

    async fn change(
        state: OperatorState,
        write: Write<TournamentCodePath, ReasonBody>,
    ) -> Result<(TournamentCode, bool), ApiError> {
        let code = write.path.code.clone();
        let now = state.app.clock.now();
        let store = state.app.store.as_ref();
        let closed_now = match store.close_tournament(&code, now, write.audit()).await? {
            Closing::Closed => true,
            Closing::AlreadyClosed => false,
            Closing::Unknown => return Err(unknown(&code)),
        };
        Ok((code, closed_now))
    }

    async fn answer(
        state: OperatorState,
        (code, closed_now): (TournamentCode, bool),
    ) -> Result<TournamentClosed, ApiError> {
        let tournament = current(&state, &code).await?;
        Ok(TournamentClosed {
            tournament,
            closed_now,
        })
    }
}

/// The body of `whitelist`.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WhitelistBody {
    /// Friend codes to add.
    #[serde(default)]
    pub add: Vec<String>,
    /// Friend codes to remove.
    #[serde(default)]
    pub remove: Vec<String>,
    /// Why, for the audit.
    pub reason: String,
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

/// A whitelist edited.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct WhitelistEdited {
    /// The whitelist after.
    pub whitelist: Vec<String>,
    /// The friend codes no account has (nothing was done for those).
    pub unknown: Vec<String>,
}

/// `POST /tournaments/{tournamentCode}/whitelist`.
pub(crate) struct EditWhitelist;

impl Endpoint for EditWhitelist {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/tournaments/{tournamentCode}/whitelist";
    const ID: &'static str = "editWhitelist";
    const TAG: &'static str = "tournaments";
    const ABOUT: &'static str = "Adds and removes friend codes in one transaction: answers the \
        whitelist after, and the friend codes no account has (nothing was done for those); \
        audited `whitelist`.";
    type Params = TournamentCodePath;
    type Answer = WhitelistEdited;
}

impl Changes for EditWhitelist {
    const ACTION: &'static str = "whitelist";
    const TARGET: &'static str = "tournament:{tournamentCode}";
    type Body = WhitelistBody;
    type Changed = WhitelistEdited;

    async fn change(
        state: OperatorState,
        write: Write<TournamentCodePath, WhitelistBody>,
    ) -> Result<WhitelistEdited, ApiError> {
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
        let code = &write.path.code;
        let edit = WhitelistEdit {
            code: code.clone(),
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
            .ok_or_else(|| unknown(code))?;
        Ok(WhitelistEdited {
            whitelist: codes(&edited.whitelist),
            unknown: codes(&edited.unknown),
        })
    }

    async fn answer(
        _: OperatorState,
        edited: WhitelistEdited,
    ) -> Result<WhitelistEdited, ApiError> {
        Ok(edited)
    }
}

reasoned!(CreateTournamentBody, EditTournamentBody, WhitelistBody);
