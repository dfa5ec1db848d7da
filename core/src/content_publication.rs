//! Publishing content files to every node ([`live_content`](crate::live_content) follows what
//! is published): checking, diffing, publishing, rolling back and reading back, written once
//! for the command line (`content publish|diff|rollback|show`), the operator API
//! (`/operator/api/content/...`) and so the console.
//!
//! Line ends are LF: a file written with CRLF (as browsers send a text area) or lone CR is
//! diffed and published with LF, so that a one-line change is a one-line diff.
//!
//! A rollback goes back through what was published, not back and forth: it publishes again
//! the version before the one the newest descends from (a new file descends from itself, a
//! rollback from the version it restores), and records which version that is
//! ([`Publication::restores`]). With versions 1, 2 and 3 published, a rollback publishes 4 with
//! the text of 2, the next one 5 with the text of 1, and a third finds nothing earlier.

use std::borrow::Cow;
use std::fmt;

use similar::TextDiff;
use time::OffsetDateTime;

use crate::content::{Content, ContentError};
use crate::store::{NewAuditEntry, Publication, PublishedContent, Store, StoreError};

/// `text` with every CRLF and lone CR made LF.
///
/// ```
/// use safezone_core::content_publication::normalise_line_ends;
/// assert_eq!(normalise_line_ends("a\r\nb\rc\n"), "a\nb\nc\n");
/// ```
pub fn normalise_line_ends(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A content file as the diff reads it: its text and the name the diff's header gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named<'a> {
    /// The name in the diff's header (`content version 3`, a path).
    pub name: String,
    /// The file's text.
    pub text: &'a str,
}

/// The unified diff from `from` to `to`, their line ends made LF, or `None` when their texts
/// are then the same.
///
/// ```
/// use safezone_core::content_publication::{Named, diff};
/// let from = Named { name: "a".to_owned(), text: "x = 1\ny = 1\n" };
/// let to = Named { name: "b".to_owned(), text: "x = 2\r\ny = 1\r\n" };
/// assert!(diff(&from, &to).unwrap().contains("+x = 2"));
/// assert!(!diff(&from, &to).unwrap().contains("-y = 1"));
/// assert_eq!(diff(&from, &from), None);
/// ```
pub fn diff(from: &Named<'_>, to: &Named<'_>) -> Option<String> {
    let (old, new) = (normalise_line_ends(from.text), normalise_line_ends(to.text));
    if old == new {
        return None;
    }
    let changes = TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .header(&from.name, &to.name)
        .to_string();
    Some(changes.trim_end().to_owned())
}

/// Why a publication or a rollback did not happen; nothing was published.
#[derive(Debug)]
pub enum PublishError {
    /// The file does not pass the content check (the error names the lines).
    Invalid(ContentError),
    /// Nothing was published yet: there is nothing to roll back.
    NothingPublished,
    /// There is no version before the one the newest descends from (the version named).
    FirstVersion(i64),
    /// No version has this number.
    UnknownVersion(i64),
    /// The version asked for (the first number) has the content served now, that of the
    /// newest (the second).
    AlreadyServed(i64, i64),
    /// The version to roll back to does not load with this version of Safezone.
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
                "there is no version before version {version}, which the newest descends from"
            ),
            Self::UnknownVersion(version) => {
                write!(f, "no content version {version} was published")
            }
            Self::AlreadyServed(version, newest) => write!(
                f,
                "version {version} has the content of the newest version, {newest}, served now"
            ),
            Self::Unreadable { version, error } => {
                write!(f, "version {version} does not load here: {error}")
            }
            Self::Store(error) => error.fmt(f),
        }
    }
}

/// Who publishes and why: the operator token's name (`None`: the command line) and the reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Publisher<'a> {
    /// The operator token's name; `None` for the command line.
    pub by: Option<&'a str>,
    /// Why, when told.
    pub reason: Option<&'a str>,
}

impl Publisher<'_> {
    /// The record of a publication by this publisher restoring `restores`.
    fn publication(&self, restores: Option<i64>) -> Publication {
        Publication {
            by: self.by.map(str::to_owned),
            reason: self.reason.map(str::to_owned),
            restores,
        }
    }
}

/// Checks `text` (named `origin` in its errors), its line ends made LF, exactly as a node
/// loads content, and publishes it at `now` when it passes; answers the new version. A file
/// that does not pass is never published. An operator API call gives its `audit` row,
/// appended with the publication.
pub async fn publish(
    store: &dyn Store,
    text: &str,
    origin: &str,
    publisher: Publisher<'_>,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
) -> Result<i64, PublishError> {
    let text = normalise_line_ends(text);
    Content::parse(&text, origin).map_err(PublishError::Invalid)?;
    Ok(store
        .publish_content(&text, &publisher.publication(None), now, audit)
        .await?)
}

/// A rollback done: the new version, and the earlier one whose content it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolledBack {
    /// The version just published.
    pub version: i64,
    /// The version whose text it publishes again.
    pub from: i64,
}

/// The version a published one descends from: itself, or for a rollback the version it
/// restores.
fn origin(published: &PublishedContent) -> i64 {
    published.about.restores.unwrap_or(published.version)
}

/// Publishes again, as a new version, version `to`, or without one the version before the one
/// the newest descends from (see the module's documentation), when it still loads and is not
/// the content served now. An operator API call gives its `audit` row, appended with the
/// publication.
pub async fn rollback(
    store: &dyn Store,
    to: Option<i64>,
    publisher: Publisher<'_>,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
) -> Result<RolledBack, PublishError> {
    let newest = store
        .published_content(i64::MAX)
        .await?
        .ok_or(PublishError::NothingPublished)?;
    let earlier = match to {
        Some(version) => published(store, version)
            .await?
            .ok_or(PublishError::UnknownVersion(version))?,
        None => store
            .published_content(origin(&newest) - 1)
            .await?
            .ok_or(PublishError::FirstVersion(origin(&newest)))?,
    };
    if origin(&earlier) == origin(&newest) {
        return Err(PublishError::AlreadyServed(earlier.version, newest.version));
    }
    let name = format!("content version {}", earlier.version);
    Content::parse(&earlier.text, &name).map_err(|error| PublishError::Unreadable {
        version: earlier.version,
        error,
    })?;
    let about = publisher.publication(Some(origin(&earlier)));
    let version = store
        .publish_content(&earlier.text, &about, now, audit)
        .await?;
    Ok(RolledBack {
        version,
        from: earlier.version,
    })
}

/// The published version `version`, or `None` when no version has that number.
pub async fn published(
    store: &dyn Store,
    version: i64,
) -> Result<Option<PublishedContent>, StoreError> {
    Ok(store
        .published_content(version)
        .await?
        .filter(|published| published.version == version))
}

/// What a node started with `file` (its `--content` file, or the shipped one) serves, as far
/// as the store tells: the newest published version (named `content version N`), or `file`
/// while none is published. What the command line diffs a file against and shows by default.
pub async fn served<'a>(
    store: &dyn Store,
    file: &Named<'a>,
) -> Result<(String, Cow<'a, str>), StoreError> {
    Ok(match store.published_content(i64::MAX).await? {
        Some(newest) => (
            format!("content version {}", newest.version),
            Cow::Owned(newest.text),
        ),
        None => (file.name.clone(), Cow::Borrowed(file.text)),
    })
}
