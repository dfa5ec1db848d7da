//! What the operator API answers about an account, its holdings, its ledger, its results and
//! its track progress: the answer types, which the typed client reads back as they are.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};
use utoipa::ToSchema;

use crate::content::{Catalog, Content};
use crate::domain::{ItemId, PackId, TrackId};
use crate::progression::track_counter;
use crate::store::{Account, Currency, Holdings, LedgerEntry, MatchLogEntry, Progress};

/// A time as the operator API gives it, RFC 3339 (`2026-11-23T12:00:00Z`); displayed for a
/// person in UTC to the minute (text that is not RFC 3339 as it came).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = String, format = DateTime)]
pub(crate) struct When(String);

impl When {
    /// The time as the API gives it: what a page puts in `datetime` and `title`.
    pub fn exact(&self) -> &str {
        &self.0
    }
}

impl From<OffsetDateTime> for When {
    fn from(at: OffsetDateTime) -> Self {
        Self(at.format(&Rfc3339).unwrap_or_default())
    }
}

impl fmt::Display for When {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let readable = OffsetDateTime::parse(&self.0, &Rfc3339)
            .ok()
            .and_then(|at| {
                at.to_offset(UtcOffset::UTC)
                    .format(format_description!(
                        "[year]-[month]-[day] [hour]:[minute] UTC"
                    ))
                    .ok()
            });
        formatter.write_str(readable.as_deref().unwrap_or(&self.0))
    }
}

/// An account as operators see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AccountView {
    /// The account's id.
    pub id: i64,
    /// Its friend code (`Name#1234`).
    pub friend_code: String,
    /// The name the player chose, if any (untrusted text).
    pub name: Option<String>,
    /// How it signs in (`device`, `chat`, a provider's name).
    pub provider: String,
    /// Whether it is banned.
    pub banned: bool,
    /// Its role (`player`, `admin`).
    pub role: String,
    /// Its coins.
    pub coins: i64,
    /// Its gems.
    pub gems: i64,
    /// Its level.
    pub level: i64,
    /// Its experience.
    pub experience: i64,
    /// When it was created.
    pub created: When,
}

impl AccountView {
    /// The account as operators see it.
    pub(super) fn of(account: &Account) -> Self {
        Self {
            id: account.id.0,
            friend_code: account.friend_code.to_string(),
            name: account.name.clone(),
            provider: account.provider.clone(),
            banned: account.is_banned,
            role: account.role.as_str().to_owned(),
            coins: account.coins,
            gems: account.gems,
            level: account.level,
            experience: account.experience,
            created: account.created.into(),
        }
    }

    /// What a page says instead of a name the player never set: a device player's account
    /// (signed in with its device only) is told apart.
    pub fn no_name(&self) -> &'static str {
        if self.provider == "device" {
            "device player, no name set"
        } else {
            "no name set"
        }
    }
}

/// Items or packs held, with their SKU and name as the content names them (`null` for one the
/// content no longer has).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct Holding {
    /// The item's or pack's id.
    pub id: i64,
    /// Its SKU.
    pub sku: Option<String>,
    /// Its name as players see it.
    pub name: Option<String>,
    /// How many.
    pub quantity: i64,
}

/// The items and unopened packs an account holds.
pub(super) fn holdings(catalog: &Catalog, holdings: &Holdings) -> (Vec<Holding>, Vec<Holding>) {
    let items = holdings
        .licenses
        .iter()
        .map(|license| {
            let item = catalog.item(license.item);
            Holding {
                id: license.item.0,
                sku: item.map(|item| item.sku.clone()),
                name: item.map(|item| item.name.clone()),
                quantity: license.quantity,
            }
        })
        .collect();
    let packs = holdings
        .packs
        .iter()
        .map(|stock| {
            let pack = catalog.pack(stock.pack);
            Holding {
                id: stock.pack.0,
                sku: pack.map(|pack| pack.sku.clone()),
                name: pack.map(|pack| pack.name.clone()),
                quantity: stock.quantity,
            }
        })
        .collect();
    (items, packs)
}

/// A ledger row, with the coin and gem balances after it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct LedgerRow {
    /// The row's id.
    pub id: i64,
    /// When.
    pub at: When,
    /// `coins` or `gems`.
    pub currency: String,
    /// The movement (negative: spent or removed).
    pub delta: i64,
    /// Why, as the ledger names it (`buy`, `match`, `grant`, ...).
    pub reason: String,
    /// The change's reference.
    pub reference: String,
    /// The coins after it.
    pub coins: i64,
    /// The gems after it.
    pub gems: i64,
}

