//! Where "now" comes from: the system clock in production, a hand-set clock in tests.

use std::sync::{Arc, Mutex};

use time::{Duration, OffsetDateTime};

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    /// The current time in UTC.
    fn now(&self) -> OffsetDateTime;
}

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// A clock that stands still until moved: for tests of expiry and time windows.
///
/// ```
/// use safezone_core::clock::{Clock, ManualClock};
/// let clock = ManualClock::new(time::macros::datetime!(2026-11-22 08:00 UTC));
/// clock.advance(time::Duration::hours(25));
/// assert_eq!(clock.now(), time::macros::datetime!(2026-11-23 09:00 UTC));
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<OffsetDateTime>>);

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: OffsetDateTime) -> Self {
        Self(Arc::new(Mutex::new(start)))
    }

    /// Sets the clock to `at`.
    pub fn set(&self, at: OffsetDateTime) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = at;
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> OffsetDateTime {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
