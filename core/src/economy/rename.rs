//! Which digits a renamed friend code may take.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::domain::FriendCode;

/// Digits to offer for a new name, in order of preference: the current code's digits first (a
/// rename keeps them where that code is free), then every other value in random order, so that
/// a name is refused only when all 10,000 codes of it are taken.
pub fn digit_candidates<R: Rng + ?Sized>(current: &FriendCode, rng: &mut R) -> Vec<u16> {
    let kept = current.digits();
    let mut others: Vec<u16> = (0..=FriendCode::DIGITS_MAX)
        .filter(|digits| *digits != kept)
        .collect();
    others.shuffle(rng);
    std::iter::once(kept).chain(others).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_digits_first_and_offers_every_value_once() {
        let current = FriendCode::new("Sneeza", 42).unwrap();
        let candidates = digit_candidates(&current, &mut rand::rng());
        assert_eq!(candidates[0], 42);
        let mut sorted = candidates.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 10_000);
        assert_eq!(candidates.len(), 10_000);
    }
}
