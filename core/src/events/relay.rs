//! The relay each node runs (started with the service, stopped when it is dropped):
//!
//! - every [`EventSettings::relay_every`](super::EventSettings), it *sequences* the committed
//!   events that have no relay position yet, in one short store transaction
//!   ([`EventStore::sequence_events`](crate::store::EventStore::sequence_events)); one node at a
//!   time sequences;
//! - then it hands the events relayed since its last round to this node's in-process
//!   subscribers ([`subscription`](super::subscription)) and moves on the change counter of
//!   each account they name ([`AccountChanges`]), recording how far it has seen every committed
//!   change (for the sessions kept in memory, [`SessionCache`](crate::auth::SessionCache));
//! - each external sink (a webhook URL, NATS) delivers from a task of its own
//!   ([`consumer`](super::consumer)), with its own cursor and backoff, and a webhook's
//!   dead letters are delivered again on request from another ([`replay`](super::replay)).
//!
//! A round takes up to [`EventSettings::relay_batch`](super::EventSettings) events; a full
//! round is followed by the next at once, so a backlog is worked off at once.

use std::sync::Arc;

use super::RelayedChange;
use super::consumer::Consumer;
use super::replay::Replayer;
use super::subscription::Subscription;
use super::{EventSettings, Sink};
use crate::background::StoreWhileServed;
use crate::store::{AccountChanges, SequenceRound, Store, StoreError};
use time::OffsetDateTime;

/// Starts this node's relay, the in-process subscription's follower and a task for each of
/// `sinks`, until the service is dropped. Needs a Tokio runtime; without one nothing is
/// relayed.
pub(crate) fn start(
    served: StoreWhileServed,
    changes: Option<Arc<AccountChanges>>,
    settings: EventSettings,
    sinks: Vec<Arc<dyn Sink>>,
    subscription: Arc<Subscription>,
    node: Arc<str>,
) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(relay(served, changes, settings, sinks, subscription, node));
}

/// The relay's rounds, while the service lives. Before the first, the sinks' cursors are read
/// (a new sink's created at the head) and the subscription placed at the head: each gets
/// every event this node sequences; then the sinks' tasks start.
async fn relay(
    served: StoreWhileServed,
    changes: Option<Arc<AccountChanges>>,
    settings: EventSettings,
    sinks: Vec<Arc<dyn Sink>>,
    subscription: Arc<Subscription>,
    node: Arc<str>,
) {
    let mut rounds = tokio::time::interval(settings.relay_every);
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        rounds.tick().await;
        let Some(store) = served.get() else {
            return;
        };
        match place(store.as_ref(), &sinks, &subscription).await {
            Ok(()) => break,
            Err(error) => {
                tracing::warn!(%error, "reading the relay's cursors failed; trying again")
            }
        }
    }
    for sink in sinks {
        if let Some(url) = sink.replays() {
            let replayer = Replayer::new(Arc::clone(&sink), url.to_owned(), Arc::clone(&node));
            tokio::spawn(replayer.run(served.clone()));
        }
        let consumer = Consumer::new(
            sink,
            Arc::clone(&node),
            settings.relay_every,
            settings.relay_batch,
        );
        tokio::spawn(consumer.run(served.clone()));
    }
    loop {
        let Some(store) = served.get() else {
            return;
        };
        let started = OffsetDateTime::now_utc();
        sequence(store.as_ref(), settings.relay_batch).await;
        match changes.as_deref() {
            Some(changes) => {
                follow_changes(
                    store.as_ref(),
                    settings.relay_batch,
                    &subscription,
                    changes,
                    started,
                )
                .await;
            }
            None => {
                follow(store.as_ref(), settings.relay_batch, &subscription, None).await;
            }
        }
        drop(store);
        rounds.tick().await;
    }
}

