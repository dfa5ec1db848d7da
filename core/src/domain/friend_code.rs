//! Friend codes: `Name#dddd`, unique per account.

use std::fmt;

use rand::seq::SliceRandom;

/// Shortest name part of a friend code.
pub const NAME_MIN_CHARS: usize = 3;
/// Longest name part of a friend code.
pub const NAME_MAX_CHARS: usize = 16;

/// A friend code: a name of ASCII letters and digits, `#`, and four digits (`Sneeza#0001`).
///
/// ```
/// use safezone_core::domain::FriendCode;
/// let code = FriendCode::parse("Sneeza#0001").unwrap();
/// assert_eq!(code.name(), "Sneeza");
/// assert_eq!(code.digits(), 1);
/// assert_eq!(code.to_string(), "Sneeza#0001");
/// assert!(FriendCode::parse("Sne eza#0001").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FriendCode {
    name: String,
    digits: u16,
}

/// Why a text is not a friend code or a friend-code name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FriendCodeError {
    /// No `#` separates name and digits.
    MissingSeparator,
    /// The name is shorter or longer than allowed.
    NameLength,
    /// The name holds something other than ASCII letters and digits.
    NameCharacters,
    /// The part after `#` is not exactly four digits.
    Digits,
}

impl fmt::Display for FriendCodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingSeparator => f.write_str("a friend code is `Name#dddd`"),
            Self::NameLength => write!(
                f,
                "the name must be {NAME_MIN_CHARS} to {NAME_MAX_CHARS} characters long"
            ),
            Self::NameCharacters => f.write_str("the name may hold only letters and digits"),
            Self::Digits => f.write_str("the part after `#` must be exactly four digits"),
        }
    }
}

impl std::error::Error for FriendCodeError {}

impl FriendCode {
    /// The largest value of the four digits.
    pub const DIGITS_MAX: u16 = 9999;

    /// Checks that `name` may be the name part of a friend code.
    pub fn check_name(name: &str) -> Result<(), FriendCodeError> {
        if !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(FriendCodeError::NameCharacters);
        }
        if !(NAME_MIN_CHARS..=NAME_MAX_CHARS).contains(&name.len()) {
            return Err(FriendCodeError::NameLength);
        }
        Ok(())
    }

    /// Parses `Name#dddd`.
    pub fn parse(text: &str) -> Result<Self, FriendCodeError> {
        let (name, digits) = text
            .rsplit_once('#')
            .ok_or(FriendCodeError::MissingSeparator)?;
        let digits = parse_digits(digits)?;
        Self::new(name, digits)
    }

    /// A friend code from its parts; `digits` must be below 10000.
    pub fn new(name: &str, digits: u16) -> Result<Self, FriendCodeError> {
        Self::check_name(name)?;
        if digits > Self::DIGITS_MAX {
            return Err(FriendCodeError::Digits);
        }
        Ok(Self {
            name: name.to_owned(),
            digits,
        })
    }

    /// `count` codes for `name` with distinct random digits (at most 10000).
    pub fn random_candidates(name: &str, count: usize) -> Result<Vec<Self>, FriendCodeError> {
        Self::check_name(name)?;
        let mut rng = rand::rng();
        let mut picked = rand::seq::index::sample(&mut rng, 10_000, count.min(10_000)).into_vec();
        picked.shuffle(&mut rng);
        Ok(picked
            .into_iter()
            .map(|digits| Self {
                name: name.to_owned(),
                digits: u16::try_from(digits).unwrap_or_default(),
            })
            .collect())
    }

    /// The name part.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The four digits as a number (`0001` is 1).
    pub fn digits(&self) -> u16 {
        self.digits
    }
}

impl fmt::Display for FriendCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{:04}", self.name, self.digits)
    }
}

fn parse_digits(text: &str) -> Result<u16, FriendCodeError> {
    if text.len() != 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FriendCodeError::Digits);
    }
    text.parse().map_err(|_| FriendCodeError::Digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_leading_zeros() {
        let code = FriendCode::parse("Ace#0042").unwrap();
        assert_eq!(code.to_string(), "Ace#0042");
    }

    #[test]
    fn rejects_bad_parts() {
        assert_eq!(
            FriendCode::parse("Ace0042"),
            Err(FriendCodeError::MissingSeparator)
        );
        assert_eq!(FriendCode::parse("Ace#042"), Err(FriendCodeError::Digits));
        assert_eq!(FriendCode::parse("Ace#+042"), Err(FriendCodeError::Digits));
        assert_eq!(
            FriendCode::parse("A#0042"),
            Err(FriendCodeError::NameLength)
        );
        assert_eq!(
            FriendCode::parse("Aé#0042"),
            Err(FriendCodeError::NameCharacters)
        );
    }

    #[test]
    fn candidates_are_distinct() {
        let codes = FriendCode::random_candidates("Ace", 50).unwrap();
        let mut digits: Vec<_> = codes.iter().map(FriendCode::digits).collect();
        digits.sort_unstable();
        digits.dedup();
        assert_eq!(digits.len(), 50);
    }
}
