//! Text that other players see as a name or as someone's words (clan names and descriptions,
//! poll questions and options): it may not hold characters that draw nothing or change how the
//! text around them draws, which would let one name pass for another.

use std::fmt;

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The invisible letters that fonts draw as blank space (Hangul fillers): letters by category,
/// yet used to make names that look empty or like another's.
const BLANK_LETTERS: [char; 4] = ['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'];

/// A character that shown text may not hold, and its place in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HiddenCharacter {
    /// The character.
    pub character: char,
    /// Its position in characters, from 1.
    pub position: usize,
}

impl fmt::Display for HiddenCharacter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "must not hold control, format or invisible characters (U+{:04X} at character {})",
            u32::from(self.character),
            self.position
        )
    }
}

impl std::error::Error for HiddenCharacter {}

/// Checks that `text` holds no control characters (`Cc`), format characters (`Cf`: direction
/// overrides and marks, zero-width spaces and joiners, the byte-order mark), line or paragraph
/// separators, private-use characters, or blank letters; the error names the first one.
///
/// ```
/// use safezone_core::domain::check_shown_text;
/// assert!(check_shown_text("Zoë's Squad 🎯").is_ok());
/// let hidden = check_shown_text("Abc\u{202E}xyz").unwrap_err();
/// assert_eq!((hidden.character, hidden.position), ('\u{202E}', 4));
/// assert!(check_shown_text("A\u{200B}B").is_err());
/// ```
pub fn check_shown_text(text: &str) -> Result<(), HiddenCharacter> {
    match text
        .chars()
        .enumerate()
        .find(|(_, character)| is_hidden(*character))
    {
        Some((index, character)) => Err(HiddenCharacter {
            character,
            position: index + 1,
        }),
        None => Ok(()),
    }
}

fn is_hidden(character: char) -> bool {
    matches!(
        character.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
    ) || BLANK_LETTERS.contains(&character)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_of_any_script_passes() {
        for text in [
            "Alpha Squad",
            "Équipe Zoë",
            "東京チーム",
            "فريق",
            "Team 🎯🔥",
            "a - b",
        ] {
            assert_eq!(check_shown_text(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn controls_formats_separators_and_blank_letters_are_refused() {
        let refused = [
            '\u{0007}',
            '\u{007F}',
            '\u{0085}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{202A}',
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{2028}',
            '\u{2029}',
            '\u{E000}',
            '\u{3164}',
            '\u{115F}',
            '\u{FFA0}',
            '\u{E0041}',
        ];
        for character in refused {
            let text = format!("ab{character}c");
            assert_eq!(
                check_shown_text(&text),
                Err(HiddenCharacter {
                    character,
                    position: 3
                }),
                "U+{:04X}",
                u32::from(character)
            );
        }
    }

    #[test]
    fn the_message_names_the_character_and_its_place() {
        let hidden = check_shown_text("x\u{202E}").unwrap_err();
        assert!(
            hidden.to_string().contains("U+202E at character 2"),
            "{hidden}"
        );
    }
}
