//! This node's presence writer: which accounts have a realtime channel open on this node,
//! written to the store ([`PresenceStore`](crate::store::PresenceStore)) for every node to read.
//!
//! The realtime hub, which counts each account's channels on this node, tells the writer when
//! an account's first channel opens ([`PresenceWriter::online`]) and when its last one closes
//! ([`PresenceWriter::offline`], last seen then). Transitions are buffered and written together
//! every [`FLUSH_EVERY`], only the latest of each account, with this node's heartbeat; while
//! some account is online here and nothing else is to be written, the heartbeat alone is
//! written every [`HEARTBEAT_EVERY`]. A node that stops beating (it crashed) stops counting
//! after [`PRESENCE_NODE_ALIVE`](crate::store::PRESENCE_NODE_ALIVE); a write that fails is kept
//! and tried again at the next flush.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use time::OffsetDateTime;

use crate::clock::Clock;
use crate::store::{AccountId, Store, StoreError};

/// How often buffered transitions are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// How often the heartbeat is written when there is nothing else to write: well within
/// [`PRESENCE_NODE_ALIVE`](crate::store::PRESENCE_NODE_ALIVE).
pub const HEARTBEAT_EVERY: time::Duration = time::Duration::seconds(10);

/// This node's presence: the accounts online here and the transitions not written yet.
pub struct PresenceWriter {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    node: Arc<str>,
    state: Mutex<State>,
}

/// What the writer keeps between flushes.
#[derive(Default)]
struct State {
    /// The accounts with a channel open on this node.
    online: HashSet<AccountId>,
    /// The latest transition of each account not written yet: `true` online, `false` offline.
    pending: HashMap<AccountId, bool>,
    /// When the store was last written, if ever.
    written: Option<OffsetDateTime>,
}

impl PresenceWriter {
    /// A writer for `node` (a name unique to this process) over `store`, timed by `clock`;
    /// nothing is written until [`Self::flush`] or [`Self::start`].
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, node: Arc<str>) -> Arc<Self> {
        Arc::new(Self {
            store,
            clock,
            node,
            state: Mutex::new(State::default()),
        })
    }

    /// Flushes every [`FLUSH_EVERY`] until the writer is dropped. Needs a Tokio runtime;
    /// without one nothing is written.
    pub fn start(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(flushing(Arc::downgrade(self)));
    }

    /// The first channel of `account` opened on this node: it is online here.
    pub fn online(&self, account: AccountId) {
        let mut state = self.lock();
        if state.online.insert(account) {
            state.pending.insert(account, true);
        }
    }

    /// The last channel of `account` on this node closed: it is offline here, last seen at the
    /// next flush.
    pub fn offline(&self, account: AccountId) {
        let mut state = self.lock();
        if state.online.remove(&account) {
            state.pending.insert(account, false);
        }
    }

    /// Whether `account` has a channel open on this node.
    pub fn is_online(&self, account: AccountId) -> bool {
        self.lock().online.contains(&account)
    }

    /// Writes the buffered transitions with the heartbeat, or the heartbeat alone when it is
    /// due (some account is online here); a write that fails is kept for the next flush (a
    /// newer transition of the same account replacing it).
    pub async fn flush(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        let pending = {
            let mut state = self.lock();
            let beat_due = !state.online.is_empty()
                && state
                    .written
                    .is_none_or(|written| now - written >= HEARTBEAT_EVERY);
            if state.pending.is_empty() && !beat_due {
                return Ok(());
            }
            std::mem::take(&mut state.pending)
        };
        let (online, offline): (Vec<_>, Vec<_>) = pending.iter().partition(|(_, online)| **online);
        let online: Vec<AccountId> = online.into_iter().map(|(account, _)| *account).collect();
        let offline: Vec<AccountId> = offline.into_iter().map(|(account, _)| *account).collect();
        let written = self
            .store
            .mark_presence(&self.node, &online, &offline, now)
            .await;
        let mut state = self.lock();
        match written {
            Ok(()) => {
                state.written = Some(now);
                Ok(())
            }
            Err(error) => {
                for (account, online) in pending {
                    state.pending.entry(account).or_insert(online);
                }
                Err(error)
            }
        }
    }

    /// This node stops (its channels are closed): every account on it is offline, last seen
    /// now, and the node is forgotten.
    pub async fn stop(&self) -> Result<(), StoreError> {
        {
            let mut state = self.lock();
            state.online.clear();
            state.pending.clear();
            state.written = None;
        }
        self.store
            .presence_node_stopped(&self.node, self.clock.now())
            .await
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The flushes of `writer`, while it lives.
async fn flushing(writer: Weak<PresenceWriter>) {
    let mut ticks = tokio::time::interval(FLUSH_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(writer) = writer.upgrade() else {
            return;
        };
        if let Err(error) = writer.flush().await {
            tracing::warn!(%error, "writing presence failed; trying again next flush");
        }
    }
}
