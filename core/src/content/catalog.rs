//! The shop catalog: items, packs, timed deals and in-app purchase products, with lookups by id
//! and SKU and the items' signature.

use std::collections::HashMap;
use std::hash::Hash;

use sha2::{Digest, Sha256};
use toml::Spanned;

use super::checks::validate_entries;
use super::deals::{DealSection, TimedDeal};
use super::iaps::{self, IapProduct, IapSection};
use super::items::{self, Item, ItemSection, ItemsBySku};
use super::packs::{Pack, PackSection, PacksBySku};
use super::price::Price;
use super::{ContentError, Locate};
use crate::domain::{DealId, IapId, ItemId, PackId};

/// The shop: items, packs, timed deals and in-app purchase products, validated together (drop
/// tables and rewards name items and packs that exist).
///
/// The lists are what the content file says; treat them as read-only. The lookups use indexes
/// built at load.
///
/// ```
/// use safezone_core::content::Content;
///
/// let content = Content::shipped();
/// let chest = content.catalog.pack_by_sku("basic-chest").unwrap();
/// assert_eq!(content.catalog.pack(chest.id).unwrap().sku, "basic-chest");
/// ```
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The items, sorted by `(order, id)`.
    pub items: Vec<Item>,
    /// The packs, in file order.
    pub packs: Vec<Pack>,
    /// The timed deals, running or not, in file order.
    pub timed_deals: Vec<TimedDeal>,
    /// The in-app purchase products, in file order.
    pub iaps: Vec<IapProduct>,
    /// Lower-case hex SHA-256 of every field of every item: the same across loads of the same
    /// items, different as soon as one item changes (clients cache the item list by it).
    pub items_signature: String,
    indexes: Indexes,
}

/// Positions in the catalog's lists by id and SKU.
#[derive(Debug, Clone, Default)]
struct Indexes {
    item_ids: HashMap<ItemId, usize>,
    item_skus: HashMap<String, usize>,
    pack_ids: HashMap<PackId, usize>,
    pack_skus: HashMap<String, usize>,
    deal_ids: HashMap<DealId, usize>,
    iap_ids: HashMap<IapId, usize>,
}

impl Catalog {
    /// The item with this id.
    pub fn item(&self, id: ItemId) -> Option<&Item> {
        find(&self.items, &self.indexes.item_ids, &id, |item| {
            item.id == id
        })
    }

    /// The item with this SKU.
    pub fn item_by_sku(&self, sku: &str) -> Option<&Item> {
        find(&self.items, &self.indexes.item_skus, sku, |item| {
            item.sku == sku
        })
    }

    /// The pack with this id.
    pub fn pack(&self, id: PackId) -> Option<&Pack> {
        find(&self.packs, &self.indexes.pack_ids, &id, |pack| {
            pack.id == id
        })
    }

    /// The pack with this SKU.
    pub fn pack_by_sku(&self, sku: &str) -> Option<&Pack> {
        find(&self.packs, &self.indexes.pack_skus, sku, |pack| {
            pack.sku == sku
        })
    }

    /// The timed deal with this id, running or not.
    pub fn timed_deal(&self, id: DealId) -> Option<&TimedDeal> {
        find(&self.timed_deals, &self.indexes.deal_ids, &id, |deal| {
            deal.id == id
        })
    }

    /// The in-app purchase product with this id.
    pub fn iap(&self, id: IapId) -> Option<&IapProduct> {
        find(&self.iaps, &self.indexes.iap_ids, &id, |iap| iap.id == id)
    }

    /// A catalog of these lists, with its indexes and signature.
    fn new(
        items: Vec<Item>,
        packs: Vec<Pack>,
        timed_deals: Vec<TimedDeal>,
        iaps: Vec<IapProduct>,
    ) -> Self {
        let indexes = Indexes {
            item_ids: positions(items.iter().map(|item| item.id)),
            item_skus: positions(items.iter().map(|item| item.sku.clone())),
            pack_ids: positions(packs.iter().map(|pack| pack.id)),
            pack_skus: positions(packs.iter().map(|pack| pack.sku.clone())),
            deal_ids: positions(timed_deals.iter().map(|deal| deal.id)),
            iap_ids: positions(iaps.iter().map(|iap| iap.id)),
        };
        Self {
            items_signature: items_signature(&items),
            items,
            packs,
            timed_deals,
            iaps,
            indexes,
        }
    }
}