impl LedgerRow {
    /// The movement with its sign (`+5`, `-100`).
    pub fn signed_delta(&self) -> String {
        format!("{:+}", self.delta)
    }
}

/// The rows `newest_first` of `account`'s ledger (its newest ones), oldest first, each with
/// the coin and gem balances after it: walked back from the account's balances now, each row
/// undoing its own movement.
pub(super) fn ledger(account: &Account, newest_first: &[LedgerEntry]) -> Vec<LedgerRow> {
    let (mut coins, mut gems) = (account.coins, account.gems);
    let mut rows: Vec<LedgerRow> = newest_first
        .iter()
        .map(|entry| {
            let before = entry.balance_after - entry.delta;
            let balances = match entry.currency {
                Currency::Coins => {
                    let after = (entry.balance_after, gems);
                    coins = before;
                    after
                }
                Currency::Gems => {
                    let after = (coins, entry.balance_after);
                    gems = before;
                    after
                }
            };
            LedgerRow {
                id: entry.id,
                at: entry.created.into(),
                currency: entry.currency.as_str().to_owned(),
                delta: entry.delta,
                reason: entry.reason.clone(),
                reference: entry.reference.clone(),
                coins: balances.0,
                gems: balances.1,
            }
        })
        .collect();
    rows.reverse();
    rows
}

/// A match result from the match log.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultRow {
    /// The game mode.
    pub mode: String,
    /// When the match ended.
    pub ended: When,
    /// The placement (1 = won).
    pub placement: i64,
    /// The kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive: i64,
}

/// Results from the match log, as given.
pub(super) fn results(entries: &[MatchLogEntry]) -> Vec<ResultRow> {
    entries
        .iter()
        .map(|entry| ResultRow {
            mode: entry.mode.as_str().to_owned(),
            ended: entry.ended.into(),
            placement: entry.placement,
            kills: entry.kills,
            time_alive: entry.time_alive_secs,
        })
        .collect()
}

/// Progress on a reward track: stars and tier, experience and level (tier, level and name as
/// the content reckons them, `null` for a track the content no longer has), and the pass.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct TrackRow {
    /// The track's id.
    pub track: i64,
    /// Its name.
    pub name: Option<String>,
    /// The stars earned.
    pub stars: i64,
    /// The tier reached.
    pub tier: Option<i64>,
    /// The experience earned.
    pub experience: i64,
    /// The level reached.
    pub level: Option<i64>,
    /// Whether the account holds the track's pass.
    pub pass: bool,
}

/// The reward tracks the account made progress on or holds the pass of, by id.
pub(super) fn tracks(content: &Content, progress: &Progress) -> Vec<TrackRow> {
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
            TrackRow {
                track: id.0,
                name: track.as_ref().map(|track| track.shown_name().into_owned()),
                stars,
                tier: track.as_ref().map(|track| track.tier_for(stars)),
                experience,
                level: track.as_ref().map(|track| track.level_for(experience)),
                pass: progress.track_passes.contains(&id),
            }
        })
        .collect()
}

/// The name players see of the item or pack a reference names (`item:7`, `pack:3`,
/// `pack:3x2`); `None` for another reference or one the content no longer has.
pub(super) fn named(catalog: &Catalog, reference: &str) -> Option<String> {
    let (kind, rest) = reference.split_once(':')?;
    let id: i64 = rest.split(['x', ':']).next()?.parse().ok()?;
    match kind {
        "item" => catalog.item(ItemId(id)).map(|item| item.name.clone()),
        "pack" => catalog.pack(PackId(id)).map(|pack| pack.name.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_name_items_and_packs_by_id() {
        let catalog = crate::content::Content::shipped().catalog.clone();
        let item = catalog.items.first().expect("an item");
        let reference = format!("item:{}", item.id.0);
        assert_eq!(named(&catalog, &reference), Some(item.name.clone()));
        assert_eq!(named(&catalog, "buy:1"), None);
        assert_eq!(named(&catalog, "item:x"), None);
        assert_eq!(named(&catalog, "match"), None);
    }

    #[test]
    fn rfc_3339_reads_in_utc_to_the_minute() {
        let shown = |text: &str| When(text.to_owned()).to_string();
        assert_eq!(shown("2026-11-23T12:00:00Z"), "2026-11-23 12:00 UTC");
        assert_eq!(shown("2026-11-23T12:00:59.5Z"), "2026-11-23 12:00 UTC");
        assert_eq!(shown("2026-11-23T13:30:00+01:00"), "2026-11-23 12:30 UTC");
        assert_eq!(shown("soon"), "soon");
        assert_eq!(
            When("2026-11-23T12:00:00Z".to_owned()).exact(),
            "2026-11-23T12:00:00Z"
        );
    }
}
