//! When a poll takes votes or a tournament takes entrants: the window both share, why it is not
//! open, and how closing one early ended.

use time::OffsetDateTime;

/// When something is open: from `opens` (inclusive) to `closes` (exclusive), unless an operator
/// closed it early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first instant it is open.
    pub opens: OffsetDateTime,
    /// The first instant it is no longer open.
    pub closes: OffsetDateTime,
    /// When an operator closed it, if one did.
    pub closed_at: Option<OffsetDateTime>,
}

/// Why a [`Window`] is not open at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOpen {
    /// It opens later.
    Upcoming {
        /// When it opens.
        opens: OffsetDateTime,
    },
    /// Its time is over.
    Ended {
        /// When it closed.
        closes: OffsetDateTime,
    },
    /// An operator closed it (this wins over the other two).
    Closed {
        /// When the operator closed it.
        at: OffsetDateTime,
    },
}

impl Window {
    /// `Ok` when open at `now`, otherwise why not.
    ///
    /// ```
    /// use safezone_core::store::{NotOpen, Window};
    /// use time::macros::datetime;
    /// let window = Window {
    ///     opens: datetime!(2026-11-22 08:00 UTC),
    ///     closes: datetime!(2026-11-23 08:00 UTC),
    ///     closed_at: None,
    /// };
    /// assert_eq!(window.check(datetime!(2026-11-22 08:00 UTC)), Ok(()));
    /// assert!(matches!(window.check(datetime!(2026-11-23 08:00 UTC)), Err(NotOpen::Ended { .. })));
    /// ```
    pub fn check(&self, now: OffsetDateTime) -> Result<(), NotOpen> {
        if let Some(at) = self.closed_at {
            Err(NotOpen::Closed { at })
        } else if now < self.opens {
            Err(NotOpen::Upcoming { opens: self.opens })
        } else if now >= self.closes {
            Err(NotOpen::Ended {
                closes: self.closes,
            })
        } else {
            Ok(())
        }
    }
}

impl Window {
    /// `Err` when the window has ended or was closed at `now`: what no longer changes.
    /// Upcoming and open are fine.
    pub(super) fn check_not_over(&self, now: OffsetDateTime) -> Result<(), NotOpen> {
        match self.check(now) {
            Err(over @ (NotOpen::Ended { .. } | NotOpen::Closed { .. })) => Err(over),
            Ok(()) | Err(NotOpen::Upcoming { .. }) => Ok(()),
        }
    }
}

/// How closing a poll or a tournament ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// It is closed now.
    Closed,
    /// An operator had closed it before; nothing changed.
    AlreadyClosed,
    /// There is no such poll or tournament.
    Unknown,
}