impl ItemsBySku for Catalog {
    fn item_by_sku(&self, sku: &str) -> Option<&Item> {
        Catalog::item_by_sku(self, sku)
    }
}

impl PacksBySku for Catalog {
    fn pack_by_sku(&self, sku: &str) -> Option<&Pack> {
        Catalog::pack_by_sku(self, sku)
    }
}

/// Each key's position.
fn positions<K: Hash + Eq>(keys: impl Iterator<Item = K>) -> HashMap<K, usize> {
    keys.enumerate().map(|(at, key)| (key, at)).collect()
}

/// The entry of `list` that `index` points to for `key`; the lists are public, so the entry is
/// checked, and looked for in the whole list should someone have changed it since.
fn find<'c, T, K, Q>(
    list: &'c [T],
    index: &HashMap<K, usize>,
    key: &Q,
    matches: impl Fn(&T) -> bool,
) -> Option<&'c T>
where
    K: Hash + Eq + std::borrow::Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    index
        .get(key)
        .and_then(|&at| list.get(at))
        .filter(|entry| matches(entry))
        .or_else(|| list.iter().find(|entry| matches(entry)))
}

/// SHA-256 of a canonical encoding of `items`: every field, in order, numbers as 8 bytes
/// little-endian, texts prefixed with their length.
fn items_signature(items: &[Item]) -> String {
    fn number(hash: &mut Sha256, value: i64) {
        hash.update(value.to_le_bytes());
    }
    fn text(hash: &mut Sha256, value: &str) {
        hash.update((value.len() as u64).to_le_bytes());
        hash.update(value.as_bytes());
    }
    let mut hash = Sha256::new();
    text(&mut hash, "safezone items 1");
    hash.update((items.len() as u64).to_le_bytes());
    for item in items {
        // Destructured so that a new field cannot be forgotten here.
        let Item {
            id,
            sku,
            name,
            kind,
            category,
            rarity,
            price: Price { coins, gems },
            is_stock,
            order,
        } = item;
        number(&mut hash, id.0);
        text(&mut hash, sku);
        text(&mut hash, name);
        text(&mut hash, kind);
        text(&mut hash, category);
        text(&mut hash, rarity.as_str());
        number(&mut hash, *coins);
        number(&mut hash, *gems);
        hash.update([u8::from(*is_stock)]);
        number(&mut hash, *order);
    }
    hex::encode(hash.finalize())
}

/// The catalog's arrays of tables as written.
pub(super) struct CatalogSections {
    /// `[[items]]`.
    pub(super) items: Vec<Spanned<ItemSection>>,
    /// `[[packs]]`.
    pub(super) packs: Vec<Spanned<PackSection>>,
    /// `[[timed_deals]]`.
    pub(super) timed_deals: Vec<Spanned<DealSection>>,
    /// `[[iaps]]`.
    pub(super) iaps: Vec<Spanned<IapSection>>,
}

impl CatalogSections {
    /// Validates items first, then packs (whose drops name items), then deals and products
    /// (whose rewards name items and packs).
    pub(super) fn validate(self, locate: &Locate<'_>) -> Result<Catalog, ContentError> {
        let items = items::validate(self.items, locate)?;
        let with_items = Catalog::new(items, Vec::new(), Vec::new(), Vec::new());
        let packs = validate_entries(self.packs, locate, |pack, _, entry| {
            pack.validate(entry, &with_items)
        })?;
        let with_packs = Catalog::new(with_items.items, packs, Vec::new(), Vec::new());
        let timed_deals = validate_entries(self.timed_deals, locate, |deal, _, entry| {
            deal.validate(entry, &with_packs)
        })?;
        let iaps = iaps::validate(self.iaps, &with_packs, locate)?;
        Ok(Catalog::new(
            with_packs.items,
            with_packs.packs,
            timed_deals,
            iaps,
        ))
    }
}
