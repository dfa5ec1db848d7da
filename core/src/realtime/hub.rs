//! This node's hub of realtime channels: one task follows the node's event subscription and
//! hands each event to the channels of the accounts it concerns
//! ([`EventPayload::accounts_concerned`](crate::events::EventPayload::accounts_concerned)), and
//! each content publication to every channel. A channel is one bounded queue; a channel whose
//! queue is full is closed (4008), not waited for, so a slow consumer never holds the others
//! back.
//!
//! The hub counts each account's channels on this node: the first one makes the account online
//! here, the last one closing offline, as the node's [`PresenceWriter`] writes it.
//!
//! The hub subscribes only while it has channels (a node without any leaves the relay reading
//! only what it counts); the first channel registered places its subscription at the position
//! the node had handed over by then, so that every event handed over after a registration
//! reaches the channel's queue.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::close::{CloseCode, CloseSignal};
use super::messages::{ContentMessage, EventMessage, text};
use crate::events::RelayedEvent;
use crate::events::subscription::Subscription;
use crate::live_content::LiveContent;
use crate::presence::PresenceWriter;
use crate::store::{AccountId, Store};

/// How long a stop waits for the channels to close once told to.
const STOP_PATIENCE: Duration = Duration::from_secs(5);

/// What a channel's queue carries from the hub.
#[derive(Debug, Clone)]
pub(crate) enum Outgoing {
    /// One of the account's events: its message's text, written once for every channel.
    Event {
        /// The event, for what the channel checks of it (its key's validity).
        relayed: Arc<RelayedEvent>,
        /// Its message.
        text: Utf8Bytes,
    },
    /// A content publication's message.
    Content(Utf8Bytes),
}

/// Why a channel could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The account has as many channels open on this node as it may.
    TooMany(usize),
    /// The node is stopping.
    Stopping,
}

/// One channel as the hub knows it.
struct Attached {
    id: u64,
    queue: mpsc::Sender<Outgoing>,
    close: Arc<CloseSignal>,
}

impl Attached {
    /// Queues `outgoing`, or closes the channel (4008) when its queue is full.
    fn offer(&self, outgoing: Outgoing) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.queue.try_send(outgoing) {
            self.close.close(CloseCode::SlowConsumer);
        }
    }
}

/// The channels by account, and whether the hub follows the events.
#[derive(Default)]
struct Channels {
    by_account: HashMap<AccountId, Vec<Attached>>,
    open: usize,
    /// Where the hub's task is to start following from, when the first channel came.
    follow_from: Option<i64>,
    /// Whether the hub's task follows (or is about to).
    following: bool,
    stopped: bool,
}

/// What the hub's task and the channels' registrations share.
struct Shared {
    channels: Mutex<Channels>,
    /// Wakes the hub's task: a first channel came, the last one went, or the hub stops.
    wake: Notify,
    /// Told when the last channel went.
    emptied: Notify,
    next_id: AtomicU64,
    queue: usize,
    per_account: usize,
    subscription: Arc<Subscription>,
    /// Told when an account's first channel opens and its last closes.
    presence: Arc<PresenceWriter>,
}

