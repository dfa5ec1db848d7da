//! Time windows that may repeat: a season, a deal or an event written once with `starts`, `ends`
//! and `repeat_weeks`, running again every that many weeks for as long as the server runs.

use time::{Duration, OffsetDateTime};
use toml::Spanned;

use super::ContentError;
use super::checks::Entry;

/// The most weeks between two runs of a repeating window (about ten years).
pub const MAX_REPEAT_WEEKS: i64 = 520;

/// What occurrence `n` of a repeating track adds to the ids of the track, its challenges and its
/// evolutions (so that each occurrence is a new pass with new progress); those ids are therefore
/// 1 to `OCCURRENCE_ID_STRIDE - 1`.
pub const OCCURRENCE_ID_STRIDE: i64 = 1_000_000;

/// A window of time, `starts` (included) to `ends` (excluded), that may run again every `every`:
/// occurrence `n` (counted from 0) runs from `starts + n * every` to `ends + n * every`.
/// Occurrences never overlap: `ends - starts` is at most `every`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recurrence {
    /// When the first occurrence starts.
    pub starts: OffsetDateTime,
    /// When the first occurrence ends; after `starts`.
    pub ends: OffsetDateTime,
    /// The time from one occurrence's start to the next's, if it repeats.
    pub every: Option<Duration>,
}

/// One run of a [`Recurrence`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// Which run it is: 0 for the first, as written in the file.
    pub number: i64,
    /// When it starts.
    pub starts: OffsetDateTime,
    /// When it ends; after `starts`.
    pub ends: OffsetDateTime,
}

impl Occurrence {
    /// Whether it runs at `now`: `starts <= now < ends`.
    pub fn is_running(&self, now: OffsetDateTime) -> bool {
        self.starts <= now && now < self.ends
    }
}

impl Recurrence {
    /// A window that runs once.
    pub fn once(starts: OffsetDateTime, ends: OffsetDateTime) -> Self {
        Self {
            starts,
            ends,
            every: None,
        }
    }

    /// Occurrence `number` (0 is the first); `None` for a number the window never reaches
    /// (above 0 when it does not repeat, or out of the calendar's range).
    pub fn occurrence(&self, number: i64) -> Option<Occurrence> {
        let shift = match (number, self.every) {
            (0, _) => Duration::ZERO,
            (1.., Some(every)) => every.checked_mul(i32::try_from(number).ok()?)?,
            _ => return None,
        };
        Some(Occurrence {
            number,
            starts: self.starts.checked_add(shift)?,
            ends: self.ends.checked_add(shift)?,
        })
    }

    /// The occurrence running at `now`, if any.
    pub fn running_at(&self, now: OffsetDateTime) -> Option<Occurrence> {
        self.latest_started(now)
            .filter(|occurrence| occurrence.is_running(now))
    }

    /// The occurrence running at `now`, or else the next one to start; `None` once the last
    /// has ended.
    pub fn current_or_next(&self, now: OffsetDateTime) -> Option<Occurrence> {
        match self.latest_started(now) {
            None => self.occurrence(0),
            Some(latest) if latest.ends > now => Some(latest),
            Some(latest) => self.occurrence(latest.number + 1),
        }
    }

    /// The last occurrence that started at or before `now`, if one did.
    fn latest_started(&self, now: OffsetDateTime) -> Option<Occurrence> {
        if now < self.starts {
            return None;
        }
        let number = match self.every {
            Some(every) => {
                let elapsed = (now - self.starts).whole_seconds();
                elapsed / every.whole_seconds().max(1)
            }
            None => 0,
        };
        self.occurrence(number)
    }
}

/// The window of an entry's `starts`, `ends` and optional `repeat_weeks` fields: `ends` after
/// `starts`, `repeat_weeks` 1 to [`MAX_REPEAT_WEEKS`] and no shorter than the window itself.
pub(super) fn validate(
    entry: &Entry<'_, '_>,
    starts: &Spanned<toml::value::Datetime>,
    ends: &Spanned<toml::value::Datetime>,
    repeat_weeks: Option<&Spanned<i64>>,
) -> Result<Recurrence, ContentError> {
    validate_named(entry, starts, (ends, "ends"), repeat_weeks)
}

