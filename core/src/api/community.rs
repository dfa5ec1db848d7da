//! What the poll, tournament, whitelist and clan endpoints share: ids in paths, the ban and
//! admin checks, and how times appear in messages.

use time::OffsetDateTime;

use super::session::Session;
use crate::domain::format_plain_datetime;
use crate::http::{ApiError, ErrorCode, Incoming};
use crate::store::{NotOpen, Role};

/// The path parameter `name` as a positive whole number (400 naming it otherwise).
pub(super) fn path_id(incoming: &Incoming, name: &'static str) -> Result<i64, ApiError> {
    incoming
        .path(name)?
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| ApiError::invalid(name, "must be a positive whole number"))
}

/// 403 `account_banned`: an operator banned the caller from `what`.
pub(super) fn banned(what: &str) -> ApiError {
    ApiError::Forbidden {
        code: ErrorCode::AccountBanned,
        message: format!("this account is banned from {what}"),
    }
}

/// 403 `admin_only` unless the caller's account has the admin role.
pub(super) fn require_admin(session: &Session) -> Result<(), ApiError> {
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
pub(super) fn utc(at: OffsetDateTime) -> String {
    format!("{} UTC", format_plain_datetime(at))
}

/// Why `what` (`poll 3`, `tournament \`spring-cup\``) is not open, for a message.
pub(super) fn not_open_message(what: &str, not_open: NotOpen) -> String {
    match not_open {
        NotOpen::Upcoming { opens } => {
            format!("{what} is not open yet: it opens at {}", utc(opens))
        }
        NotOpen::Ended { closes } => format!("{what} has ended: it closed at {}", utc(closes)),
        NotOpen::Closed { at } => format!("{what} was closed by the operator at {}", utc(at)),
    }
}
