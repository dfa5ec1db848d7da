//! Timed deals (`[[timed_deals]]`): a set of rewards at a discount, on sale for a time window.

use serde::Deserialize;
use toml::Spanned;

use super::ContentError;
use super::checks::{Entry, catalog_entry};
use super::packs::PacksBySku;
use super::price::{self, Price};
use super::recurrence::{self, Occurrence, Recurrence};
use super::rewards::{self, RewardSection, RewardSpec};
use crate::domain::DealId;

/// A timed deal: rewards for a price, on sale from `starts` until `ends`, and again every
/// `repeat_weeks` weeks when it repeats (each run bought at most once per account).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedDeal {
    /// Its id, stable across releases.
    pub id: DealId,
    /// Its SKU: `deal-winter-starter`.
    pub sku: String,
    /// Its name, as shown to players.
    pub name: String,
    /// What it costs; never free.
    pub price: Price,
    /// What it would cost without the discount, shown crossed out; never below `price`.
    pub undiscounted: Price,
    /// What the buyer gets; never empty.
    pub rewards: Vec<RewardSpec>,
    /// When it is on sale: its first run, and how often it comes back.
    pub runs: Recurrence,
}

impl TimedDeal {
    /// The run on sale at `now`, if any.
    pub fn running_at(&self, now: time::OffsetDateTime) -> Option<Occurrence> {
        self.runs.running_at(now)
    }
}

/// `[[timed_deals]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DealSection {
    id: Spanned<i64>,
    sku: Spanned<String>,
    name: Spanned<String>,
    cost_coins: Option<Spanned<i64>>,
    cost_gems: Option<Spanned<i64>>,
    undiscounted_cost_coins: Option<Spanned<i64>>,
    undiscounted_cost_gems: Option<Spanned<i64>>,
    starts: Spanned<toml::value::Datetime>,
    ends: Spanned<toml::value::Datetime>,
    repeat_weeks: Option<Spanned<i64>>,
    rewards: Spanned<Vec<Spanned<RewardSection>>>,
}

catalog_entry!(DealSection, "timed_deals", "timed deal");

impl DealSection {
    /// Validates the timed deal, whose rewards name items and packs of `catalog`.
    pub(super) fn validate(
        &self,
        entry: &Entry<'_, '_>,
        catalog: &impl PacksBySku,
    ) -> Result<TimedDeal, ContentError> {
        let id = DealId(entry.int(&self.id, "id", 1..=i64::MAX)?);
        let sku = entry.sku(&self.sku, "sku")?;
        let name = entry.name(&self.name, "name")?;
        let price = price::cost(entry, &self.cost_coins, &self.cost_gems, None)?;
        if price.is_free() {
            return Err(entry.error(
                self.sku.span(),
                "cost_coins",
                "a timed deal needs a price in coins or gems (cost_coins, cost_gems)",
            ));
        }
        let undiscounted = price::validate(
            entry,
            &self.undiscounted_cost_coins,
            &self.undiscounted_cost_gems,
            "undiscounted_",
        )?;
        for (deal, before, value, field) in [
            (
                price.coins,
                undiscounted.coins,
                &self.undiscounted_cost_coins,
                "undiscounted_cost_coins",
            ),
            (
                price.gems,
                undiscounted.gems,
                &self.undiscounted_cost_gems,
                "undiscounted_cost_gems",
            ),
        ] {
            if before < deal {
                let span = value
                    .as_ref()
                    .map_or_else(|| self.sku.span(), Spanned::span);
                return Err(entry.error(
                    span,
                    field,
                    format!("{before} is below the deal's own price {deal}"),
                ));
            }
        }
        let runs =
            recurrence::validate(entry, &self.starts, &self.ends, self.repeat_weeks.as_ref())?;
        if self.rewards.get_ref().is_empty() {
            return Err(entry.error(
                self.rewards.span(),
                "rewards",
                "a timed deal needs at least one reward",
            ));
        }
        Ok(TimedDeal {
            id,
            sku,
            name,
            price,
            undiscounted,
            rewards: rewards::validate_list(entry, "rewards", self.rewards.get_ref(), catalog)?,
            runs,
        })
    }
}
