//! Reward-type schedules: which claim keys a claim at a given time may take, and the status the
//! rewards list shows.
//!
//! Claims are rows keyed by account and claim key, unique in the database, so a schedule only
//! has to name the keys of the current period: `first` (once), `gift/2026-11-22T08` (every N
//! hours, periods counted from the Unix epoch), `recurring/2026-11-22/2` (the second of K claims
//! on a UTC day). A type's name is part of its keys: renaming a type in the content file starts
//! its schedule afresh.

use time::{Duration, OffsetDateTime, Time};

use crate::content::{RewardType, Schedule};

/// The claim keys open to one reward type at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimWindow {
    /// The keys a claim may take, in order; empty when the type is never claimable.
    pub keys: Vec<String>,
    /// When the next period opens, for timed types.
    pub next_period: Option<OffsetDateTime>,
}

impl ClaimWindow {
    /// The window of `reward_type` at `now`.
    pub fn at(reward_type: &RewardType, now: OffsetDateTime) -> Self {
        let name = &reward_type.name;
        match reward_type.schedule {
            Schedule::Once => Self {
                keys: vec![name.clone()],
                next_period: None,
            },
            Schedule::Never => Self {
                keys: Vec::new(),
                next_period: None,
            },
            Schedule::EveryHours(hours) => {
                let period = i64::from(hours) * 3600;
                let start = now.unix_timestamp().div_euclid(period) * period;
                let start = OffsetDateTime::from_unix_timestamp(start).unwrap_or(now);
                Self {
                    keys: vec![format!(
                        "{name}/{:04}-{:02}-{:02}T{:02}",
                        start.year(),
                        u8::from(start.month()),
                        start.day(),
                        start.hour()
                    )],
                    next_period: Some(start + Duration::hours(i64::from(hours))),
                }
            }
            Schedule::PerDay(times) => {
                let day = now.date();
                let keys = (1..=times)
                    .map(|ordinal| format!("{name}/{day}/{ordinal}"))
                    .collect();
                Self {
                    keys,
                    next_period: Some(
                        day.next_day()
                            .unwrap_or(day)
                            .with_time(Time::MIDNIGHT)
                            .assume_utc(),
                    ),
                }
            }
        }
    }
}

/// One line of `GET /api/user/{key}/rewards`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardStatus {
    /// Whether a claim now would be accepted by the schedule (and, for premium types, by the
    /// account's subscription).
    pub is_available: bool,
    /// When the type can next be claimed, for timed types that are claimed up for this period.
    pub next_at: Option<OffsetDateTime>,
    /// Claims taken in the current period.
    pub claimed: u32,
    /// Claims allowed per period.
    pub total: u32,
}

impl RewardStatus {
    /// The status of a type whose window is `window`, of which the keys `claimed` are taken;
    /// `eligible` is false for a premium type without a premium subscription.
    pub fn of(window: &ClaimWindow, claimed: &[String], eligible: bool) -> Self {
        let total = u32::try_from(window.keys.len()).unwrap_or(u32::MAX);
        let taken = window
            .keys
            .iter()
            .filter(|key| claimed.contains(key))
            .count();
        let taken = u32::try_from(taken).unwrap_or(u32::MAX);
        let open = taken < total;
        Self {
            is_available: open && eligible,
            next_at: if open { None } else { window.next_period },
            claimed: taken,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn reward_type(name: &str, schedule: Schedule) -> RewardType {
        RewardType {
            name: name.to_owned(),
            schedule,
            requires_premium: false,
            rewards: Vec::new(),
        }
    }

    #[test]
    fn every_hours_takes_the_period_of_now() {
        let gift = reward_type("gift", Schedule::EveryHours(4));
        let window = ClaimWindow::at(&gift, datetime!(2026-11-22 09:30 UTC));
        assert_eq!(window.keys, ["gift/2026-11-22T08"]);
        assert_eq!(window.next_period, Some(datetime!(2026-11-22 12:00 UTC)));
    }

    #[test]
    fn per_day_offers_each_ordinal_of_the_day() {
        let recurring = reward_type("recurring", Schedule::PerDay(3));
        let window = ClaimWindow::at(&recurring, datetime!(2026-11-22 23:59 UTC));
        assert_eq!(
            window.keys,
            [
                "recurring/2026-11-22/1",
                "recurring/2026-11-22/2",
                "recurring/2026-11-22/3"
            ]
        );
        assert_eq!(window.next_period, Some(datetime!(2026-11-23 00:00 UTC)));
        let status = RewardStatus::of(&window, &window.keys[..2], true);
        assert_eq!(
            (status.claimed, status.total, status.is_available),
            (2, 3, true)
        );
        let status = RewardStatus::of(&window, &window.keys, true);
        assert!(!status.is_available);
        assert_eq!(status.next_at, window.next_period);
    }

    #[test]
    fn never_is_never_available_and_once_is_one_key() {
        let never = ClaimWindow::at(
            &reward_type("coming_soon", Schedule::Never),
            datetime!(2026-11-22 0:00 UTC),
        );
        let status = RewardStatus::of(&never, &[], true);
        assert!(!status.is_available);
        assert_eq!(status.total, 0);
        let once = ClaimWindow::at(
            &reward_type("first", Schedule::Once),
            datetime!(2026-11-22 0:00 UTC),
        );
        assert_eq!(once.keys, ["first"]);
        assert!(!RewardStatus::of(&once, &["first".to_owned()], true).is_available);
        assert!(!RewardStatus::of(&once, &[], false).is_available);
    }
}
