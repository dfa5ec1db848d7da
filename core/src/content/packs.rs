//! Packs (`[[packs]]`, the chests): bought, then opened for items drawn from a weighted table.

use std::collections::HashSet;

use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use serde::Deserialize;
use toml::Spanned;

use super::ContentError;
use super::checks::{Entry, catalog_entry};
use super::items::ItemsBySku;
use super::price::{self, MAX_PRICE, Price};
use crate::domain::{ItemId, PackId};

/// The most items one opening of a pack gives.
pub const MAX_ITEMS_PER_OPEN: u32 = 10;

/// A pack: opening one draws `items_per_open` items from its drop table.
#[derive(Debug, Clone)]
pub struct Pack {
    /// Its id, stable across releases.
    pub id: PackId,
    /// Its SKU: `basic-chest`.
    pub sku: String,
    /// Its name, as shown to players.
    pub name: String,
    /// What it costs in the shop; free packs are only granted as rewards.
    pub price: Price,
    /// How many items one opening draws, 1 to [`MAX_ITEMS_PER_OPEN`].
    pub items_per_open: u32,
    /// The coins given instead of a drawn item that the player already owns.
    pub duplicate_coins: i64,
    /// The drop table: never empty, every weight positive, no item twice.
    pub drops: Vec<Drop>,
    /// `drops`' weights, ready to sample.
    weights: WeightedIndex<u32>,
}

/// One line of a pack's drop table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drop {
    /// The item.
    pub item: ItemId,
    /// The item's SKU.
    pub item_sku: String,
    /// Its weight: the chance of each draw is `weight` over the table's total.
    pub weight: u32,
}

impl Pack {
    /// Whether it can be bought in the shop.
    pub fn is_for_sale(&self) -> bool {
        !self.price.is_free()
    }

    /// Opens one pack: `items_per_open` independent draws from the drop table, with replacement
    /// (the same item can come twice; the caller turns items already owned into
    /// `duplicate_coins`).
    ///
    /// ```
    /// use rand::SeedableRng;
    /// use safezone_core::content::Content;
    ///
    /// let content = Content::shipped();
    /// let pack = content.catalog.pack_by_sku("basic-chest").unwrap();
    /// let items = pack.roll(&mut rand::rngs::StdRng::seed_from_u64(1));
    /// assert_eq!(items.len(), pack.items_per_open as usize);
    /// assert!(items.iter().all(|item| pack.drops.iter().any(|drop| drop.item == *item)));
    /// ```
    pub fn roll<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Vec<ItemId> {
        (0..self.items_per_open)
            .filter_map(|_| {
                self.drops
                    .get(self.weights.sample(rng))
                    .map(|drop| drop.item)
            })
            .collect()
    }
}

/// `[[packs]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PackSection {
    id: Spanned<i64>,
    sku: Spanned<String>,
    name: Spanned<String>,
    cost_coins: Option<Spanned<i64>>,
    cost_gems: Option<Spanned<i64>>,
    items_per_open: Spanned<u32>,
    duplicate_coins: Spanned<i64>,
    drops: Spanned<Vec<Spanned<DropSection>>>,
}

/// `[[packs.drops]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropSection {
    sku: Spanned<String>,
    weight: Spanned<u32>,
}

catalog_entry!(PackSection, "packs", "pack");

