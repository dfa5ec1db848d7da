//! A game server's match report as it arrives, and the checks that make it a [`MatchReport`].

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::Deserialize;
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};
use utoipa::ToSchema;

use super::STANDARD_STATS;
use crate::content::GameModes;
use crate::domain::{GameMode, UserKey};
use crate::store::{AccountId, MATCH_ID_MAX_CHARS, MatchId};

/// The most players one report may hold.
pub const MATCH_PLAYERS_MAX: usize = 100;

/// The most kills one player can make in a match (everyone else).
pub const KILLS_MAX: i64 = MATCH_PLAYERS_MAX as i64 - 1;

/// The longest a match may last.
pub const MATCH_DURATION_MAX_SECS: i64 = 6 * 3600;

/// The most named counters per player.
pub const STAT_KEYS_MAX: usize = 32;

/// The largest value of a named counter in one match.
pub const STAT_VALUE_MAX: i64 = 1_000_000_000;

/// How far in the future a match may end (clock skew between game server and Safezone).
const CLOCK_SKEW: Duration = Duration::minutes(5);

/// How old a match may be when reported.
const REPORT_AGE_MAX: Duration = Duration::days(7);

/// The report as the game server sends it (`POST /internal/matches`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MatchReportBody {
    /// The game server's id for the match: 1 to 64 letters, digits, `-`, `_`, `.` or `:`. A
    /// repeated id changes nothing and answers the first report's result.
    #[schema(pattern = "^[A-Za-z0-9._:-]{1,64}$")]
    match_id: String,
    /// The mode it was played in: one the content names (`[[modes]]`).
    #[schema(value_type = GameMode)]
    mode: String,
    /// When it started (RFC 3339).
    #[schema(format = DateTime)]
    started_at: String,
    /// When it ended (RFC 3339): after `startedAt`, at most 6 hours later, at most 7 days ago
    /// and not in the future.
    #[schema(format = DateTime)]
    ended_at: String,
    /// Every player's result, one line per account.
    #[schema(min_items = 1, max_items = 100)]
    players: Vec<PlayerBody>,
}

/// One player's line of the report: the account by id or by user key (exactly one of the
/// two), and the result.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlayerBody {
    /// The player's account id (or send `userKey`).
    #[schema(minimum = 1)]
    account_id: Option<i64>,
    /// One of the player's user keys (or send `accountId`).
    #[schema(pattern = "^[0-9a-f]{48}$")]
    user_key: Option<String>,
    /// Final placement.
    #[schema(minimum = 1, maximum = 100)]
    placement: i64,
    /// Kills.
    #[schema(minimum = 0, maximum = 99)]
    kills: i64,
    /// Seconds alive, at most the match's duration.
    #[schema(minimum = 0, maximum = 21600)]
    time_alive: i64,
    /// The game's own named counters: at most 32, keys of 1 to 64 of `a-z`, `0-9` and `_`
    /// (not a counter Safezone counts itself, nor `mode_...`), values 0 to 1000000000.
    #[serde(default)]
    stats: BTreeMap<String, i64>,
}

/// Which account a report's player is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PlayerRef {
    /// By account id.
    Account(AccountId),
    /// By one of the account's user keys.
    Key(UserKey),
}

/// A checked player's result, before the account is looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedPlayer {
    /// Who.
    pub player: PlayerRef,
    /// Final placement (1 to [`MATCH_PLAYERS_MAX`]).
    pub placement: i64,
    /// Kills (0 to [`KILLS_MAX`]).
    pub kills: i64,
    /// Seconds alive (0 to the match's duration).
    pub time_alive_secs: i64,
    /// The game's named counters.
    pub stats: BTreeMap<String, i64>,
}

/// A checked match report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchReport {
    /// The game server's match id.
    pub id: MatchId,
    /// The mode.
    pub mode: GameMode,
    /// When it started.
    pub started: OffsetDateTime,
    /// When it ended.
    pub ended: OffsetDateTime,
    /// The players, in report order.
    pub players: Vec<PlacedPlayer>,
}

/// What is wrong with a report: the field (`players[3].kills`) and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportError {
    /// The field, as a path into the body.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.field, self.problem)
    }
}

fn wrong(field: impl Into<String>, problem: impl Into<String>) -> ReportError {
    ReportError {
        field: field.into(),
        problem: problem.into(),
    }
}

