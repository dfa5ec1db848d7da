//! The retention sweep: each node deletes, now and then, the user keys that have expired,
//! forgets the idempotency keys older than [`Settings::idempotency_retention`], deletes the
//! console sessions that no longer work (ended, expired, or of a revoked operator token), the
//! domain events every sink delivered longer than
//! [`EventSettings::retention`](crate::events::EventSettings::retention) ago (unless a pending
//! replay needs them), the webhooks' delivery attempts and finished replays older than their
//! own retention, the hourly statistics older than [`Settings::stats_retention`], the friend
//! requests nobody answered in [`FRIEND_REQUEST_EXPIRY`] and the presence of nodes silent for
//! [`PRESENCE_NODE_FORGOTTEN`] (they crashed), so that no such table only grows.
//!
//! A round deletes in batches of [`BATCH`] rows, each its own short transaction, and at most
//! [`BATCHES_PER_ROUND`] batches per table: no long lock, and a backlog is worked off over
//! several rounds. Several nodes on one database may sweep at once; a row deleted by one is
//! simply not found by the other.
//!
//! [`Settings::idempotency_retention`]: crate::Settings::idempotency_retention
//! [`Settings::stats_retention`]: crate::Settings::stats_retention

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::background::StoreWhileServed;
use crate::clock::Clock;
use crate::store::{FRIEND_REQUEST_EXPIRY, PRESENCE_NODE_FORGOTTEN, Store, StoreError};

/// The most rows one batch deletes.
const BATCH: u32 = 1_000;

/// The most batches per table in one round.
const BATCHES_PER_ROUND: u32 = 20;

/// How long each kind of row is kept past its use ([`Settings::retention_ages`](crate::Settings)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ages {
    /// Idempotency keys.
    pub(crate) idempotency: time::Duration,
    /// Events every active sink delivered.
    pub(crate) delivered_events: time::Duration,
    /// The webhooks' delivery attempts and finished replays.
    pub(crate) deliveries: time::Duration,
    /// The hourly statistics.
    pub(crate) stats: time::Duration,
}

/// Starts this node's sweep of the store `served`: a round at once, then one `every`
/// ([`Settings::retention_sweep_every`](crate::Settings::retention_sweep_every)), until the
/// service is dropped. Needs a Tokio runtime; without one nothing is swept.
pub(crate) fn start(served: StoreWhileServed, clock: Arc<dyn Clock>, ages: Ages, every: Duration) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(sweep(served, clock, ages, every));
}

/// The sweep's rounds, while the service lives.
async fn sweep(served: StoreWhileServed, clock: Arc<dyn Clock>, ages: Ages, every: Duration) {
    let mut rounds = tokio::time::interval(every);
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        rounds.tick().await;
        let Some(store) = served.get() else {
            return;
        };
        if let Err(error) = round(store.as_ref(), clock.as_ref(), ages).await {
            tracing::warn!(%error, "the retention sweep failed; trying again next round");
        }
    }
}

/// One round: expired user keys, idempotency keys past their retention, console sessions that
/// no longer work, delivered events, the delivery log and finished replays, old hourly
/// statistics and activity counters, then expired friend requests and crashed nodes' presence,
/// all as of the clock's now.
async fn round(store: &dyn Store, clock: &dyn Clock, ages: Ages) -> Result<(), StoreError> {
    let now = clock.now();
    let keys = in_batches(|| store.delete_expired_keys(now, BATCH)).await?;
    let before = now - ages.idempotency;
    let idempotency = in_batches(|| store.forget_idempotency_keys(before, BATCH)).await?;
    let sessions = in_batches(|| store.delete_finished_operator_sessions(now, BATCH)).await?;
    let delivered = now - ages.delivered_events;
    let events = in_batches(|| store.delete_delivered_events(delivered, BATCH)).await?;
    let logged = now - ages.deliveries;
    let deliveries = in_batches(|| store.delete_webhook_deliveries(logged, BATCH)).await?;
    let replays = in_batches(|| store.delete_webhook_replays(logged, BATCH)).await?;
    let hours = now - ages.stats;
    let stats = in_batches(|| store.delete_stat_hours(hours, BATCH)).await?;
    let counted = now - crate::activity::RETENTION;
    let activity = in_batches(|| store.delete_activity_counters(counted, BATCH)).await?;
    let sent = now - FRIEND_REQUEST_EXPIRY;
    let requests = in_batches(|| store.expire_friend_requests(sent, BATCH)).await?;
    let silent = now - PRESENCE_NODE_FORGOTTEN;
    let nodes = in_batches(|| store.delete_dead_presence_nodes(silent, BATCH)).await?;
    if [
        keys,
        idempotency,
        sessions,
        events,
        deliveries,
        replays,
        stats,
        activity,
        requests,
        nodes,
    ]
    .iter()
    .any(|deleted| *deleted > 0)
    {
        tracing::info!(
            expired_user_keys = keys,
            idempotency_keys = idempotency,
            console_sessions = sessions,
            delivered_events = events,
            webhook_deliveries = deliveries,
            webhook_replays = replays,
            stat_hours = stats,
            activity_hours = activity,
            friend_requests = requests,
            presence_nodes = nodes,
            "retention sweep"
        );
    }
    Ok(())
}

/// Runs `batch` until it deletes less than a whole batch, at most [`BATCHES_PER_ROUND`] times;
/// answers how many rows went.
async fn in_batches<F, Fut>(mut batch: F) -> Result<u64, StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<u64, StoreError>>,
{
    let mut deleted = 0;
    for _ in 0..BATCHES_PER_ROUND {
        let gone = batch().await?;
        deleted += gone;
        if gone < u64::from(BATCH) {
            break;
        }
    }
    Ok(deleted)
}
