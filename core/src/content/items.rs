//! Shop items (`[[items]]`): outfits, emotes, gliders, weapon skins, backpacks, sprays, banners.

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::checks::{Entry, catalog_entry, is_sku, validate_entries};
use super::price::{self, Price};
use super::{ContentError, Locate};
use crate::domain::ItemId;

/// How rare an item is, from [`Rarity::Common`] to [`Rarity::Mythic`]; written (and sent to
/// clients) as the capitalized name.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
pub enum Rarity {
    /// The most frequent.
    Common,
    /// A little rarer than common.
    Uncommon,
    /// Rare.
    Rare,
    /// Rarer than rare.
    Epic,
    /// Very rare.
    Legendary,
    /// The rarest.
    Mythic,
}

impl Rarity {
    /// Every rarity, from the most frequent to the rarest.
    pub const ALL: [Rarity; 6] = [
        Rarity::Common,
        Rarity::Uncommon,
        Rarity::Rare,
        Rarity::Epic,
        Rarity::Legendary,
        Rarity::Mythic,
    ];

    /// The name as written and sent: `Common` ... `Mythic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rarity::Common => "Common",
            Rarity::Uncommon => "Uncommon",
            Rarity::Rare => "Rare",
            Rarity::Epic => "Epic",
            Rarity::Legendary => "Legendary",
            Rarity::Mythic => "Mythic",
        }
    }

    /// The rarity named exactly `name` (capitalized), if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|rarity| rarity.as_str() == name)
    }
}

/// A shop item. A player owns an item at most once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its id, stable across releases.
    pub id: ItemId,
    /// Its SKU, kind first: `outfit-frostbite`.
    pub sku: String,
    /// Its name, as shown to players.
    pub name: String,
    /// What it is (the wire field `type`), a label sent as written: `outfit`, `emote`,
    /// `weapon-skin`, ... or the live catalog's own (`OutfitSkin`); a type written in the SKUs'
    /// style is the start of the item's SKU.
    pub kind: String,
    /// The collection it belongs to, by which the shop groups items, a label sent as written
    /// (`winter-storm`, `classic`, `Outfit`).
    pub category: String,
    /// How rare it is.
    pub rarity: Rarity,
    /// What it costs in the shop.
    pub price: Price,
    /// Whether it is a default item that every player owns.
    pub is_stock: bool,
    /// Where the shop lists it: lower first, then by id.
    pub order: i64,
}

impl Item {
    /// Whether it can be bought in the shop: not a default item, and not free (a free item that
    /// is not a default one is only found in packs and rewards).
    pub fn is_for_sale(&self) -> bool {
        !self.is_stock && !self.price.is_free()
    }
}

/// `[[items]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ItemSection {
    id: Spanned<i64>,
    sku: Spanned<String>,
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    category: Spanned<String>,
    rarity: Spanned<String>,
    cost_coins: Option<Spanned<i64>>,
    cost_gems: Option<Spanned<i64>>,
    #[serde(default)]
    is_stock: bool,
    #[serde(default)]
    order: i64,
}

/// Validates the items; they come back sorted by `(order, id)`.
pub(super) fn validate(
    sections: Vec<Spanned<ItemSection>>,
    locate: &Locate<'_>,
) -> Result<Vec<Item>, ContentError> {
    let mut items = validate_entries(sections, locate, |section, _, entry| {
        section.validate(entry)
    })?;
    items.sort_by_key(|item| (item.order, item.id));
    Ok(items)
}

catalog_entry!(ItemSection, "items", "item");

impl ItemSection {
    fn validate(&self, entry: &Entry<'_, '_>) -> Result<Item, ContentError> {
        let id = ItemId(entry.int(&self.id, "id", 1..=i64::MAX)?);
        let sku = entry.sku(&self.sku, "sku")?;
        let kind = entry.shown_label(&self.kind, "type")?;
        // A type in the SKUs' own style names the SKU's first words; a label of the live
        // catalog's (`OutfitSkin`) cannot, and is only shown.
        if is_sku(&kind) && !sku.starts_with(&format!("{kind}-")) {
            return Err(entry.error(
                self.sku.span(),
                "sku",
                format!("an item's SKU starts with its type: `{kind}-...`"),
            ));
        }
        let category = entry.shown_label(&self.category, "category")?;
        let rarity = Rarity::parse(self.rarity.get_ref()).ok_or_else(|| {
            entry.error(
                self.rarity.span(),
                "rarity",
                format!(
                    "`{}` is not a rarity; write Common, Uncommon, Rare, Epic, Legendary or Mythic",
                    self.rarity.get_ref()
                ),
            )
        })?;
        let stock = self.is_stock.then_some("a stock item");
        let price = price::cost(entry, &self.cost_coins, &self.cost_gems, stock)?;
        Ok(Item {
            id,
            sku,
            name: entry.name(&self.name, "name")?,
            kind,
            category,
            rarity,
            price,
            is_stock: self.is_stock,
            order: self.order,
        })
    }
}

/// Finds the items validated so far by SKU: what a pack's drops and a reward name (the
/// catalog, as it is built).
pub(super) trait ItemsBySku {
    /// The item with this SKU.
    fn item_by_sku(&self, sku: &str) -> Option<&Item>;
}
