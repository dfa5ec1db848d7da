//! The results still due to leave a window and where each window's rolling edge stands.
//!
//! No result is kept in memory for its windows: the expiry keeps, per hour within the year,
//! where that hour's results are in the match log (runs of log positions, a few bytes an hour).
//! When a window's edge comes near an hour, the hour's results are read back from the log
//! ([`Expiry::hours_to_read`], [`Expiry::read_back`]) and kept while an edge is within or just
//! before that hour; each hour is so read back once per finite window (day, week, month, year).
//! An edge never passes an hour not read back, so a result is never forgotten, only left in a
//! window a little longer while the store cannot be read. Memory is then bounded by the hours
//! near the edges, not by the results of the last 30 days.

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
    /// Seconds past the hour (12 bits), and the mode's index above them (4 bits).
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
            at: ended.rem_euclid(HOUR) as u16 | u16::from(pending.mode & 0x0f) << 12,
            placement: pending.result.placement,
            kills: pending.result.kills,
        }
    }

    fn second(&self) -> i64 {
        i64::from(self.at & 0x0fff)
    }
}

/// Hours read ahead of a window's edge: the follower reads an hour's results back this long
/// before the edge reaches it, so that requests seldom wait for a read.
const READ_AHEAD_HOURS: i64 = 1;

/// The most hours [`Expiry::hours_to_read`] asks for at once: a node whose edges are far behind
/// (a snapshot days old) reads them a few at a time, moving its edges between reads.
pub const READ_AT_ONCE: usize = 6;

