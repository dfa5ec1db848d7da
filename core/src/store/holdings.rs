//! What an account holds besides its balances, and its ledger.

use time::OffsetDateTime;

use super::{AccountId, Currency};
use crate::domain::{IapId, ItemId, PackId};

/// An account's items, unopened packs, in-app purchases and subscriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Owned items, by item id.
    pub licenses: Vec<License>,
    /// Unopened packs (only kinds with at least one), by pack id.
    pub packs: Vec<PackStock>,
    /// In-app purchases, oldest first.
    pub iaps: Vec<IapPurchase>,
    /// Subscriptions bought in-app, by product.
    pub subscriptions: Vec<Subscription>,
}

/// One verified in-app purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IapPurchase {
    /// The row's id.
    pub id: i64,
    /// The product bought.
    pub iap: IapId,
    /// What it cost, in cents.
    pub cost_cents: i64,
}

/// A subscription bought in-app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscription {
    /// The row's id.
    pub id: i64,
    /// The subscription product.
    pub iap: IapId,
    /// When it ends, if the store said.
    pub expires: Option<OffsetDateTime>,
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
