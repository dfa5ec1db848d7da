//! The sessions and account views a node keeps in memory, so that checking a signed user key and
//! reading the caller's account (`GET /api/user/{key}`, the most frequent read) need no trip to
//! the database while nothing changed.
//!
//! What is kept for an account: the account as stored, its holdings when it is in no clan (a
//! clan's members change with other accounts' changes, so a member's view is always read),
//! the key generation it was read under, and the hashes of the keys checked not revoked
//! one by one. A kept entry is served while:
//!
//! - the account's change counter ([`AccountChanges`]) has not moved since the entry was read:
//!   the store moves it after each change of the account it commits on this node, so this
//!   node's own changes are seen at once, and the relay's follower moves it for each event of a
//!   change another node committed (every change of an account's view writes one);
//! - the follower has seen every change committed up to [`FRESH_WITHIN`] ago (it records how far
//!   after each round); otherwise, with the relay or the database behind, every session is read;
//! - it is younger than [`KEPT_FOR`], a bound for what no event tells;
//! - the key is a signed one, of the generation read, and was checked when read.
//!
//! So a change committed on another node is seen by this node's sessions within one second.
//! At most `capacity` accounts are kept (an arbitrary one is dropped to make room).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use time::OffsetDateTime;

use crate::domain::KeyHash;
use crate::store::{
    Account, AccountChanges, AccountId, AccountView, Holdings, KeyLookup, KeySession, SessionView,
    Store, StoreError,
};

/// How recent the follower's view of every committed change must be for kept entries to be
/// served: what another node changed is seen within this, plus one relay round's reading.
pub const FRESH_WITHIN: Duration = Duration::from_millis(800);

/// How long an entry is kept at most, whatever the counters say.
pub const KEPT_FOR: Duration = Duration::from_secs(300);

/// How many keys of one account are remembered as checked.
const KEYS_KEPT: usize = 4;

/// How many parts the entries are split in, each under its own lock.
const SHARDS: usize = 64;

/// The kept entries, by account, and the counters that tell when they went stale.
pub struct SessionCache {
    shards: Box<[Mutex<HashMap<AccountId, Kept>>]>,
    /// The accounts of identities signed in here (`provider` and `identifier` joined by a
    /// newline): an identity names one account for as long as it lives.
    identities: Mutex<HashMap<String, AccountId>>,
    hasher: RandomState,
    capacity: usize,
    changes: Option<Arc<AccountChanges>>,
}

/// A kept view of an account, and the change counter it was read under.
pub struct KeptView {
    /// The account's view (in no clan).
    pub view: AccountView,
    /// The account's change counter it was read under.
    pub counter: u64,
}

/// One account's kept entry.
struct Kept {
    /// The account's change counter before it was read.
    counter: u64,
    /// When it was read.
    read_at: Instant,
    /// The key generation it was read under.
    generation: u32,
    /// The keys checked not revoked, the newest last.
    keys: Vec<KeyHash>,
    /// The account as stored.
    account: Account,
    /// Its holdings, when it is in no clan.
    holdings: Option<Holdings>,
}

/// The identities' map key of `(provider, identifier)`.
fn identity_key(provider: &str, identifier: &str) -> String {
    format!("{provider}\n{identifier}")
}

/// What a signed key names.
struct Signed<'a> {
    account: AccountId,
    generation: u32,
    expires: OffsetDateTime,
    hash: &'a KeyHash,
}