impl Shared {
    fn channels(&self) -> MutexGuard<'_, Channels> {
        self.channels.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// This node's realtime channels. Dropping it (with the service) closes them all (1001).
pub(crate) struct Hub {
    shared: Arc<Shared>,
}

impl Hub {
    /// A hub with no channel, whose task (started in the current Tokio runtime, if any) follows
    /// `subscription` over `store` and `content`'s publications, each channel queueing at most
    /// `queue` messages, each account having at most `per_account` channels, telling
    /// `presence` which accounts have a channel open here.
    pub(crate) fn start(
        subscription: Arc<Subscription>,
        store: Arc<dyn Store>,
        content: &Arc<LiveContent>,
        (queue, per_account): (usize, usize),
        presence: Arc<PresenceWriter>,
    ) -> Self {
        let shared = Arc::new(Shared {
            channels: Mutex::new(Channels::default()),
            wake: Notify::new(),
            emptied: Notify::new(),
            next_id: AtomicU64::new(1),
            queue: queue.max(1),
            per_account,
            subscription,
            presence,
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(follow(
                Arc::clone(&shared),
                store,
                Arc::clone(content),
                content.swaps(),
            ));
        }
        Self { shared }
    }

    /// Registers a channel of `account`: from now on, every event concerning it and every
    /// content publication is queued for it. Refused beyond the account's limit, or when the
    /// node stops.
    pub(crate) fn register(&self, account: AccountId) -> Result<Registration, Refused> {
        let shared = &self.shared;
        let (sender, receiver) = mpsc::channel(shared.queue);
        let close = Arc::new(CloseSignal::default());
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let mut channels = shared.channels();
        if channels.stopped {
            return Err(Refused::Stopping);
        }
        let of_account = channels.by_account.entry(account).or_default();
        if of_account.len() >= shared.per_account {
            return Err(Refused::TooMany(shared.per_account));
        }
        if of_account.is_empty() {
            shared.presence.online(account);
        }
        of_account.push(Attached {
            id,
            queue: sender,
            close: Arc::clone(&close),
        });
        channels.open += 1;
        if !channels.following {
            channels.following = true;
            channels.follow_from = Some(shared.subscription.position());
            shared.wake.notify_one();
        }
        Ok(Registration {
            shared: Arc::clone(shared),
            account,
            id,
            queue: receiver,
            close,
        })
    }

    /// How many channels `account` has open on this node.
    pub(crate) fn channels_of(&self, account: AccountId) -> usize {
        self.shared
            .channels()
            .by_account
            .get(&account)
            .map_or(0, Vec::len)
    }

    /// How many channels are open on this node.
    pub(crate) fn open(&self) -> usize {
        self.shared.channels().open
    }

    /// Closes every channel (1001) and refuses new ones; waits (5 s at most) until they are
    /// gone; then takes every account off this node's presence.
    pub(crate) async fn stop(&self) {
        let emptied = self.shared.emptied.notified();
        let mut emptied = std::pin::pin!(emptied);
        emptied.as_mut().enable();
        if self.close_all() > 0 {
            let _ = tokio::time::timeout(STOP_PATIENCE, emptied).await;
        }
        if let Err(error) = self.shared.presence.stop().await {
            tracing::warn!(%error, "taking this node's players offline failed");
        }
    }

    /// Closes every channel (1001) and refuses new ones; answers how many were open.
    fn close_all(&self) -> usize {
        let mut channels = self.shared.channels();
        channels.stopped = true;
        for attached in channels.by_account.values().flatten() {
            attached.close.close(CloseCode::GoingAway);
        }
        self.shared.wake.notify_one();
        channels.open
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// One channel's place in the hub: its queue and its close signal. Dropping it takes the
/// channel out of the hub.
pub(crate) struct Registration {
    shared: Arc<Shared>,
    /// The account whose channel it is.
    pub(crate) account: AccountId,
    id: u64,
    /// What the hub queued for the channel.
    pub(crate) queue: mpsc::Receiver<Outgoing>,
    /// Told when the hub closes the channel.
    pub(crate) close: Arc<CloseSignal>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut channels = self.shared.channels();
        if let Some(of_account) = channels.by_account.get_mut(&self.account) {
            of_account.retain(|attached| attached.id != self.id);
            if of_account.is_empty() {
                channels.by_account.remove(&self.account);
                self.shared.presence.offline(self.account);
            }
        }
        channels.open = channels.open.saturating_sub(1);
        if channels.open == 0 {
            self.shared.wake.notify_one();
            self.shared.emptied.notify_waiters();
        }
    }
}

/// The hub's task: while there are channels, follows the events from where the first one
/// came and hands them over; tells every channel of each content publication; ends when the
/// node's subscription ends or the hub stops.
async fn follow(
    shared: Arc<Shared>,
    store: Arc<dyn Store>,
    content: Arc<LiveContent>,
    mut swaps: watch::Receiver<i64>,
) {
    loop {
        let from = loop {
            {
                let mut channels = shared.channels();
                if channels.stopped {
                    return;
                }
                if let Some(from) = channels.follow_from.take() {
                    break from;
                }
            }
            tokio::select! {
                () = shared.wake.notified() => {}
                changed = swaps.changed() => if changed.is_err() { return },
            }
        };
        let mut events = shared
            .subscription
            .subscribe(Arc::clone(&store), Some(from));
        loop {
            tokio::select! {
                relayed = events.recv_relayed() => match relayed {
                    Some(relayed) => hand_over(&shared, relayed),
                    None => return,
                },
                changed = swaps.changed() => match changed {
                    Ok(()) => tell_content(&shared, &content),
                    Err(_) => return,
                },
                () = shared.wake.notified() => {}
            }
            let mut channels = shared.channels();
            if channels.stopped {
                return;
            }
            if channels.open == 0 {
                channels.following = false;
                channels.follow_from = None;
                break;
            }
        }
    }
}

/// Queues `relayed` for the channels of every account it concerns.
fn hand_over(shared: &Shared, relayed: RelayedEvent) {
    let accounts = relayed
        .event
        .payload
        .accounts_concerned(relayed.event.account);
    let channels = shared.channels();
    if !accounts
        .iter()
        .any(|account| channels.by_account.contains_key(account))
    {
        return;
    }
    let message = Utf8Bytes::from(text(&EventMessage::new(&relayed)));
    let relayed = Arc::new(relayed);
    for account in accounts {
        for attached in channels.by_account.get(&account).into_iter().flatten() {
            attached.offer(Outgoing::Event {
                relayed: Arc::clone(&relayed),
                text: message.clone(),
            });
        }
    }
}

/// Queues the content served now for every channel.
fn tell_content(shared: &Shared, content: &LiveContent) {
    let published = content.current();
    let message = Utf8Bytes::from(text(&ContentMessage::new(
        published.version,
        published.content.client.maintenance,
    )));
    let channels = shared.channels();
    for attached in channels.by_account.values().flatten() {
        attached.offer(Outgoing::Content(message.clone()));
    }
}
