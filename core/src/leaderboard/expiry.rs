//! The results still due to leave a window and where each window's rolling edge stands.
//!
//! A result is kept in memory, by the hour its match ended, only while it is within the month
//! window: after that, it has only the year window left to leave, eleven months later. For that
//! the expiry keeps, per hour of the year, where that hour's results are in the match log (runs
//! of log positions, a few bytes an hour); when the year's edge comes near an hour, its results
//! are read back from the log ([`Expiry::hours_to_read`], [`Expiry::read_back`]). The year's
//! edge never passes an hour not read back, so a result is never forgotten, only left in the
//! year window a little longer while the store cannot be read.

use std::collections::{BTreeMap, BTreeSet};

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
pub const HOUR: i64 = 3_600;

/// How far apart two log positions of one hour's results may be and still share a run: a
/// report that comes this many results late starts a run of its own.
const RUN_GAP: i64 = 1 << 16;

/// Match log positions `(first, last)`, both included, holding one hour's results (among
/// others').
pub type Runs = Vec<(i64, i64)>;

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
    /// The result as kept: `ended` is its match's end (unix seconds).
    pub fn new(ended: i64, pending: &Pending) -> Self {
        Self {
            slot: pending.slot,
            time_alive: pending.result.time_alive,
            at: ended.rem_euclid(HOUR) as u16 | u16::from(pending.mode & 3) << 12,
            placement: pending.result.placement,
            kills: pending.result.kills,
        }
    }

    fn second(&self) -> i64 {
        i64::from(self.at & 0x0fff)
    }
}

/// The windows' edges, the results within the month window, and where the year's are in the
/// log.
#[derive(Debug, Default)]
pub struct Expiry {
    /// Per finite window (in [`TimeWindow::ALL`] order), the latest end time (unix seconds)
    /// already out of it: a result is in the window while its match ended after this.
    edges: [i64; 4],
    /// The results of the hours from the month's edge on, and of the hours read back for the
    /// year's edge, by the hour they ended.
    hours: BTreeMap<i64, Vec<Kept>>,
    /// The hours before the month's edge whose list in `hours` was read back from the log.
    read_back: BTreeSet<i64>,
    /// Per hour within the year, where its results are in the match log.
    positions: BTreeMap<i64, Runs>,
}

