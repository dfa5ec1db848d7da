//! Dead letters delivered again: each webhook URL's replay task (beside its
//! [`consumer`](super::consumer), on every node) takes the replays operators asked for
//! (`POST /operator/api/webhooks/{deliveryId}/replay`, a durable row of the store) one at a
//! time, reads the batch's events by their relay positions and hands them to the URL's sink
//! with the sink's own retries and backoff: every attempt is in the delivery log, and a batch
//! that fails every attempt again is dead-lettered anew. The sink's cursor is never touched,
//! and no other sink waits. One node tries a replay at a time (a lease, as for cursors); a
//! crash during an attempt tries it again once the lease runs out (at least once).
//!
//! While pending, a replay keeps its events from the retention sweep; a replay that finds them
//! gone all the same (requested just as the sweep deleted them) ends `expired`.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use super::consumer::LEASE;
use super::{Delivered, RelayedEvent, Sink};
use crate::background::StoreWhileServed;
use crate::store::{ReplayOutcome, ReplayState, Store, WebhookReplay};

/// How often a URL's replay task looks for a due replay when it found none (one read).
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// One webhook URL's replay task on one node.
pub(crate) struct Replayer {
    sink: Arc<dyn Sink>,
    url: String,
    /// This node's name in the leases.
    node: Arc<str>,
}

impl Replayer {
    /// The replay task of `sink`, delivering the dead letters of `url` again, on the node
    /// `node`.
    pub(crate) fn new(sink: Arc<dyn Sink>, url: String, node: Arc<str>) -> Self {
        Self { sink, url, node }
    }

    /// Steps while the service lives.
    pub(crate) async fn run(self, served: StoreWhileServed) {
        loop {
            let Some(store) = served.get() else {
                return;
            };
            let found = self.step(store.as_ref()).await;
            drop(store);
            if !found {
                tokio::time::sleep(LOOK_EVERY).await;
            }
        }
    }

    /// Takes a due replay, if there is one, and tries it once; answers whether there was one.
    async fn step(&self, store: &dyn Store) -> bool {
        let now = OffsetDateTime::now_utc();
        let replay = match store
            .claim_webhook_replay(&self.url, &self.node, now, now + LEASE)
            .await
        {
            Ok(Some(replay)) => replay,
            Ok(None) => return false,
            Err(error) => {
                tracing::warn!(url = %self.url, %error, "reading the due replays failed");
                return false;
            }
        };
        let Some(outcome) = self.attempt(store, &replay).await else {
            return false;
        };
        let settled = store
            .settle_webhook_replay(replay.id, &self.node, outcome, OffsetDateTime::now_utc())
            .await;
        match settled {
            Ok(true) => true,
            Ok(false) => {
                tracing::warn!(replay = replay.id, "another node took the replay over");
                true
            }
            Err(error) => {
                tracing::warn!(replay = replay.id, %error, "writing the replay's outcome failed");
                false
            }
        }
    }

    /// One attempt at `replay`: its outcome, or `None` when its events could not be read
    /// (tried again on this node's next look, which its lease keeps for it).
    async fn attempt(&self, store: &dyn Store, replay: &WebhookReplay) -> Option<ReplayOutcome> {
        let (first, last) = replay.positions;
        let count = u32::try_from(last - first + 1).unwrap_or(u32::MAX);
        let read = store.relayed_events(first - 1, count).await;
        let mut events: Vec<RelayedEvent> = match read {
            Ok(events) => events,
            Err(error) => {
                tracing::warn!(replay = replay.id, %error, "reading a replay's events failed");
                return None;
            }
        };
        events.retain(|event| event.position <= last);
        if events.len() != count as usize {
            return Some(ReplayOutcome::Finished(
                ReplayState::Expired,
                Some("its events were deleted by the events' retention".to_owned()),
            ));
        }
        events.sort_by_key(|event| event.event.id);
        let attempt = replay.failures.saturating_add(1);
        Some(match self.sink.deliver(&events, attempt).await {
            Ok(Delivered::Taken) => {
                tracing::info!(replay = replay.id, url = %self.url, "dead letter replayed");
                ReplayOutcome::Finished(ReplayState::Delivered, None)
            }
            Ok(Delivered::GivenUp) => ReplayOutcome::Finished(
                ReplayState::Dead,
                Some(format!("all {attempt} attempts failed again")),
            ),
            Err(error) => ReplayOutcome::Failed {
                failures: attempt,
                retry_at: OffsetDateTime::now_utc() + self.sink.backoff(attempt),
                error: error.to_string(),
            },
        })
    }
}
