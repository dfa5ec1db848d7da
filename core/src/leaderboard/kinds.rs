//! The three coordinates of a board: mode (a [`GameMode`]), time window and category.

use serde::Serialize;
use time::Duration;

use crate::domain::GameMode;

/// A rolling time window: the results whose match ended less than its length ago.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TimeWindow {
    /// The last 24 hours.
    #[serde(rename = "24h")]
    Day,
    /// The last 7 days.
    #[serde(rename = "7d")]
    Week,
    /// The last 30 days.
    #[serde(rename = "1m")]
    Month,
    /// The last 365 days.
    #[serde(rename = "1y")]
    Year,
    /// All time.
    #[serde(rename = "all")]
    All,
}

impl TimeWindow {
    /// Every window, shortest first (the order of the index's arrays).
    pub const ALL: [Self; 5] = [Self::Day, Self::Week, Self::Month, Self::Year, Self::All];

    /// The window named `24h`, `7d`, `1m`, `1y` or `all`.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|window| window.as_str() == text)
    }

    /// The window's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Day => "24h",
            Self::Week => "7d",
            Self::Month => "1m",
            Self::Year => "1y",
            Self::All => "all",
        }
    }

    /// How far back the window reaches; `None` for all time.
    pub fn length(self) -> Option<Duration> {
        match self {
            Self::Day => Some(Duration::hours(24)),
            Self::Week => Some(Duration::days(7)),
            Self::Month => Some(Duration::days(30)),
            Self::Year => Some(Duration::days(365)),
            Self::All => None,
        }
    }

    /// The window's position in [`TimeWindow::ALL`].
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// What a board ranks players by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// First places.
    Wins,
    /// Kills.
    Kills,
    /// Kills per round, rounded to four decimal places.
    KillsPerRound,
    /// Wins per round, rounded to four decimal places.
    Winrate,
    /// Seconds alive.
    TimeAlive,
    /// Rounds played.
    Rounds,
    /// Placements in the top ten.
    Top10,
}

impl Category {
    /// Every category (the order of the index's arrays).
    pub const ALL: [Self; 7] = [
        Self::Wins,
        Self::Kills,
        Self::KillsPerRound,
        Self::Winrate,
        Self::TimeAlive,
        Self::Rounds,
        Self::Top10,
    ];

    /// The category with this wire name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|category| category.as_str() == text)
    }

    /// The category's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Wins => "wins",
            Self::Kills => "kills",
            Self::KillsPerRound => "kills_per_round",
            Self::Winrate => "winrate",
            Self::TimeAlive => "time_alive",
            Self::Rounds => "rounds",
            Self::Top10 => "top10",
        }
    }

    /// Whether the category is a ratio of counters (and so needs a minimum of rounds).
    pub fn is_ratio(self) -> bool {
        matches!(self, Self::KillsPerRound | Self::Winrate)
    }

    /// The category's position in [`Category::ALL`].
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// One board: a mode's board for a window and category. Which boards exist is the content's
/// to say ([`GameModes`](crate::content::GameModes)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoardId {
    /// The game mode.
    pub mode: GameMode,
    /// The time window.
    pub window: TimeWindow,
    /// What the board ranks by.
    pub category: Category,
}

/// How many boards the index keeps per mode: one per window and category.
pub(crate) const BOARDS_PER_MODE: usize = TimeWindow::ALL.len() * Category::ALL.len();

/// The position in the index's list of the board of the mode, window and category at these
/// positions (the mode's position among the index's modes).
pub(crate) fn board_position(mode: usize, window: usize, category: usize) -> usize {
    mode * BOARDS_PER_MODE + window * Category::ALL.len() + category
}