/// Reads (or creates at the head) every sink's cursor and places the subscription at the head.
async fn place(
    store: &dyn Store,
    sinks: &[Arc<dyn Sink>],
    subscription: &Subscription,
) -> Result<(), StoreError> {
    let now = OffsetDateTime::now_utc();
    for sink in sinks {
        store.event_consumer(&sink.name(), now).await?;
    }
    subscription.skip_to(store.relay_head().await?);
    Ok(())
}

/// Sequences the waiting events, a full batch after another.
async fn sequence(store: &dyn Store, batch: u32) {
    loop {
        match store.sequence_events(batch).await {
            Ok(SequenceRound::Sequenced(count))
                if u32::try_from(count).is_ok_and(|count| count >= batch) => {}
            Ok(SequenceRound::Sequenced(_) | SequenceRound::Held) => return,
            Err(error) => {
                tracing::warn!(%error, "sequencing events failed; trying again next round");
                return;
            }
        }
    }
}

/// Follows the events relayed since the last round while counting the accounts' changes they
/// tell, then records how far every committed change was seen: every event committed before
/// the oldest one still waiting for its position (read first) and before the round `started`
/// was relayed by then, so read by [`follow`] after it.
async fn follow_changes(
    store: &dyn Store,
    batch: u32,
    subscription: &Subscription,
    changes: &AccountChanges,
    started: OffsetDateTime,
) {
    let oldest_waiting = match store.oldest_unsequenced().await {
        Ok(oldest) => oldest,
        Err(error) => {
            tracing::warn!(%error, "reading the oldest event waiting for the relay failed");
            return;
        }
    };
    if follow(store, batch, subscription, Some(changes)).await {
        changes.all_seen_before(oldest_waiting.map_or(started, |oldest| oldest.min(started)));
    }
}

/// Moves on the change counter of every account `change` names, unless this node's store
/// told it ([`AccountChanges::told_here`]) and so moved them when it committed.
fn count_changes(changes: &AccountChanges, change: &RelayedChange) {
    if changes.relayed_here(change.event) {
        return;
    }
    for account in &change.accounts {
        changes.changed(*account);
    }
}

/// Hands the events relayed since the last round to this node's subscribers, counting the
/// changes they tell into `changes`; with no subscriber, reads only the changes
/// ([`EventStore::relayed_changes`](crate::store::EventStore::relayed_changes)), and with no
/// change counters either, only moves past them. `true` when it read up to the relay head.
async fn follow(
    store: &dyn Store,
    batch: u32,
    subscription: &Subscription,
    changes: Option<&AccountChanges>,
) -> bool {
    loop {
        if let Some(changes) = changes
            && !subscription.is_watched()
        {
            // Only the accounts are needed: the payloads are neither read nor parsed.
            match store.relayed_changes(subscription.position(), batch).await {
                Ok(found) => {
                    for change in &found {
                        count_changes(changes, change);
                    }
                    let Some(last) = found.last() else {
                        return true;
                    };
                    // A subscriber that came meanwhile gets these events from the full read
                    // below (their counters are moved twice, which only costs a read).
                    if !subscription.is_watched() {
                        subscription.skip_to(last.position);
                        if found.len() < batch as usize {
                            return true;
                        }
                    }
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%error, "reading relayed changes failed; trying again next round");
                    return false;
                }
            }
        }
        if changes.is_none() && !subscription.is_watched() {
            // The head is read first: a subscriber that comes after the second look was not
            // there when those events were relayed.
            let head = match store.relay_head().await {
                Ok(head) => head,
                Err(error) => {
                    tracing::warn!(%error, "reading the relay head failed");
                    return false;
                }
            };
            if !subscription.is_watched() {
                subscription.skip_to(head);
                return true;
            }
        }
        match store.relayed_events(subscription.position(), batch).await {
            Ok(events) => {
                let full = events.len() >= batch as usize;
                if let Some(changes) = changes {
                    for event in &events {
                        count_changes(changes, &RelayedChange::of(event));
                    }
                }
                subscription.publish(events);
                if !full {
                    return true;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "reading relayed events failed; trying again next round");
                return false;
            }
        }
    }
}
