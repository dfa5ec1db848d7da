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
}

/// A published version without its text: what a list of them shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentVersion {
    /// Its version.
    pub version: i64,
    /// When it was published.
    pub published_at: OffsetDateTime,
}

/// The content files an operator published, which every node follows.
#[async_trait]
pub trait ContentStore: Send + Sync {
    /// Publishes `text`, a content file that passed validation, as the newest version;
    /// answers its version. With `audit` (an operator's publication), its audit row (and
    /// `operator_action` event) is appended in the same transaction, on the version published
    /// ([`NewAuditEntry::on_created`]: `content` becomes `content:12`).
    async fn publish_content(
        &self,
        text: &str,
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

    /// The newest published versions (at most `limit`), newest first, without their texts.
    async fn content_versions(&self, limit: i64) -> Result<Vec<ContentVersion>, StoreError>;
}
