//! What a batch of relayed events adds to the activity rollup.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::events::{Drop, EventPayload, Price, RelayedEvent};
use crate::store::{AccountId, ActivityBatch, ActivityCount, ActivityMetric, Currency, Granted};

/// What `events` add to the rollup: their counters summed per hour, metric and subject, each
/// account's latest sign-in, and the accounts deleted.
pub(crate) fn batch_of(events: &[RelayedEvent]) -> ActivityBatch {
    let mut tally = Tally::default();
    for relayed in events {
        tally.add(relayed);
    }
    tally.into_batch()
}

/// What can be bought, as a purchase's chart counts it: the item, pack or deal (`item:7`,
/// `pack:3`, `deal:2`), the reward track's pass or tiers (`track:1`, `track_tiers:1`), any
/// in-app product (`iap`: its reference is the store's transaction), or the reason and the
/// reference's kind for anything else.
///
/// ```
/// use safezone_core::activity::purchase_subject;
///
/// assert_eq!(purchase_subject("buy", "pack:3x2"), "pack:3");
/// assert_eq!(purchase_subject("iap", "chat:tx-1"), "iap");
/// assert_eq!(purchase_subject("track", "skip:1:4"), "track_tiers:1");
/// ```
pub fn purchase_subject(reason: &str, reference: &str) -> String {
    let mut parts = reference.split(':');
    let kind = parts.next().unwrap_or_default();
    let id = parts.next().unwrap_or_default();
    match (reason, kind) {
        ("buy", "pack") => format!("pack:{}", id.split('x').next().unwrap_or_default()),
        ("buy", _) => reference.to_owned(),
        ("iap", _) => "iap".to_owned(),
        ("track", "buy") => format!("track:{id}"),
        ("track", "skip") => format!("track_tiers:{id}"),
        _ => format!("{reason}:{kind}"),
    }
}

/// The batch being added up.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<(i64, ActivityMetric, String), i64>,
    sign_ins: BTreeMap<AccountId, OffsetDateTime>,
    deleted: Vec<AccountId>,
}

impl Tally {
    /// Adds one event.
    fn add(&mut self, relayed: &RelayedEvent) {
        let event = &relayed.event;
        let hour = event.at.unix_timestamp().div_euclid(3600);
        let mut count = |metric, subject: &str, value| {
            if value != 0 {
                *self
                    .counts
                    .entry((hour, metric, subject.to_owned()))
                    .or_default() += value;
            }
        };
        match &event.payload {
            EventPayload::AccountCreated { provider, .. } => {
                count(ActivityMetric::NewPlayers, provider, 1);
            }
            EventPayload::SignedIn { provider, .. } => count(ActivityMetric::SignIns, provider, 1),
            EventPayload::Purchase {
                reason,
                reference,
                price,
                granted,
            } => {
                count(
                    ActivityMetric::Purchases,
                    &purchase_subject(reason, reference),
                    1,
                );
                currency(&mut count, reason, price, granted);
            }
            EventPayload::PackOpened { drops, .. } => currency(&mut count, "pack", &[], drops),
            EventPayload::RewardClaimed { granted, .. } => {
                currency(&mut count, "claim", &[], granted);
            }
            EventPayload::HoldingsChanged {
                reason,
                price,
                granted,
                ..
            } => currency(&mut count, reason, price, granted),
            EventPayload::MatchReported { mode, players, .. } => {
                count(ActivityMetric::MatchReports, mode, 1);
                let results = i64::try_from(players.len()).unwrap_or(i64::MAX);
                count(ActivityMetric::MatchPlayers, mode, results);
                for player in players {
                    currency(&mut count, "match", &[], &player.granted);
                }
            }
            _ => {}
        }
        match (&event.payload, event.account) {
            (EventPayload::SignedIn { .. }, Some(account)) => {
                let latest = self.sign_ins.entry(account).or_insert(event.at);
                *latest = (*latest).max(event.at);
            }
            (EventPayload::Deleted, Some(account)) => self.deleted.push(account),
            _ => {}
        }
    }

    /// The batch: a deleted account's sign-ins are left out (its last sign-in is forgotten).
    fn into_batch(mut self) -> ActivityBatch {
        for account in &self.deleted {
            self.sign_ins.remove(account);
        }
        ActivityBatch {
            counts: self
                .counts
                .into_iter()
                .map(|((hour, metric, subject), value)| ActivityCount {
                    hour,
                    metric,
                    subject,
                    value,
                })
                .collect(),
            sign_ins: self.sign_ins.into_iter().collect(),
            deleted: self.deleted,
        }
    }
}