/// [`validate`] for a window whose end is written in the field `ends.1` (`timer_ends`).
pub(super) fn validate_named(
    entry: &Entry<'_, '_>,
    starts: &Spanned<toml::value::Datetime>,
    (ends, ends_field): (&Spanned<toml::value::Datetime>, &str),
    repeat_weeks: Option<&Spanned<i64>>,
) -> Result<Recurrence, ContentError> {
    let (first_starts, first_ends) = (
        entry.instant(starts, "starts")?,
        entry.instant(ends, ends_field)?,
    );
    if first_ends <= first_starts {
        return Err(entry.error(
            ends.span(),
            ends_field,
            format!(
                "ends at {} before it starts at {}",
                ends.get_ref(),
                starts.get_ref()
            ),
        ));
    }
    let every = repeat_weeks
        .map(|weeks| repeat_every(entry, weeks, first_ends - first_starts))
        .transpose()?;
    Ok(Recurrence {
        starts: first_starts,
        ends: first_ends,
        every,
    })
}

/// `repeat_weeks` as a duration: 1 to [`MAX_REPEAT_WEEKS`] weeks, at least `length` (the
/// window's own length) so that two runs never overlap.
fn repeat_every(
    entry: &Entry<'_, '_>,
    weeks: &Spanned<i64>,
    length: Duration,
) -> Result<Duration, ContentError> {
    let every = Duration::weeks(entry.int(weeks, "repeat_weeks", 1..=MAX_REPEAT_WEEKS)?);
    if length > every {
        return Err(entry.error(
            weeks.span(),
            "repeat_weeks",
            format!(
                "a run lasts {} days, longer than the {} days between two runs: runs would \
                 overlap",
                length.whole_days(),
                every.whole_days()
            ),
        ));
    }
    Ok(every)
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn fortnightly() -> Recurrence {
        Recurrence {
            starts: datetime!(2026-11-02 00:00 UTC),
            ends: datetime!(2026-11-09 00:00 UTC),
            every: Some(Duration::weeks(2)),
        }
    }

    #[test]
    fn a_window_that_runs_once_runs_only_between_its_dates() {
        let once = Recurrence::once(
            datetime!(2026-11-02 00:00 UTC),
            datetime!(2026-11-09 00:00 UTC),
        );
        assert_eq!(once.running_at(datetime!(2026-11-01 23:59 UTC)), None);
        assert_eq!(
            once.running_at(datetime!(2026-11-02 00:00 UTC))
                .map(|run| run.number),
            Some(0)
        );
        assert_eq!(once.running_at(datetime!(2026-11-09 00:00 UTC)), None);
        assert_eq!(once.running_at(datetime!(2028-11-03 00:00 UTC)), None);
        assert_eq!(once.current_or_next(datetime!(2028-11-03 00:00 UTC)), None);
        assert_eq!(once.occurrence(1), None);
    }

    #[test]
    fn a_repeating_window_runs_again_every_period_and_rests_between_runs() {
        let window = fortnightly();
        let third = window
            .running_at(datetime!(2026-12-01 12:00 UTC))
            .expect("the third run");
        assert_eq!(third.number, 2);
        assert_eq!(third.starts, datetime!(2026-11-30 00:00 UTC));
        assert_eq!(third.ends, datetime!(2026-12-07 00:00 UTC));
        assert_eq!(window.running_at(datetime!(2026-12-08 00:00 UTC)), None);
        let next = window
            .current_or_next(datetime!(2026-12-08 00:00 UTC))
            .expect("the fourth run");
        assert_eq!(next.number, 3);
        assert_eq!(next.starts, datetime!(2026-12-14 00:00 UTC));
    }

    #[test]
    fn before_the_first_run_the_next_is_the_first() {
        let window = fortnightly();
        assert_eq!(window.running_at(datetime!(2026-10-01 00:00 UTC)), None);
        assert_eq!(
            window
                .current_or_next(datetime!(2026-10-01 00:00 UTC))
                .map(|run| run.number),
            Some(0)
        );
    }

    #[test]
    fn a_window_as_long_as_its_period_runs_on_every_date_for_years() {
        let always = Recurrence {
            starts: datetime!(2026-11-02 00:00 UTC),
            ends: datetime!(2026-11-16 00:00 UTC),
            every: Some(Duration::weeks(2)),
        };
        let mut now = datetime!(2026-11-02 00:00 UTC);
        while now < datetime!(2036-11-02 00:00 UTC) {
            let run = always.running_at(now).expect("a run at every date");
            assert!(run.starts <= now && now < run.ends);
            now += Duration::hours(37);
        }
    }
}
