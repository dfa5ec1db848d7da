//! The name of a game mode: the mode of a match, a tournament, a leaderboard. Which modes exist
//! is the content's to say ([`GameModes`](crate::content::GameModes)); this is only a valid
//! name, held inline so that it is `Copy` and compared without touching the heap.

use std::fmt;

/// The most characters of a mode's name.
pub const MODE_NAME_MAX_CHARS: usize = 32;

/// A game mode's name: 1 to [`MODE_NAME_MAX_CHARS`] lowercase ASCII letters, digits or `_`
/// (`solo`, `trios`, `squad_hardcore`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameMode {
    len: u8,
    bytes: [u8; MODE_NAME_MAX_CHARS],
}

impl GameMode {
    /// Reads a mode's name; `None` when it is not 1 to 32 lowercase ASCII letters, digits or
    /// `_`. Whether the content has such a mode is for the caller to ask.
    pub fn parse(name: &str) -> Option<Self> {
        let valid = (1..=MODE_NAME_MAX_CHARS).contains(&name.len())
            && name
                .bytes()
                .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_');
        if !valid {
            return None;
        }
        let mut bytes = [0; MODE_NAME_MAX_CHARS];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(Self {
            len: name.len() as u8,
            bytes,
        })
    }

    /// The mode's name on the wire and in the database.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("a mode's name is ASCII")
    }

    /// What a mode's name must be, as an error message says it.
    pub const RULE: &'static str =
        "must be 1 to 32 lowercase ASCII letters, digits or `_` naming a game mode";
}

impl fmt::Debug for GameMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameMode({})", self.as_str())
    }
}

impl fmt::Display for GameMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowercase_letters_digits_and_underscores() {
        for good in ["solo", "trios", "squad_2", "x", &"a".repeat(32)] {
            assert_eq!(
                GameMode::parse(good).map(|mode| mode.to_string()),
                Some(good.to_owned())
            );
        }
        for bad in ["", "Solo", "duo-2", "é", "a b", &"a".repeat(33)] {
            assert_eq!(GameMode::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn equal_names_are_equal_modes() {
        assert_eq!(GameMode::parse("duo"), GameMode::parse("duo"));
        assert_ne!(GameMode::parse("duo"), GameMode::parse("duos"));
    }
}
