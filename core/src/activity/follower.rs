//! The activity rollup's follower, which every node runs (started with the service, stopped
//! when it is dropped): every [`EVERY`] it reads the relayed events after the rollup's cursor
//! and adds them up ([`rollup`](super::rollup)), then applies the batch and moves the cursor
//! from where it read it, in one store transaction
//! ([`ActivityStore::apply_activity`](crate::store::ActivityStore::apply_activity)). When two
//! nodes read the same batch, one applies it and the other finds the cursor moved and writes
//! nothing; a crash before the commit leaves the batch to be read again. So each event is
//! counted exactly once, and no lease is needed. A full batch is followed by the next at once.

use std::time::Duration;

use time::OffsetDateTime;

use super::rollup::batch_of;
use crate::background::StoreWhileServed;
use crate::store::{Store, StoreError};

/// The rollup's cursor among the sinks' cursors: the events' retention waits for it as for a
/// sink (and no longer once it has not moved for the retention window).
pub const CURSOR: &str = "activity rollup";

/// How often the follower looks for events.
const EVERY: Duration = Duration::from_secs(1);

/// Starts this node's follower of the store `served`, `batch` events at most a round, until
/// the service is dropped. Needs a Tokio runtime; without one nothing is counted.
pub(crate) fn start(served: StoreWhileServed, batch: u32) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(follow(served, batch));
}

/// The follower's rounds, while the service lives.
async fn follow(served: StoreWhileServed, batch: u32) {
    loop {
        let Some(store) = served.get() else {
            return;
        };
        let wait = round(store.as_ref(), batch).await;
        drop(store);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

/// How one round of the follower ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// No event waited after the cursor.
    Idle,
    /// These many events were counted and the cursor moved past them.
    Counted(usize),
    /// Another node counted the events read first: nothing was written.
    Lost,
}

/// One round of the follower on `store`: the relayed events after the rollup's cursor, at
/// most `batch`, counted and the cursor moved past them in one transaction.
pub async fn follow_once(store: &dyn Store, batch: u32) -> Result<Round, StoreError> {
    let now = OffsetDateTime::now_utc();
    let from = store.activity_cursor(CURSOR, now).await?;
    let events = store.relayed_events(from, batch).await?;
    let Some(to) = events.iter().map(|event| event.position).max() else {
        return Ok(Round::Idle);
    };
    let applied = store
        .apply_activity(CURSOR, from, to, &batch_of(&events), now)
        .await?;
    Ok(if applied {
        Round::Counted(events.len())
    } else {
        Round::Lost
    })
}

/// One round; answers how long to wait before the next: none after a full batch.
async fn round(store: &dyn Store, batch: u32) -> Duration {
    match follow_once(store, batch).await {
        Ok(Round::Counted(count)) if count >= batch as usize => Duration::ZERO,
        Ok(_) => EVERY,
        Err(error) => {
            tracing::warn!(%error, "the activity rollup's round failed; trying again");
            EVERY
        }
    }
}
