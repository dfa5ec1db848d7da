//! The keys of the progress counters and once-only grants, shared by planning and views.

use crate::domain::{ChallengeId, EvolutionId, QuestId, TrackId};

/// The progress counter of a quest, also the claim key of its reward.
pub fn quest_counter(quest: QuestId) -> String {
    format!("quest/{}", quest.0)
}

/// The progress counter of a track challenge, also the claim key of its stars.
pub fn challenge_counter(challenge: ChallengeId) -> String {
    format!("challenge/{}", challenge.0)
}

/// The progress counter of an item evolution, also the claim key of its reward.
pub fn evolution_counter(evolution: EvolutionId) -> String {
    format!("evolution/{}", evolution.0)
}

/// A reward track's counter: `experience` or `stars`.
pub fn track_counter(track: TrackId, what: &str) -> String {
    format!("track/{}/{what}", track.0)
}

/// The claim key of a track tier's rewards.
pub(super) fn tier_claim(track: TrackId, tier: i64) -> String {
    format!("track/{}/tier/{tier}", track.0)
}

/// The track and tier of a tier's claim key (`track/<id>/tier/<tier>`), for the events a
/// change records.
pub fn tier_of_claim(key: &str) -> Option<(TrackId, i64)> {
    let rest = key.strip_prefix("track/")?;
    let (track, tier) = rest.split_once("/tier/")?;
    Some((TrackId(track.parse().ok()?), tier.parse().ok()?))
}

/// The claim key of a level's rewards.
pub(super) fn level_claim(level: i64) -> String {
    format!("level/{level}")
}
