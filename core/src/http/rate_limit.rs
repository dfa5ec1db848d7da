//! Rate limits as the operator writes them: a rate (`20/min`) per endpoint group and scope.
//!
//! Each node counts alone: behind a balancer that spreads one client over N nodes, the client
//! gets up to N times the figure, so per-node figures are set with that in mind.

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

use super::EndpointGroup;

/// What a limit counts requests by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The client's address (an IPv6 address counts by its /64 network).
    Address,
    /// The account of the user key presented.
    Account,
}

impl Scope {
    /// The scope's name on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Address => "address",
            Self::Account => "account",
        }
    }
}

impl FromStr for Scope {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "address" => Ok(Self::Address),
            "account" => Ok(Self::Account),
            _ => Err(format!("unknown scope `{text}` (address, account)")),
        }
    }
}

/// A rate: `count` requests per `period`, in a burst or spread out (GCRA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Requests allowed per period.
    pub count: NonZeroU32,
    /// The period.
    pub period: Duration,
}

impl Rate {
    /// `count` requests per minute.
    pub const fn per_minute(count: NonZeroU32) -> Self {
        Self {
            count,
            period: Duration::from_secs(60),
        }
    }

    /// The time one request's allowance takes to come back.
    pub fn replenish_one_per(self) -> Duration {
        self.period / self.count.get()
    }
}

impl FromStr for Rate {
    type Err = String;

    /// `N/s`, `N/min` or `N/h` (also `sec`, `second`, `minute`, `hour`).
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a rate such as 20/min (units: s, min, h)");
        let (count, unit) = text.split_once('/').ok_or_else(bad)?;
        let count: NonZeroU32 = count.trim().parse().map_err(|_| bad())?;
        let seconds = match unit.trim() {
            "s" | "sec" | "second" => 1,
            "min" | "minute" => 60,
            "h" | "hour" => 3600,
            _ => return Err(bad()),
        };
        let rate = Self {
            count,
            period: Duration::from_secs(seconds),
        };
        if rate.replenish_one_per().is_zero() {
            return Err(bad());
        }
        Ok(rate)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.period.as_secs() {
            1 => "s".to_owned(),
            60 => "min".to_owned(),
            3600 => "h".to_owned(),
            seconds => format!("{seconds}s"),
        };
        write!(f, "{}/{unit}", self.count)
    }
}

/// One rule of the `--rate-limit` flag: `off` (no limits at all),
/// `GROUP:SCOPE=RATE` (`sign-in:address=20/min`) or `GROUP:SCOPE=off`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RateLimitRule {
    /// Removes every limit, the defaults included.
    Off,
    /// Sets (or, with `None`, removes) the limit of one group and scope.
    One {
        /// The endpoint group.
        group: EndpointGroup,
        /// What the limit counts by.
        scope: Scope,
        /// The rate, or `None` for no limit.
        rate: Option<Rate>,
    },
}

impl FromStr for RateLimitRule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "off" {
            return Ok(Self::Off);
        }
        let bad =
            || format!("`{text}` is not `off` nor GROUP:SCOPE=RATE such as sign-in:address=20/min");
        let (target, rate) = text.split_once('=').ok_or_else(bad)?;
        let (group, scope) = target.split_once(':').ok_or_else(bad)?;
        let rate = match rate.trim() {
            "off" => None,
            rate => Some(rate.parse()?),
        };
        Ok(Self::One {
            group: group.trim().parse()?,
            scope: scope.trim().parse()?,
            rate,
        })
    }
}

/// The rate of each endpoint group and scope that has one. [`Default`] has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateLimits(BTreeMap<(EndpointGroup, Scope), Rate>);

impl RateLimits {
    /// The binaries' defaults, per node: sign-in 20/min per address; purchases 60/min per
    /// address and 30/min per account; other writes 300/min and 120/min; reads 1200/min and
    /// 600/min (players behind one NAT share an address); realtime channels opened 120/min and
    /// 20/min; game servers unlimited.
    pub fn recommended() -> Self {
        let per_minute = |count: u32| NonZeroU32::new(count).map(Rate::per_minute);
        let mut limits = Self::default();
        for (group, scope, count) in [
            (EndpointGroup::SignIn, Scope::Address, 20),
            (EndpointGroup::Purchase, Scope::Address, 60),
            (EndpointGroup::Purchase, Scope::Account, 30),
            (EndpointGroup::Write, Scope::Address, 300),
            (EndpointGroup::Write, Scope::Account, 120),
            (EndpointGroup::Read, Scope::Address, 1200),
            (EndpointGroup::Read, Scope::Account, 600),
            (EndpointGroup::Realtime, Scope::Address, 120),
            (EndpointGroup::Realtime, Scope::Account, 20),
        ] {
            limits.set(group, scope, per_minute(count));
        }
        limits
    }

    /// Sets (or, with `None`, removes) one limit.
    pub fn set(&mut self, group: EndpointGroup, scope: Scope, rate: Option<Rate>) {
        match rate {
            Some(rate) => self.0.insert((group, scope), rate),
            None => self.0.remove(&(group, scope)),
        };
    }

    /// Applies one rule of the command line.
    pub fn apply(&mut self, rule: &RateLimitRule) {
        match rule {
            RateLimitRule::Off => self.0.clear(),
            RateLimitRule::One { group, scope, rate } => self.set(*group, *scope, *rate),
        }
    }

    /// The limit of one group and scope, if any.
    pub fn get(&self, group: EndpointGroup, scope: Scope) -> Option<Rate> {
        self.0.get(&(group, scope)).copied()
    }

    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_print() {
        let rate: Rate = "20/min".parse().unwrap();
        assert_eq!(rate.count.get(), 20);
        assert_eq!(rate.replenish_one_per(), Duration::from_secs(3));
        assert_eq!(rate.to_string(), "20/min");
        assert_eq!("5 / second".parse::<Rate>().unwrap().to_string(), "5/s");
        assert_eq!(
            "100/h".parse::<Rate>().unwrap().period,
            Duration::from_secs(3600)
        );
        for bad in ["0/min", "20", "20/day", "x/min", "-1/s", "2000000000/s"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn rules_parse() {
        assert_eq!("off".parse(), Ok(RateLimitRule::Off));
        assert_eq!(
            "sign-in:address=20/min".parse(),
            Ok(RateLimitRule::One {
                group: EndpointGroup::SignIn,
                scope: Scope::Address,
                rate: "20/min".parse().ok(),
            })
        );
        assert_eq!(
            "read:account=off".parse(),
            Ok(RateLimitRule::One {
                group: EndpointGroup::Read,
                scope: Scope::Account,
                rate: None,
            })
        );
        for bad in [
            "sign-in=20/min",
            "login:address=1/s",
            "read:device=1/s",
            "read:address",
        ] {
            assert!(bad.parse::<RateLimitRule>().is_err(), "{bad}");
        }
    }

    #[test]
    fn rules_apply_in_order_over_the_defaults() {
        let mut limits = RateLimits::recommended();
        assert!(
            limits
                .get(EndpointGroup::GameServer, Scope::Address)
                .is_none()
        );
        for rule in ["read:account=off", "game-server:address=600/min"] {
            limits.apply(&rule.parse().unwrap());
        }
        assert!(limits.get(EndpointGroup::Read, Scope::Account).is_none());
        assert_eq!(
            limits.get(EndpointGroup::GameServer, Scope::Address),
            "600/min".parse().ok()
        );
        limits.apply(&RateLimitRule::Off);
        assert!(limits.is_empty());
        assert!(RateLimits::default().is_empty());
    }
}
