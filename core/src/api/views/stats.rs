//! A player's counters in one mode and window, on the boards and in the profile.

use serde::Serialize;
use utoipa::ToSchema;

use crate::leaderboard::Totals;

/// `{rounds, wins, top10, winrate, kills, kills_per_round, time_alive}`: the counters of a
/// player in one mode and window, ratios to four decimal places.
#[derive(Serialize, ToSchema)]
pub(crate) struct StatsView {
    /// Matches played.
    rounds: u32,
    /// First places.
    wins: u32,
    /// Placements in the top ten.
    top10: u32,
    /// Wins per round.
    #[schema(minimum = 0, maximum = 1)]
    winrate: f64,
    kills: u32,
    #[schema(minimum = 0)]
    kills_per_round: f64,
    /// Seconds alive.
    time_alive: u64,
}

impl StatsView {
    /// The wire shape of `totals`.
    pub(crate) fn new(totals: &Totals) -> Self {
        Self {
            rounds: totals.rounds,
            wins: totals.wins,
            top10: totals.top10,
            winrate: totals.winrate(),
            kills: totals.kills,
            kills_per_round: totals.kills_per_round(),
            time_alive: totals.time_alive,
        }
    }
}
