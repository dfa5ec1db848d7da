//! Errors of loading a content file: where and what. A file may have several problems (one per
//! section at most: a section is checked only up to its first problem, and a section that
//! needs another, such as the tracks the catalog, only when that one passed); each names its
//! line.

use std::fmt;
use std::ops::Range;

/// A content file that cannot be used: its problems, in the order of their lines, each with
/// the file, line and problem in its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentError {
    problems: Vec<ContentProblem>,
}

/// One problem of a content file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentProblem {
    message: String,
    line: Option<usize>,
}

impl ContentProblem {
    /// The message: the file, the line when there is one, and the problem.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The line of the file at fault (from 1), when the problem has one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

impl ContentError {
    /// One problem.
    fn one(message: String, line: Option<usize>) -> Self {
        Self {
            problems: vec![ContentProblem { message, line }],
        }
    }

    pub(crate) fn unreadable(origin: &str, error: &std::io::Error) -> Self {
        Self::one(
            format!("content file {origin}: cannot be read: {error}"),
            None,
        )
    }

    pub(crate) fn syntax(origin: &str, text: &str, error: &toml::de::Error) -> Self {
        let line = error.span().map(|span| line_of(text, span.start));
        let at = line
            .map(|line| format!(" line {line}:"))
            .unwrap_or_default();
        Self::one(
            format!("content file {origin}:{at} {}", error.message()),
            line,
        )
    }

    pub(crate) fn at(
        origin: &str,
        text: &str,
        span: Range<usize>,
        key: &str,
        problem: String,
    ) -> Self {
        let line = line_of(text, span.start);
        Self::one(
            format!("content file {origin}: line {line}: `{key}`: {problem}"),
            Some(line),
        )
    }

    /// The problems of `errors` together, in the order of their lines (those without a line
    /// first).
    pub(crate) fn merge(errors: Vec<ContentError>) -> Self {
        let mut problems: Vec<ContentProblem> = errors
            .into_iter()
            .flat_map(|error| error.problems)
            .collect();
        problems.sort_by_key(|problem| problem.line);
        Self { problems }
    }

    /// The line of the first problem (from 1), when it has one.
    pub fn line(&self) -> Option<usize> {
        self.problems.first().and_then(ContentProblem::line)
    }

    /// Every problem found, in the order of their lines.
    pub fn problems(&self) -> &[ContentProblem] {
        &self.problems
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

/// The problems' messages, one a line.
impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&problem.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ContentError {}
