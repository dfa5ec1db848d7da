//! The game modes.

/// A game mode: the mode of a match, a tournament, a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameMode {
    /// Every player for themselves.
    Solo,
    /// Teams of two.
    Duo,
    /// Teams of four.
    Squad,
    /// The limited-time mode.
    Limited,
}

impl GameMode {
    /// Every mode, in the wire contract's order.
    pub const ALL: [Self; 4] = [Self::Solo, Self::Duo, Self::Squad, Self::Limited];

    /// The mode's name on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Solo => "solo",
            Self::Duo => "duo",
            Self::Squad => "squad",
            Self::Limited => "limited",
        }
    }

    /// Reads a mode name (`solo`, `duo`, `squad`, `limited`); others are `None`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == name)
    }
}
