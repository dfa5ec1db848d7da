//! What a node knows of changes to accounts, for the views it keeps in memory
//! ([`SessionCache`](crate::auth::SessionCache)): a change counter per account (kept in a fixed
//! table of counters an account id picks one of), moved on by the store after each change it
//! commits on this node and by the relay's follower for each change another node committed, and
//! how far the follower has seen every committed change.
//!
//! A view kept with the counter it was read under is current while the counter has not moved:
//! a change committed while the view was being read moves it, so that view is never served.
//!
//! The follower leaves alone the counters of the events this node's store noted as told here
//! ([`AccountChanges::told_here`]): their accounts' counters moved when they committed, and
//! moving them again would only send the next reads of those accounts to the database.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use time::OffsetDateTime;

use super::AccountId;

/// How many counters accounts share: two accounts share one when their ids are equal modulo
/// this (a change of one then makes the other's kept view read again).
const COUNTERS: usize = 1 << 16;

/// The most events noted as told here at once; the notes are forgotten all at once when more
/// would be kept (the follower then moves those events' counters again, which costs only
/// reads).
const TOLD_HERE_MAX: usize = 1 << 16;

/// The change counters and how far the follower has seen.
pub struct AccountChanges {
    counters: Box<[AtomicU64]>,
    /// Every change committed before this time (Unix microseconds) has moved its counter;
    /// `i64::MIN` until the follower's first round.
    seen_through: AtomicI64,
    /// The events told here not yet followed, by id.
    told_here: Mutex<HashSet<i64>>,
}

impl Default for AccountChanges {
    fn default() -> Self {
        Self {
            counters: (0..COUNTERS).map(|_| AtomicU64::new(0)).collect(),
            seen_through: AtomicI64::new(i64::MIN),
            told_here: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for AccountChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountChanges")
            .field("seen_through", &self.seen_through())
            .finish_non_exhaustive()
    }
}

impl AccountChanges {
    /// Records that `account` changed: views of it read before now are no longer served.
    pub fn changed(&self, account: AccountId) {
        self.counter(account).fetch_add(1, Ordering::SeqCst);
    }

    /// The change counter of `account`; read it before reading the account.
    pub fn counter_of(&self, account: AccountId) -> u64 {
        self.counter(account).load(Ordering::SeqCst)
    }

    /// The time before which every committed change has moved its counter, once the
    /// follower has seen that far.
    pub fn seen_through(&self) -> Option<OffsetDateTime> {
        match self.seen_through.load(Ordering::SeqCst) {
            i64::MIN => None,
            micros => OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000).ok(),
        }
    }

    /// Records that every change committed before `time` has moved its counter.
    pub fn all_seen_before(&self, time: OffsetDateTime) {
        let micros = i64::try_from(time.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX);
        self.seen_through.fetch_max(micros, Ordering::SeqCst);
    }

    /// Notes the committed events `events` (ids) as told here: the store has moved the counter
    /// of every account they name since they committed. The follower then leaves those
    /// counters alone ([`relayed_here`](Self::relayed_here)). Nothing is noted before the
    /// follower's first round (a node whose follower moves no counter, with its session cache
    /// off, never forgets a note); at most 65,536 are kept, forgotten all at once when more
    /// would be.
    pub fn told_here(&self, events: &[i64]) {
        if events.is_empty() || self.seen_through.load(Ordering::SeqCst) == i64::MIN {
            return;
        }
        let mut told = self
            .told_here
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if told.len() + events.len() > TOLD_HERE_MAX {
            told.clear();
        }
        told.extend(events.iter().take(TOLD_HERE_MAX));
    }

    /// Whether the relayed event `event` (id) was told here ([`told_here`](Self::told_here)),
    /// forgetting it: the follower then leaves its accounts' counters alone.
    pub fn relayed_here(&self, event: i64) -> bool {
        let mut told = self
            .told_here
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        told.remove(&event)
    }

    fn counter(&self, account: AccountId) -> &AtomicU64 {
        let at = usize::try_from(account.0.rem_euclid(COUNTERS as i64)).unwrap_or_default();
        &self.counters[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_moves_its_accounts_counter_only() {
        let changes = AccountChanges::default();
        let (a, b) = (AccountId(7), AccountId(8));
        let before = (changes.counter_of(a), changes.counter_of(b));
        changes.changed(a);
        assert_ne!(changes.counter_of(a), before.0);
        assert_eq!(changes.counter_of(b), before.1);
    }

    /// An `AccountChanges` whose follower has run its first round.
    fn followed() -> AccountChanges {
        let changes = AccountChanges::default();
        changes.all_seen_before(OffsetDateTime::from_unix_timestamp(2_000_000_000).unwrap());
        changes
    }

    #[test]
    fn nothing_is_told_here_before_the_followers_first_round() {
        let changes = AccountChanges::default();
        changes.told_here(&[11]);
        assert!(!changes.relayed_here(11));
    }

    #[test]
    fn an_event_told_here_is_relayed_here_once() {
        let changes = followed();
        changes.told_here(&[11, 12]);
        assert!(changes.relayed_here(12));
        assert!(!changes.relayed_here(12));
        assert!(!changes.relayed_here(13));
        assert!(changes.relayed_here(11));
    }

    #[test]
    fn at_most_the_bound_of_events_is_noted_as_told_here() {
        let changes = followed();
        let bound = i64::try_from(TOLD_HERE_MAX).unwrap();
        let many: Vec<i64> = (0..bound + 10).collect();
        changes.told_here(&many);
        let noted = |changes: &AccountChanges, events: &[i64]| {
            events
                .iter()
                .filter(|event| changes.relayed_here(**event))
                .count()
        };
        assert_eq!(noted(&changes, &many), TOLD_HERE_MAX);
        let full: Vec<i64> = (0..bound).collect();
        changes.told_here(&full);
        changes.told_here(&[bound]);
        assert_eq!(noted(&changes, &full), 0, "forgotten to make room");
        assert_eq!(noted(&changes, &[bound]), 1);
    }

    #[test]
    fn what_was_seen_never_moves_back() {
        let changes = AccountChanges::default();
        assert_eq!(changes.seen_through(), None);
        let later = OffsetDateTime::from_unix_timestamp(2_000_000_000).unwrap();
        changes.all_seen_before(later);
        changes.all_seen_before(later - time::Duration::seconds(5));
        assert_eq!(changes.seen_through(), Some(later));
    }
}
