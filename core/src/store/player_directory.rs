//! Finding players for the operator console: by the start of a friend code or of a display
//! name, and lists of the newest, the banned and the most recently signed-in players, a page at
//! a time with a cursor (never an offset, never a count of all rows).

use std::fmt;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, StoreError};
use crate::domain::FriendCode;

/// The most players one page holds.
pub const PLAYER_PAGE_MAX: u32 = 100;

/// Which players a page lists, and in which order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerListing {
    /// Those whose friend code starts with this text, letter case aside (`snee` finds
    /// `Sneeza#0001`; `Sneeza#00` finds `Sneeza#0001` to `Sneeza#0099`), by friend code.
    FriendCode(String),
    /// Those whose display name starts with this text, letter case aside as the database's
    /// `lower` sets it aside (SQLite: ASCII letters only; PostgreSQL: by the database's
    /// collation), by that lowered name, then id.
    Name(String),
    /// Every player, newest (highest id) first.
    Newest,
    /// The banned players, newest first.
    Banned,
    /// The players who signed in, most recent sign-in first (as the activity rollup last saw
    /// their `signed_in` events).
    LastSignIn,
}

/// One player as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSummary {
    /// The account's id.
    pub id: AccountId,
    /// Its friend code.
    pub friend_code: FriendCode,
    /// Its display name, if it has one.
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
    pub created: OffsetDateTime,
    /// When it last signed in, as far as the activity rollup has read the events (`None`: not
    /// since the rollup began, or not read yet).
    pub last_sign_in: Option<OffsetDateTime>,
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerPage {
    /// The players, in the listing's order.
    pub players: Vec<PlayerSummary>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<PlayerCursor>,
}

/// Where the next page of a listing starts: the sort key of the last player shown. A cursor
/// fits only the kind of listing that made it ([`PlayerCursor::fits`]); its text form
/// (`Display`, [`PlayerCursor::parse`]) goes through a query string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerCursor {
    /// [`PlayerListing::Newest`] and [`PlayerListing::Banned`]: the last id shown.
    Id(AccountId),
    /// [`PlayerListing::LastSignIn`]: the last sign-in shown (unix microseconds) and its
    /// account.
    SignIn {
        /// The sign-in's time, in unix microseconds.
        at_micros: i64,
        /// Its account.
        account: AccountId,
    },
    /// [`PlayerListing::FriendCode`]: the last friend code shown, its name as the database
    /// lowered it.
    FriendCode {
        /// The lowered name.
        name: String,
        /// The digits.
        digits: u16,
    },
    /// [`PlayerListing::Name`]: the last display name shown as the database lowered it, and
    /// its account.
    Name {
        /// The lowered name.
        name: String,
        /// Its account.
        account: AccountId,
    },
}

impl PlayerCursor {
    /// Whether this cursor continues a page of `listing`.
    pub fn fits(&self, listing: &PlayerListing) -> bool {
        matches!(
            (self, listing),
            (Self::Id(_), PlayerListing::Newest | PlayerListing::Banned)
                | (Self::SignIn { .. }, PlayerListing::LastSignIn)
                | (Self::FriendCode { .. }, PlayerListing::FriendCode(_))
                | (Self::Name { .. }, PlayerListing::Name(_))
        )
    }

    /// Reads the text form `Display` writes; `None` for anything else.
    ///
    /// ```
    /// use safezone_core::store::{AccountId, PlayerCursor};
    ///
    /// let cursor = PlayerCursor::Name { name: "sné.e".to_owned(), account: AccountId(7) };
    /// assert_eq!(cursor.to_string(), "n.7.sné.e");
    /// assert_eq!(PlayerCursor::parse(&cursor.to_string()), Some(cursor));
    /// assert_eq!(PlayerCursor::parse("x.1"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let (kind, rest) = text.split_once('.')?;
        match kind {
            "i" => Some(Self::Id(AccountId(rest.parse().ok()?))),
            "s" => {
                let (at, account) = rest.split_once('.')?;
                Some(Self::SignIn {
                    at_micros: at.parse().ok()?,
                    account: AccountId(account.parse().ok()?),
                })
            }
            "f" => {
                let (digits, name) = rest.split_once('.')?;
                Some(Self::FriendCode {
                    name: name.to_owned(),
                    digits: digits.parse().ok()?,
                })
            }
            "n" => {
                let (account, name) = rest.split_once('.')?;
                Some(Self::Name {
                    name: name.to_owned(),
                    account: AccountId(account.parse().ok()?),
                })
            }
            _ => None,
        }
    }
}

impl fmt::Display for PlayerCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => write!(f, "i.{}", id.0),
            Self::SignIn { at_micros, account } => write!(f, "s.{at_micros}.{}", account.0),
            Self::FriendCode { name, digits } => write!(f, "f.{digits}.{name}"),
            Self::Name { name, account } => write!(f, "n.{}.{name}", account.0),
        }
    }
}

/// Finding and listing players for the operator console. Each page is one statement over an
/// index, however many players there are.
#[async_trait]
pub trait PlayerDirectory: Send + Sync {
    /// Up to `limit` (at most [`PLAYER_PAGE_MAX`]) players of `listing`, after `after` (a
    /// cursor of a page before; `None`: the first page). A cursor that does not
    /// [fit](PlayerCursor::fits) the listing is an [`StoreError::Internal`].
    async fn players(
        &self,
        listing: &PlayerListing,
        after: Option<&PlayerCursor>,
        limit: u32,
    ) -> Result<PlayerPage, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl PlayerDirectory for super::UnavailableStore {
    async fn players(
        &self,
        _: &PlayerListing,
        _: Option<&PlayerCursor>,
        _: u32,
    ) -> Result<PlayerPage, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
