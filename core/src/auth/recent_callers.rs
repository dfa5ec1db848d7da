//! User keys resolved a moment ago, so that a read-only public endpoint (the leaderboards)
//! knows who is calling without a database query per request.
//!
//! A key is remembered for [`REMEMBERED_FOR`] at most (never past its expiry), so a revoked key
//! still names its account to those endpoints for up to that long; everything that reads or
//! changes an account resolves the key in the store every time.
//!
//! Keys past their time are swept out every [`REMEMBERED_FOR`], so memory follows the keys of
//! the last seconds. Left to its capacity alone, the cache kept every dead key until 100,000
//! filled it (about 10 MiB): a heap profile of the day run saw it at 2.1 MB after 12 minutes
//! and growing.

use std::sync::Mutex;

use quick_cache::sync::Cache;
use time::{Duration, OffsetDateTime};

use crate::domain::KeyHash;
use crate::store::AccountId;

/// How long a resolved key is trusted without asking the store again.
pub const REMEMBERED_FOR: Duration = Duration::seconds(10);

/// The most keys remembered (about 100 bytes each); the least used go first.
const CAPACITY: usize = 100_000;

/// Recently resolved keys and the accounts they opened.
pub struct RecentCallers {
    keys: Cache<KeyHash, (AccountId, OffsetDateTime)>,
    /// When the keys past their time are swept out next (at the first key remembered).
    next_sweep: Mutex<OffsetDateTime>,
}

impl Default for RecentCallers {
    fn default() -> Self {
        Self {
            keys: Cache::new(CAPACITY),
            next_sweep: Mutex::new(OffsetDateTime::UNIX_EPOCH),
        }
    }
}

impl RecentCallers {
    /// The account the key opened, if it was resolved less than [`REMEMBERED_FOR`] ago and has
    /// not expired since.
    pub fn account(&self, key: &KeyHash, now: OffsetDateTime) -> Option<AccountId> {
        self.keys
            .get(key)
            .filter(|(_, until)| now < *until)
            .map(|(account, _)| account)
    }

    /// Remembers that the key, expiring at `expires`, opened `account` at `now`; once every
    /// [`REMEMBERED_FOR`], first forgets the keys past their time.
    pub fn remember(
        &self,
        key: KeyHash,
        account: AccountId,
        expires: OffsetDateTime,
        now: OffsetDateTime,
    ) {
        if self.sweep_due(now) {
            self.keys.retain(|_, (_, until)| now < *until);
        }
        self.keys
            .insert(key, (account, expires.min(now + REMEMBERED_FOR)));
    }

    /// Whether this caller sweeps now: true once per [`REMEMBERED_FOR`], for one caller only.
    fn sweep_due(&self, now: OffsetDateTime) -> bool {
        let Ok(mut next) = self.next_sweep.try_lock() else {
            return false;
        };
        if now < *next {
            return false;
        }
        *next = now + REMEMBERED_FOR;
        true
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::domain::UserKey;

    const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

    #[test]
    fn a_key_is_remembered_briefly_and_never_past_its_expiry() {
        let callers = RecentCallers::default();
        let key = UserKey::generate().hash();
        assert_eq!(callers.account(&key, NOW), None);
        callers.remember(key.clone(), AccountId(7), NOW + Duration::days(30), NOW);
        assert_eq!(callers.account(&key, NOW), Some(AccountId(7)));
        assert_eq!(callers.account(&key, NOW + REMEMBERED_FOR), None);
        let expiring = UserKey::generate().hash();
        callers.remember(
            expiring.clone(),
            AccountId(8),
            NOW + Duration::seconds(2),
            NOW,
        );
        assert_eq!(
            callers.account(&expiring, NOW + Duration::seconds(1)),
            Some(AccountId(8))
        );
        assert_eq!(callers.account(&expiring, NOW + Duration::seconds(2)), None);
    }

    #[test]
    fn keys_past_their_time_are_swept_out() {
        let callers = RecentCallers::default();
        let expires = NOW + Duration::days(30);
        for account in 0..1_000 {
            callers.remember(UserKey::generate().hash(), AccountId(account), expires, NOW);
        }
        assert_eq!(callers.keys.len(), 1_000);
        let later = NOW + REMEMBERED_FOR + Duration::seconds(1);
        let fresh = UserKey::generate().hash();
        callers.remember(fresh.clone(), AccountId(1_000), expires, later);
        assert_eq!(
            callers.keys.len(),
            1,
            "only the key remembered after the sweep"
        );
        assert_eq!(callers.account(&fresh, later), Some(AccountId(1_000)));
    }
}
