//! The economy's rules. Each function here plans what a request changes (the steps of a
//! [`Change`](crate::store::Change)); the store applies the plan atomically and checks every
//! step's precondition. Nothing here reads or writes the database.

mod claims;
mod grants;
mod purchase;
mod rename;

pub use claims::{ClaimWindow, RewardStatus};
pub use grants::{DUPLICATE_COINS_DEFAULT, pack_opening_steps, reward_steps};
pub use purchase::{
    PACKS_PER_PURCHASE_MAX, PlannedPurchase, Purchase, PurchaseError, deal_claim_key, plan_purchase,
};
pub use rename::digit_candidates;
