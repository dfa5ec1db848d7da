//! A studio's refusal of a change ([`Rejection`]): its own error code, one of a few HTTP
//! statuses and a message, carried by the steps a studio's hook adds
//! ([`Step::Reject`](super::Step::Reject), [`Step::Limit`](super::Step::Limit)) and answered
//! by the store as [`Refusal::Rejected`](super::Refusal::Rejected).

use std::fmt;

/// The longest [`RejectionCode`].
pub const REJECTION_CODE_MAX: usize = 64;

/// A studio's error code, such as `daily_limit`: 1 to [`REJECTION_CODE_MAX`] lowercase ASCII
/// letters, digits and underscores, starting with a letter. Declare it as a `const`
/// (`const DAILY_LIMIT: RejectionCode = RejectionCode::new("daily_limit");`) so that a code of
/// another shape fails the build rather than a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RejectionCode(&'static str);

impl RejectionCode {
    /// The code `code`.
    ///
    /// # Panics
    ///
    /// When `code` is not 1 to [`REJECTION_CODE_MAX`] lowercase ASCII letters, digits and
    /// underscores starting with a letter: at compile time when called in a `const`.
    pub const fn new(code: &'static str) -> Self {
        let bytes = code.as_bytes();
        assert!(
            !bytes.is_empty() && bytes.len() <= REJECTION_CODE_MAX,
            "a rejection code has 1 to 64 characters"
        );
        assert!(
            bytes[0].is_ascii_lowercase(),
            "a rejection code starts with a lowercase letter"
        );
        let mut index = 0;
        while index < bytes.len() {
            let byte = bytes[index];
            assert!(
                byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_',
                "a rejection code is lowercase ASCII letters, digits and underscores"
            );
            index += 1;
        }
        Self(code)
    }

    /// The code as an error body carries it.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

/// The HTTP statuses a studio's refusal may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectionStatus {
    /// 403: the player may not do this (a rule of the studio's game).
    Forbidden,
    /// 409: the account's state does not allow it.
    Conflict,
    /// 429: a limit of the studio's is reached for now (a daily limit).
    TooManyRequests,
}

impl RejectionStatus {
    /// The status as a number.
    pub const fn as_u16(self) -> u16 {
        match self {
            Self::Forbidden => 403,
            Self::Conflict => 409,
            Self::TooManyRequests => 429,
        }
    }
}

/// A studio's refusal of a change: nothing of the change is written, and the caller is
/// answered `{"status":"error","code":<code>,"message":<message>}` with `status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The HTTP status of the answer.
    pub status: RejectionStatus,
    /// The studio's error code.
    pub code: RejectionCode,
    /// Text for a person.
    pub message: String,
}

impl Rejection {
    /// A refusal answered with `status`, `code` and `message`.
    pub fn new(status: RejectionStatus, code: RejectionCode, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_of_the_right_shape_is_kept() {
        const CODE: RejectionCode = RejectionCode::new("daily_limit_2");
        assert_eq!(CODE.as_str(), "daily_limit_2");
    }

    #[test]
    #[should_panic(expected = "lowercase ASCII")]
    fn a_code_with_a_capital_is_refused() {
        let _ = RejectionCode::new("dailyLimit");
    }

    #[test]
    #[should_panic(expected = "starts with a lowercase letter")]
    fn a_code_starting_with_a_digit_is_refused() {
        let _ = RejectionCode::new("3_a_day");
    }

    #[test]
    #[should_panic(expected = "1 to 64")]
    fn an_empty_code_is_refused() {
        let _ = RejectionCode::new("");
    }

    #[test]
    fn the_statuses_are_the_allowed_ones() {
        let statuses = [
            RejectionStatus::Forbidden,
            RejectionStatus::Conflict,
            RejectionStatus::TooManyRequests,
        ];
        assert_eq!(statuses.map(RejectionStatus::as_u16), [403, 409, 429]);
    }
}