impl PackSection {
    /// Validates the pack, whose drops name items of `catalog`.
    pub(super) fn validate(
        &self,
        entry: &Entry<'_, '_>,
        catalog: &impl ItemsBySku,
    ) -> Result<Pack, ContentError> {
        let id = PackId(entry.int(&self.id, "id", 1..=i64::MAX)?);
        let sku = entry.sku(&self.sku, "sku")?;
        let name = entry.name(&self.name, "name")?;
        let price = price::cost(entry, &self.cost_coins, &self.cost_gems, None)?;
        let items_per_open = entry.int(
            &self.items_per_open,
            "items_per_open",
            1..=MAX_ITEMS_PER_OPEN,
        )?;
        let duplicate_coins = entry.int(&self.duplicate_coins, "duplicate_coins", 0..=MAX_PRICE)?;
        if self.drops.get_ref().is_empty() {
            return Err(entry.error(
                self.drops.span(),
                "drops",
                "the drop table is empty; list at least one item with a weight",
            ));
        }
        let mut seen = HashSet::new();
        let mut drops = Vec::with_capacity(self.drops.get_ref().len());
        for (index, drop) in self.drops.get_ref().iter().enumerate() {
            let drop = drop.get_ref();
            let line = entry.nested("drops", index, entry.label().to_owned());
            let item = catalog.item_by_sku(drop.sku.get_ref()).ok_or_else(|| {
                line.error(
                    drop.sku.span(),
                    "sku",
                    format!("there is no item `{}`", drop.sku.get_ref()),
                )
            })?;
            if item.is_stock {
                return Err(line.error(
                    drop.sku.span(),
                    "sku",
                    format!("`{}` is a stock item every player owns already", item.sku),
                ));
            }
            if !seen.insert(item.id) {
                return Err(line.error(
                    drop.sku.span(),
                    "sku",
                    format!(
                        "`{}` is listed twice; give it one line with the summed weight",
                        item.sku
                    ),
                ));
            }
            let weight = *drop.weight.get_ref();
            if weight == 0 {
                return Err(line.error(
                    drop.weight.span(),
                    "weight",
                    "a weight of 0 never drops; remove the line instead",
                ));
            }
            drops.push(Drop {
                item: item.id,
                item_sku: item.sku.clone(),
                weight,
            });
        }
        let weights = WeightedIndex::new(drops.iter().map(|drop| drop.weight)).map_err(|error| {
            entry.error(
                self.drops.span(),
                "drops",
                format!("the weights cannot be drawn from ({error}); their total must be above 0 and below 2^32"),
            )
        })?;
        Ok(Pack {
            id,
            sku,
            name,
            price,
            items_per_open,
            duplicate_coins,
            drops,
            weights,
        })
    }
}

/// Finds the items and packs validated so far by SKU: what a reward names (the catalog, as it
/// is built).
pub(super) trait PacksBySku: ItemsBySku {
    /// The pack with this SKU.
    fn pack_by_sku(&self, sku: &str) -> Option<&Pack>;
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::super::testing::{MINIMAL, parse};
    use super::super::{Content, SHIPPED};
    use super::Pack;
    use crate::domain::ItemId;

    /// The chi-square distribution's critical values at p = 0.001 (a fair sampler exceeds them
    /// one time in a thousand), for 1 to 30 degrees of freedom: 10.828 for 1, 20.515 for 5,
    /// 29.588 for 10, 45.315 for 20, 59.703 for 30.
    const CRITICAL_AT_0_001: [f64; 30] = [
        10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588, 31.264,
        32.909, 34.528, 36.123, 37.697, 39.252, 40.790, 42.312, 43.820, 45.315, 46.797, 48.268,
        49.728, 51.179, 52.620, 54.052, 55.476, 56.892, 58.301, 59.703,
    ];

    const ROLLS: usize = 100_000;

