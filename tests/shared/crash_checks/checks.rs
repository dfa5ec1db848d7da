//! The checks of the database after the run against the clients' answers.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::clients::{Answer, Answered};
use super::database::Stored;
use super::workload::{Account, Op, PASS_TRACK, SKIP_TRACKS};

/// What the checks covered, for the figures.
pub(super) struct Checked {
    /// Accounts in the database.
    pub(super) accounts: usize,
    /// Ledger rows in the database.
    pub(super) ledger_rows: usize,
    /// Idempotency keys in the database: the operations applied.
    pub(super) applied_keys: usize,
    /// Answers 200 (a double click has two answers).
    pub(super) acknowledged: usize,
    /// Answers 4xx.
    pub(super) refused: usize,
    /// Answers 200 marked `Idempotent-Replayed`.
    pub(super) replayed: usize,
    /// Operations answered only after being sent again.
    pub(super) retried: usize,
    /// Of those, acknowledged as replays without a double click: applied before a kill took
    /// their first answer.
    pub(super) recovered: usize,
    /// Applied keys per kind of operation (`buy:item`, `pack:open`, `track:skip`, ...).
    pub(super) applied_kinds: BTreeMap<String, usize>,
    /// Domain events in the outbox.
    pub(super) events: usize,
}

/// What an applied key granted, as the store recorded it.
#[derive(Default)]
struct Grants {
    /// Credit ledger rows the change wrote: currencies and coins for duplicates.
    credits: usize,
    /// Items newly owned.
    items: Vec<i64>,
    /// Packs added, per pack.
    packs: BTreeMap<i64, i64>,
}

impl Grants {
    fn of(granted: &str) -> Self {
        let list: Vec<Value> = serde_json::from_str(granted).expect("granted is a JSON list");
        let mut grants = Self::default();
        for grant in &list {
            match grant["granted"].as_str().expect("a kind of grant") {
                "currency" => grants.credits += 1,
                "duplicate_item" if grant["coins"].as_i64().unwrap_or(0) > 0 => {
                    grants.credits += 1;
                }
                "item" => grants
                    .items
                    .push(grant["item"].as_i64().expect("an item id")),
                "packs" => {
                    let pack = grant["pack"].as_i64().expect("a pack id");
                    let quantity = grant["quantity"].as_i64().expect("a quantity");
                    *grants.packs.entry(pack).or_default() += quantity;
                }
                _ => {}
            }
        }
        grants
    }
}

/// Checks every account of the database against the clients' answers.
pub(super) fn check(stored: &Stored, accounts: &[Account], answers: &[Answered]) -> Checked {
    assert_eq!(
        stored.accounts.len(),
        accounts.len(),
        "accounts in the database"
    );
    let by_id: BTreeMap<i64, usize> = accounts
        .iter()
        .enumerate()
        .map(|(index, account)| (account.id, index))
        .collect();
    // Every key sent, with the fingerprint and debits of its operation.
    let sent: BTreeMap<(i64, &str), &Op> = answers
        .iter()
        .map(|answered| {
            let op = &answered.op;
            ((accounts[op.account].id, op.key.as_str()), op)
        })
        .collect();
    for &(id, coins, gems) in &stored.accounts {
        assert!(by_id.contains_key(&id), "account {id} was never signed up");
        check_ledger(stored, id, coins, gems);
    }
    check_counts(stored);
    check_keys(stored, &sent);
    check_events(stored);
    check_answers(stored, accounts, answers)
}

