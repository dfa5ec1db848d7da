//! A time of an API answer shown for a person: `2026-11-23 12:00 UTC`, with the exact RFC 3339
//! time the API gave kept for the page's `<time datetime title>`.

use std::fmt;

use serde::Deserialize;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// A time as the API gave it (RFC 3339), displayed in UTC to the minute; text that is not
/// RFC 3339 is displayed as it came.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub(super) struct When(String);

impl When {
    /// The time as the API gave it: what a page puts in `datetime` and `title`.
    pub fn exact(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for When {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let readable = OffsetDateTime::parse(&self.0, &Rfc3339)
            .ok()
            .and_then(|at| {
                at.to_offset(UtcOffset::UTC)
                    .format(format_description!(
                        "[year]-[month]-[day] [hour]:[minute] UTC"
                    ))
                    .ok()
            });
        formatter.write_str(readable.as_deref().unwrap_or(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_3339_reads_in_utc_to_the_minute() {
        let shown = |text: &str| When(text.to_owned()).to_string();
        assert_eq!(shown("2026-11-23T12:00:00Z"), "2026-11-23 12:00 UTC");
        assert_eq!(shown("2026-11-23T12:00:59.5Z"), "2026-11-23 12:00 UTC");
        assert_eq!(shown("2026-11-23T13:30:00+01:00"), "2026-11-23 12:30 UTC");
        assert_eq!(shown("soon"), "soon");
        assert_eq!(
            When("2026-11-23T12:00:00Z".to_owned()).exact(),
            "2026-11-23T12:00:00Z"
        );
    }
}
