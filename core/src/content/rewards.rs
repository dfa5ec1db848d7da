//! Rewards as the content file writes them (in timed deals, in-app purchases, reward types):
//! `{ type = "coins", quantity = 500 }`, `{ type = "item", sku = "outfit-ranger" }`, ...

use serde::Deserialize;
use toml::Spanned;

use super::ContentError;
use super::checks::Entry;
use super::packs::PacksBySku;
use crate::domain::{ItemId, PackId};

/// The largest quantity a single reward may grant.
pub const MAX_REWARD_QUANTITY: i64 = 1_000_000;

/// One thing a player is granted; quantities are between 1 and [`MAX_REWARD_QUANTITY`], items and
/// packs exist in the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RewardSpec {
    /// Coins.
    Coins(i64),
    /// Gems.
    Gems(i64),
    /// Experience points.
    Experience(i64),
    /// One item (never a stock item, which every player owns already).
    Item(ItemId),
    /// Unopened packs.
    Pack {
        /// Which pack.
        pack: PackId,
        /// How many.
        quantity: i64,
    },
}

/// A reward as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RewardSection {
    #[serde(rename = "type")]
    kind: Spanned<String>,
    quantity: Option<Spanned<i64>>,
    sku: Option<Spanned<String>>,
}

/// Validates the list `field` of `parent` (`timed_deals[0].rewards`) against `catalog`.
pub(super) fn validate_list(
    parent: &Entry<'_, '_>,
    field: &str,
    sections: &[Spanned<RewardSection>],
    catalog: &impl PacksBySku,
) -> Result<Vec<RewardSpec>, ContentError> {
    sections
        .iter()
        .enumerate()
        .map(|(index, section)| {
            let entry = parent.nested(field, index, parent.label().to_owned());
            section.get_ref().validate(&entry, section.span(), catalog)
        })
        .collect()
}

impl RewardSection {
    fn validate(
        &self,
        entry: &Entry<'_, '_>,
        span: std::ops::Range<usize>,
        catalog: &impl PacksBySku,
    ) -> Result<RewardSpec, ContentError> {
        let kind = self.kind.get_ref().as_str();
        let quantity = |default: Option<i64>| match (&self.quantity, default) {
            (Some(quantity), _) => entry.int(quantity, "quantity", 1..=MAX_REWARD_QUANTITY),
            (None, Some(default)) => Ok(default),
            (None, None) => Err(entry.error(
                span.clone(),
                "quantity",
                format!("a `{kind}` reward needs a quantity"),
            )),
        };
        let sku = || {
            self.sku.as_ref().ok_or_else(|| {
                entry.error(
                    span.clone(),
                    "sku",
                    format!("a `{kind}` reward needs the sku of its {kind}"),
                )
            })
        };
        let no_sku = || match &self.sku {
            Some(sku) => Err(entry.error(
                sku.span(),
                "sku",
                format!("a `{kind}` reward has no sku; leave it out"),
            )),
            None => Ok(()),
        };
        match kind {
            "coins" => no_sku().and(quantity(None).map(RewardSpec::Coins)),
            "gems" => no_sku().and(quantity(None).map(RewardSpec::Gems)),
            "experience" => no_sku().and(quantity(None).map(RewardSpec::Experience)),
            "item" => {
                if let Some(quantity) = &self.quantity {
                    return Err(entry.error(
                        quantity.span(),
                        "quantity",
                        "an item is owned at most once; leave the quantity out",
                    ));
                }
                let sku = sku()?;
                let item = catalog.item_by_sku(sku.get_ref()).ok_or_else(|| {
                    entry.error(
                        sku.span(),
                        "sku",
                        format!("there is no item `{}`", sku.get_ref()),
                    )
                })?;
                if item.is_stock {
                    return Err(entry.error(
                        sku.span(),
                        "sku",
                        format!("`{}` is a stock item every player owns already", item.sku),
                    ));
                }
                Ok(RewardSpec::Item(item.id))
            }
            "pack" => {
                let sku = sku()?;
                let pack = catalog.pack_by_sku(sku.get_ref()).ok_or_else(|| {
                    entry.error(
                        sku.span(),
                        "sku",
                        format!("there is no pack `{}`", sku.get_ref()),
                    )
                })?;
                Ok(RewardSpec::Pack {
                    pack: pack.id,
                    quantity: quantity(Some(1))?,
                })
            }
            _ => Err(entry.error(
                self.kind.span(),
                "type",
                format!(
                    "`{kind}` is not a reward type; write coins, gems, experience, item or pack"
                ),
            )),
        }
    }
}
