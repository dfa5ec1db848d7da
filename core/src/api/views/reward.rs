//! The wire contract's reward object: `{type, itemId, itemSku, packId, packSku, quantity,
//! duplicateItemId}` with only the keys that apply.

use serde::Serialize;
use utoipa::ToSchema;

use crate::content::{Catalog, RewardSpec};
use crate::domain::{ItemId, PackId};
use crate::store::Granted;

/// One reward as clients read it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RewardView<'a> {
    /// What the reward is: a currency (`coins`, `gems`), `experience`, an `item` or a `pack`.
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(rename = "itemId", skip_serializing_if = "Option::is_none")]
    item_id: Option<ItemId>,
    #[serde(rename = "itemSku", skip_serializing_if = "Option::is_none")]
    item_sku: Option<&'a str>,
    #[serde(rename = "packId", skip_serializing_if = "Option::is_none")]
    pack_id: Option<PackId>,
    #[serde(rename = "packSku", skip_serializing_if = "Option::is_none")]
    pack_sku: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quantity: Option<i64>,
    #[serde(rename = "duplicateItemId", skip_serializing_if = "Option::is_none")]
    duplicate_item_id: Option<ItemId>,
}

impl<'a> RewardView<'a> {
    fn empty(kind: &'static str) -> Self {
        Self {
            kind,
            item_id: None,
            item_sku: None,
            pack_id: None,
            pack_sku: None,
            quantity: None,
            duplicate_item_id: None,
        }
    }

    fn amount(kind: &'static str, quantity: i64) -> Self {
        Self {
            quantity: Some(quantity),
            ..Self::empty(kind)
        }
    }

    fn item(catalog: &'a Catalog, item: ItemId) -> Self {
        Self {
            item_id: Some(item),
            item_sku: catalog.item(item).map(|item| item.sku.as_str()),
            quantity: Some(1),
            ..Self::empty("item")
        }
    }

    fn pack(catalog: &'a Catalog, pack: PackId, quantity: i64) -> Self {
        Self {
            pack_id: Some(pack),
            pack_sku: catalog.pack(pack).map(|pack| pack.sku.as_str()),
            quantity: Some(quantity),
            ..Self::empty("pack")
        }
    }

    /// What a change granted. An item already owned shows as its coins, marked with
    /// `duplicateItemId` and the item's sku.
    pub(crate) fn granted(catalog: &'a Catalog, granted: &Granted) -> Self {
        match granted {
            Granted::Currency { currency, amount } => Self::amount(currency.as_str(), *amount),
            Granted::Experience { amount } => Self::amount("experience", *amount),
            Granted::Item { item } => Self::item(catalog, *item),
            Granted::DuplicateItem { item, coins } => Self {
                duplicate_item_id: Some(*item),
                item_sku: catalog.item(*item).map(|item| item.sku.as_str()),
                ..Self::amount("coins", *coins)
            },
            Granted::Packs { pack, quantity } => Self::pack(catalog, *pack, *quantity),
        }
    }

    /// A reward as the content file promises it.
    pub(crate) fn promised(catalog: &'a Catalog, reward: &RewardSpec) -> Self {
        match reward {
            RewardSpec::Coins(amount) => Self::amount("coins", *amount),
            RewardSpec::Gems(amount) => Self::amount("gems", *amount),
            RewardSpec::Experience(amount) => Self::amount("experience", *amount),
            RewardSpec::Item(item) => Self::item(catalog, *item),
            RewardSpec::Pack { pack, quantity } => Self::pack(catalog, *pack, *quantity),
        }
    }

    /// Every reward of a list, as granted.
    pub(crate) fn all_granted(catalog: &'a Catalog, granted: &[Granted]) -> Vec<Self> {
        granted
            .iter()
            .map(|grant| Self::granted(catalog, grant))
            .collect()
    }

    /// Every reward of a list, as promised.
    pub(crate) fn all_promised(catalog: &'a Catalog, rewards: &[RewardSpec]) -> Vec<Self> {
        rewards
            .iter()
            .map(|reward| Self::promised(catalog, reward))
            .collect()
    }
}
