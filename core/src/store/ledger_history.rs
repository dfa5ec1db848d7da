//! A player's ledger as the operator console pages through it: newest first, filtered by
//! currency, reason and time, a page at a time with a cursor.

use std::fmt;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, Currency, LedgerEntry, StoreError};

/// The most ledger rows one page holds.
pub const LEDGER_PAGE_MAX: u32 = 100;

/// Which of an account's ledger rows to read: each filter given must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LedgerFilter {
    /// Only this currency's rows.
    pub currency: Option<Currency>,
    /// Only the rows of this reason (`buy`, `match`, `refund`, ...).
    pub reason: Option<String>,
    /// Only the rows created at or after this time.
    pub from: Option<OffsetDateTime>,
    /// Only the rows created before this time.
    pub until: Option<OffsetDateTime>,
}

/// Where the next page starts: the last row shown, by the page order (created, then id, both
/// descending). Its text form (`Display`, [`LedgerCursor::parse`]) goes through a query string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerCursor {
    /// The last row's creation time, in unix microseconds.
    pub created_micros: i64,
    /// The last row's id.
    pub id: i64,
}

impl LedgerCursor {
    /// Reads the text form `Display` writes (`created.id`); `None` for anything else.
    ///
    /// ```
    /// use safezone_core::store::LedgerCursor;
    ///
    /// let cursor = LedgerCursor { created_micros: 1_700_000_000_000_000, id: 42 };
    /// assert_eq!(LedgerCursor::parse(&cursor.to_string()), Some(cursor));
    /// assert_eq!(LedgerCursor::parse("42"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let (created, id) = text.split_once('.')?;
        Some(Self {
            created_micros: created.parse().ok()?,
            id: id.parse().ok()?,
        })
    }
}

impl fmt::Display for LedgerCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.created_micros, self.id)
    }
}

/// One page of an account's ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerPage {
    /// The rows, newest first (by creation time, then id).
    pub entries: Vec<LedgerEntry>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<LedgerCursor>,
}

/// An account's ledger, paged and filtered, each page one statement over an index whatever the
/// number of rows the account has.
#[async_trait]
pub trait LedgerHistory: Send + Sync {
    /// Up to `limit` (at most [`LEDGER_PAGE_MAX`]) ledger rows of `account` that match
    /// `filter`, newest first (by creation time, then id), after `after` (the cursor of the
    /// page before; `None`: the first page).
    async fn ledger_page(
        &self,
        account: AccountId,
        filter: &LedgerFilter,
        after: Option<LedgerCursor>,
        limit: u32,
    ) -> Result<LedgerPage, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl LedgerHistory for super::UnavailableStore {
    async fn ledger_page(
        &self,
        _: AccountId,
        _: &LedgerFilter,
        _: Option<LedgerCursor>,
        _: u32,
    ) -> Result<LedgerPage, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
