//! Errors of loading a content file: where and what.

use std::fmt;
use std::ops::Range;

/// A content file that cannot be used, with the file, line and problem in its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentError(String);

impl ContentError {
    pub(crate) fn unreadable(origin: &str, error: &std::io::Error) -> Self {
        Self(format!("content file {origin}: cannot be read: {error}"))
    }

    pub(crate) fn syntax(origin: &str, text: &str, error: &toml::de::Error) -> Self {
        let line = error
            .span()
            .map(|span| format!(" line {}:", line_of(text, span.start)))
            .unwrap_or_default();
        Self(format!("content file {origin}:{line} {}", error.message()))
    }

    pub(crate) fn at(
        origin: &str,
        text: &str,
        span: Range<usize>,
        key: &str,
        problem: String,
    ) -> Self {
        Self(format!(
            "content file {origin}: line {}: `{key}`: {problem}",
            line_of(text, span.start)
        ))
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ContentError {}
