//! Prices in the two in-game currencies, coins and gems.

use toml::Spanned;

use super::ContentError;
use super::checks::Entry;

/// The highest price in coins or in gems that the content file accepts.
pub const MAX_PRICE: i64 = 1_000_000_000;

/// A price in coins and gems; a purchase charges both. Each is between 0 and [`MAX_PRICE`].
///
/// ```
/// use safezone_core::content::Price;
///
/// assert!(Price { coins: 0, gems: 0 }.is_free());
/// assert!(!Price { coins: 0, gems: 120 }.is_free());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Price {
    /// The coins charged.
    pub coins: i64,
    /// The gems charged.
    pub gems: i64,
}

impl Price {
    /// Whether nothing is charged.
    pub fn is_free(self) -> bool {
        self.coins == 0 && self.gems == 0
    }
}

/// A price written as two optional fields, `{prefix}cost_coins` and `{prefix}cost_gems` (each 0
/// when left out): `prefix` is "" for the entry's own price, or e.g. "discount.".
pub(super) fn validate(
    entry: &Entry<'_, '_>,
    coins: &Option<Spanned<i64>>,
    gems: &Option<Spanned<i64>>,
    prefix: &str,
) -> Result<Price, ContentError> {
    let amount = |value: &Option<Spanned<i64>>, field: &str| {
        value.as_ref().map_or(Ok(0), |value| {
            entry.int(value, &format!("{prefix}{field}"), 0..=MAX_PRICE)
        })
    };
    Ok(Price {
        coins: amount(coins, "cost_coins")?,
        gems: amount(gems, "cost_gems")?,
    })
}

/// The entry's own price (`cost_coins`, `cost_gems`). `stock` names what the entry is ("a stock
/// item") when every player owns it: such an entry must be free, and the first non-zero field
/// is refused.
pub(super) fn cost(
    entry: &Entry<'_, '_>,
    coins: &Option<Spanned<i64>>,
    gems: &Option<Spanned<i64>>,
    stock: Option<&str>,
) -> Result<Price, ContentError> {
    let price = validate(entry, coins, gems, "")?;
    if let Some(what) = stock {
        for (value, field) in [(coins, "cost_coins"), (gems, "cost_gems")] {
            if let Some(value) = value.as_ref().filter(|value| *value.get_ref() != 0) {
                return Err(entry.error(
                    value.span(),
                    field,
                    format!("{what} is owned by every player: it must be free"),
                ));
            }
        }
    }
    Ok(price)
}
