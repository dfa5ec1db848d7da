//! The events of a change, derived from what core planned and what the store applied: the
//! store calls these inside the change's transaction, after its steps, and writes what they
//! answer with it. Nothing here waits on anything.

use super::{EventPayload, MatchPlayer, Price};
use crate::progression::tier_of_claim;
use crate::store::{AccountId, Change, Granted, MatchRecord, NewAuditEntry, Step};

/// The events of an applied economy change that granted `granted`: what it was (a purchase,
/// a pack opened, a reward claimed, holdings an operator moved; told by its ledger reason),
/// then the levels and reward-track tiers it reached, so that every change of an account's
/// holdings has an event on it (which nodes keeping its view in memory follow). A rename's event is written with the friend code the store chose
/// (`renamed`), a match's by [`match_events`]; an operator's change is told by its audit row
/// ([`operator_event`]).
pub fn change_events(change: &Change, granted: &[Granted]) -> Vec<EventPayload> {
    let mut events = Vec::new();
    let granted = granted.to_vec();
    match change.reason.as_str() {
        "buy" | "iap" | "track" => events.push(EventPayload::Purchase {
            reason: change.reason.clone(),
            reference: change.reference.clone(),
            price: price(&change.steps),
            granted,
        }),
        "pack" => events.push(EventPayload::PackOpened {
            reference: change.reference.clone(),
            drops: granted,
        }),
        "claim" => events.push(EventPayload::RewardClaimed {
            reward_type: change
                .reference
                .split(':')
                .next()
                .unwrap_or_default()
                .to_owned(),
            reference: change.reference.clone(),
            granted,
        }),
        "rename" => {}
        _ => events.push(EventPayload::HoldingsChanged {
            reason: change.reason.clone(),
            reference: change.reference.clone(),
            price: price(&change.steps),
            granted,
        }),
    }
    events.extend(progress_events(&change.steps));
    events
}

/// The events of a recorded match report, `(account, event)`: one report event carrying every
/// player's result with what their change granted (on no account), then the levels and tiers
/// each player's change reached. `granted` holds what each of `changes` granted, in order.
pub fn match_events(
    record: &MatchRecord,
    changes: &[Change],
    granted: &[Vec<Granted>],
) -> Vec<(Option<AccountId>, EventPayload)> {
    let mut players = Vec::with_capacity(record.players.len());
    let mut reached = Vec::new();
    for player in &record.players {
        let change = changes
            .iter()
            .position(|change| change.account == player.account);
        players.push(MatchPlayer {
            account: player.account,
            placement: player.placement,
            kills: player.kills,
            time_alive_secs: player.time_alive_secs,
            granted: change
                .and_then(|at| granted.get(at))
                .cloned()
                .unwrap_or_default(),
        });
        if let Some(change) = change.and_then(|at| changes.get(at)) {
            reached.extend(
                progress_events(&change.steps)
                    .into_iter()
                    .map(|event| (Some(player.account), event)),
            );
        }
    }
    let report = EventPayload::MatchReported {
        match_id: record.id.as_str().to_owned(),
        mode: record.mode.as_str().to_owned(),
        players,
    };
    let mut events = Vec::with_capacity(1 + reached.len());
    events.push((None, report));
    events.extend(reached);
    events
}

/// The event of an operator API audit row, and the account it names (`account:42`).
pub fn operator_event(entry: &NewAuditEntry) -> (Option<AccountId>, EventPayload) {
    let account = entry
        .target
        .strip_prefix("account:")
        .and_then(|id| id.parse().ok())
        .map(AccountId);
    (
        account,
        EventPayload::OperatorAction {
            token: entry.token,
            action: entry.action.clone(),
            target: entry.target.clone(),
            reason: entry.reason.clone(),
            result: entry.result.clone(),
        },
    )
}

/// What `steps` debit.
fn price(steps: &[Step]) -> Vec<Price> {
    steps
        .iter()
        .filter_map(|step| match step {
            Step::Debit { currency, amount } => Some(Price {
                currency: *currency,
                amount: *amount,
            }),
            _ => None,
        })
        .collect()
}

/// The level a plan sets and the reward-track tiers whose rewards it grants. A plan that
/// gives experience or stars requires the progress it was made from unchanged
/// ([`Step::RequireProgressVersion`]), so these are exactly the levels and tiers reached now.
fn progress_events(steps: &[Step]) -> Vec<EventPayload> {
    let mut events = Vec::new();
    for step in steps {
        match step {
            Step::SetLevel { level } => events.push(EventPayload::LevelReached { level: *level }),
            Step::Once { key, .. } => {
                if let Some((track, tier)) = tier_of_claim(key) {
                    events.push(EventPayload::TierReached {
                        track: track.0,
                        tier,
                    });
                }
            }
            _ => {}
        }
    }
    events
}
