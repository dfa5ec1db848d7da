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

/// A price written as two optional fields (`cost_coins`, `cost_gems`, each 0 when left out).
pub(super) fn validate(
    entry: &Entry<'_, '_>,
    coins: Option<&Spanned<i64>>,
    gems: Option<&Spanned<i64>>,
    coins_field: &str,
    gems_field: &str,
) -> Result<Price, ContentError> {
    let amount = |value: Option<&Spanned<i64>>, field: &str| {
        value.map_or(Ok(0), |value| entry.int(value, field, 0..=MAX_PRICE))
    };
    Ok(Price {
        coins: amount(coins, coins_field)?,
        gems: amount(gems, gems_field)?,
    })
}

/// Refuses a price on something every player owns (`what`: "a stock item"), naming the first
/// non-zero field of `cost_coins` and `cost_gems`.
pub(super) fn require_free(
    entry: &Entry<'_, '_>,
    coins: Option<&Spanned<i64>>,
    gems: Option<&Spanned<i64>>,
    what: &str,
) -> Result<(), ContentError> {
    for (value, field) in [(coins, "cost_coins"), (gems, "cost_gems")] {
        if let Some(value) = value.filter(|value| *value.get_ref() != 0) {
            return Err(entry.error(
                value.span(),
                field,
                format!("{what} is owned by every player: it must be free"),
            ));
        }
    }
    Ok(())
}
