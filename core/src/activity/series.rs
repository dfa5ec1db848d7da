//! A metric's stored sums laid out bucket by bucket, zeros included: what a chart draws.

use std::collections::BTreeMap;

use time::{OffsetDateTime, Time};

use crate::store::{ActivityPoint, Bucket};

/// The buckets of a window and each subject's value in every one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    /// Each bucket's start, oldest first.
    pub starts: Vec<OffsetDateTime>,
    /// Each subject (by name) and its value per bucket, as many as `starts`.
    pub subjects: Vec<(String, Vec<i64>)>,
}

impl Series {
    /// `points` (of buckets of `bucket`'s width) laid out over the `count` buckets starting at
    /// `from` (a bucket's start), a bucket and subject without a point counting 0; points
    /// outside are left out.
    ///
    /// ```
    /// use safezone_core::activity::Series;
    /// use safezone_core::store::{ActivityPoint, Bucket};
    /// use time::macros::datetime;
    ///
    /// let from = datetime!(2026-11-23 10:00 UTC);
    /// let point = ActivityPoint { start: datetime!(2026-11-23 11:00 UTC), subject: String::new(), value: 4 };
    /// let series = Series::zero_filled(&[point], Bucket::Hour, from, 3);
    /// assert_eq!(series.subjects, [(String::new(), vec![0, 4, 0])]);
    /// assert_eq!(series.totals(), [0, 4, 0]);
    /// ```
    pub fn zero_filled(
        points: &[ActivityPoint],
        bucket: Bucket,
        from: OffsetDateTime,
        count: usize,
    ) -> Self {
        let width = bucket.length();
        let starts: Vec<OffsetDateTime> = (0..count)
            .map(|index| from + width * i32::try_from(index).unwrap_or(i32::MAX))
            .collect();
        let mut subjects: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
        for point in points {
            let offset = (point.start - from).whole_seconds();
            let width_secs = width.whole_seconds();
            if offset < 0 || offset % width_secs != 0 {
                continue;
            }
            let Some(index) = usize::try_from(offset / width_secs)
                .ok()
                .filter(|index| *index < count)
            else {
                continue;
            };
            subjects
                .entry(point.subject.as_str())
                .or_insert_with(|| vec![0; count])[index] += point.value;
        }
        Self {
            starts,
            subjects: subjects
                .into_iter()
                .map(|(subject, values)| (subject.to_owned(), values))
                .collect(),
        }
    }

    /// Every subject's values added up, bucket by bucket.
    pub fn totals(&self) -> Vec<i64> {
        let mut totals = vec![0; self.starts.len()];
        for (_, values) in &self.subjects {
            for (total, value) in totals.iter_mut().zip(values) {
                *total += value;
            }
        }
        totals
    }
}

/// The `count` buckets of `bucket`'s width ending with the one holding `now`: the first one's
/// start and the end of the last (what [`ActivityStore::activity`] reads).
///
/// ```
/// use safezone_core::activity::window;
/// use safezone_core::store::Bucket;
/// use time::macros::datetime;
///
/// let (from, until) = window(Bucket::Hour, 48, datetime!(2026-11-23 12:34 UTC));
/// assert_eq!(from, datetime!(2026-11-21 13:00 UTC));
/// assert_eq!(until, datetime!(2026-11-23 13:00 UTC));
/// ```
///
/// [`ActivityStore::activity`]: crate::store::ActivityStore::activity
pub fn window(bucket: Bucket, count: u16, now: OffsetDateTime) -> (OffsetDateTime, OffsetDateTime) {
    let now = now.to_offset(time::UtcOffset::UTC);
    let current = match bucket {
        Bucket::Hour => {
            now.replace_time(Time::from_hms(now.hour(), 0, 0).unwrap_or(Time::MIDNIGHT))
        }
        Bucket::Day => now.replace_time(Time::MIDNIGHT),
    };
    let width = bucket.length();
    let from = current - width * i32::from(count.saturating_sub(1));
    (from, current + width)
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn point(start: OffsetDateTime, subject: &str, value: i64) -> ActivityPoint {
        ActivityPoint {
            start,
            subject: subject.to_owned(),
            value,
        }
    }

    #[test]
    fn every_subject_gets_a_value_in_every_bucket() {
        let (from, _) = window(Bucket::Day, 3, datetime!(2026-11-23 08:00 UTC));
        assert_eq!(from, datetime!(2026-11-21 00:00 UTC));
        let points = [
            point(datetime!(2026-11-21 00:00 UTC), "item:7", 2),
            point(datetime!(2026-11-23 00:00 UTC), "item:7", 1),
            point(datetime!(2026-11-22 00:00 UTC), "pack:3", 5),
            point(datetime!(2026-11-24 00:00 UTC), "pack:3", 9),
            point(datetime!(2026-11-20 00:00 UTC), "pack:3", 9),
        ];
        let series = Series::zero_filled(&points, Bucket::Day, from, 3);
        assert_eq!(series.starts.len(), 3);
        assert_eq!(
            series.subjects,
            [
                ("item:7".to_owned(), vec![2, 0, 1]),
                ("pack:3".to_owned(), vec![0, 5, 0])
            ]
        );
        assert_eq!(series.totals(), [2, 5, 1]);
    }

    #[test]
    fn no_point_is_all_zeros_with_no_subject() {
        let from = datetime!(2026-11-23 00:00 UTC);
        let series = Series::zero_filled(&[], Bucket::Hour, from, 48);
        assert_eq!(series.starts.len(), 48);
        assert!(series.subjects.is_empty());
        assert_eq!(series.totals(), vec![0; 48]);
    }
}
