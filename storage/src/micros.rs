//! Times as stored: BIGINT unix microseconds in both databases.

use safezone_core::store::StoreError;
use time::OffsetDateTime;

/// The time in whole unix microseconds (rounded down), saturating at the ends of `i64`.
pub(crate) fn to_micros(time: OffsetDateTime) -> i64 {
    let micros = time.unix_timestamp_nanos().div_euclid(1_000);
    i64::try_from(micros).unwrap_or(if micros < 0 { i64::MIN } else { i64::MAX })
}

/// A stored time back; a value outside the representable range is corrupt data.
pub(crate) fn from_micros(micros: i64) -> Result<OffsetDateTime, StoreError> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
        .map_err(|err| StoreError::Internal(format!("stored time {micros} µs: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn round_trips_whole_microseconds() {
        let time = datetime!(2026-11-22 08:00:00.123456 UTC);
        assert_eq!(from_micros(to_micros(time)).ok(), Some(time));
    }

    #[test]
    fn rounds_down_below_a_microsecond() {
        let time = datetime!(1969-12-31 23:59:59.999999999 UTC);
        assert_eq!(to_micros(time), -1);
    }

    #[test]
    fn rejects_out_of_range_values() {
        assert!(from_micros(i64::MAX).is_err());
    }
}