impl MatchReportBody {
    /// The report's match id, if it is a valid one (before the rest is checked).
    pub fn match_id(&self) -> Option<MatchId> {
        MatchId::parse(&self.match_id)
    }

    /// Checks every field of the report received at `now`, its mode among the content's
    /// `modes`.
    pub fn check(self, now: OffsetDateTime, modes: &GameModes) -> Result<MatchReport, ReportError> {
        let id = MatchId::parse(&self.match_id).ok_or_else(|| {
            wrong(
                "matchId",
                format!("must be 1 to {MATCH_ID_MAX_CHARS} letters, digits, `-`, `_`, `.` or `:`"),
            )
        })?;
        let mode = GameMode::parse(&self.mode)
            .filter(|mode| modes.has(*mode))
            .ok_or_else(|| wrong("mode", modes.unknown_mode()))?;
        let started = time_field("startedAt", &self.started_at)?;
        let ended = time_field("endedAt", &self.ended_at)?;
        let duration = (ended - started).whole_seconds();
        if ended <= started {
            return Err(wrong("endedAt", "must be after `startedAt`"));
        }
        if duration > MATCH_DURATION_MAX_SECS {
            return Err(wrong(
                "endedAt",
                format!("is more than {MATCH_DURATION_MAX_SECS} seconds after `startedAt`"),
            ));
        }
        if ended > now + CLOCK_SKEW {
            return Err(wrong("endedAt", "is in the future"));
        }
        if ended < now - REPORT_AGE_MAX {
            return Err(wrong(
                "endedAt",
                "is more than 7 days ago; such old matches are not accepted",
            ));
        }
        if self.players.is_empty() || self.players.len() > MATCH_PLAYERS_MAX {
            return Err(wrong(
                "players",
                format!("must hold 1 to {MATCH_PLAYERS_MAX} players"),
            ));
        }
        let mut seen: HashMap<PlayerRef, usize> = HashMap::new();
        let mut players = Vec::with_capacity(self.players.len());
        for (index, body) in self.players.into_iter().enumerate() {
            let player = body.check(index, duration)?;
            if let Some(first) = seen.insert(player.player.clone(), index) {
                return Err(wrong(
                    format!("players[{index}]"),
                    format!("is the same player as `players[{first}]`"),
                ));
            }
            players.push(player);
        }
        Ok(MatchReport {
            id,
            mode,
            started,
            ended,
            players,
        })
    }
}

impl PlayerBody {
    fn check(self, index: usize, duration: i64) -> Result<PlacedPlayer, ReportError> {
        let field = |name: &str| format!("players[{index}].{name}");
        let player = match (self.account_id, self.user_key) {
            (Some(id), None) if id >= 1 => PlayerRef::Account(AccountId(id)),
            (Some(_), None) => return Err(wrong(field("accountId"), "must be at least 1")),
            (None, Some(key)) => PlayerRef::Key(UserKey::parse(&key).ok_or_else(|| {
                wrong(
                    field("userKey"),
                    "must be 48 lower-case hexadecimal characters",
                )
            })?),
            _ => {
                return Err(wrong(
                    format!("players[{index}]"),
                    "needs exactly one of `accountId` and `userKey`",
                ));
            }
        };
        in_range(
            &field("placement"),
            self.placement,
            1,
            MATCH_PLAYERS_MAX as i64,
        )?;
        in_range(&field("kills"), self.kills, 0, KILLS_MAX)?;
        in_range(&field("timeAlive"), self.time_alive, 0, duration)?;
        if self.stats.len() > STAT_KEYS_MAX {
            return Err(wrong(
                field("stats"),
                format!("holds more than {STAT_KEYS_MAX} counters"),
            ));
        }
        for (key, value) in &self.stats {
            let valid = (1..=64).contains(&key.len())
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !valid {
                return Err(wrong(
                    field("stats"),
                    format!("key `{key}` must be 1 to 64 of a-z, 0-9 and `_`"),
                ));
            }
            if STANDARD_STATS.contains(&key.as_str()) || key.starts_with("mode_") {
                return Err(wrong(
                    field("stats"),
                    format!(
                        "key `{key}` is counted by Safezone itself; report placement, kills \
                         and timeAlive instead"
                    ),
                ));
            }
            in_range(
                &format!("{}.{key}", field("stats")),
                *value,
                0,
                STAT_VALUE_MAX,
            )?;
        }
        Ok(PlacedPlayer {
            player,
            placement: self.placement,
            kills: self.kills,
            time_alive_secs: self.time_alive,
            stats: self.stats,
        })
    }
}

