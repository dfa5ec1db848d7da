//! The published content: the content files an operator published for every node, in the
//! order published. Each node serves the newest one it can read.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{NewAuditEntry, StoreError};

/// One published content file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedContent {
    /// Its version: a number that grows with each publication, from 1.
    pub version: i64,
    /// The content file's text, as published (it passed validation then).
    pub text: String,
    /// When it was published.
    pub published_at: OffsetDateTime,
    /// Who published it, why, and what it restores.
    pub about: Publication,
}

/// A published version without its text: what a list of them shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentVersion {
    /// Its version.
    pub version: i64,
    /// When it was published.
    pub published_at: OffsetDateTime,
    /// Who published it, why, and what it restores.
    pub about: Publication,
}

/// Who published a version, why, and whether it is a rollback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Publication {
    /// The operator token that published it through the operator API; `None`: the command
    /// line (or a version published before this was recorded, with no audit row naming it).
    pub by: Option<String>,
    /// The operator's reason, when one was given.
    pub reason: Option<String>,
    /// For a rollback, the version first published with this text (never itself a rollback),
    /// whose content it publishes again; `None` for a new file.
    pub restores: Option<i64>,
}

/// The content files an operator published, which every node follows.
#[async_trait]
pub trait ContentStore: Send + Sync {
    /// Publishes `text`, a content file that passed validation, as the newest version, with
    /// who published it and why; answers its version. With `audit` (an operator's
    /// publication), its audit row (and `operator_action` event) is appended in the same
    /// transaction, on the version published ([`NewAuditEntry::on_created`]: `content` becomes
    /// `content:12`).
    async fn publish_content(
        &self,
        text: &str,
        about: &Publication,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<i64, StoreError>;

    /// The newest published version, 0 while nothing was published (one cheap query: each
    /// node asks every second).
    async fn content_head(&self) -> Result<i64, StoreError>;

    /// The newest published content whose version is at most `at_most` (`i64::MAX` for the
    /// newest of all), or `None` when there is none.
    async fn published_content(&self, at_most: i64)
    -> Result<Option<PublishedContent>, StoreError>;

    /// The newest published versions (at most `limit`), newest first, without their texts:
    /// each with who published it, why, and what it restores.
    async fn content_versions(&self, limit: i64) -> Result<Vec<ContentVersion>, StoreError>;
}
