//! Query parameters that several endpoints read the same way.

use crate::domain::Platform;
use crate::http::{ApiError, Query};

/// The optional `platform` parameter: `web`, `windows`, `android` or `ios` (400 otherwise).
pub(crate) fn platform(query: &Query) -> Result<Option<Platform>, ApiError> {
    query
        .optional("platform")
        .map(|name| {
            Platform::parse(name).ok_or_else(|| {
                ApiError::invalid("platform", "must be one of web, windows, android, ios")
            })
        })
        .transpose()
}
