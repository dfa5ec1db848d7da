//! What a search by the start of a friend code looks for, as ranges over the stored code: the
//! lowered name (`lower(friend_name)`) and the four digits.

use crate::domain::{FriendCode, NAME_MAX_CHARS};

/// The friend codes starting with a text, letter case aside: names from `name_from` (included)
/// to `name_until` (excluded) in byte order, digits from `digits_from` to `digits_to`
/// (both included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FriendCodeSearch {
    /// The lowest lowered name, included.
    pub name_from: String,
    /// The first lowered name past the range.
    pub name_until: String,
    /// The lowest digits, included.
    pub digits_from: u16,
    /// The highest digits, included.
    pub digits_to: u16,
}

impl FriendCodeSearch {
    /// The ranges of the friend codes starting with `text`: a start of a name (`snee`), or a
    /// whole name, `#` and up to four digits (`Sneeza#00`: `Sneeza#0000` to `Sneeza#0099`).
    /// `None` when no friend code can start so (other characters, a name too long, or a
    /// name before `#` too short to be one).
    ///
    /// ```
    /// use safezone_core::store::FriendCodeSearch;
    ///
    /// let search = FriendCodeSearch::parse("Sneeza#00").unwrap();
    /// assert_eq!((search.digits_from, search.digits_to), (0, 99));
    /// assert_eq!(search.name_from, "sneeza");
    /// assert!(FriendCodeSearch::parse("sne eza").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        match text.split_once('#') {
            None => {
                let prefix = lowered_name(text)?;
                // Names hold only ASCII letters and digits, all before `{` in byte order: every
                // name starting with the prefix lies between it and the prefix followed by `{`.
                let name_until = format!("{prefix}{{");
                Some(Self {
                    name_from: prefix,
                    name_until,
                    digits_from: 0,
                    digits_to: FriendCode::DIGITS_MAX,
                })
            }
            Some((name, digits)) => {
                FriendCode::check_name(name).ok()?;
                let name = name.to_ascii_lowercase();
                let (digits_from, digits_to) = digits_starting(digits)?;
                // The name alone: no other name lies between it and it followed by `0`, the
                // lowest character a longer name may go on with.
                let name_until = format!("{name}0");
                Some(Self {
                    name_from: name,
                    name_until,
                    digits_from,
                    digits_to,
                })
            }
        }
    }
}

/// `text` lowered, when it may start a friend code's name.
fn lowered_name(text: &str) -> Option<String> {
    let fits = text.len() <= NAME_MAX_CHARS && text.bytes().all(|b| b.is_ascii_alphanumeric());
    fits.then(|| text.to_ascii_lowercase())
}

/// The four-digit numbers whose digits start with `start` (up to four ASCII digits).
fn digits_starting(start: &str) -> Option<(u16, u16)> {
    if start.len() > 4 || !start.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = 10_u16.pow(4 - u32::try_from(start.len()).ok()?);
    let value: u16 = if start.is_empty() {
        0
    } else {
        start.parse().ok()?
    };
    Some((value * scale, value * scale + (scale - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_of_a_name_spans_every_longer_name() {
        let search = FriendCodeSearch::parse("SnEe").expect("a search");
        assert_eq!(search.name_from, "snee");
        assert_eq!(search.name_until, "snee{");
        assert!("sneeza" >= search.name_from.as_str() && "sneeza" < search.name_until.as_str());
        assert!("sneezz9" < search.name_until.as_str());
        assert!("snef" >= search.name_until.as_str());
        assert_eq!((search.digits_from, search.digits_to), (0, 9999));
    }

    #[test]
    fn a_whole_name_with_digits_spans_only_that_name() {
        let search = FriendCodeSearch::parse("Sneeza#1").expect("a search");
        assert_eq!((search.digits_from, search.digits_to), (1000, 1999));
        assert!("sneeza" < search.name_until.as_str());
        assert!("sneeza0" >= search.name_until.as_str());
        let exact = FriendCodeSearch::parse("sneeza#0001").expect("a search");
        assert_eq!((exact.digits_from, exact.digits_to), (1, 1));
        let any = FriendCodeSearch::parse("sneeza#").expect("a search");
        assert_eq!((any.digits_from, any.digits_to), (0, 9999));
    }

    #[test]
    fn the_empty_text_spans_every_code() {
        let search = FriendCodeSearch::parse("").expect("a search");
        assert_eq!(
            (search.name_from.as_str(), search.name_until.as_str()),
            ("", "{")
        );
    }

    #[test]
    fn what_no_code_starts_with_is_refused() {
        for text in [
            "sn ee",
            "snée",
            "abcdefghijklmnopq",
            "ab#1",
            "sneeza#12345",
            "sneeza#1a",
        ] {
            assert_eq!(FriendCodeSearch::parse(text), None, "{text}");
        }
    }
}
