//! A player's statistics from one match: those stored per mode and hour, and the wider set that
//! quests and challenges count.

use std::collections::BTreeMap;

use crate::domain::GameMode;

/// The statistics every match counts, besides the game's named counters.
pub const STANDARD_STATS: [&str; 5] = ["rounds", "wins", "top10", "kills", "time_alive"];

/// The statistics stored for a player's match: `rounds` 1, `wins` 1 for first place, `top10`
/// 1 for places 1 to 10, `kills`, `time_alive` (seconds), then the named counters. Zero values
/// are left out.
pub fn stored_stats(
    placement: i64,
    kills: i64,
    time_alive_secs: i64,
    named: &BTreeMap<String, i64>,
) -> BTreeMap<String, i64> {
    let standard = [
        ("rounds", 1),
        ("wins", i64::from(placement == 1)),
        ("top10", i64::from(placement <= 10)),
        ("kills", kills),
        ("time_alive", time_alive_secs),
    ];
    standard
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .chain(named.iter().map(|(key, value)| (key.clone(), *value)))
        .filter(|(_, value)| *value > 0)
        .collect()
}

/// What quests, challenges and evolutions count: the stored statistics plus, per mode,
/// `mode_games_{mode}`, `mode_wins_{mode}`, `mode_top10_{mode}` and `mode_kills_{mode}`.
pub fn progress_stats(mode: GameMode, stored: &BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    let mut all = stored.clone();
    for (stat, mode_stat) in [
        ("rounds", "games"),
        ("wins", "wins"),
        ("top10", "top10"),
        ("kills", "kills"),
    ] {
        if let Some(value) = stored.get(stat) {
            all.insert(format!("mode_{mode_stat}_{}", mode.as_str()), *value);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_counts_every_standard_stat_and_the_mode_ones() {
        let named = BTreeMap::from([("damage".to_owned(), 1200), ("chests".to_owned(), 0)]);
        let stored = stored_stats(1, 3, 600, &named);
        assert_eq!(
            stored,
            BTreeMap::from([
                ("damage".to_owned(), 1200),
                ("kills".to_owned(), 3),
                ("rounds".to_owned(), 1),
                ("time_alive".to_owned(), 600),
                ("top10".to_owned(), 1),
                ("wins".to_owned(), 1),
            ])
        );
        let all = progress_stats(GameMode::parse("squad").expect("a mode"), &stored);
        assert_eq!(all["mode_games_squad"], 1);
        assert_eq!(all["mode_wins_squad"], 1);
        assert_eq!(all["mode_kills_squad"], 3);
        assert!(!all.contains_key("mode_games_solo"));
    }

    #[test]
    fn a_late_death_without_kills_counts_only_the_round() {
        let stored = stored_stats(40, 0, 0, &BTreeMap::new());
        assert_eq!(stored, BTreeMap::from([("rounds".to_owned(), 1)]));
    }
}