impl SessionCache {
    /// Keeps up to `capacity` accounts, served while `changes` say they are current; with
    /// `None` (a store keeping no counters) or a capacity of 0, nothing is kept.
    pub fn new(changes: Option<Arc<AccountChanges>>, capacity: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            identities: Mutex::new(HashMap::new()),
            hasher: RandomState::new(),
            capacity,
            changes: changes.filter(|_| capacity > 0),
        }
    }

    /// The session of `key` at `now`, as [`AccountStore::session`](crate::store::AccountStore::session)
    /// answers it: from memory when kept and current, else read from `store` (and kept).
    pub async fn session(
        &self,
        store: &dyn Store,
        key: &KeyLookup,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError> {
        let Some((changes, signed)) = self.usable(key, now) else {
            return store.session(key, now).await;
        };
        if let Some(account) = self.kept(changes, &signed, |kept| Some(kept.account.clone())) {
            return Ok(Some(KeySession {
                account,
                expires: signed.expires,
            }));
        }
        let counter = changes.counter_of(signed.account);
        let found = store.session(key, now).await?;
        if let Some(found) = &found {
            self.keep(&signed, counter, &found.account, None);
        }
        Ok(found)
    }

    /// The session of `key` with the account's view, as
    /// [`AccountStore::session_view`](crate::store::AccountStore::session_view) answers it:
    /// from memory when kept, current and in no clan, else read from `store` (and kept).
    pub async fn session_view(
        &self,
        store: &dyn Store,
        key: &KeyLookup,
        now: OffsetDateTime,
    ) -> Result<Option<SessionView>, StoreError> {
        let Some((changes, signed)) = self.usable(key, now) else {
            return store.session_view(key, now).await;
        };
        let kept = self.kept(changes, &signed, |kept| {
            kept.holdings.as_ref().map(|holdings| AccountView {
                account: kept.account.clone(),
                holdings: holdings.clone(),
                clan: None,
            })
        });
        if let Some(view) = kept {
            return Ok(Some(SessionView {
                view,
                expires: signed.expires,
            }));
        }
        let counter = changes.counter_of(signed.account);
        let found = store.session_view(key, now).await?;
        if let Some(found) = &found {
            let holdings = found
                .view
                .clan
                .is_none()
                .then(|| found.view.holdings.clone());
            self.keep(&signed, counter, &found.view.account, holdings);
        }
        Ok(found)
    }

    /// The counters and what the key names, when kept entries may answer for it: a signed,
    /// unexpired key, with the follower current.
    fn usable<'k>(
        &self,
        key: &'k KeyLookup,
        now: OffsetDateTime,
    ) -> Option<(&AccountChanges, Signed<'k>)> {
        let changes = self.fresh()?;
        let KeyLookup::Signed {
            account,
            generation,
            expires,
            hash,
        } = key
        else {
            return None;
        };
        if *expires <= now {
            return None;
        }
        Some((
            changes,
            Signed {
                account: *account,
                generation: *generation,
                expires: *expires,
                hash,
            },
        ))
    }

    /// The change counters, when the follower has seen every change committed up to
    /// [`FRESH_WITHIN`] ago.
    fn fresh(&self) -> Option<&AccountChanges> {
        let changes = self.changes.as_deref()?;
        let seen_through = changes.seen_through()?;
        (OffsetDateTime::now_utc() - seen_through <= FRESH_WITHIN).then_some(changes)
    }

    /// The account of the identity `(provider, identifier)`, when it signed in here before.
    pub fn identity(&self, provider: &str, identifier: &str) -> Option<AccountId> {
        self.changes.as_ref()?;
        let identities = self
            .identities
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        identities.get(&identity_key(provider, identifier)).copied()
    }

    /// Remembers that the identity `(provider, identifier)` names `account`.
    pub fn remember_identity(&self, provider: &str, identifier: &str, account: AccountId) {
        if self.changes.is_none() {
            return;
        }
        let mut identities = self
            .identities
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if identities.len() >= self.capacity
            && let Some(dropped) = identities.keys().next().cloned()
        {
            identities.remove(&dropped);
        }
        identities.insert(identity_key(provider, identifier), account);
    }

    /// The change counter of `account`, to read before reading the account for
    /// [`keep_signed_in`](Self::keep_signed_in); `None` when nothing is kept.
    pub fn counter_of(&self, account: AccountId) -> Option<u64> {
        Some(self.changes.as_deref()?.counter_of(account))
    }

    /// The kept view of `account`, when current and in no clan.
    pub fn kept_view(&self, account: AccountId) -> Option<KeptView> {
        let changes = self.fresh()?;
        let shard = self.shard(account);
        let kept = shard.get(&account)?;
        if kept.counter != changes.counter_of(account) || kept.read_at.elapsed() >= KEPT_FOR {
            return None;
        }
        Some(KeptView {
            view: AccountView {
                account: kept.account.clone(),
                holdings: kept.holdings.clone()?,
                clan: None,
            },
            counter: kept.counter,
        })
    }

    /// Keeps what a sign-in read of `account` under `counter` (read before it): the account,
    /// its `holdings` when it is in no clan (`None` otherwise), with the key it issued (`key`,
    /// of `generation`) as checked.
    pub fn keep_signed_in(
        &self,
        counter: u64,
        account: &Account,
        holdings: Option<&Holdings>,
        generation: u32,
        expires: OffsetDateTime,
        key: &KeyHash,
    ) {
        let signed = Signed {
            account: account.id,
            generation,
            expires,
            hash: key,
        };
        self.keep(&signed, counter, account, holdings.cloned());
    }

    /// Brings the kept entry of `view`'s account to the view a change committed on this node
    /// left, when that change is the only one since `counter` (the account's change counter
    /// read before the change was applied) and the entry was current at `counter`: the store
    /// moved the counter once, for that change, after its commit, so no other change is
    /// missing from the view. The entry keeps its keys and its time of reading (its
    /// [`KEPT_FOR`] bound is not extended). Otherwise nothing is kept, and the next session
    /// is read.
    pub fn advance(&self, counter: u64, view: &AccountView) {
        let Some(changes) = self.changes.as_deref() else {
            return;
        };
        let account = view.account.id;
        let mut shard = self.shard(account);
        let Some(kept) = shard.get_mut(&account) else {
            return;
        };
        if kept.counter != counter || changes.counter_of(account) != counter.wrapping_add(1) {
            return;
        }
        kept.counter = counter.wrapping_add(1);
        kept.account = view.account.clone();
        kept.holdings = view.clan.is_none().then(|| view.holdings.clone());
    }

    /// What `answer` makes of the kept entry of the key's account, when it is current and
    /// answers for this key; `None` otherwise.
    fn kept<T>(
        &self,
        changes: &AccountChanges,
        signed: &Signed<'_>,
        answer: impl FnOnce(&Kept) -> Option<T>,
    ) -> Option<T> {
        let shard = self.shard(signed.account);
        let kept = shard.get(&signed.account)?;
        let current = kept.counter == changes.counter_of(signed.account)
            && kept.read_at.elapsed() < KEPT_FOR
            && kept.generation == signed.generation
            && kept.keys.contains(signed.hash);
        if current { answer(kept) } else { None }
    }

    /// Keeps what was read for the key's account under `counter` (read before it), adding the
    /// key to those checked when the entry kept is of the same reading and not too old;
    /// otherwise the reading replaces the entry.
    fn keep(
        &self,
        signed: &Signed<'_>,
        counter: u64,
        account: &Account,
        holdings: Option<Holdings>,
    ) {
        let mut shard = self.shard(signed.account);
        if let Some(kept) = shard.get_mut(&signed.account)
            && kept.counter == counter
            && kept.generation == signed.generation
            && kept.read_at.elapsed() < KEPT_FOR
        {
            if !kept.keys.contains(signed.hash) {
                if kept.keys.len() == KEYS_KEPT {
                    kept.keys.remove(0);
                }
                kept.keys.push(signed.hash.clone());
            }
            if holdings.is_some() {
                kept.holdings = holdings;
            }
            return;
        }
        if shard.len() >= self.capacity.div_ceil(SHARDS)
            && !shard.contains_key(&signed.account)
            && let Some(dropped) = shard.keys().next().copied()
        {
            shard.remove(&dropped);
        }
        shard.insert(
            signed.account,
            Kept {
                counter,
                read_at: Instant::now(),
                generation: signed.generation,
                keys: vec![signed.hash.clone()],
                account: account.clone(),
                holdings,
            },
        );
    }

    /// The locked part holding `account`'s entry.
    fn shard(&self, account: AccountId) -> std::sync::MutexGuard<'_, HashMap<AccountId, Kept>> {
        let at =
            usize::try_from(self.hasher.hash_one(account.0) % SHARDS as u64).unwrap_or_default();
        self.shards[at]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{FriendCode, UserKey};
    use crate::store::{Role, UnavailableStore};

    const NOW: OffsetDateTime = time::macros::datetime!(2026-11-23 12:00 UTC);

    fn account(id: i64) -> Account {
        Account {
            id: AccountId(id),
            provider: "device".to_owned(),
            identifier: format!("device-{id}"),
            name: None,
            avatar: None,
            email: None,
            friend_code: FriendCode::parse("Kept#0001").expect("a friend code"),
            status: "offline".to_owned(),
            experience: 0,
            level: 1,
            coins: 10,
            gems: 0,
            role: Role::Player,
            is_banned: false,
            created: NOW,
            updated: NOW,
        }
    }

    fn signed(account: i64, generation: u32) -> KeyLookup {
        KeyLookup::Signed {
            account: AccountId(account),
            generation,
            expires: NOW + time::Duration::days(30),
            hash: UserKey::generate().hash(),
        }
    }

    /// A cache over fresh counters whose follower has seen everything up to now, holding the
    /// view of account 7 in no clan, read for `key`.
    fn kept(key: &KeyLookup) -> (SessionCache, Arc<AccountChanges>) {
        let changes = Arc::new(AccountChanges::default());
        changes.all_seen_before(OffsetDateTime::now_utc());
        let cache = SessionCache::new(Some(Arc::clone(&changes)), 16);
        let (changes_now, signed) = cache.usable(key, NOW).expect("usable");
        let counter = changes_now.counter_of(signed.account);
        cache.keep(&signed, counter, &account(7), Some(Holdings::default()));
        (cache, changes)
    }

    #[tokio::test]
    async fn a_kept_view_answers_without_the_store() {
        let key = signed(7, 2);
        let (cache, _) = kept(&key);
        let view = cache
            .session_view(&UnavailableStore, &key, NOW)
            .await
            .expect("answered from memory")
            .expect("a session");
        assert_eq!(view.view.account, account(7));
        let session = cache
            .session(&UnavailableStore, &key, NOW)
            .await
            .expect("answered from memory")
            .expect("a session");
        assert_eq!(session.account.id, AccountId(7));
    }

    #[tokio::test]
    async fn a_change_made_here_advances_the_kept_view_when_it_is_the_only_one() {
        let key = signed(7, 2);
        let (cache, changes) = kept(&key);
        let counter = changes.counter_of(AccountId(7));
        changes.changed(AccountId(7));
        let after = AccountView {
            account: Account {
                coins: 4,
                ..account(7)
            },
            holdings: Holdings::default(),
            clan: None,
        };
        cache.advance(counter, &after);
        let view = cache
            .session_view(&UnavailableStore, &key, NOW)
            .await
            .expect("answered from memory")
            .expect("a session");
        assert_eq!(view.view.account.coins, 4);

        // Another change besides this one: the view may miss it, so nothing is served.
        let counter = changes.counter_of(AccountId(7));
        changes.changed(AccountId(7));
        changes.changed(AccountId(7));
        cache.advance(counter, &after);
        assert!(
            cache
                .session_view(&UnavailableStore, &key, NOW)
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn a_change_of_the_account_sends_the_next_read_to_the_store() {
        let key = signed(7, 2);
        let (cache, changes) = kept(&key);
        changes.changed(AccountId(7));
        assert!(
            cache
                .session_view(&UnavailableStore, &key, NOW)
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn another_key_generation_or_an_unchecked_key_is_read_from_the_store() {
        let key = signed(7, 2);
        let (cache, _) = kept(&key);
        assert!(
            cache
                .session(&UnavailableStore, &signed(7, 3), NOW)
                .await
                .is_err()
        );
        assert!(
            cache
                .session(&UnavailableStore, &signed(7, 2), NOW)
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn nothing_is_served_while_the_follower_is_behind() {
        let key = signed(7, 2);
        let changes = Arc::new(AccountChanges::default());
        let cache = SessionCache::new(Some(Arc::clone(&changes)), 16);
        assert!(
            cache.usable(&key, NOW).is_none(),
            "the follower has not run"
        );
        changes.all_seen_before(OffsetDateTime::now_utc() - time::Duration::seconds(2));
        assert!(
            cache.usable(&key, NOW).is_none(),
            "it saw up to two seconds ago"
        );
        changes.all_seen_before(OffsetDateTime::now_utc());
        assert!(cache.usable(&key, NOW).is_some());
        let expired = NOW + time::Duration::days(31);
        assert!(cache.usable(&key, expired).is_none(), "an expired key");
        assert!(
            SessionCache::new(Some(changes), 0)
                .usable(&key, NOW)
                .is_none(),
            "a capacity of 0 keeps nothing"
        );
    }

    #[tokio::test]
    async fn an_entry_kept_too_long_is_read_again_and_kept_anew() {
        let key = signed(7, 2);
        let (cache, changes) = kept(&key);
        let Some(long_ago) = Instant::now().checked_sub(KEPT_FOR + Duration::from_secs(1)) else {
            return;
        };
        cache
            .shard(AccountId(7))
            .get_mut(&AccountId(7))
            .expect("kept")
            .read_at = long_ago;
        assert!(
            cache.session(&UnavailableStore, &key, NOW).await.is_err(),
            "read again"
        );
        let (_, signed) = cache.usable(&key, NOW).expect("usable");
        let counter = changes.counter_of(AccountId(7));
        cache.keep(&signed, counter, &account(7), Some(Holdings::default()));
        assert!(
            cache.session(&UnavailableStore, &key, NOW).await.is_ok(),
            "kept anew"
        );
    }

    #[test]
    fn at_most_the_capacity_is_kept() {
        let changes = Arc::new(AccountChanges::default());
        changes.all_seen_before(OffsetDateTime::now_utc());
        let cache = SessionCache::new(Some(Arc::clone(&changes)), SHARDS);
        for id in 0..1_000 {
            let key = signed(id, 0);
            let (_, signed) = cache.usable(&key, NOW).expect("usable");
            cache.keep(&signed, 0, &account(id), None);
        }
        let kept: usize = cache
            .shards
            .iter()
            .map(|shard| shard.lock().expect("not poisoned").len())
            .sum();
        assert!(kept <= SHARDS, "{kept} kept");
    }
}
