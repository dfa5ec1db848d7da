//! The records of presence: whether an account has a realtime channel open on a live node, and
//! when it was last seen.

use time::OffsetDateTime;

/// How long a node's presence rows count after its last heartbeat: a node that stops beating
/// (it crashed) stops showing its players online after at most this long.
pub const PRESENCE_NODE_ALIVE: time::Duration = time::Duration::seconds(30);

/// How long after its last heartbeat a node is forgotten by the retention sweep, its players
/// last seen at that heartbeat.
pub const PRESENCE_NODE_FORGOTTEN: time::Duration = time::Duration::days(1);

/// An account's presence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Presence {
    /// Whether it has a realtime channel open on a node that beats.
    pub online: bool,
    /// When it was last seen online: now while online, else when its last channel closed (or
    /// its node last beat, for a node that stopped beating); `None` if never.
    pub last_seen: Option<OffsetDateTime>,
}

impl Presence {
    /// The presence of an account, from the heartbeats of the nodes it has a channel open on
    /// and when its last channel closed, as of `now`.
    ///
    /// ```
    /// use safezone_core::store::{PRESENCE_NODE_ALIVE, Presence};
    /// use time::macros::datetime;
    ///
    /// let now = datetime!(2026-11-28 08:00 UTC);
    /// let crashed = now - PRESENCE_NODE_ALIVE - time::Duration::seconds(1);
    /// let offline = Presence::of(&[crashed], None, now);
    /// assert_eq!(offline, Presence { online: false, last_seen: Some(crashed) });
    /// assert!(Presence::of(&[crashed, now], None, now).online);
    /// ```
    pub fn of(
        heartbeats: &[OffsetDateTime],
        closed: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> Self {
        let alive_since = now - PRESENCE_NODE_ALIVE;
        if heartbeats.iter().any(|beat| *beat >= alive_since) {
            return Self {
                online: true,
                last_seen: Some(now),
            };
        }
        Self {
            online: false,
            last_seen: heartbeats.iter().copied().chain(closed).max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-28 08:00 UTC);

    #[test]
    fn never_seen_is_offline_without_a_time() {
        assert_eq!(
            Presence::of(&[], None, NOW),
            Presence {
                online: false,
                last_seen: None
            }
        );
    }

    #[test]
    fn a_live_node_counts_up_to_its_limit() {
        let edge = NOW - PRESENCE_NODE_ALIVE;
        assert!(Presence::of(&[edge], None, NOW).online);
        let stale = edge - time::Duration::microseconds(1);
        let presence = Presence::of(&[stale], Some(stale - time::Duration::hours(1)), NOW);
        assert_eq!(presence.last_seen, Some(stale));
        assert!(!presence.online);
    }

    #[test]
    fn the_latest_of_closing_and_stale_beats_is_last_seen() {
        let closed = NOW - time::Duration::minutes(1);
        let stale = NOW - time::Duration::hours(2);
        assert_eq!(
            Presence::of(&[stale], Some(closed), NOW).last_seen,
            Some(closed)
        );
    }
}
