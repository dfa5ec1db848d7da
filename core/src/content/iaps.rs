//! In-app purchase products (`[[iaps]]`): coins and gems packages, bundles and subscriptions,
//! bought with real money through the Apple and Google stores.

use serde::Deserialize;
use toml::Spanned;

use super::checks::{Entry, Unique, catalog_entry, validate_entries};
use super::packs::PacksBySku;
use super::rewards::{self, RewardSection, RewardSpec};
use super::{ContentError, Locate};
use crate::domain::IapId;

/// The highest real-money price accepted, in cents (10 000 dollars).
pub const MAX_COST_CENTS: i64 = 1_000_000;

/// The kinds of in-app purchase product.
const KINDS: [&str; 3] = ["currency", "bundle", "subscription"];

/// An in-app purchase product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IapProduct {
    /// Its id, stable across releases.
    pub id: IapId,
    /// Its SKU: `gems-handful`.
    pub sku: String,
    /// Its name, as shown to players.
    pub name: String,
    /// `currency` (only coins and gems), `bundle` or `subscription` (the wire field `type`).
    pub kind: String,
    /// The product id in the Apple App Store; unique.
    pub apple_id: String,
    /// The product id in Google Play; unique.
    pub google_id: String,
    /// The price in US cents (written `cost_dollars = 4.99` in the file).
    pub cost_cents: i64,
    /// What the buyer gets; only a subscription may have none.
    pub rewards: Vec<RewardSpec>,
    /// The amount shown on the product (500 for 500 gems; 1 for a bundle).
    pub quantity: i64,
}

/// `[[iaps]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IapSection {
    id: Spanned<i64>,
    sku: Spanned<String>,
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    apple_id: Spanned<String>,
    google_id: Spanned<String>,
    cost_dollars: Spanned<f64>,
    #[serde(default)]
    rewards: Vec<Spanned<RewardSection>>,
    quantity: Option<Spanned<i64>>,
}

/// Validates the products, whose rewards name items and packs of `catalog`.
pub(super) fn validate(
    sections: Vec<Spanned<IapSection>>,
    catalog: &impl PacksBySku,
    locate: &Locate<'_>,
) -> Result<Vec<IapProduct>, ContentError> {
    let mut apple_ids = Unique::new("apple_id");
    let mut google_ids = Unique::new("google_id");
    validate_entries(sections, locate, |section, span, entry| {
        let iap = section.validate(entry, span, catalog)?;
        let store_ids = [
            (&mut apple_ids, &section.apple_id, "apple_id", &iap.apple_id),
            (
                &mut google_ids,
                &section.google_id,
                "google_id",
                &iap.google_id,
            ),
        ];
        for (ids, written, field, id) in store_ids {
            ids.claim(entry, written.span(), field, id.clone())?;
        }
        Ok(iap)
    })
}

catalog_entry!(IapSection, "iaps", "in-app purchase");

impl IapSection {
    fn validate(
        &self,
        entry: &Entry<'_, '_>,
        span: std::ops::Range<usize>,
        catalog: &impl PacksBySku,
    ) -> Result<IapProduct, ContentError> {
        let id = IapId(entry.int(&self.id, "id", 1..=i64::MAX)?);
        let sku = entry.sku(&self.sku, "sku")?;
        let name = entry.name(&self.name, "name")?;
        let kind = self.kind.get_ref();
        if !KINDS.contains(&kind.as_str()) {
            return Err(entry.error(
                self.kind.span(),
                "type",
                format!("`{kind}` is not a product type; write currency, bundle or subscription"),
            ));
        }
        let apple_id = store_id(entry, &self.apple_id, "apple_id")?;
        let google_id = store_id(entry, &self.google_id, "google_id")?;
        let cost_cents = cents(*self.cost_dollars.get_ref()).ok_or_else(|| {
            entry.error(
                self.cost_dollars.span(),
                "cost_dollars",
                format!(
                    "{} is not a price; write dollars and at most two decimals, from 0 to 10000 (e.g. 4.99)",
                    self.cost_dollars.get_ref()
                ),
            )
        })?;
        let rewards = rewards::validate_list(entry, "rewards", &self.rewards, catalog)?;
        if rewards.is_empty() && kind != "subscription" {
            return Err(entry.error(span, "rewards", "needs at least one reward"));
        }
        if kind == "currency" {
            let other = rewards
                .iter()
                .zip(&self.rewards)
                .find(|(reward, _)| !matches!(reward, RewardSpec::Coins(_) | RewardSpec::Gems(_)));
            if let Some((_, section)) = other {
                return Err(entry.error(
                    section.span(),
                    "rewards",
                    "a `currency` product grants only coins and gems; make it a `bundle`",
                ));
            }
        }
        let quantity = self.quantity.as_ref().map_or(Ok(1), |quantity| {
            entry.int(quantity, "quantity", 1..=1_000_000_000)
        })?;
        Ok(IapProduct {
            id,
            sku,
            name,
            kind: kind.clone(),
            apple_id,
            google_id,
            cost_cents,
            rewards,
            quantity,
        })
    }
}

/// A store product id: not empty, no blanks.
fn store_id(
    entry: &Entry<'_, '_>,
    value: &Spanned<String>,
    field: &str,
) -> Result<String, ContentError> {
    let text = value.get_ref();
    if text.is_empty() || text.len() > 200 || text.chars().any(char::is_whitespace) {
        Err(entry.error(
            value.span(),
            field,
            "a store product id is 1 to 200 characters without blanks",
        ))
    } else {
        Ok(text.clone())
    }
}

/// Dollars with at most two decimals, from 0 to 10 000, as cents.
fn cents(dollars: f64) -> Option<i64> {
    let hundredths = dollars * 100.0;
    let rounded = hundredths.round();
    // A decimal such as 4.99 is not exact in binary: allow the rounding error of the
    // conversion, far below a thousandth of a cent, but not a third decimal.
    let whole_cents = (hundredths - rounded).abs() < 1e-6;
    let cents = rounded as i64;
    (dollars.is_finite() && whole_cents && (0.0..=MAX_COST_CENTS as f64).contains(&rounded))
        .then_some(cents)
}

#[cfg(test)]
mod tests {
    use super::cents;

    #[test]
    fn dollars_become_cents() {
        assert_eq!(cents(4.99), Some(499));
        assert_eq!(cents(0.0), Some(0));
        assert_eq!(cents(0.1), Some(10));
        assert_eq!(cents(19.9), Some(1990));
        assert_eq!(cents(99.99), Some(9999));
        assert_eq!(cents(10_000.0), Some(1_000_000));
        assert_eq!(cents(1234.56), Some(123_456));
    }

    #[test]
    fn bad_dollars_are_refused() {
        for bad in [
            -0.01,
            -5.0,
            4.999,
            4.991,
            10_000.01,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(cents(bad), None, "{bad}");
        }
    }
}
