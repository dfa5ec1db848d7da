//! How stored values shared by several areas' rows become a record's: a friend code's parts and
//! a window's columns. Each area's rows sit beside its store (`accounts.rs`, `polls.rs`, ...).

use safezone_core::domain::FriendCode;
use safezone_core::store::{StoreError, Window};

use crate::micros::from_micros;

/// The window of a poll's or tournament's columns.
pub(crate) fn window(
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
) -> Result<Window, StoreError> {
    Ok(Window {
        opens: from_micros(opens)?,
        closes: from_micros(closes)?,
        closed_at: closed_at.map(from_micros).transpose()?,
    })
}

/// The friend code of its stored name and digits.
pub(crate) fn friend_code(name: &str, digits: i32) -> Result<FriendCode, StoreError> {
    u16::try_from(digits)
        .ok()
        .and_then(|digits| FriendCode::new(name, digits).ok())
        .ok_or_else(|| StoreError::Internal(format!("invalid stored friend code {name}#{digits}")))
}