    /// How often each item came out of `ROLLS` openings of `pack`.
    fn observe(pack: &Pack, seed: u64) -> HashMap<ItemId, u64> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut counts = HashMap::new();
        for _ in 0..ROLLS {
            let items = pack.roll(&mut rng);
            assert_eq!(items.len(), pack.items_per_open as usize);
            for item in items {
                *counts.entry(item).or_insert(0) += 1;
            }
        }
        counts
    }

    /// Pearson's chi-square statistic of `counts` against `weights`, and its degrees of freedom.
    fn chi_square(counts: &HashMap<ItemId, u64>, weights: &[(ItemId, u32)]) -> (f64, usize) {
        let draws: u64 = counts.values().sum();
        let total: u32 = weights.iter().map(|(_, weight)| weight).sum();
        assert!(
            counts
                .keys()
                .all(|item| weights.iter().any(|(id, _)| id == item)),
            "an item outside the table dropped"
        );
        let statistic = weights
            .iter()
            .map(|(item, weight)| {
                let expected = draws as f64 * f64::from(*weight) / f64::from(total);
                // Each expected count is far above 5, as the test requires.
                assert!(expected > 5.0, "{item:?}: expected {expected}");
                let observed = counts.get(item).copied().unwrap_or(0) as f64;
                (observed - expected).powi(2) / expected
            })
            .sum();
        (statistic, weights.len() - 1)
    }

    fn weights(pack: &Pack) -> Vec<(ItemId, u32)> {
        pack.drops
            .iter()
            .map(|drop| (drop.item, drop.weight))
            .collect()
    }

    fn critical(degrees: usize) -> f64 {
        *CRITICAL_AT_0_001
            .get(degrees - 1)
            .unwrap_or_else(|| panic!("add the critical value for {degrees} degrees of freedom"))
    }

    #[test]
    fn drops_follow_their_weights() {
        let content = Content::parse(SHIPPED, "shipped").unwrap();
        for (seed, pack) in content.catalog.packs.iter().enumerate() {
            let counts = observe(pack, seed as u64 + 1);
            let (statistic, degrees) = chi_square(&counts, &weights(pack));
            assert!(
                statistic < critical(degrees),
                "{}: chi-square {statistic:.2} over {degrees} degrees of freedom",
                pack.sku
            );
        }
    }

    #[test]
    fn rare_drops_are_rare() {
        // Weights 1 : 9 : 90 : 900 (3 degrees of freedom; 16.266 at p = 0.001).
        let items: String = (1..=4)
            .map(|id| {
                format!(
                    "[[items]]\nid = {id}\nsku = \"spray-{id}\"\nname = \"Spray {id}\"\n\
                     type = \"spray\"\ncategory = \"test\"\nrarity = \"Common\"\n\n"
                )
            })
            .collect();
        let pack = "[[packs]]\nid = 1\nsku = \"test-chest\"\nname = \"Test\"\nitems_per_open = 1\n\
                    duplicate_coins = 0\ndrops = [\n\
                    { sku = \"spray-1\", weight = 1 },\n{ sku = \"spray-2\", weight = 9 },\n\
                    { sku = \"spray-3\", weight = 90 },\n{ sku = \"spray-4\", weight = 900 },\n]\n";
        let content = parse(&format!("{MINIMAL}{items}{pack}"));
        let pack = &content.catalog.packs[0];
        assert!(!pack.is_for_sale());
        let counts = observe(pack, 42);
        let (statistic, degrees) = chi_square(&counts, &weights(pack));
        assert_eq!(degrees, 3);
        assert!(statistic < 16.266, "chi-square {statistic:.2}");
    }

    #[test]
    fn the_test_notices_wrong_weights() {
        // The same draws judged against weights off by a few percent fail: the test has power.
        let content = Content::parse(SHIPPED, "shipped").unwrap();
        let pack = content.catalog.pack_by_sku("basic-chest").unwrap();
        let counts = observe(pack, 7);
        let mut wrong = weights(pack);
        wrong[0].1 += 10;
        wrong[1].1 -= 10;
        let (statistic, degrees) = chi_square(&counts, &wrong);
        assert!(statistic > critical(degrees), "chi-square {statistic:.2}");
    }

    #[test]
    fn a_single_drop_always_comes() {
        let content = parse(&format!("{MINIMAL}{}", super::super::testing::SHOP));
        let pack = &content.catalog.packs[0];
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..100 {
            assert_eq!(pack.roll(&mut rng), [ItemId(1)]);
        }
    }
}
