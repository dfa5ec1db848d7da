//! Planning a purchase in the shop: what it costs and what it gives.

use std::fmt;

use time::OffsetDateTime;

use super::grants::reward_steps;
use crate::content::{Catalog, Occurrence, Price};
use crate::domain::{DealId, ItemId, PackId};
use crate::store::{Currency, Step};

/// The most packs one purchase may buy.
pub const PACKS_PER_PURCHASE_MAX: i64 = 100;

/// What a buyer asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purchase {
    /// A shop item, owned at most once.
    Item(ItemId),
    /// Unopened packs.
    Pack(PackId),
    /// A timed deal, each run bought at most once per account.
    Deal(DealId),
}

/// A purchase turned into change steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedPurchase {
    /// For a deal its run's window first; the debits; then what is given (and, for a deal,
    /// its once-per-account claim of that run).
    pub steps: Vec<Step>,
    /// What was bought, for the ledger and the idempotency fingerprint (`item:7`, `pack:2x3`).
    pub reference: String,
}

/// Why a purchase cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurchaseError {
    /// No such item, pack or deal.
    Unknown(Purchase),
    /// The item or pack has no price (a default item, or only found in packs).
    NotForSale(Purchase),
    /// Items and deals are bought one at a time.
    QuantityMustBeOne,
    /// Packs are bought 1 to [`PACKS_PER_PURCHASE_MAX`] at a time.
    QuantityOutOfRange,
}

impl fmt::Display for Purchase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Item(id) => write!(f, "item {}", id.0),
            Self::Pack(id) => write!(f, "pack {}", id.0),
            Self::Deal(id) => write!(f, "timed deal {}", id.0),
        }
    }
}

/// Plans buying `quantity` of `purchase` at `now`. A deal's window (that of the run on sale at
/// `now`, else of the next run, else of the first) is a step of the plan, checked by the store
/// at the time of the change (after an idempotent repeat is recognized).
pub fn plan_purchase(
    catalog: &Catalog,
    purchase: Purchase,
    quantity: i64,
    now: OffsetDateTime,
) -> Result<PlannedPurchase, PurchaseError> {
    let unknown = || PurchaseError::Unknown(purchase);
    match purchase {
        Purchase::Item(id) => {
            let item = catalog.item(id).ok_or_else(unknown)?;
            if !item.is_for_sale() {
                return Err(PurchaseError::NotForSale(purchase));
            }
            if quantity != 1 {
                return Err(PurchaseError::QuantityMustBeOne);
            }
            let mut steps = debits(item.price, 1);
            steps.push(Step::AddItem { item: id });
            Ok(PlannedPurchase {
                steps,
                reference: format!("item:{}", id.0),
            })
        }
        Purchase::Pack(id) => {
            let pack = catalog.pack(id).ok_or_else(unknown)?;
            if !pack.is_for_sale() {
                return Err(PurchaseError::NotForSale(purchase));
            }
            if !(1..=PACKS_PER_PURCHASE_MAX).contains(&quantity) {
                return Err(PurchaseError::QuantityOutOfRange);
            }
            let mut steps = debits(pack.price, quantity);
            steps.push(Step::GrantPacks { pack: id, quantity });
            Ok(PlannedPurchase {
                steps,
                reference: format!("pack:{}x{quantity}", id.0),
            })
        }
        Purchase::Deal(id) => {
            let deal = catalog.timed_deal(id).ok_or_else(unknown)?;
            if quantity != 1 {
                return Err(PurchaseError::QuantityMustBeOne);
            }
            let run = deal.runs.current_or_next(now).unwrap_or(Occurrence {
                number: 0,
                starts: deal.runs.starts,
                ends: deal.runs.ends,
            });
            let mut steps = vec![Step::RequireWindow {
                starts: run.starts,
                ends: run.ends,
            }];
            steps.extend(debits(deal.price, 1));
            steps.push(Step::Claim {
                keys: vec![deal_claim_key(id, &run)],
            });
            steps.extend(reward_steps(catalog, &deal.rewards));
            Ok(PlannedPurchase {
                steps,
                reference: format!("deal:{}", id.0),
            })
        }
    }
}

/// The claim that makes a deal's run once per account: `deal/7` for the first run, `deal/7/3`
/// for the fourth.
pub fn deal_claim_key(id: DealId, run: &Occurrence) -> String {
    match run.number {
        0 => format!("deal/{}", id.0),
        number => format!("deal/{}/{number}", id.0),
    }
}

/// The debits of `quantity` times `price`. Prices are at most 10^9 and quantities at most
/// [`PACKS_PER_PURCHASE_MAX`], so the products fit easily; they saturate all the same.
fn debits(price: Price, quantity: i64) -> Vec<Step> {
    [(Currency::Coins, price.coins), (Currency::Gems, price.gems)]
        .into_iter()
        .filter(|(_, amount)| *amount > 0)
        .map(|(currency, amount)| Step::Debit {
            currency,
            amount: amount.saturating_mul(quantity),
        })
        .collect()
}
