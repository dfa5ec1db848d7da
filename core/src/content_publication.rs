//! Publishing content files to every node ([`live_content`](crate::live_content) follows what
//! is published): checking, diffing, publishing and rolling back, written once for the command
//! line (`content publish|diff|rollback`) and the operator API (`/operator/api/content/...`).

use std::fmt;

use similar::TextDiff;
use time::OffsetDateTime;

use crate::content::{Content, ContentError, SHIPPED};
use crate::store::{NewAuditEntry, Store, StoreError};

/// A content file as the diff reads it: its text and the name the diff's header gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named<'a> {
    /// The name in the diff's header (`content version 3`, a path).
    pub name: String,
    /// The file's text.
    pub text: &'a str,
}

/// The unified diff from `from` to `to`, or `None` when their texts are the same.
///
/// ```
/// use safezone_core::content_publication::{Named, diff};
/// let from = Named { name: "a".to_owned(), text: "x = 1\n" };
/// let to = Named { name: "b".to_owned(), text: "x = 2\n" };
/// assert!(diff(&from, &to).unwrap().contains("+x = 2"));
/// assert_eq!(diff(&from, &from), None);
/// ```
pub fn diff(from: &Named<'_>, to: &Named<'_>) -> Option<String> {
    if from.text == to.text {
        return None;
    }
    let changes = TextDiff::from_lines(from.text, to.text)
        .unified_diff()
        .header(&from.name, &to.name)
        .to_string();
    Some(changes.trim_end().to_owned())
}

/// The newest published content (named `content version N`), or the shipped content while
/// none is published: what the command line diffs a file against.
pub async fn newest_published(store: &dyn Store) -> Result<(String, String), StoreError> {
    Ok(match store.published_content(i64::MAX).await? {
        Some(newest) => (format!("content version {}", newest.version), newest.text),
        None => ("the shipped content".to_owned(), SHIPPED.to_owned()),
    })
}

/// Why a publication or a rollback did not happen; nothing was published.
#[derive(Debug)]
pub enum PublishError {
    /// The file does not pass the content check (the error names the line).
    Invalid(ContentError),
    /// Nothing was published yet: there is nothing to roll back.
    NothingPublished,
    /// The newest version is the first: there is none before it.
    FirstVersion(i64),
    /// The version before the newest does not load with this version of Safezone.
    Unreadable {
        /// That version.
        version: i64,
        /// Why it does not load.
        error: ContentError,
    },
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for PublishError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(error) => error.fmt(f),
            Self::NothingPublished => f.write_str("no content was published: nothing to roll back"),
            Self::FirstVersion(version) => write!(
                f,
                "version {version} is the first published: there is none before it"
            ),
            Self::Unreadable { version, error } => {
                write!(f, "version {version} does not load here: {error}")
            }
            Self::Store(error) => error.fmt(f),
        }
    }
}

/// Checks `text` (named `origin` in its errors) exactly as a node loads content, and publishes
/// it at `now` when it passes; answers the new version. A file that does not pass is never
/// published. An operator API call gives its `audit` row, appended with the publication.
pub async fn publish(
    store: &dyn Store,
    text: &str,
    origin: &str,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
) -> Result<i64, PublishError> {
    Content::parse(text, origin).map_err(PublishError::Invalid)?;
    Ok(store.publish_content(text, now, audit).await?)
}

/// A rollback done: the new version, and the earlier one whose content it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolledBack {
    /// The version just published.
    pub version: i64,
    /// The version whose text it publishes again.
    pub from: i64,
}

/// Publishes again, as a new version, the version before the newest one, when it still loads.
/// An operator API call gives its `audit` row, appended with the publication.
pub async fn rollback(
    store: &dyn Store,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
) -> Result<RolledBack, PublishError> {
    let newest = store
        .published_content(i64::MAX)
        .await?
        .ok_or(PublishError::NothingPublished)?;
    let earlier = store
        .published_content(newest.version - 1)
        .await?
        .ok_or(PublishError::FirstVersion(newest.version))?;
    let origin = format!("content version {}", earlier.version);
    Content::parse(&earlier.text, &origin).map_err(|error| PublishError::Unreadable {
        version: earlier.version,
        error,
    })?;
    let version = store.publish_content(&earlier.text, now, audit).await?;
    Ok(RolledBack {
        version,
        from: earlier.version,
    })
}
