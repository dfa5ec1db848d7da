//! A sink's own delivery loop: each sink (a webhook URL, NATS) follows the relayed events with
//! its own durable cursor ([`EventConsumer`](crate::store::EventConsumer)), its own retries and
//! backoff, in a task of its own, so that a failing or silent receiver delays no other sink.
//!
//! A step reads the cursor; when another node's lease on the sink runs, or its backoff does,
//! it waits. Otherwise it reads the events after the cursor, takes the lease (one node
//! delivers for a sink at a time, for [`LEASE`]), hands them to the sink, then moves the cursor
//! past them (at least once: a crash before that delivers them again) or, after a failure,
//! counts it and sets when to try again. No transaction stays open while the sink works.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use super::{RelayedEvent, Sink};
use crate::background::StoreWhileServed;
use crate::store::{EventConsumer, Settlement, Store};

/// How long a node delivers for a sink after its last attempt began before another node may
/// take over. An attempt that outlasts it may be made by two nodes (still at least once).
pub(crate) const LEASE: Duration = Duration::from_secs(30);

/// The longest a sink's task sleeps at once, so that it ends soon after the service does.
const LONGEST_NAP: Duration = Duration::from_secs(1);

/// One sink's loop on one node.
pub(crate) struct Consumer {
    sink: Arc<dyn Sink>,
    name: String,
    /// This node's name in the leases.
    node: Arc<str>,
    every: Duration,
    batch: u32,
    /// The batch being delivered, read after `pending_after`: tried again as it was.
    pending: Vec<RelayedEvent>,
    pending_after: i64,
}

impl Consumer {
    /// The loop of `sink` on the node `node`, looking for events every `every`, `batch` at
    /// most at once.
    pub(crate) fn new(sink: Arc<dyn Sink>, node: Arc<str>, every: Duration, batch: u32) -> Self {
        Self {
            name: sink.name(),
            sink,
            node,
            every,
            batch,
            pending: Vec::new(),
            pending_after: 0,
        }
    }

    /// Steps while the service lives.
    pub(crate) async fn run(mut self, served: StoreWhileServed) {
        loop {
            let Some(store) = served.get() else {
                return;
            };
            let wait = self.step(store.as_ref()).await;
            drop(store);
            if !wait.is_zero() {
                tokio::time::sleep(wait.min(LONGEST_NAP)).await;
            }
        }
    }

    /// One step; answers how long to wait before the next.
    async fn step(&mut self, store: &dyn Store) -> Duration {
        let now = OffsetDateTime::now_utc();
        let consumer = match store.event_consumer(&self.name, now).await {
            Ok(consumer) => consumer,
            Err(error) => {
                tracing::warn!(sink = %self.name, %error, "reading the sink's cursor failed");
                return self.every;
            }
        };
        if let Some(wait) = self.waiting(&consumer, now) {
            return wait;
        }
        if self.pending.is_empty() || self.pending_after != consumer.position {
            match store.relayed_events(consumer.position, self.batch).await {
                Ok(events) => {
                    self.pending = events;
                    self.pending_after = consumer.position;
                }
                Err(error) => {
                    tracing::warn!(sink = %self.name, %error, "reading events to deliver failed");
                    return self.every;
                }
            }
        }
        let Some(last) = self.pending.iter().map(|event| event.position).max() else {
            return self.every;
        };
        let leased = store
            .lease_event_consumer(&self.name, &self.node, consumer.position, now, now + LEASE)
            .await;
        if !leased.unwrap_or(false) {
            self.pending.clear();
            return self.every;
        }
        self.deliver(store, &consumer, last).await
    }

    /// How long to wait before this node may deliver: while another node's lease or the
    /// sink's backoff runs.
    fn waiting(&self, consumer: &EventConsumer, now: OffsetDateTime) -> Option<Duration> {
        let held_elsewhere = consumer.holder.as_deref() != Some(&*self.node)
            && consumer.lease_until.is_some_and(|until| until > now);
        if held_elsewhere {
            return Some(self.every);
        }
        let retry_at = consumer.retry_at.filter(|at| *at > now)?;
        Some(Duration::try_from(retry_at - now).unwrap_or(self.every))
    }

    /// Hands the pending batch (up to position `last`) to the sink, in id order, and writes
    /// how it went.
    async fn deliver(
        &mut self,
        store: &dyn Store,
        consumer: &EventConsumer,
        last: i64,
    ) -> Duration {
        self.pending.sort_by_key(|event| event.event.id);
        let attempt = consumer.failures.saturating_add(1);
        let delivered = self.sink.deliver(&self.pending, attempt).await;
        let full = self.pending.len() >= self.batch as usize;
        let (settlement, wait) = match delivered {
            Ok(_) => (
                Settlement::Advanced(last),
                if full { Duration::ZERO } else { self.every },
            ),
            Err(error) => {
                let backoff = self.sink.backoff(attempt);
                tracing::warn!(
                    sink = %self.name,
                    attempt,
                    %error,
                    "delivering events failed; trying again in {backoff:?}"
                );
                let failed = Settlement::Failed {
                    failures: attempt,
                    retry_at: OffsetDateTime::now_utc() + backoff,
                    error: error.to_string(),
                };
                (failed, backoff)
            }
        };
        let advanced = matches!(settlement, Settlement::Advanced(_));
        let settled = store
            .settle_event_consumer(
                &self.name,
                &self.node,
                consumer.position,
                settlement,
                OffsetDateTime::now_utc(),
            )
            .await;
        match settled {
            Ok(true) => {}
            Ok(false) => tracing::warn!(sink = %self.name, "another node took the sink over"),
            Err(error) => {
                tracing::warn!(sink = %self.name, %error, "writing the sink's cursor failed")
            }
        }
        if advanced {
            self.pending.clear();
        }
        wait
    }
}