/// Counts the currency an event of `subject` took (`price`) and gave (`granted`).
fn currency(
    count: &mut impl FnMut(ActivityMetric, &str, i64),
    subject: &str,
    price: &[Price],
    granted: &[Drop],
) {
    for paid in price {
        let metric = match paid.currency {
            Currency::Coins => ActivityMetric::CoinsSpent,
            Currency::Gems => ActivityMetric::GemsSpent,
        };
        count(metric, subject, paid.amount);
    }
    for drop in granted {
        let (metric, amount) = match drop {
            Granted::Currency {
                currency: Currency::Coins,
                amount,
            } => (ActivityMetric::CoinsGranted, *amount),
            Granted::Currency {
                currency: Currency::Gems,
                amount,
            } => (ActivityMetric::GemsGranted, *amount),
            Granted::DuplicateItem { coins, .. } => (ActivityMetric::CoinsGranted, *coins),
            _ => continue,
        };
        count(metric, subject, amount);
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::domain::ItemId;
    use crate::events::{DomainEvent, MatchPlayer};

    fn relayed(
        position: i64,
        at: OffsetDateTime,
        account: i64,
        payload: EventPayload,
    ) -> RelayedEvent {
        RelayedEvent {
            position,
            event: DomainEvent {
                id: position,
                at,
                account: Some(AccountId(account)),
                payload,
            },
        }
    }

    fn signed_in(first_login: bool) -> EventPayload {
        EventPayload::SignedIn {
            provider: "device".to_owned(),
            first_login,
        }
    }

    fn value(batch: &ActivityBatch, hour: i64, metric: ActivityMetric, subject: &str) -> i64 {
        batch
            .counts
            .iter()
            .find(|count| count.hour == hour && count.metric == metric && count.subject == subject)
            .map_or(0, |count| count.value)
    }

    #[test]
    fn events_are_summed_per_hour_metric_and_subject() {
        let noon = datetime!(2026-11-23 12:10 UTC);
        let hour = noon.unix_timestamp() / 3600;
        let coins = |amount| Granted::Currency {
            currency: Currency::Coins,
            amount,
        };
        let events = [
            relayed(1, noon, 1, signed_in(false)),
            relayed(2, noon, 2, signed_in(false)),
            relayed(3, noon + time::Duration::HOUR, 1, signed_in(false)),
            relayed(
                4,
                noon,
                2,
                EventPayload::Purchase {
                    reason: "buy".to_owned(),
                    reference: "item:7".to_owned(),
                    price: vec![Price {
                        currency: Currency::Gems,
                        amount: 30,
                    }],
                    granted: vec![Granted::Item { item: ItemId(7) }],
                },
            ),
            relayed(
                5,
                noon,
                2,
                EventPayload::MatchReported {
                    match_id: "m1".to_owned(),
                    mode: "solo".to_owned(),
                    players: vec![
                        MatchPlayer {
                            account: AccountId(1),
                            placement: 1,
                            kills: 3,
                            time_alive_secs: 600,
                            granted: vec![coins(50)],
                        },
                        MatchPlayer {
                            account: AccountId(2),
                            placement: 2,
                            kills: 0,
                            time_alive_secs: 300,
                            granted: vec![
                                coins(20),
                                Granted::DuplicateItem {
                                    item: ItemId(7),
                                    coins: 5,
                                },
                            ],
                        },
                    ],
                },
            ),
        ];
        let batch = batch_of(&events);
        assert_eq!(value(&batch, hour, ActivityMetric::SignIns, "device"), 2);
        assert_eq!(
            value(&batch, hour + 1, ActivityMetric::SignIns, "device"),
            1
        );
        assert_eq!(value(&batch, hour, ActivityMetric::Purchases, "item:7"), 1);
        assert_eq!(value(&batch, hour, ActivityMetric::GemsSpent, "buy"), 30);
        assert_eq!(value(&batch, hour, ActivityMetric::MatchReports, "solo"), 1);
        assert_eq!(value(&batch, hour, ActivityMetric::MatchPlayers, "solo"), 2);
        assert_eq!(
            value(&batch, hour, ActivityMetric::CoinsGranted, "match"),
            75
        );
        assert_eq!(
            batch.sign_ins,
            [
                (AccountId(1), noon + time::Duration::HOUR),
                (AccountId(2), noon)
            ]
        );
    }

    #[test]
    fn a_deleted_account_keeps_no_last_sign_in() {
        let at = datetime!(2026-11-23 12:00 UTC);
        let events = [
            relayed(1, at, 1, signed_in(true)),
            relayed(2, at, 2, signed_in(false)),
            relayed(3, at, 1, EventPayload::Deleted),
        ];
        let batch = batch_of(&events);
        assert_eq!(batch.sign_ins, [(AccountId(2), at)]);
        assert_eq!(batch.deleted, [AccountId(1)]);
    }

    #[test]
    fn purchases_are_counted_by_what_was_bought() {
        assert_eq!(purchase_subject("buy", "item:7"), "item:7");
        assert_eq!(purchase_subject("buy", "deal:2"), "deal:2");
        assert_eq!(purchase_subject("buy", "pack:3x10"), "pack:3");
        assert_eq!(purchase_subject("track", "buy:1"), "track:1");
        assert_eq!(purchase_subject("iap", "apple:1000000001"), "iap");
    }
}
