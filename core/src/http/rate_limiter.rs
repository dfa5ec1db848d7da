//! The rate limits at work: one keyed GCRA limiter (`governor`) per endpoint group and scope,
//! kept in this node's memory, swept of idle keys every minute.
//!
//! The account scope counts by account, not by key: each sign-in mints a new key, so counting
//! by key would let a client multiply its allowance. The account is the one the request's keys
//! name by the rule the session follows too ([`key_owner`]), so that a request is counted
//! against the account that serves it whatever other keys it carries; keys that name two
//! accounts are refused (403 `key_mismatch`) here, before they are counted. Keys are resolved
//! through [`KeyAccounts`]: the application answers from the keys resolved in the last 10
//! seconds (`recent_callers`), else from the store once, which fills that cache: at most one
//! extra query per key and 10 seconds. A request whose primary key opens no account is not
//! counted here (the handler refuses it 401, and the address limit counts it).
//!
//! [`key_owner`]: super::key_owner

use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Weak};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, NotUntil, Quota};

use super::key_owner::{self, KeyAccounts, Named};
use super::presented_keys::presented_keys;
use super::{ApiError, EndpointGroup, Incoming, RateLimits, Scope};
use crate::store::AccountId;

/// How often keys whose allowance is whole again are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// One limiter per group, for one kind of key.
type PerGroup<K> = [Option<DefaultKeyedRateLimiter<K>>; EndpointGroup::ALL.len()];

/// This node's rate limiters, built from [`RateLimits`].
pub struct RateLimiter {
    address: PerGroup<IpAddr>,
    account: PerGroup<AccountId>,
}

impl RateLimiter {
    /// The limiters for `limits`; with none, every check passes at once.
    pub fn new(limits: &RateLimits) -> Self {
        Self {
            address: limiters(limits, Scope::Address),
            account: limiters(limits, Scope::Account),
        }
    }

    /// Whether no limit is set at all.
    fn is_off(&self) -> bool {
        self.address.iter().all(Option::is_none) && self.account.iter().all(Option::is_none)
    }

    /// Checks a request to `group` from `address` against the group's limits: 429
    /// `rate_limited` when one is spent, the address's first. The keys the request presents
    /// are only looked at when the group has an account limit; then keys of two accounts are
    /// a 403 `key_mismatch`, uncounted. `accounts` tells the account a key names.
    pub(crate) async fn admit<A: KeyAccounts>(
        &self,
        accounts: &A,
        group: EndpointGroup,
        address: Option<IpAddr>,
        incoming: &Incoming,
    ) -> Result<(), ApiError> {
        if let Some(address) = address {
            self.check_address(group, address)?;
        }
        let Some(limiter) = &self.account[group.index()] else {
            return Ok(());
        };
        let keys = presented_keys(incoming);
        let named =
            key_owner::named_account(&keys, |text| key_owner::recent_account(accounts, text));
        match named.await {
            Ok(Named::Opened(account)) => limiter
                .check_key(&account)
                .map_err(|spent| refusal(group, Scope::Account, limiter, &spent)),
            Ok(Named::Mismatch) => Err(key_owner::key_mismatch()),
            // No key, or a primary key that opens nothing: the handler answers. The store not
            // answering: the handler meets the same failure and answers it.
            Ok(Named::Nobody | Named::Unknown) | Err(_) => Ok(()),
        }
    }

    /// Counts a request to `group` from `address`.
    fn check_address(&self, group: EndpointGroup, address: IpAddr) -> Result<(), ApiError> {
        let Some(limiter) = &self.address[group.index()] else {
            return Ok(());
        };
        limiter
            .check_key(&network_of(address))
            .map_err(|spent| refusal(group, Scope::Address, limiter, &spent))
    }

    /// Forgets, every minute while this limiter lives, the keys whose allowance is whole again,
    /// so that memory follows the clients of the last minute. Needs a Tokio runtime; without
    /// one (or without limits) nothing is swept.
    pub(crate) fn start_sweeping(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.is_off() {
            return;
        }
        runtime.spawn(sweep(Arc::downgrade(self)));
    }