/// The outbox holds exactly one event per applied operation (its idempotency key: a purchase,
/// pack opening, reward claim or rename, matched by account, ledger reason and reference) and
/// none for a refused or rolled-back one; one `account_created` per account. Levels and tiers
/// reached, sign-ins and anything else are not counted here.
fn check_events(stored: &Stored) {
    type Told = BTreeMap<(i64, String, String), usize>;
    let mut expected = Told::new();
    for (account, _, fingerprint, _) in &stored.keys {
        let (reason, reference) = fingerprint.split_once(':').unwrap_or((fingerprint, ""));
        let reference = if reason == "rename" { "" } else { reference };
        *expected
            .entry((*account, reason.to_owned(), reference.to_owned()))
            .or_default() += 1;
    }
    let mut told = Told::new();
    let mut created = BTreeMap::<i64, usize>::new();
    for (account, kind, payload) in &stored.events {
        let payload: Value = serde_json::from_str(payload).expect("an event is JSON");
        assert_eq!(
            payload["kind"],
            kind.as_str(),
            "the kind column is the payload's"
        );
        let Some(account) = *account else {
            continue;
        };
        let text = |field: &str| payload[field].as_str().unwrap_or_default().to_owned();
        let key = match kind.as_str() {
            "purchase" => (text("reason"), text("reference")),
            "pack_opened" => ("pack".to_owned(), text("reference")),
            "reward_claimed" => ("claim".to_owned(), text("reference")),
            "renamed" => ("rename".to_owned(), String::new()),
            "account_created" => {
                *created.entry(account).or_default() += 1;
                continue;
            }
            _ => continue,
        };
        *told.entry((account, key.0, key.1)).or_default() += 1;
    }
    for (operation, count) in &expected {
        assert_eq!(
            told.get(operation),
            Some(count),
            "events of the applied operation {operation:?}"
        );
    }
    for (event, count) in &told {
        assert_eq!(
            expected.get(event),
            Some(count),
            "events {event:?} without as many applied operations"
        );
    }
    for &(account, _, _) in &stored.accounts {
        assert_eq!(
            created.get(&account),
            Some(&1),
            "account {account} created once"
        );
    }
}

/// Every acknowledged operation was applied (its key is in the database with its fingerprint);
/// every refusal is one of the economy's (402 or 409). Answers what the checks covered.
fn check_answers(stored: &Stored, accounts: &[Account], answers: &[Answered]) -> Checked {
    let mut checked = Checked {
        accounts: stored.accounts.len(),
        ledger_rows: stored.ledger.len(),
        applied_keys: stored.keys.len(),
        acknowledged: 0,
        refused: 0,
        replayed: 0,
        retried: 0,
        recovered: 0,
        applied_kinds: BTreeMap::new(),
        events: stored.events.len(),
    };
    for (_, _, fingerprint, _) in &stored.keys {
        let kind: Vec<&str> = fingerprint.split(':').take(2).collect();
        *checked.applied_kinds.entry(kind.join(":")).or_default() += 1;
    }
    let applied: BTreeSet<(i64, &str, &str)> = stored
        .keys
        .iter()
        .map(|(account, key, fingerprint, _)| (*account, key.as_str(), fingerprint.as_str()))
        .collect();
    for answered in answers {
        let op = &answered.op;
        let account = accounts[op.account].id;
        let retried = answered.attempts > 1;
        checked.retried += usize::from(retried);
        match &answered.answer {
            Answer::Acknowledged { replayed } => {
                checked.acknowledged += 1;
                checked.replayed += usize::from(*replayed);
                checked.recovered += usize::from(*replayed && retried && !op.double_click);
                assert!(
                    applied.contains(&(account, op.key.as_str(), op.fingerprint.as_str())),
                    "acknowledged after {} attempt(s) but not in the database: {op:?}",
                    answered.attempts
                );
            }
            Answer::Refused { status, code } => {
                checked.refused += 1;
                assert!(
                    matches!(*status, 402 | 409),
                    "{op:?} refused with {status} {code}: not a refusal of the economy"
                );
            }
        }
    }
    checked
}

/// Per currency: the ledger's running sum is each row's balance after, never negative, and ends
/// at the account's balance.
fn check_ledger(stored: &Stored, account: i64, coins: i64, gems: i64) {
    for (currency, balance) in [("coins", coins), ("gems", gems)] {
        let mut running = 0_i64;
        for (_, _, delta, after, reason, reference) in stored
            .ledger
            .iter()
            .filter(|row| row.0 == account && row.1 == currency)
        {
            running += delta;
            assert_eq!(
                *after, running,
                "account {account}: {currency} balance_after of a {reason}:{reference} row \
                 is not the ledger's running sum"
            );
            assert!(running >= 0, "account {account}: negative {currency}");
        }
        assert_eq!(
            balance, running,
            "account {account}: {currency} balance differs from its ledger sum"
        );
    }
}

