//! The value axis: from 0 to a round top, with a few round ticks.

/// The value axis of values up to `max`: its ticks from 0 up, evenly spaced by 1, 2 or 5 times
/// a power of ten, the last at or above `max` (at least 1), about `wanted` of them past 0.
pub(super) fn ticks(max: i64, wanted: i64) -> Vec<i64> {
    let max = max.max(1);
    let rough = (max / wanted.max(1)).max(1);
    let mut power = 1_i64;
    while power.saturating_mul(10) <= rough {
        power *= 10;
    }
    let step = [1, 2, 5, 10]
        .into_iter()
        .map(|factor| power.saturating_mul(factor))
        .find(|step| step.saturating_mul(wanted) >= max)
        .unwrap_or(power.saturating_mul(10));
    let count = max.saturating_add(step - 1) / step;
    (0..=count)
        .map(|index| index.saturating_mul(step))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(0, 4), [0, 1]);
        assert_eq!(ticks(3, 4), [0, 1, 2, 3]);
        assert_eq!(ticks(7, 4), [0, 2, 4, 6, 8]);
        assert_eq!(ticks(100, 4), [0, 50, 100]);
        assert_eq!(ticks(1_234, 4), [0, 500, 1_000, 1_500]);
        assert_eq!(ticks(98_765, 4), [0, 50_000, 100_000]);
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let top = *ticks(i64::MAX, 4).last().expect("ticks");
        assert!(top > 0);
    }
}
