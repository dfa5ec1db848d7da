//! The business counters: purchases, currency granted and spent, packs opened, rewards claimed,
//! sign-ins and match reports, counted once the store has applied them.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::{Metric, Registry};

use crate::store::{Change, Currency, Granted, Step};

/// One label with a fixed value.
type Fixed = [(&'static str, &'static str); 1];

/// What a change was, as the counters see it.
enum Event {
    /// A purchase of this kind (`item`, `pack`, `deal`, `iap`, `track_pass`, `track_tiers`).
    Purchase(&'static str),
    /// An unopened pack opened.
    PackOpened,
    /// A reward type's rewards claimed.
    RewardClaimed(String),
    /// Anything else (a rename): only its currency is counted.
    Other,
}

/// A change as the counters will count it once applied: what it is and what it debits.
pub(crate) struct Counted {
    event: Event,
    /// Coins and gems debited.
    spent: [u64; 2],
}

impl Counted {
    /// Reads `change` before it is applied (the store takes it).
    pub(crate) fn of(change: &Change) -> Self {
        let mut spent = [0; 2];
        for step in &change.steps {
            if let Step::Debit { currency, amount } = step {
                spent[currency_index(*currency)] += u64::try_from(*amount).unwrap_or(0);
            }
        }
        Self {
            event: event(&change.reason, &change.reference),
            spent,
        }
    }
}

/// What a change's reason and reference tell.
fn event(reason: &str, reference: &str) -> Event {
    let before_colon = reference.split(':').next().unwrap_or_default();
    match (reason, before_colon) {
        ("buy", "item") => Event::Purchase("item"),
        ("buy", "pack") => Event::Purchase("pack"),
        ("buy", "deal") => Event::Purchase("deal"),
        ("iap", _) => Event::Purchase("iap"),
        ("track", "buy") => Event::Purchase("track_pass"),
        ("track", "skip") => Event::Purchase("track_tiers"),
        ("pack", _) => Event::PackOpened,
        ("claim", reward_type) => Event::RewardClaimed(reward_type.to_owned()),
        _ => Event::Other,
    }
}

/// A currency's position in the `[coins, gems]` arrays.
fn currency_index(currency: Currency) -> usize {
    match currency {
        Currency::Coins => 0,
        Currency::Gems => 1,
    }
}

const CURRENCIES: [Currency; 2] = [Currency::Coins, Currency::Gems];

/// The counters.
pub(crate) struct Business {
    purchases: Family<Fixed, Counter>,
    currency_granted: Family<Fixed, Counter>,
    currency_spent: Family<Fixed, Counter>,
    packs_opened: Counter,
    rewards_claimed: Family<[(&'static str, String); 1], Counter>,
    sign_ins: Family<[(&'static str, String); 2], Counter>,
    match_reports: Family<Fixed, Counter>,
    match_player_results: Counter,
}

impl Business {
    /// The counters, registered in `registry`.
    pub(super) fn register(registry: &mut Registry) -> Self {
        Self {
            purchases: registered(
                registry,
                "purchases",
                "Purchases applied, by kind (item, pack, deal, iap, track_pass, track_tiers)",
            ),
            currency_granted: registered(
                registry,
                "currency_granted",
                "Currency given to accounts (rewards, matches, duplicates, purchases), by currency",
            ),
            currency_spent: registered(
                registry,
                "currency_spent",
                "Currency taken from accounts by purchases and renames, by currency",
            ),
            packs_opened: registered(registry, "packs_opened", "Unopened packs opened"),
            rewards_claimed: registered(
                registry,
                "rewards_claimed",
                "Reward claims applied, by reward type",
            ),
            sign_ins: registered(
                registry,
                "sign_ins",
                "Sign-ins, by method (device, chat, a provider) and whether it created the account",
            ),
            match_reports: registered(
                registry,
                "match_reports",
                "Game servers' match reports, by outcome (recorded, or replayed for a repeat)",
            ),
            match_player_results: registered(
                registry,
                "match_player_results",
                "Player results of the recorded match reports",
            ),
        }
    }

    /// Counts a change the store applied, which granted `granted`.
    pub(crate) fn change_applied(&self, counted: Counted, granted: &[Granted]) {
        match counted.event {
            Event::Purchase(kind) => {
                self.purchases.get_or_create(&[("kind", kind)]).inc();
            }
            Event::PackOpened => {
                self.packs_opened.inc();
            }
            Event::RewardClaimed(reward_type) => {
                self.rewards_claimed
                    .get_or_create(&[("type", reward_type)])
                    .inc();
            }
            Event::Other => {}
        }
        for (currency, spent) in CURRENCIES.into_iter().zip(counted.spent) {
            if spent > 0 {
                self.currency_spent
                    .get_or_create(&[("currency", currency.as_str())])
                    .inc_by(spent);
            }
        }
        self.granted(granted);
    }

    /// Counts a sign-in by `method` (the provider's name).
    pub(crate) fn signed_in(&self, method: &str, first_login: bool) {
        self.sign_ins
            .get_or_create(&[
                ("method", method.to_owned()),
                ("first_login", first_login.to_string()),
            ])
            .inc();
    }

    /// Counts a recorded match report of `players` results, whose changes granted `granted`.
    pub(crate) fn match_recorded(&self, players: usize, granted: &[Vec<Granted>]) {
        self.match_reports
            .get_or_create(&[("outcome", "recorded")])
            .inc();
        self.match_player_results
            .inc_by(u64::try_from(players).unwrap_or(u64::MAX));
        for granted in granted {
            self.granted(granted);
        }
    }

    /// Counts a repeated match report, which changed nothing.
    pub(crate) fn match_replayed(&self) {
        self.match_reports
            .get_or_create(&[("outcome", "replayed")])
            .inc();
    }

    /// Adds the currency in `granted` (coins given for duplicate items included).
    fn granted(&self, granted: &[Granted]) {
        let mut amounts = [0_u64; 2];
        for grant in granted {
            let (currency, amount) = match grant {
                Granted::Currency { currency, amount } => (*currency, *amount),
                Granted::DuplicateItem { coins, .. } => (Currency::Coins, *coins),
                _ => continue,
            };
            amounts[currency_index(currency)] += u64::try_from(amount).unwrap_or(0);
        }
        for (currency, amount) in CURRENCIES.into_iter().zip(amounts) {
            if amount > 0 {
                self.currency_granted
                    .get_or_create(&[("currency", currency.as_str())])
                    .inc_by(amount);
            }
        }
    }
}

/// A new metric, registered in `registry` as `name` with `help`.
fn registered<M: Metric + Clone + Default>(registry: &mut Registry, name: &str, help: &str) -> M {
    let metric = M::default();
    registry.register(name, help, metric.clone());
    metric
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_told_apart_by_reason_and_reference() {
        assert!(matches!(event("buy", "pack:3x2"), Event::Purchase("pack")));
        assert!(matches!(
            event("track", "skip:1:4"),
            Event::Purchase("track_tiers")
        ));
        assert!(matches!(event("iap", "chat:tx-1"), Event::Purchase("iap")));
        assert!(matches!(event("pack", "open:3"), Event::PackOpened));
        assert!(matches!(event("claim", "gift"), Event::RewardClaimed(name) if name == "gift"));
        assert!(matches!(event("rename", "name:Ann"), Event::Other));
    }
}
