//! The results still due to leave a window, by the hour their match ended, and where each
//! window's rolling edge stands.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::kinds::TimeWindow;
use super::totals::Contribution;

/// A result that will leave the windows one by one: whose it is and what it added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// The player's slot in the index.
    pub slot: u32,
    /// The mode's index.
    pub mode: u8,
    /// What the result added.
    pub result: Contribution,
}

/// Seconds in an hour, the span of one list of kept results.
const HOUR: i64 = 3_600;

/// A [`Pending`] result as kept in an hour's list: 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// The player's slot.
    pub slot: u32,
    /// Seconds alive.
    pub time_alive: u32,
    /// Seconds past the hour (12 bits), and the mode above them.
    pub at: u16,
    /// Final placement.
    pub placement: u8,
    /// Kills.
    pub kills: u8,
}

impl Kept {
    fn second(&self) -> i64 {
        i64::from(self.at & 0x0fff)
    }
}

/// The windows' edges and the results within the longest finite window.
#[derive(Debug)]
pub struct Expiry {
    /// Per finite window (in [`TimeWindow::ALL`] order), the latest end time (unix seconds)
    /// already out of it: a result is in the window while its match ended after this.
    edges: [i64; 4],
    /// The results that ended within the last year, by the hour they ended.
    hours: BTreeMap<i64, Vec<Kept>>,
}

impl Expiry {
    /// Windows ending at `now`, no results yet.
    pub fn new(now: OffsetDateTime) -> Self {
        let now = now.unix_timestamp();
        let mut edges = [0; 4];
        for (edge, window) in edges.iter_mut().zip(TimeWindow::ALL) {
            *edge = edge_at(window, now);
        }
        Self {
            edges,
            hours: BTreeMap::new(),
        }
    }

    /// Windows with these edges (unix seconds, as [`Expiry::edges`] tells them) keeping these
    /// hours' results: a snapshot's.
    pub fn from_parts(edges: [i64; 4], hours: BTreeMap<i64, Vec<Kept>>) -> Self {
        Self { edges, hours }
    }

    /// The finite windows' edges, in [`TimeWindow::ALL`] order.
    pub fn edges(&self) -> [i64; 4] {
        self.edges
    }

    /// The results kept, by the hour they ended.
    pub fn hours(&self) -> &BTreeMap<i64, Vec<Kept>> {
        &self.hours
    }

    /// Whether a result whose match ended at `ended` (unix seconds) is in `window` now.
    pub fn counts(&self, window: TimeWindow, ended: i64) -> bool {
        self.edges
            .get(window.index())
            .is_none_or(|edge| ended > *edge)
    }

    /// Keeps a result until it leaves the longest finite window (a result already out of it
    /// is not kept).
    pub fn remember(&mut self, ended: i64, pending: Pending) {
        if !self.counts(TimeWindow::Year, ended) {
            return;
        }
        let hour = ended.div_euclid(HOUR);
        // Results mostly come in the order their matches ended: the last hour first.
        let kept = match self.hours.last_entry() {
            Some(last) if *last.key() == hour => last.into_mut(),
            _ => self.hours.entry(hour).or_default(),
        };
        kept.push(Kept {
            slot: pending.slot,
            time_alive: pending.result.time_alive,
            at: ended.rem_euclid(HOUR) as u16 | u16::from(pending.mode & 3) << 12,
            placement: pending.result.placement,
            kills: pending.result.kills,
        });
    }

    /// Whether a window's edge is behind `now`.
    pub fn is_behind(&self, now: OffsetDateTime) -> bool {
        edge_at(TimeWindow::Day, now.unix_timestamp()) > self.edges[0]
    }

    /// Moves every window's edge to `now`, calling `leave` for each result that leaves a
    /// window; forgets the results that left them all.
    pub fn advance(&mut self, now: OffsetDateTime, mut leave: impl FnMut(TimeWindow, Pending)) {
        let now = now.unix_timestamp();
        for (edge, window) in self.edges.iter_mut().zip(TimeWindow::ALL) {
            let new_edge = edge_at(window, now);
            if new_edge <= *edge {
                continue;
            }
            let hours = edge.div_euclid(HOUR)..=new_edge.div_euclid(HOUR);
            for (hour, kept) in self.hours.range(hours) {
                for kept in kept {
                    let ended = hour * HOUR + kept.second();
                    if ended > *edge && ended <= new_edge {
                        leave(window, pending_of(kept));
                    }
                }
            }
            *edge = new_edge;
        }
        let oldest_kept = self.edges[TimeWindow::Year.index()].div_euclid(HOUR);
        self.hours = self.hours.split_off(&oldest_kept);
    }

    /// Gives back the room the lists grew into while loading.
    pub fn shrink(&mut self) {
        for kept in self.hours.values_mut() {
            kept.shrink_to_fit();
        }
    }

    /// How many results are kept.
    pub fn kept(&self) -> usize {
        self.hours.values().map(Vec::len).sum()
    }
}

/// The edge of a finite `window` at `now` (unix seconds); all time has none (`i64::MIN`).
fn edge_at(window: TimeWindow, now: i64) -> i64 {
    window
        .length()
        .map_or(i64::MIN, |length| now - length.whole_seconds())
}

fn pending_of(kept: &Kept) -> Pending {
    Pending {
        slot: kept.slot,
        mode: (kept.at >> 12) as u8,
        result: Contribution {
            placement: kept.placement,
            kills: kept.kills,
            time_alive: kept.time_alive,
        },
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);

    fn pending(slot: u32) -> Pending {
        Pending {
            slot,
            mode: 0,
            result: Contribution {
                placement: 1,
                kills: 2,
                time_alive: 300,
            },
        }
    }

    #[test]
    fn results_leave_each_window_exactly_at_its_length() {
        let mut expiry = Expiry::new(NOW);
        let ended = (NOW - Duration::hours(1)).unix_timestamp();
        expiry.remember(ended, pending(7));
        assert!(expiry.counts(TimeWindow::Day, ended));
        let mut left = Vec::new();
        let one_second_early = NOW + Duration::hours(23) - Duration::seconds(1);
        expiry.advance(one_second_early, |window, pending| {
            left.push((window, pending.slot))
        });
        assert!(left.is_empty());
        expiry.advance(NOW + Duration::hours(23), |window, pending| {
            left.push((window, pending.slot));
        });
        assert_eq!(left, vec![(TimeWindow::Day, 7)]);
        expiry.advance(NOW + Duration::days(400), |window, pending| {
            left.push((window, pending.slot));
        });
        assert_eq!(
            left,
            vec![
                (TimeWindow::Day, 7),
                (TimeWindow::Week, 7),
                (TimeWindow::Month, 7),
                (TimeWindow::Year, 7)
            ]
        );
        assert_eq!(expiry.kept(), 0);
    }

    #[test]
    fn results_already_out_are_neither_counted_nor_kept() {
        let mut expiry = Expiry::new(NOW);
        let two_days_ago = (NOW - Duration::days(2)).unix_timestamp();
        assert!(!expiry.counts(TimeWindow::Day, two_days_ago));
        assert!(expiry.counts(TimeWindow::Week, two_days_ago));
        let two_years_ago = (NOW - Duration::days(730)).unix_timestamp();
        assert!(expiry.counts(TimeWindow::All, two_years_ago));
        expiry.remember(two_years_ago, pending(1));
        assert_eq!(expiry.kept(), 0);
    }
}
