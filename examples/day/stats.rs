//! What the day records: latencies in log-linear histograms, per request kind for the whole run
//! and per 10-second window, with the answers counted by class.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::kinds::{Class, Kind};

/// Latencies in microseconds, in buckets about 3% wide (exact below 64 µs).
#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self {
            counts: vec![0; 64 + 40 * 32],
            total: 0,
            max: 0,
        }
    }
}

impl Histogram {
    fn bucket(value: u64) -> usize {
        if value < 64 {
            return value as usize;
        }
        let exponent = 63 - u64::from(value.leading_zeros());
        let sub = (value >> (exponent - 5)) & 31;
        (64 + (exponent - 6) * 32 + sub) as usize
    }

    /// The largest value of bucket `index`.
    fn upper(index: usize) -> u64 {
        if index < 64 {
            return index as u64;
        }
        let exponent = (index - 64) as u64 / 32 + 6;
        let sub = (index - 64) as u64 % 32;
        ((32 + sub + 1) << (exponent - 5)) - 1
    }

    /// Records one latency.
    pub fn record(&mut self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        let index = Self::bucket(micros).min(self.counts.len() - 1);
        self.counts[index] += 1;
        self.total += 1;
        self.max = self.max.max(micros);
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &Self) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.total += other.total;
        self.max = self.max.max(other.max);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The `q` quantile (0 to 1) in milliseconds; 0 when empty.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (index, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return Self::upper(index).min(self.max) as f64 / 1000.0;
            }
        }
        self.max as f64 / 1000.0
    }

    /// The largest value, in milliseconds.
    pub fn max_ms(&self) -> f64 {
        self.max as f64 / 1000.0
    }
}

/// How one request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Answered with this status.
    Status(u16),
    /// No answer: the connection failed or closed (a node stopping).
    Transport,
}

/// One kind's answers.
#[derive(Clone, Default)]
pub struct Tally {
    /// Latencies of the answered requests.
    pub latency: Histogram,
    /// 2xx answers.
    pub ok: u64,
    /// 4xx answers, by status and code.
    pub refused: BTreeMap<String, u64>,
    /// 5xx answers, by status.
    pub server_errors: BTreeMap<u16, u64>,
    /// Requests with no answer.
    pub transport_errors: u64,
    /// Requests sent again to the other node after no answer (reads and writes with an
    /// idempotency key or match id only).
    pub retried: u64,
}

impl Tally {
    fn add(&mut self, outcome: Outcome, code: Option<&str>, latency: Duration) {
        match outcome {
            Outcome::Status(status) => {
                self.latency.record(latency);
                match status {
                    200..=299 => self.ok += 1,
                    500.. => *self.server_errors.entry(status).or_default() += 1,
                    _ => {
                        *self
                            .refused
                            .entry(format!("{status} {}", code.unwrap_or("-")))
                            .or_default() += 1;
                    }
                }
            }
            Outcome::Transport => self.transport_errors += 1,
        }
    }

    /// Requests sent (retries not counted twice).
    pub fn sent(&self) -> u64 {
        self.ok
            + self.refused.values().sum::<u64>()
            + self.server_errors_total()
            + self.transport_errors
    }

    /// 5xx answers.
    pub fn server_errors_total(&self) -> u64 {
        self.server_errors.values().sum()
    }
}

/// One 10-second window's answers, all kinds together by class.
#[derive(Clone, Default)]
pub struct Window {
    /// Latencies of the reads (player and operator).
    pub reads: Histogram,
    /// Latencies of the writes (player, game server, operator).
    pub writes: Histogram,
    /// Answers 5xx.
    pub server_errors: u64,
    /// Requests with no answer.
    pub transport_errors: u64,
    /// Answers 4xx.
    pub refused: u64,
}

/// Everything recorded: per kind for the measured run, and the window being filled.
#[derive(Default)]
pub struct Recorder {
    /// Per kind, since the measured run began.
    pub kinds: BTreeMap<Kind, Tally>,
    /// The current window.
    pub window: Window,
}

impl Recorder {
    /// Records one request of `kind`.
    pub fn record(&mut self, kind: Kind, outcome: Outcome, code: Option<&str>, latency: Duration) {
        self.kinds
            .entry(kind)
            .or_default()
            .add(outcome, code, latency);
        let window = &mut self.window;
        match outcome {
            Outcome::Status(status) => {
                match kind.class() {
                    Class::Read => window.reads.record(latency),
                    Class::Write => window.writes.record(latency),
                }
                match status {
                    500.. => window.server_errors += 1,
                    400..=499 => window.refused += 1,
                    _ => {}
                }
            }
            Outcome::Transport => window.transport_errors += 1,
        }
    }

    /// Counts a retry of `kind`.
    pub fn retried(&mut self, kind: Kind) {
        self.kinds.entry(kind).or_default().retried += 1;
    }

    /// Answers the window filled so far and starts the next.
    pub fn take_window(&mut self) -> Window {
        std::mem::take(&mut self.window)
    }

    /// Forgets everything (the seeding before the measured run).
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_the_buckets_width() {
        let mut histogram = Histogram::default();
        for micros in 1..=10_000 {
            histogram.record(Duration::from_micros(micros));
        }
        let p50 = histogram.quantile_ms(0.5);
        let p99 = histogram.quantile_ms(0.99);
        assert!((4.85..=5.2).contains(&p50), "{p50}");
        assert!((9.6..=10.0).contains(&p99), "{p99}");
        assert_eq!(histogram.max_ms(), 10.0);
    }
}