/// The windows' edges, the results of the hours near them, and where every hour's results
/// within the year are in the log.
#[derive(Debug, Default)]
pub struct Expiry {
    /// Per finite window (in [`TimeWindow::ALL`] order), the latest end time (unix seconds)
    /// already out of it: a result is in the window while its match ended after this.
    edges: [i64; 4],
    /// The results of the hours read back from the log, by the hour they ended: each list is
    /// whole (results that came after the read joined it).
    hours: BTreeMap<i64, Vec<Kept>>,
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
    /// The hours whose list is whole (read back); other lists in `hours` (the month's results
    /// an older snapshot format kept) are left to be read back again.
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
        let mut hours = parts.hours;
        hours.retain(|hour, _| parts.read_back.contains(hour));
        Self {
            edges: parts.edges,
            hours,
            positions: parts.positions,
        }
    }

    /// The finite windows' edges, in [`TimeWindow::ALL`] order.
    pub fn edges(&self) -> [i64; 4] {
        self.edges
    }

    /// The results read back and kept, by the hour they ended.
    pub fn hours(&self) -> &BTreeMap<i64, Vec<Kept>> {
        &self.hours
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

    /// Notes a result at match log position `seq` until it leaves the year window: by its log
    /// position, and in its hour's list when that hour was read back already (a result already
    /// out of the year is not noted).
    pub fn remember(&mut self, ended: i64, seq: i64, pending: Pending) {
        if !self.counts(TimeWindow::Year, ended) {
            return;
        }
        let hour = ended.div_euclid(HOUR);
        note_position(self.positions.entry(hour).or_default(), seq);
        // A late result of an hour read back joins its list, which the edges go by.
        if let Some(kept) = self.hours.get_mut(&hour) {
            kept.push(Kept::new(ended, &pending));
        }
    }

    /// The hours whose results must be read back from the log before the edges can move to
    /// `now` (and the hour after each edge, read ahead), earliest first and at most
    /// [`READ_AT_ONCE`], with where their results are.
    pub fn hours_to_read(&self, now: OffsetDateTime) -> Vec<(i64, Runs)> {
        let now = now.unix_timestamp();
        let mut due = BTreeMap::new();
        for (edge, window) in self.edges.iter().zip(TimeWindow::ALL) {
            let wanted = edge_at(window, now);
            if wanted < *edge {
                // A clock set back: nothing is due.
                continue;
            }
            let hours = edge.div_euclid(HOUR)..=wanted.div_euclid(HOUR) + READ_AHEAD_HOURS;
            for (hour, runs) in self.positions.range(hours) {
                if !self.hours.contains_key(hour) {
                    due.entry(*hour).or_insert_with(|| runs.clone());
                }
            }
        }
        due.into_iter().take(READ_AT_ONCE).collect()
    }

    /// Whether an edge cannot move to `now` before an hour is read back.
    pub fn must_read_back(&self, now: OffsetDateTime) -> bool {
        let now = now.unix_timestamp();
        self.edges
            .iter()
            .zip(TimeWindow::ALL)
            .any(|(edge, window)| {
                let wanted = edge_at(window, now);
                wanted > *edge
                    && readable_until(&self.positions, &self.hours, *edge, wanted) < wanted
            })
    }

    /// Installs the results of `hour` read back from the log (those of deleted players left
    /// out).
    pub fn read_back(&mut self, hour: i64, results: Vec<Kept>) {
        self.hours.insert(hour, results);
    }

    /// Whether a window's edge is behind `now`.
    pub fn is_behind(&self, now: OffsetDateTime) -> bool {
        edge_at(TimeWindow::Day, now.unix_timestamp()) > self.edges[0]
    }

    /// Moves every window's edge to `now` (each only as far as its hours were read back),
    /// calling `leave` for each result that leaves a window; forgets what no edge needs.
    pub fn advance(&mut self, now: OffsetDateTime, mut leave: impl FnMut(TimeWindow, Pending)) {
        let now = now.unix_timestamp();
        for (edge, window) in self.edges.iter_mut().zip(TimeWindow::ALL) {
            let wanted = edge_at(window, now);
            if wanted <= *edge {
                continue;
            }
            let new_edge = readable_until(&self.positions, &self.hours, *edge, wanted);
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

    /// Drops the lists of the hours no edge is within or just before, and the positions of the
    /// hours out of the year.
    fn forget_passed(&mut self) {
        let near: Vec<i64> = self
            .edges
            .iter()
            .map(|edge| edge.div_euclid(HOUR))
            .collect();
        self.hours.retain(|hour, _| {
            near.iter()
                .any(|edge_hour| (*edge_hour..=edge_hour + READ_AHEAD_HOURS).contains(hour))
        });
        let year_hour = self.edges[TimeWindow::Year.index()].div_euclid(HOUR);
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
        lists + runs
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

/// How far an edge may move from `edge` towards `wanted` (later than `edge`): up to just
/// before the first hour with results that was not read back.
fn readable_until(
    positions: &BTreeMap<i64, Runs>,
    read_back: &BTreeMap<i64, Vec<Kept>>,
    edge: i64,
    wanted: i64,
) -> i64 {
    positions
        .range(edge.div_euclid(HOUR)..=wanted.div_euclid(HOUR))
        .find(|(hour, _)| !read_back.contains_key(hour))
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

    /// A match log: each result's position, match end and what it added.
    #[derive(Default)]
    struct Log(Vec<(i64, i64, Pending)>);

    impl Log {
        /// Appends a result and lets the expiry remember it.
        fn add(&mut self, expiry: &mut Expiry, ended: OffsetDateTime, slot: u32) {
            let seq = self.0.len() as i64 + 1;
            let ended = ended.unix_timestamp();
            self.0.push((seq, ended, pending(slot)));
            expiry.remember(ended, seq, pending(slot));
        }

        /// Reads back every hour due at `now`, as the follower does, then moves the edges.
        fn expire(&self, expiry: &mut Expiry, now: OffsetDateTime) -> Vec<(TimeWindow, u32)> {
            loop {
                let due = expiry.hours_to_read(now);
                if due.is_empty() {
                    break;
                }
                for (hour, runs) in due {
                    let results = self
                        .0
                        .iter()
                        .filter(|(seq, ended, _)| {
                            ended.div_euclid(HOUR) == hour
                                && runs
                                    .iter()
                                    .any(|(first, last)| (*first..=*last).contains(seq))
                        })
                        .map(|(_, ended, pending)| Kept::new(*ended, pending))
                        .collect();
                    expiry.read_back(hour, results);
                }
            }
            left_by(expiry, now)
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
        let mut log = Log::default();
        let ended = NOW - Duration::hours(1);
        log.add(&mut expiry, ended, 7);
        assert!(expiry.counts(TimeWindow::Day, ended.unix_timestamp()));
        // Nothing of the result is in memory but its log position.
        assert_eq!(expiry.kept(), 0);
        let hour = ended.unix_timestamp().div_euclid(HOUR);
        assert_eq!(expiry.positions().get(&hour), Some(&vec![(1, 1)]));
        let one_second_early = NOW + Duration::hours(23) - Duration::seconds(1);
        assert!(log.expire(&mut expiry, one_second_early).is_empty());
        // Read ahead for the day's edge.
        assert_eq!(expiry.kept(), 1);
        assert_eq!(
            log.expire(&mut expiry, NOW + Duration::hours(23)),
            vec![(TimeWindow::Day, 7)]
        );
        assert_eq!(
            log.expire(&mut expiry, NOW + Duration::days(40)),
            vec![(TimeWindow::Week, 7), (TimeWindow::Month, 7)]
        );
        assert_eq!(expiry.kept(), 0);
        assert_eq!(
            log.expire(&mut expiry, NOW + Duration::days(400)),
            vec![(TimeWindow::Year, 7)]
        );
        assert_eq!(expiry.kept(), 0);
        assert!(expiry.positions().is_empty() && expiry.hours().is_empty());
    }

    #[test]
    fn an_edge_waits_before_an_hour_not_read_back() {
        let mut expiry = Expiry::new(NOW);
        let mut log = Log::default();
        let ended = NOW - Duration::hours(1);
        log.add(&mut expiry, ended, 7);
        let later = NOW + Duration::days(2);
        assert!(expiry.must_read_back(later));
        assert!(left_by(&mut expiry, later).is_empty());
        assert!(expiry.counts(TimeWindow::Day, ended.unix_timestamp()));
        let hour = ended.unix_timestamp().div_euclid(HOUR);
        assert_eq!(expiry.hours_to_read(later), vec![(hour, vec![(1, 1)])]);
        assert_eq!(log.expire(&mut expiry, later), vec![(TimeWindow::Day, 7)]);
        assert!(!expiry.must_read_back(later));
    }

    #[test]
    fn a_late_result_of_an_hour_read_back_leaves_with_it() {
        let mut expiry = Expiry::new(NOW);
        let mut log = Log::default();
        let ended = NOW - Duration::days(1) + Duration::minutes(30);
        log.add(&mut expiry, ended, 1);
        assert!(log.expire(&mut expiry, NOW).is_empty());
        assert_eq!(expiry.kept(), 1);
        // A result of that hour the log gains after it was read back.
        log.0.push((90_000, ended.unix_timestamp() + 1, pending(2)));
        expiry.remember(ended.unix_timestamp() + 1, 90_000, pending(2));
        let hour = ended.unix_timestamp().div_euclid(HOUR);
        assert_eq!(
            expiry.positions().get(&hour),
            Some(&vec![(1, 1), (90_000, 90_000)])
        );
        assert_eq!(
            log.expire(&mut expiry, NOW + Duration::hours(1)),
            vec![(TimeWindow::Day, 1), (TimeWindow::Day, 2)]
        );
    }

    #[test]
    fn memory_holds_only_the_hours_near_the_edges() {
        let mut expiry = Expiry::new(NOW);
        let mut log = Log::default();
        for minute in 0..(30 * 24 * 60) {
            log.add(&mut expiry, NOW - Duration::minutes(minute), minute as u32);
        }
        log.expire(&mut expiry, NOW);
        // Four edges, each with the hour it is in and the one after: at most 8 hours of 60.
        assert!(expiry.kept() <= 8 * 60, "{} kept", expiry.kept());
        assert!(expiry.hours().len() <= 8);
        let left = log.expire(&mut expiry, NOW + Duration::days(8));
        assert_eq!(
            left.iter()
                .filter(|(window, _)| *window == TimeWindow::Month)
                .count(),
            8 * 24 * 60
        );
        assert_eq!(
            left.iter()
                .filter(|(window, _)| *window == TimeWindow::Week)
                .count(),
            7 * 24 * 60
        );
        assert!(expiry.hours().len() <= 8);
    }

    #[test]
    fn a_clock_set_back_moves_no_edge() {
        let mut expiry = Expiry::new(NOW);
        let mut log = Log::default();
        log.add(&mut expiry, NOW - Duration::days(300), 4);
        log.add(&mut expiry, NOW - Duration::hours(1), 5);
        let earlier = NOW - Duration::days(3);
        assert!(expiry.hours_to_read(earlier).is_empty());
        assert!(!expiry.must_read_back(earlier));
        assert!(left_by(&mut expiry, earlier).is_empty());
        assert!(expiry.counts(TimeWindow::Day, (NOW - Duration::hours(1)).unix_timestamp()));
        assert_eq!(expiry.positions().len(), 2);
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

    #[test]
    fn an_older_snapshots_month_lists_are_left_to_be_read_back() {
        let hour = (NOW - Duration::hours(5)).unix_timestamp().div_euclid(HOUR);
        let read = hour - 10;
        let kept = Kept::new(hour * HOUR, &pending(1));
        let expiry = Expiry::from_parts(ExpiryParts {
            edges: Expiry::new(NOW).edges(),
            hours: BTreeMap::from([(hour, vec![kept]), (read, vec![kept])]),
            read_back: BTreeSet::from([read]),
            positions: BTreeMap::from([(hour, vec![(1, 1)]), (read, vec![(2, 2)])]),
        });
        assert_eq!(
            expiry.hours().keys().copied().collect::<Vec<_>>(),
            vec![read]
        );
    }
}