/// What an [`Expiry`] holds, as a snapshot keeps it.
#[derive(Debug, Default)]
pub struct ExpiryParts {
    /// [`Expiry::edges`].
    pub edges: [i64; 4],
    /// The kept results by hour.
    pub hours: BTreeMap<i64, Vec<Kept>>,
    /// The hours read back.
    pub read_back: BTreeSet<i64>,
    /// The log positions of each hour's results.
    pub positions: BTreeMap<i64, Runs>,
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
            ..Self::default()
        }
    }

    /// The expiry a snapshot's parts hold.
    pub fn from_parts(parts: ExpiryParts) -> Self {
        Self {
            edges: parts.edges,
            hours: parts.hours,
            read_back: parts.read_back,
            positions: parts.positions,
        }
    }

    /// The finite windows' edges, in [`TimeWindow::ALL`] order.
    pub fn edges(&self) -> [i64; 4] {
        self.edges
    }

    /// The results kept, by the hour they ended.
    pub fn hours(&self) -> &BTreeMap<i64, Vec<Kept>> {
        &self.hours
    }

    /// The hours before the month's edge whose results were read back.
    pub fn hours_read_back(&self) -> &BTreeSet<i64> {
        &self.read_back
    }

    /// Per hour within the year, where its results are in the match log.
    pub fn positions(&self) -> &BTreeMap<i64, Runs> {
        &self.positions
    }

    /// Whether a result whose match ended at `ended` (unix seconds) is in `window` now.
    pub fn counts(&self, window: TimeWindow, ended: i64) -> bool {
        self.edges
            .get(window.index())
            .is_none_or(|edge| ended > *edge)
    }

    /// Notes a result at match log position `seq` until it leaves the year window: kept whole
    /// while within the month window, by its log position after (a result already out of the
    /// year is not kept).
    pub fn remember(&mut self, ended: i64, seq: i64, pending: Pending) {
        if !self.counts(TimeWindow::Year, ended) {
            return;
        }
        let hour = ended.div_euclid(HOUR);
        note_position(self.positions.entry(hour).or_default(), seq);
        // A late result of an hour read back joins its list, which the year's edge will go by.
        if !self.counts(TimeWindow::Month, ended) && !self.read_back.contains(&hour) {
            return;
        }
        // Results mostly come in the order their matches ended: the last hour first.
        let kept = match self.hours.last_entry() {
            Some(last) if *last.key() == hour => last.into_mut(),
            _ => self.hours.entry(hour).or_default(),
        };
        kept.push(Kept::new(ended, &pending));
    }

    /// The hours whose results must be read back from the log before the year's edge can move
    /// to `now` (and the hour after, read ahead), with where their results are.
    pub fn hours_to_read(&self, now: OffsetDateTime) -> Vec<(i64, Runs)> {
        let first = self.edges[TimeWindow::Year.index()].div_euclid(HOUR);
        let last = edge_at(TimeWindow::Year, now.unix_timestamp()).div_euclid(HOUR) + 1;
        if last < first {
            // A clock set back: nothing is due.
            return Vec::new();
        }
        self.positions
            .range(first..=last)
            .filter(|(hour, _)| !self.read_back.contains(hour))
            .map(|(hour, runs)| (*hour, runs.clone()))
            .collect()
    }

    /// Whether the year's edge cannot move to `now` before an hour is read back.
    pub fn must_read_back(&self, now: OffsetDateTime) -> bool {
        let edge = self.edges[TimeWindow::Year.index()];
        let wanted = edge_at(TimeWindow::Year, now.unix_timestamp());
        wanted > edge && readable_until(&self.positions, &self.read_back, edge, wanted) < wanted
    }

    /// Installs the results of `hour` read back from the log for the year's edge (those of
    /// deleted players left out).
    pub fn read_back(&mut self, hour: i64, results: Vec<Kept>) {
        self.hours.insert(hour, results);
        self.read_back.insert(hour);
    }

    /// Whether a window's edge is behind `now`.
    pub fn is_behind(&self, now: OffsetDateTime) -> bool {
        edge_at(TimeWindow::Day, now.unix_timestamp()) > self.edges[0]
    }

    /// Moves every window's edge to `now` (the year's only as far as its hours were read back),
    /// calling `leave` for each result that leaves a window; forgets what no window needs.
    pub fn advance(&mut self, now: OffsetDateTime, mut leave: impl FnMut(TimeWindow, Pending)) {
        let now = now.unix_timestamp();
        for (edge, window) in self.edges.iter_mut().zip(TimeWindow::ALL) {
            let mut new_edge = edge_at(window, now);
            if window == TimeWindow::Year && new_edge > *edge {
                new_edge = new_edge.min(readable_until(
                    &self.positions,
                    &self.read_back,
                    *edge,
                    new_edge,
                ));
            }
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
        self.forget_passed();
    }

    /// Drops the lists of the hours the month's edge passed (but those read back for the
    /// year's edge, until it passes them too) and the positions of the hours out of the year.
    fn forget_passed(&mut self) {
        let month_hour = self.edges[TimeWindow::Month.index()].div_euclid(HOUR);
        let year_hour = self.edges[TimeWindow::Year.index()].div_euclid(HOUR);
        let recent = self.hours.split_off(&month_hour);
        let passed = std::mem::replace(&mut self.hours, recent);
        self.read_back = self.read_back.split_off(&year_hour);
        for (hour, kept) in passed {
            if self.read_back.contains(&hour) {
                self.hours.insert(hour, kept);
            }
        }
        self.positions = self.positions.split_off(&year_hour);
    }

    /// Gives back the room the lists grew into while loading.
    pub fn shrink(&mut self) {
        for kept in self.hours.values_mut() {
            kept.shrink_to_fit();
        }
    }

    /// About the heap bytes the expiry holds: its lists' capacities, the runs, and a tree
    /// node's share (about 32 bytes) per hour, for the metrics.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let lists: usize = self
            .hours
            .values()
            .map(|kept| kept.capacity() * size_of::<Kept>() + 32)
            .sum();
        let runs: usize = self
            .positions
            .values()
            .map(|runs| runs.capacity() * size_of::<(i64, i64)>() + 32)
            .sum();
        lists + runs + self.read_back.len() * 16
    }

    /// How many results are kept in memory.
    pub fn kept(&self) -> usize {
        self.hours.values().map(Vec::len).sum()
    }
}

/// Adds log position `seq` to an hour's runs: to a run it falls in or near, or as a run of its
/// own.
fn note_position(runs: &mut Runs, seq: i64) {
    for run in runs.iter_mut() {
        if seq >= run.0 - RUN_GAP && seq <= run.1 + RUN_GAP {
            run.0 = run.0.min(seq);
            run.1 = run.1.max(seq);
            return;
        }
    }
    runs.push((seq, seq));
}

