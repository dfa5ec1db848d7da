//! A player's counters in one mode and window, and the scores the boards rank them by.

use super::kinds::Category;

/// Rounds a player needs in a mode and window to be ranked by a ratio (`winrate`,
/// `kills_per_round`).
pub const RATIO_MIN_ROUNDS: u32 = 10;

/// Ratios are kept and ranked in units of 1/10,000 (four decimal places).
pub const RATIO_SCALE: u64 = 10_000;

/// A player's sums over their results in one mode and window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Rounds played.
    pub rounds: u32,
    /// First places.
    pub wins: u32,
    /// Placements in the top ten.
    pub top10: u32,
    /// Kills.
    pub kills: u32,
    /// Seconds alive.
    pub time_alive: u64,
}

/// One result's contribution to [`Totals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contribution {
    /// Final placement (1 is a win).
    pub placement: u8,
    /// Kills.
    pub kills: u8,
    /// Seconds alive.
    pub time_alive: u32,
}

impl Totals {
    /// Adds one result.
    pub fn add(&mut self, result: Contribution) {
        self.rounds = self.rounds.saturating_add(1);
        self.wins = self.wins.saturating_add(u32::from(result.placement == 1));
        self.top10 = self.top10.saturating_add(u32::from(result.placement <= 10));
        self.kills = self.kills.saturating_add(u32::from(result.kills));
        self.time_alive = self.time_alive.saturating_add(u64::from(result.time_alive));
    }

    /// Takes one result away again (it left the window).
    pub fn remove(&mut self, result: Contribution) {
        self.rounds = self.rounds.saturating_sub(1);
        self.wins = self.wins.saturating_sub(u32::from(result.placement == 1));
        self.top10 = self.top10.saturating_sub(u32::from(result.placement <= 10));
        self.kills = self.kills.saturating_sub(u32::from(result.kills));
        self.time_alive = self.time_alive.saturating_sub(u64::from(result.time_alive));
    }

    /// Whether the player has played at all here.
    pub fn has_games(&self) -> bool {
        self.rounds > 0
    }

    /// The player's score on a board of `category`, or `None` when the player is not on it
    /// (no rounds, or fewer than [`RATIO_MIN_ROUNDS`] for a ratio).
    pub fn score(&self, category: Category) -> Option<u64> {
        if !self.has_games() || (category.is_ratio() && self.rounds < RATIO_MIN_ROUNDS) {
            return None;
        }
        Some(match category {
            Category::Wins => u64::from(self.wins),
            Category::Kills => u64::from(self.kills),
            Category::KillsPerRound => self.ratio(self.kills),
            Category::Winrate => self.ratio(self.wins),
            Category::TimeAlive => self.time_alive,
            Category::Rounds => u64::from(self.rounds),
            Category::Top10 => u64::from(self.top10),
        })
    }

    /// `count / rounds` in units of 1/[`RATIO_SCALE`], rounded half up; 0 without rounds.
    pub fn ratio(&self, count: u32) -> u64 {
        let rounds = u64::from(self.rounds);
        if rounds == 0 {
            return 0;
        }
        (u64::from(count) * RATIO_SCALE * 2 + rounds) / (rounds * 2)
    }

    /// `winrate` as shown: wins per round to four decimal places.
    pub fn winrate(&self) -> f64 {
        scaled(self.ratio(self.wins))
    }

    /// `kills_per_round` as shown: kills per round to four decimal places.
    pub fn kills_per_round(&self) -> f64 {
        scaled(self.ratio(self.kills))
    }
}

/// A ratio in units of 1/[`RATIO_SCALE`] as a number.
fn scaled(units: u64) -> f64 {
    // Ratios are at most 99 per round, far inside f64's exact integers.
    units as f64 / RATIO_SCALE as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(results: &[(u8, u8, u32)]) -> Totals {
        let mut totals = Totals::default();
        for (placement, kills, time_alive) in results {
            totals.add(Contribution {
                placement: *placement,
                kills: *kills,
                time_alive: *time_alive,
            });
        }
        totals
    }

    #[test]
    fn results_add_up_and_come_off_again() {
        let mut totals = played(&[(1, 3, 600), (7, 1, 300), (40, 0, 60)]);
        assert_eq!(
            totals,
            Totals {
                rounds: 3,
                wins: 1,
                top10: 2,
                kills: 4,
                time_alive: 960
            }
        );
        totals.remove(Contribution {
            placement: 7,
            kills: 1,
            time_alive: 300,
        });
        assert_eq!(totals, played(&[(1, 3, 600), (40, 0, 60)]));
    }

    #[test]
    fn ratios_round_half_up_to_four_places() {
        let mut results = vec![(1, 1, 10); 1];
        results.extend(vec![(2, 0, 10); 2]);
        let third = played(&results);
        assert_eq!(third.ratio(third.wins), 3333);
        assert_eq!(third.winrate(), 0.3333);
        let two_thirds = played(&[(1, 2, 1), (1, 0, 1), (5, 0, 1)]);
        assert_eq!(two_thirds.ratio(two_thirds.wins), 6667);
        assert_eq!(two_thirds.kills_per_round(), 0.6667);
        assert_eq!(Totals::default().ratio(0), 0);
    }

    #[test]
    fn ratio_boards_need_the_minimum_of_rounds() {
        let nine = played(&[(1, 1, 1); 9]);
        assert_eq!(nine.score(Category::Winrate), None);
        assert_eq!(nine.score(Category::KillsPerRound), None);
        assert_eq!(nine.score(Category::Wins), Some(9));
        let ten = played(&[(1, 1, 1); 10]);
        assert_eq!(ten.score(Category::Winrate), Some(RATIO_SCALE));
        assert_eq!(Totals::default().score(Category::Rounds), None);
    }
}
