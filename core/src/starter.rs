//! The starter community: on a fresh database, a running poll and an upcoming tournament, so
//! that a new server looks alive to its first players. The server binaries seed it at start
//! unless the operator turns it off (`--no-starter-community`); operators create their own
//! polls and tournaments with the admin commands beside it.
//!
//! It is seeded once per database, however many nodes start at once: the tournament
//! [`STARTER_TOURNAMENT`] is created first, and only the node whose creation succeeded creates
//! the poll (the store refuses a second tournament with one code).

use time::{Duration, OffsetDateTime};

use crate::content::{GameModes, ModeRule};
use crate::store::{NewPoll, NewPollOption, NewTournament, Store, StoreError, TournamentCode};

/// The code of the starter tournament, also the mark that the community was seeded.
pub const STARTER_TOURNAMENT: &str = "WELCOME-CUP";

/// What [`seed`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeded {
    /// The poll and the tournament were created.
    Created,
    /// The database had them already (another node, or an earlier start).
    AlreadyThere,
}

/// Creates the starter tournament (joining opens a day after `now`, for a week, 100 places, in
/// the mode of `modes` with the largest teams, the first of them: squad in the shipped content)
/// and, when it was new, a poll open for two weeks from `now`.
pub async fn seed(
    store: &dyn Store,
    modes: &GameModes,
    now: OffsetDateTime,
) -> Result<Seeded, StoreError> {
    let mode = modes
        .modes()
        .iter()
        .fold(None, |widest: Option<&ModeRule>, rule| match widest {
            Some(widest) if widest.team_size >= rule.team_size => Some(widest),
            _ => Some(rule),
        })
        .map_or_else(|| modes.first(), |rule| rule.mode);
    let code = TournamentCode::parse(STARTER_TOURNAMENT)
        .unwrap_or_else(|problem| unreachable!("the starter code {problem}"));
    let created = store
        .create_tournament(
            NewTournament {
                code,
                mode,
                opens: now + Duration::days(1),
                closes: now + Duration::days(8),
                capacity: 100,
                whitelist_only: false,
                now,
            },
            None,
        )
        .await?;
    if !created {
        return Ok(Seeded::AlreadyThere);
    }
    let option = |name: &str, color_code: &str| NewPollOption {
        name: name.to_owned(),
        color_code: color_code.to_owned(),
    };
    store
        .create_poll(
            NewPoll {
                question: "Where should the next storm hit?".to_owned(),
                options: vec![
                    option("Frozen harbour", "#6fb7e0"),
                    option("Desert canyon", "#e0a95f"),
                    option("Jungle ruins", "#3f9e55"),
                ],
                opens: now,
                closes: now + Duration::days(14),
                now,
            },
            None,
        )
        .await?;
    Ok(Seeded::Created)
}
