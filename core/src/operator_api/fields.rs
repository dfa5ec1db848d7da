//! What the community and content endpoints read from their bodies and queries alike: times
//! as RFC 3339, a list's length, and the 400 that names the field at fault.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::http::ApiError;
use crate::http::params::{WholeNumber, request_parameters};

/// How many a list answers unless asked for fewer or more.
const DEFAULT_LIMIT: i64 = 100;

request_parameters! {
    /// How many of the newest a list answers.
    pub(crate) struct ListQuery {
        /// At most this many, the newest (100 unless given)
        limit: Option<WholeNumber<1, 1000>> = Query "limit",
    }
}

impl ListQuery {
    /// The newest 100.
    pub(crate) fn newest() -> Self {
        Self { limit: None }
    }

    /// The most rows to answer.
    pub(super) fn most(&self) -> i64 {
        self.limit.map_or(DEFAULT_LIMIT, |limit| limit.0)
    }
}

/// A 400 `invalid_body` naming `field`: "request body: `field` ...".
pub(super) fn invalid(field: &str, problem: impl std::fmt::Display) -> ApiError {
    ApiError::InvalidBody {
        reason: format!("field `{field}` {problem}"),
    }
}

/// The body's time `field`, RFC 3339 (`2026-11-22T08:00:00Z`).
pub(super) fn time(field: &str, text: &str) -> Result<OffsetDateTime, ApiError> {
    OffsetDateTime::parse(text, &Rfc3339).map_err(|_| {
        invalid(
            field,
            format!("is `{text}`, not an RFC 3339 time such as 2026-11-22T08:00:00Z"),
        )
    })
}

/// The body's optional time `field`.
pub(super) fn optional_time(
    field: &str,
    text: Option<&str>,
) -> Result<Option<OffsetDateTime>, ApiError> {
    text.map(|text| time(field, text)).transpose()
}