/// How far the year's edge may move from `edge` towards `wanted` (later than `edge`): up to
/// just before the first hour with results that was not read back.
fn readable_until(
    positions: &BTreeMap<i64, Runs>,
    read_back: &BTreeSet<i64>,
    edge: i64,
    wanted: i64,
) -> i64 {
    positions
        .range(edge.div_euclid(HOUR)..=wanted.div_euclid(HOUR))
        .find(|(hour, _)| !read_back.contains(hour))
        .map_or(wanted, |(hour, _)| (hour * HOUR - 1).max(edge))
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

    fn left_by(expiry: &mut Expiry, now: OffsetDateTime) -> Vec<(TimeWindow, u32)> {
        let mut left = Vec::new();
        expiry.advance(now, |window, pending| left.push((window, pending.slot)));
        left
    }

    #[test]
    fn results_leave_each_window_exactly_at_its_length() {
        let mut expiry = Expiry::new(NOW);
        let ended = (NOW - Duration::hours(1)).unix_timestamp();
        expiry.remember(ended, 1, pending(7));
        assert!(expiry.counts(TimeWindow::Day, ended));
        let one_second_early = NOW + Duration::hours(23) - Duration::seconds(1);
        assert!(left_by(&mut expiry, one_second_early).is_empty());
        assert_eq!(
            left_by(&mut expiry, NOW + Duration::hours(23)),
            vec![(TimeWindow::Day, 7)]
        );
        assert_eq!(
            left_by(&mut expiry, NOW + Duration::days(40)),
            vec![(TimeWindow::Week, 7), (TimeWindow::Month, 7)]
        );
        // Out of the month, the result is only a log position.
        assert_eq!(expiry.kept(), 0);
        let hour = ended.div_euclid(HOUR);
        assert_eq!(expiry.positions().get(&hour), Some(&vec![(1, 1)]));
        let later = NOW + Duration::days(400);
        // Not read back: the year's edge waits before its hour.
        assert!(expiry.must_read_back(later));
        assert!(left_by(&mut expiry, later).is_empty());
        assert!(expiry.counts(TimeWindow::Year, ended));
        assert_eq!(expiry.hours_to_read(later), vec![(hour, vec![(1, 1)])]);
        expiry.read_back(hour, vec![Kept::new(ended, &pending(7))]);
        assert!(!expiry.must_read_back(later));
        assert_eq!(left_by(&mut expiry, later), vec![(TimeWindow::Year, 7)]);
        assert_eq!(expiry.kept(), 0);
        assert!(expiry.positions().is_empty() && expiry.hours_read_back().is_empty());
    }

    #[test]
    fn a_late_result_of_an_hour_read_back_leaves_the_year_with_it() {
        let mut expiry = Expiry::new(NOW);
        let ended = (NOW - Duration::days(365) + Duration::minutes(30)).unix_timestamp();
        let hour = ended.div_euclid(HOUR);
        expiry.remember(ended, 5, pending(1));
        assert_eq!(expiry.hours_to_read(NOW), vec![(hour, vec![(5, 5)])]);
        expiry.read_back(hour, vec![Kept::new(ended, &pending(1))]);
        expiry.remember(ended + 1, 90_000, pending(2));
        assert_eq!(
            expiry.positions().get(&hour),
            Some(&vec![(5, 5), (90_000, 90_000)])
        );
        assert_eq!(
            left_by(&mut expiry, NOW + Duration::hours(1)),
            vec![(TimeWindow::Year, 1), (TimeWindow::Year, 2)]
        );
    }

    #[test]
    fn a_clock_set_back_moves_no_edge() {
        let mut expiry = Expiry::new(NOW);
        let ended = (NOW - Duration::days(300)).unix_timestamp();
        expiry.remember(ended, 3, pending(4));
        let earlier = NOW - Duration::days(3);
        assert!(expiry.hours_to_read(earlier).is_empty());
        assert!(!expiry.must_read_back(earlier));
        assert!(left_by(&mut expiry, earlier).is_empty());
        assert!(expiry.counts(TimeWindow::Day, (NOW - Duration::hours(1)).unix_timestamp()));
        assert_eq!(expiry.positions().len(), 1);
    }

    #[test]
    fn results_already_out_are_neither_counted_nor_kept() {
        let mut expiry = Expiry::new(NOW);
        let two_days_ago = (NOW - Duration::days(2)).unix_timestamp();
        assert!(!expiry.counts(TimeWindow::Day, two_days_ago));
        assert!(expiry.counts(TimeWindow::Week, two_days_ago));
        let two_years_ago = (NOW - Duration::days(730)).unix_timestamp();
        assert!(expiry.counts(TimeWindow::All, two_years_ago));
        expiry.remember(two_years_ago, 1, pending(1));
        assert_eq!(expiry.kept(), 0);
        assert!(expiry.positions().is_empty());
    }
}
