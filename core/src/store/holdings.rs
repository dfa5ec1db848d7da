//! What an account holds besides its balances, and its ledger.

use time::OffsetDateTime;

use super::{AccountId, Currency};
use crate::domain::{ItemId, PackId};

/// An account's items and unopened packs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Owned items, by item id.
    pub licenses: Vec<License>,
    /// Unopened packs (only kinds with at least one), by pack id.
    pub packs: Vec<PackStock>,
}

/// An owned item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct License {
    /// The row's id.
    pub id: i64,
    /// The item.
    pub item: ItemId,
    /// How many (1 for items owned once).
    pub quantity: i64,
}

/// Unopened packs of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackStock {
    /// The row's id.
    pub id: i64,
    /// The pack.
    pub pack: PackId,
    /// How many are unopened.
    pub quantity: i64,
}

/// One movement of coins or gems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// The row's id; entries of an account are ordered by it.
    pub id: i64,
    /// The account.
    pub account: AccountId,
    /// Which currency moved.
    pub currency: Currency,
    /// By how much (negative for a debit).
    pub delta: i64,
    /// The balance right after.
    pub balance_after: i64,
    /// Why (`buy`, `pack`, `claim`, ...).
    pub reason: String,
    /// What (`item:7`, `gift/2026-11-22T08`, ...).
    pub reference: String,
    /// When.
    pub created: OffsetDateTime,
}
