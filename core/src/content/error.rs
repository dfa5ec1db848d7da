//! Errors of loading a content file: where and what.

use std::fmt;
use std::ops::Range;

/// A content file that cannot be used, with the file, line and problem in its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentError {
    message: String,
    line: Option<usize>,
}

impl ContentError {
    pub(crate) fn unreadable(origin: &str, error: &std::io::Error) -> Self {
        Self {
            message: format!("content file {origin}: cannot be read: {error}"),
            line: None,
        }
    }

    pub(crate) fn syntax(origin: &str, text: &str, error: &toml::de::Error) -> Self {
        let line = error.span().map(|span| line_of(text, span.start));
        let at = line
            .map(|line| format!(" line {line}:"))
            .unwrap_or_default();
        Self {
            message: format!("content file {origin}:{at} {}", error.message()),
            line,
        }
    }

    pub(crate) fn at(
        origin: &str,
        text: &str,
        span: Range<usize>,
        key: &str,
        problem: String,
    ) -> Self {
        let line = line_of(text, span.start);
        Self {
            message: format!("content file {origin}: line {line}: `{key}`: {problem}"),
            line: Some(line),
        }
    }

    /// The line of the file at fault (from 1), when the problem has one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ContentError {}
