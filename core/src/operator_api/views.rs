//! What the operator API answers about an account and its ledger.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use std::collections::BTreeSet;

use crate::content::{Catalog, Content};
use crate::domain::TrackId;
use crate::progression::track_counter;
use crate::store::{Account, Currency, Holdings, LedgerEntry, MatchLogEntry, Progress};

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

/// The items and unopened packs an account holds, with their SKUs and names (as the content
/// names them, `null` for one the content no longer has).
pub(super) fn holdings(catalog: &Catalog, holdings: &Holdings) -> (Value, Value) {
    let items = holdings
        .licenses
        .iter()
        .map(|license| {
            let item = catalog.item(license.item);
            json!({
                "id": license.item.0,
                "sku": item.map(|item| item.sku.as_str()),
                "name": item.map(|item| item.name.as_str()),
                "quantity": license.quantity,
            })
        })
        .collect();
    let packs = holdings
        .packs
        .iter()
        .map(|stock| {
            let pack = catalog.pack(stock.pack);
            json!({
                "id": stock.pack.0,
                "sku": pack.map(|pack| pack.sku.as_str()),
                "name": pack.map(|pack| pack.name.as_str()),
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

/// Results from the match log, as given.
pub(super) fn results(entries: &[MatchLogEntry]) -> Value {
    let rows = entries
        .iter()
        .map(|entry| {
            json!({
                "mode": entry.mode.as_str(),
                "ended": rfc3339(entry.ended),
                "placement": entry.placement,
                "kills": entry.kills,
                "timeAlive": entry.time_alive_secs,
            })
        })
        .collect();
    Value::Array(rows)
}

/// The reward tracks the account made progress on or holds the pass of, by id: stars and
/// tier, experience and level (tier and level as the content reckons them, `null` for a
/// track the content no longer has), and whether it holds the pass.
pub(super) fn tracks(content: &Content, progress: &Progress) -> Vec<Value> {
    let counted = progress.counters.keys().filter_map(|key| {
        let rest = key.strip_prefix("track/")?;
        let (id, what) = rest.split_once('/')?;
        matches!(what, "stars" | "experience")
            .then(|| id.parse().ok().map(TrackId))
            .flatten()
    });
    let ids: BTreeSet<TrackId> = counted
        .chain(progress.track_passes.iter().copied())
        .collect();
    ids.into_iter()
        .map(|id| {
            let stars = progress.counter(&track_counter(id, "stars"));
            let experience = progress.counter(&track_counter(id, "experience"));
            let track = content.track(id);
            json!({
                "track": id.0,
                "name": track.as_ref().map(|track| track.shown_name().into_owned()),
                "stars": stars,
                "tier": track.as_ref().map(|track| track.tier_for(stars)),
                "experience": experience,
                "level": track.as_ref().map(|track| track.level_for(experience)),
                "pass": progress.track_passes.contains(&id),
            })
        })
        .collect()
}