/// No negative balance, license or pack count anywhere.
fn check_counts(stored: &Stored) {
    for &(account, coins, gems) in &stored.accounts {
        assert!(
            coins >= 0 && gems >= 0,
            "account {account}: {coins} coins, {gems} gems"
        );
    }
    for &(account, item, quantity) in &stored.licenses {
        assert!(
            quantity >= 1,
            "account {account}: item {item} quantity {quantity}"
        );
    }
    for &(account, pack, quantity) in &stored.packs {
        assert!(
            quantity >= 0,
            "account {account}: pack {pack} quantity {quantity}"
        );
    }
}

/// Every applied key was sent for its account with its fingerprint, and each was applied once:
/// per account and fingerprint, the ledger holds exactly the rows of that many applications;
/// every item, pack, claim and pass comes from applied keys, each item from exactly one.
fn check_keys(stored: &Stored, sent: &BTreeMap<(i64, &str), &Op>) {
    // (account, fingerprint) -> (applications, debits expected, credits expected)
    let mut expected: BTreeMap<(i64, String), (usize, usize, usize)> = BTreeMap::new();
    let mut items: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    let mut packs: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for (account, key, fingerprint, granted) in &stored.keys {
        let op = sent
            .get(&(*account, key.as_str()))
            .unwrap_or_else(|| panic!("account {account}: key {key} applied but never sent"));
        assert_eq!(&op.fingerprint, fingerprint, "account {account}: key {key}");
        let grants = Grants::of(granted);
        let entry = expected.entry((*account, fingerprint.clone())).or_default();
        entry.0 += 1;
        entry.1 += op.debits;
        entry.2 += grants.credits;
        for item in grants.items {
            *items.entry((*account, item)).or_default() += 1;
        }
        for (pack, quantity) in grants.packs {
            *packs.entry((*account, pack)).or_default() += quantity;
        }
        if let Some(pack) = fingerprint.strip_prefix("pack:open:") {
            let pack: i64 = pack.parse().expect("a pack id");
            *packs.entry((*account, pack)).or_default() -= 1;
        }
    }
    // (account, fingerprint) -> (debit rows, credit rows) in the ledger.
    let mut written: BTreeMap<(i64, String), (usize, usize)> = BTreeMap::new();
    for (account, _, delta, _, reason, reference) in &stored.ledger {
        let entry = written
            .entry((*account, format!("{reason}:{reference}")))
            .or_default();
        if *delta < 0 {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    for ((account, fingerprint), rows) in &written {
        if fingerprint.ends_with(super::operator::REFERENCE) {
            continue; // the operator API's grants: checked with their audit rows
        }
        if fingerprint == "grant:operator" {
            assert_eq!(*rows, (0, 2), "account {account}: the funding grant's rows");
            continue;
        }
        let (applied, debits, credits) = expected
            .get(&(*account, fingerprint.clone()))
            .copied()
            .unwrap_or_default();
        assert_eq!(
            *rows,
            (debits, credits),
            "account {account}: ledger rows (debits, credits) of `{fingerprint}` for \
             {applied} applied key(s)"
        );
    }
    for ((account, fingerprint), (applied, debits, credits)) in &expected {
        assert!(
            (*debits, *credits) == (0, 0) || written.contains_key(&(*account, fingerprint.clone())),
            "account {account}: {applied} applied `{fingerprint}` key(s) wrote no ledger row"
        );
    }
    check_holdings(stored, &expected, &items, &packs);
}

/// Licenses, packs, claims and passes are exactly what the applied keys granted.
fn check_holdings(
    stored: &Stored,
    applied: &BTreeMap<(i64, String), (usize, usize, usize)>,
    items: &BTreeMap<(i64, i64), usize>,
    packs: &BTreeMap<(i64, i64), i64>,
) {
    for (&(account, item), &times) in items {
        assert_eq!(
            times, 1,
            "account {account}: item {item} granted {times} times"
        );
    }
    let licensed: BTreeMap<(i64, i64), usize> = stored
        .licenses
        .iter()
        .map(|&(account, item, _)| ((account, item), 1))
        .collect();
    assert_eq!(&licensed, items, "licenses differ from the items granted");
    let stock: BTreeMap<(i64, i64), i64> = stored
        .packs
        .iter()
        .filter(|row| row.2 > 0)
        .map(|&(account, pack, quantity)| ((account, pack), quantity))
        .collect();
    let granted: BTreeMap<(i64, i64), i64> = packs
        .iter()
        .filter(|entry| *entry.1 != 0)
        .map(|(at, quantity)| (*at, *quantity))
        .collect();
    assert_eq!(
        stock, granted,
        "unopened packs differ from packs granted minus opened"
    );
    let applications = |account: i64, fingerprint: &str| {
        applied
            .get(&(account, fingerprint.to_owned()))
            .map_or(0, |entry| entry.0)
    };
    let mut claims: BTreeMap<(i64, String), usize> = BTreeMap::new();
    for (account, claim) in &stored.claims {
        let fingerprint = match claim.split_once('/') {
            // Tier rewards: checked against the tracks' stars by `check_tracks`.
            Some(("track", _)) => continue,
            // Level rewards: checked against the levels by `check_levels`.
            Some(("level", _)) => continue,
            // A recurring deal's claim is `deal/{id}` in its first occurrence and
            // `deal/{id}/{occurrence}` after; either is bought as `deal:{id}`.
            Some(("deal", deal)) => {
                let id = deal.split_once('/').map_or(deal, |(id, _)| id);
                format!("buy:deal:{id}")
            }
            Some((kind, _)) => format!("claim:{kind}"),
            None => format!("claim:{claim}"),
        };
        *claims.entry((*account, fingerprint)).or_default() += 1;
    }
    for ((account, fingerprint), count) in &claims {
        assert_eq!(
            *count,
            applications(*account, fingerprint),
            "account {account}: claims of `{fingerprint}`"
        );
    }
    for &(account, track) in &stored.passes {
        assert_eq!(
            track, PASS_TRACK,
            "account {account}: a pass of track {track}"
        );
        assert_eq!(
            applications(account, &format!("track:buy:{PASS_TRACK}")),
            1,
            "account {account}: track passes bought"
        );
    }
    check_tracks(stored);
    check_levels(stored);
}

/// Per account: the stored level is the one its experience reaches (every change that gave
/// experience, a tier's or a deal's, gave its levels too), and each level's rewards were
/// claimed once, for exactly the levels reached.
fn check_levels(stored: &Stored) {
    let curve = safezone_core::content::Content::shipped()
        .progression
        .levels;
    for &(account, experience, level) in &stored.levels {
        assert_eq!(
            level,
            curve.level_for(experience),
            "account {account}: the level of {experience} experience"
        );
        let claimed: BTreeSet<i64> = stored
            .claims
            .iter()
            .filter(|row| row.0 == account)
            .filter_map(|row| row.1.strip_prefix("level/"))
            .map(|level| level.parse().expect("a level"))
            .collect();
        assert_eq!(
            claimed,
            (2..=level).collect(),
            "account {account}: level rewards claimed"
        );
    }
}

/// Per account and skipped track: its stars are the tiers of the applied skips times the
/// track's stars per tier, and the tiers' rewards were claimed once each, for exactly those
/// tiers.
fn check_tracks(stored: &Stored) {
    let content = safezone_core::content::Content::shipped();
    for &(account, _, _) in &stored.accounts {
        for track in SKIP_TRACKS {
            let skipped: i64 = stored
                .keys
                .iter()
                .filter(|row| row.0 == account)
                .filter_map(|row| row.2.strip_prefix(&format!("track:skip:{track}:")))
                .map(|tiers| tiers.parse::<i64>().expect("a number of tiers"))
                .sum();
            let per_tier = content
                .tracks
                .iter()
                .find(|candidate| candidate.id.0 == track)
                .expect("the shipped track")
                .stars_per_tier;
            let counter = format!("track/{track}/stars");
            let stars = stored
                .progress
                .iter()
                .find(|row| row.0 == account && row.1 == counter)
                .map_or(0, |row| row.2);
            assert_eq!(
                stars,
                skipped * per_tier,
                "account {account}: stars of track {track} after skipping {skipped} tiers"
            );
            let prefix = format!("track/{track}/tier/");
            let claimed: BTreeSet<i64> = stored
                .claims
                .iter()
                .filter(|row| row.0 == account)
                .filter_map(|row| row.1.strip_prefix(&prefix))
                .map(|tier| tier.parse().expect("a tier"))
                .collect();
            assert_eq!(
                claimed,
                (1..=skipped).collect(),
                "account {account}: tier rewards claimed on track {track}"
            );
        }
    }
}