    /// Forgets the keys whose allowance is whole again.
    fn forget_idle(&self) {
        for limiter in self.address.iter().flatten() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        for limiter in self.account.iter().flatten() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

fn limiters<K>(limits: &RateLimits, scope: Scope) -> PerGroup<K>
where
    K: Clone + Eq + std::hash::Hash,
{
    EndpointGroup::ALL.map(|group| {
        let rate = limits.get(group, scope)?;
        let quota = Quota::with_period(rate.replenish_one_per())?.allow_burst(rate.count);
        Some(DefaultKeyedRateLimiter::dashmap(quota))
    })
}

/// The key an address counts under: IPv4 as it is, IPv6 by its /64 network (one subscriber's
/// share), an IPv4-mapped IPv6 address as IPv4.
fn network_of(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
        v4 => v4,
    }
}

/// The 429 for a spent limit of `limiter`, with the wait rounded up to whole seconds.
fn refusal<K>(
    group: EndpointGroup,
    scope: Scope,
    limiter: &DefaultKeyedRateLimiter<K>,
    spent: &NotUntil<<DefaultClock as Clock>::Instant>,
) -> ApiError
where
    K: Clone + Eq + std::hash::Hash,
{
    let wait = spent.wait_time_from(limiter.clock().now());
    ApiError::RateLimited {
        group: group.name(),
        scope: scope.name(),
        retry_after_secs: whole_seconds_up(wait),
    }
}

/// `wait` in whole seconds, rounded up, at least 1.
fn whole_seconds_up(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

async fn sweep(limiter: Weak<RateLimiter>) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    every.tick().await;
    loop {
        every.tick().await;
        let Some(limiter) = limiter.upgrade() else {
            return;
        };
        limiter.forget_idle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::RateLimitRule;

    fn limiter(rules: &[&str]) -> RateLimiter {
        let mut limits = RateLimits::default();
        for rule in rules {
            limits.apply(&rule.parse::<RateLimitRule>().unwrap());
        }
        RateLimiter::new(&limits)
    }

    fn address(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_gets_its_burst_then_a_429_with_the_wait() {
        let limiter = limiter(&["sign-in:address=2/min"]);
        assert!(!limiter.is_off());
        let client = address("192.0.2.1");
        for _ in 0..2 {
            assert!(limiter.check_address(EndpointGroup::SignIn, client).is_ok());
        }
        let Err(ApiError::RateLimited {
            group,
            scope,
            retry_after_secs,
        }) = limiter.check_address(EndpointGroup::SignIn, client)
        else {
            panic!("the third request passed");
        };
        assert_eq!((group, scope), ("sign-in", "address"));
        assert!((1..=30).contains(&retry_after_secs), "{retry_after_secs}");
        assert!(
            limiter
                .check_address(EndpointGroup::SignIn, address("192.0.2.2"))
                .is_ok()
        );
        assert!(limiter.check_address(EndpointGroup::Read, client).is_ok());
    }

    #[test]
    fn ipv6_counts_by_its_network() {
        let limiter = limiter(&["read:address=1/h"]);
        assert!(
            limiter
                .check_address(EndpointGroup::Read, address("2001:db8:1:2::1"))
                .is_ok()
        );
        assert!(
            limiter
                .check_address(EndpointGroup::Read, address("2001:db8:1:2::ffff"))
                .is_err()
        );
        assert!(
            limiter
                .check_address(EndpointGroup::Read, address("2001:db8:1:3::1"))
                .is_ok()
        );
        assert_eq!(
            network_of(address("::ffff:192.0.2.1")),
            address("192.0.2.1")
        );
    }

    #[test]
    fn no_limits_is_off_and_idle_keys_are_forgotten() {
        assert!(limiter(&[]).is_off());
        let limiter = limiter(&["write:address=1000/s"]);
        assert!(
            limiter
                .check_address(EndpointGroup::Write, address("192.0.2.1"))
                .is_ok()
        );
        std::thread::sleep(Duration::from_millis(5));
        limiter.forget_idle();
        let remembered = limiter.address[EndpointGroup::Write.index()]
            .as_ref()
            .map(DefaultKeyedRateLimiter::len);
        assert_eq!(remembered, Some(0));
    }

    #[test]
    fn waits_round_up_to_whole_seconds() {
        assert_eq!(whole_seconds_up(Duration::ZERO), 1);
        assert_eq!(whole_seconds_up(Duration::from_millis(1)), 1);
        assert_eq!(whole_seconds_up(Duration::from_secs(2)), 2);
        assert_eq!(whole_seconds_up(Duration::from_millis(2001)), 3);
    }
}