fn in_range(field: &str, value: i64, min: i64, max: i64) -> Result<(), ReportError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(wrong(
            field,
            format!("must be {min} to {max}; it is {value}"),
        ))
    }
}

fn time_field(field: &str, text: &str) -> Result<OffsetDateTime, ReportError> {
    OffsetDateTime::parse(text, &Rfc3339)
        .map(|time| time.to_offset(time::UtcOffset::UTC))
        .map_err(|_| {
            wrong(
                field,
                "must be an RFC 3339 time such as 2026-11-22T10:00:00Z",
            )
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

    fn body(players: serde_json::Value) -> serde_json::Value {
        json!({
            "matchId": "eu-1:42",
            "mode": "squad",
            "startedAt": "2026-11-22T11:00:00Z",
            "endedAt": "2026-11-22T11:20:00+00:00",
            "players": players,
        })
    }

    fn check(value: serde_json::Value) -> Result<MatchReport, ReportError> {
        serde_json::from_value::<MatchReportBody>(value)
            .expect("parses")
            .check(NOW, &crate::content::Content::shipped().modes)
    }

    fn field_of(value: serde_json::Value) -> String {
        check(value).expect_err("refused").field
    }

    #[test]
    fn a_good_report_is_checked() {
        let report = check(body(json!([
            {"accountId": 3, "placement": 1, "kills": 4, "timeAlive": 1200, "stats": {"damage": 900}},
            {"userKey": "ab".repeat(24), "placement": 2, "kills": 0, "timeAlive": 30},
        ])))
        .expect("valid");
        assert_eq!(report.mode.as_str(), "squad");
        assert_eq!(report.players.len(), 2);
        assert_eq!(report.players[0].player, PlayerRef::Account(AccountId(3)));
        assert_eq!(report.ended, datetime!(2026-11-22 11:20 UTC));
    }

    #[test]
    fn every_bad_field_is_named() {
        let player = |extra: serde_json::Value| {
            let mut base = json!({"accountId": 3, "placement": 1, "kills": 0, "timeAlive": 10});
            if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
                base.extend(extra.clone());
            }
            body(json!([base]))
        };
        assert_eq!(
            field_of(player(json!({"placement": 0}))),
            "players[0].placement"
        );
        assert_eq!(field_of(player(json!({"kills": -1}))), "players[0].kills");
        assert_eq!(field_of(player(json!({"kills": 100}))), "players[0].kills");
        assert_eq!(
            field_of(player(json!({"timeAlive": 1201}))),
            "players[0].timeAlive"
        );
        assert_eq!(
            field_of(player(json!({"accountId": 0}))),
            "players[0].accountId"
        );
        assert_eq!(
            field_of(player(json!({"userKey": "ab".repeat(24)}))),
            "players[0]"
        );
        assert_eq!(
            field_of(player(json!({"stats": {"Damage": 1}}))),
            "players[0].stats"
        );
        assert_eq!(
            field_of(player(json!({"stats": {"kills": 1}}))),
            "players[0].stats"
        );
        assert_eq!(
            field_of(player(json!({"stats": {"damage": -5}}))),
            "players[0].stats.damage"
        );
        let mut reversed = player(json!({}));
        reversed["endedAt"] = json!("2026-11-22T10:59:00Z");
        assert_eq!(field_of(reversed), "endedAt");
        let mut future = player(json!({}));
        future["endedAt"] = json!("2026-11-22T12:30:00Z");
        assert_eq!(field_of(future), "endedAt");
        let mut mode = player(json!({}));
        mode["mode"] = json!("trios");
        assert_eq!(field_of(mode), "mode");
        let mut id = player(json!({}));
        id["matchId"] = json!("has space");
        assert_eq!(field_of(id), "matchId");
        assert_eq!(field_of(body(json!([]))), "players");
    }

    #[test]
    fn a_player_reported_twice_is_refused() {
        let twice = body(json!([
            {"accountId": 3, "placement": 1, "kills": 0, "timeAlive": 10},
            {"accountId": 3, "placement": 2, "kills": 0, "timeAlive": 10},
        ]));
        let error = check(twice).expect_err("refused");
        assert_eq!(error.field, "players[1]");
        assert!(error.problem.contains("players[0]"), "{error}");
    }
}
