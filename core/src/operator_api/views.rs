//! What the operator API answers about an account and its ledger.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::content::Catalog;
use crate::store::{Account, Currency, Holdings, LedgerEntry};

/// A time as RFC 3339 (`2026-11-23T12:00:00Z`).
pub(super) fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap_or_default()
}

/// The account as operators see it.
pub(super) fn account(account: &Account) -> Value {
    json!({
        "id": account.id.0,
        "friendCode": account.friend_code.to_string(),
        "name": account.name,
        "provider": account.provider,
        "banned": account.is_banned,
        "role": account.role.as_str(),
        "coins": account.coins,
        "gems": account.gems,
        "level": account.level,
        "experience": account.experience,
        "created": rfc3339(account.created),
    })
}

/// The items and unopened packs an account holds, with their SKUs.
pub(super) fn holdings(catalog: &Catalog, holdings: &Holdings) -> (Value, Value) {
    let items = holdings
        .licenses
        .iter()
        .map(|license| {
            json!({
                "id": license.item.0,
                "sku": catalog.item(license.item).map(|item| item.sku.as_str()),
                "quantity": license.quantity,
            })
        })
        .collect();
    let packs = holdings
        .packs
        .iter()
        .map(|stock| {
            json!({
                "id": stock.pack.0,
                "sku": catalog.pack(stock.pack).map(|pack| pack.sku.as_str()),
                "quantity": stock.quantity,
            })
        })
        .collect();
    (Value::Array(items), Value::Array(packs))
}

/// The ledger, oldest first, each row with the coin and gem balances after it.
pub(super) fn ledger(entries: &[LedgerEntry]) -> Value {
    let (mut coins, mut gems) = (0, 0);
    let rows = entries
        .iter()
        .map(|entry| {
            match entry.currency {
                Currency::Coins => coins = entry.balance_after,
                Currency::Gems => gems = entry.balance_after,
            }
            json!({
                "id": entry.id,
                "at": rfc3339(entry.created),
                "currency": entry.currency.as_str(),
                "delta": entry.delta,
                "reason": entry.reason,
                "reference": entry.reference,
                "coins": coins,
                "gems": gems,
            })
        })
        .collect();
    Value::Array(rows)
}
