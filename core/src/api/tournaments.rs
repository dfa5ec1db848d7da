//! The tournament join check (`GET /api/{tournamentCode}/join`, `GET
//! /api/tournament/{tournamentCode}/join`) and joining (`POST
//! /api/tournament/{tournamentCode}/join`).
//!
//! A tournament is open when its status answer is `{"status": "success", ...}`; otherwise the
//! error envelope's `code` and `message` say why (unknown code, not open yet, ended, closed by
//! the operator, full, not on the whitelist, banned).

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::community::{existing, refused};
use super::shared::params::TournamentCodePath;
use super::shared::session;
use crate::App;
use crate::domain::{ApiDate, GameMode};
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{
    ErrorBody, InvalidTournamentCode, PresentedUserKeyInvalid, Success, UnknownTournament,
    UserKeyRequired,
};
use crate::store::{Tournament, TournamentCode, TournamentRefusal, TournamentStanding};

/// The status of an open tournament: `{status: "success", mode, ...}`.
#[derive(Serialize, ToSchema)]
struct StatusAnswer<'a> {
    /// The game mode it is played in.
    #[schema(value_type = GameMode)]
    mode: &'a str,
    /// The tournament's code, in lower case.
    #[schema(value_type = TournamentCode)]
    code: &'a str,
    /// When it opens.
    opens: ApiDate,
    /// When it closes.
    closes: ApiDate,
    /// How many players may join.
    #[schema(minimum = 0)]
    capacity: i64,
    /// How many have joined.
    #[schema(minimum = 0)]
    entrants: i64,
    /// Whether only the players on its whitelist may join.
    whitelist_only: bool,
    /// Whether the caller joined (false without a key).
    joined: bool,
}

impl<'a> StatusAnswer<'a> {
    fn new(tournament: &'a Tournament, joined: bool) -> Self {
        Self {
            mode: tournament.mode.as_str(),
            code: tournament.code.as_str(),
            opens: ApiDate(tournament.window.opens),
            closes: ApiDate(tournament.window.closes),
            capacity: tournament.capacity,
            entrants: tournament.entrants,
            whitelist_only: tournament.whitelist_only,
            joined,
        }
    }
}

/// `GET /api/{tournamentCode}/join` and `GET /api/tournament/{tournamentCode}/join` (key
/// optional): success with the mode when the tournament is open and, with a key, the caller
/// may join it or has joined it (`joined: true`); otherwise an error that says why.
#[utoipa::path(
    get,
    path = "/api/tournament/{tournamentCode}/join",
    tag = "tournaments",
    operation_id = "checkTournament",
    description = "Whether a tournament is open and, with a key, whether the caller may join it \
        or has joined it (`joined: true`); otherwise an error that says why. Also served at \
        `/api/{tournamentCode}/join`.",
    params(TournamentCodePath),
    responses(
        (status = 200, description = "The tournament is open to the caller", body = Success<StatusAnswer>),
        (status = 400, response = InvalidTournamentCode),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, description = "The account is banned from tournaments \
            (`account_banned`), is not on the whitelist (`not_whitelisted`), or keys of two \
            accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, response = UnknownTournament),
        (status = 409, description = "Not open yet (`tournament_not_open`), ended \
            (`tournament_ended`), closed by the operator (`tournament_closed`) or full \
            (`tournament_full`)", body = ErrorBody),
    )
)]
pub(super) async fn check(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::optional(&app, &incoming).await?;
    let TournamentCodePath { code } = TournamentCodePath::read(&incoming)?;
    let tournament = existing(&app, &code).await?;
    let now = app.clock.now();
    let joined = match session {
        Some(session) => {
            if session.account.is_banned {
                return Err(refused(TournamentRefusal::Banned, &code));
            }
            let standing = app
                .store
                .tournament_standing(&code, session.account.id)
                .await?;
            match tournament.admits(standing, now) {
                Ok(()) => false,
                Err(TournamentRefusal::AlreadyJoined) => true,
                Err(refusal) => return Err(refused(refusal, &code)),
            }
        }
        None => {
            // Without a key the whitelist cannot be told: only the window and places count.
            let anonymous = TournamentStanding {
                whitelisted: true,
                joined: false,
            };
            tournament
                .admits(anonymous, now)
                .map_err(|refusal| refused(refusal, &code))?;
            false
        }
    };
    Ok(Reply::success(&StatusAnswer::new(&tournament, joined)))
}

/// `POST /api/tournament/{tournamentCode}/join` (key required): registers the caller, once,
/// atomically against the capacity; answers the status with `joined: true`.
#[utoipa::path(
    post,
    path = "/api/tournament/{tournamentCode}/join",
    tag = "tournaments",
    operation_id = "joinTournament",
    description = "Registers the caller, once, atomically against the capacity; answers the \
        tournament's status with `joined: true`.",
    params(TournamentCodePath),
    responses(
        (status = 200, description = "The caller joined", body = Success<StatusAnswer>),
        (status = 400, response = InvalidTournamentCode),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The account is banned from tournaments \
            (`account_banned`), is not on the whitelist (`not_whitelisted`), or keys of two \
            accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, response = UnknownTournament),
        (status = 409, description = "Not open yet (`tournament_not_open`), ended \
            (`tournament_ended`), closed (`tournament_closed`), full (`tournament_full`), or \
            joined already (`already_joined`)", body = ErrorBody),
    )
)]
pub(super) async fn join(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let TournamentCodePath { code } = TournamentCodePath::read(&incoming)?;
    let joined = app
        .store
        .join_tournament(&code, session.account.id, app.clock.now())
        .await?
        .map_err(|refusal| refused(refusal, &code))?;
    Ok(Reply::success(&StatusAnswer::new(&joined, true)))
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::api::shared::community::utc;
    use crate::http::ErrorCode;
    use crate::store::NotOpen;

    #[test]
    fn messages_say_why_and_when() {
        let code = TournamentCode::parse("Cup").unwrap();
        let at = datetime!(2026-11-22 08:00 UTC);
        let error = refused(
            TournamentRefusal::NotOpen(NotOpen::Upcoming { opens: at }),
            &code,
        );
        assert_eq!(error.code(), ErrorCode::TournamentNotOpen);
        assert_eq!(
            error.message(),
            "tournament `cup` is not open yet: it opens at 2026-11-22 08:00:00 UTC"
        );
        assert_eq!(utc(at), "2026-11-22 08:00:00 UTC");
    }
}
