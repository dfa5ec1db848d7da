//! Turning content rewards and rolled pack contents into change steps.

use crate::content::{Catalog, Pack, RewardSpec};
use crate::domain::ItemId;
use crate::store::{Currency, Step};

/// Coins given for an item from a deal or reward that the account already owns, when the item
/// has no coin price (pack drops use their pack's `duplicate_coins`).
pub const DUPLICATE_COINS_DEFAULT: i64 = 100;

/// The steps that give `rewards`. Content validation guarantees that every item and pack they
/// name exists; one that does not is skipped.
pub fn reward_steps(catalog: &Catalog, rewards: &[RewardSpec]) -> Vec<Step> {
    rewards
        .iter()
        .filter_map(|reward| match reward {
            RewardSpec::Coins(amount) => Some(Step::Credit {
                currency: Currency::Coins,
                amount: *amount,
            }),
            RewardSpec::Gems(amount) => Some(Step::Credit {
                currency: Currency::Gems,
                amount: *amount,
            }),
            RewardSpec::Experience(amount) => Some(Step::AddExperience { amount: *amount }),
            RewardSpec::Item(id) => catalog.item(*id).map(|item| Step::GrantItem {
                item: item.id,
                duplicate_coins: if item.price.coins > 0 {
                    item.price.coins
                } else {
                    DUPLICATE_COINS_DEFAULT
                },
                owned_by_everyone: item.is_stock,
            }),
            RewardSpec::Pack { pack, quantity } => Some(Step::GrantPacks {
                pack: *pack,
                quantity: *quantity,
            }),
        })
        .collect()
}

/// The steps of opening one `pack` whose roll gave `rolled`: consume the pack, then give each
/// rolled item (an item already owned becomes the pack's `duplicate_coins`).
pub fn pack_opening_steps(catalog: &Catalog, pack: &Pack, rolled: &[ItemId]) -> Vec<Step> {
    let grants = rolled.iter().map(|id| Step::GrantItem {
        item: *id,
        duplicate_coins: pack.duplicate_coins,
        owned_by_everyone: catalog.item(*id).is_some_and(|item| item.is_stock),
    });
    std::iter::once(Step::OpenPack { pack: pack.id })
        .chain(grants)
        .collect()
}
