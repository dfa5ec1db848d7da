//! What the poll, tournament, whitelist and clan endpoints share: the ban and admin checks,
//! the tournament of a path and its refusals, and how times appear in messages.

use time::OffsetDateTime;

use super::session::Session;
use crate::App;
use crate::domain::format_plain_datetime;
use crate::http::{ApiError, ErrorCode};
use crate::store::{NotOpen, Role, Tournament, TournamentCode, TournamentRefusal};

/// 403 `account_banned`: an operator banned the caller from `what`.
pub(crate) fn banned(what: &str) -> ApiError {
    ApiError::Forbidden {
        code: ErrorCode::AccountBanned,
        message: format!("this account is banned from {what}"),
    }
}

/// 403 `admin_only` unless the caller's account has the admin role.
pub(crate) fn require_admin(session: &Session) -> Result<(), ApiError> {
    if session.account.role == Role::Admin {
        Ok(())
    } else {
        Err(ApiError::Forbidden {
            code: ErrorCode::AdminOnly,
            message: "only operator (admin) accounts may do this".to_owned(),
        })
    }
}

/// `2026-11-22 08:00:00 UTC`.
pub(crate) fn utc(at: OffsetDateTime) -> String {
    format!("{} UTC", format_plain_datetime(at))
}

/// Why `what` (`poll 3`, `tournament \`spring-cup\``) is not open, for a message.
pub(crate) fn not_open_message(what: &str, not_open: NotOpen) -> String {
    match not_open {
        NotOpen::Upcoming { opens } => {
            format!("{what} is not open yet: it opens at {}", utc(opens))
        }
        NotOpen::Ended { closes } => format!("{what} has ended: it closed at {}", utc(closes)),
        NotOpen::Closed { at } => format!("{what} was closed by the operator at {}", utc(at)),
    }
}

/// The tournament of the path (404 `unknown_tournament` when there is none).
pub(crate) async fn existing(app: &App, code: &TournamentCode) -> Result<Tournament, ApiError> {
    app.store
        .tournament(code)
        .await?
        .ok_or_else(|| unknown(code))
}

/// 404 `unknown_tournament`.
pub(crate) fn unknown(code: &TournamentCode) -> ApiError {
    refused(TournamentRefusal::Unknown, code)
}

/// A refusal as the error the client sees.
pub(crate) fn refused(refusal: TournamentRefusal, code: &TournamentCode) -> ApiError {
    let what = format!("tournament `{code}`");
    match refusal {
        TournamentRefusal::NoAccount => ApiError::InvalidUserKey,
        TournamentRefusal::Banned => banned("tournaments"),
        TournamentRefusal::Unknown => ApiError::NotFound {
            code: ErrorCode::UnknownTournament,
            message: format!("there is no {what}"),
        },
        TournamentRefusal::NotOpen(not_open) => ApiError::Conflict {
            code: match not_open {
                NotOpen::Upcoming { .. } => ErrorCode::TournamentNotOpen,
                NotOpen::Ended { .. } => ErrorCode::TournamentEnded,
                NotOpen::Closed { .. } => ErrorCode::TournamentClosed,
            },
            message: not_open_message(&what, not_open),
        },
        TournamentRefusal::NotWhitelisted => ApiError::Forbidden {
            code: ErrorCode::NotWhitelisted,
            message: format!(
                "{what} is open only to the players on its whitelist, and this account is not on it"
            ),
        },
        TournamentRefusal::Full { capacity } => ApiError::Conflict {
            code: ErrorCode::TournamentFull,
            message: format!("{what} is full: all {capacity} places are taken"),
        },
        TournamentRefusal::AlreadyJoined => ApiError::Conflict {
            code: ErrorCode::AlreadyJoined,
            message: format!("this account has already joined {what}"),
        },
    }
}
