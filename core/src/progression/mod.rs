//! Progression's rules: what a finished match gives each player (statistics, experience and
//! levels, quest, challenge and evolution progress, reward-track stars and tiers), what
//! buying or skipping a reward track does, and the levels any change's experience reaches. Each function plans the steps of a
//! [`Change`](crate::store::Change) from the account's [`Progress`](crate::store::Progress);
//! the plan requires that progress unchanged when the store applies it, so a grant can never
//! be counted twice. Nothing here reads or writes the database.

mod counters;
mod levels;
mod match_plan;
mod match_report;
mod stats;
mod track_plan;

#[cfg(test)]
mod plan_tests;

pub use counters::{
    challenge_counter, evolution_counter, quest_counter, tier_of_claim, track_counter,
};
pub use levels::{Levels, experience_of, plan_levels, with_levels};
pub use match_plan::{PlayerSummary, QuestStep, TrackStep, plan_player};
pub use match_report::{
    KILLS_MAX, MATCH_DURATION_MAX_SECS, MATCH_PLAYERS_MAX, MatchReport, MatchReportBody,
    PlacedPlayer, PlayerRef, ReportError, STAT_KEYS_MAX, STAT_VALUE_MAX,
};
pub use stats::{STANDARD_STATS, progress_stats, stored_stats};
pub use track_plan::{TrackRefusal, plan_track_buy, plan_track_skip};
