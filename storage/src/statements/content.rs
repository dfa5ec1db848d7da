//! The statements of the published content.

/// Publishes a content file. Binds: its text, the time (microseconds), the version it restores
/// (or NULL), the publishing token's name (or NULL), the reason (or NULL); answers its version.
pub(crate) const PUBLISH_CONTENT: &str = "\
    INSERT INTO content_versions (body, published_at, restores, published_by, reason) \
    VALUES ($1, $2, $3, $4, $5) RETURNING version";

/// The newest published version, 0 while none.
pub(crate) const CONTENT_HEAD: &str =
    "SELECT CAST(COALESCE(MAX(version), 0) AS BIGINT) FROM content_versions";

/// The newest published content at or below a version. Binds: the version.
pub(crate) const PUBLISHED_CONTENT: &str = "\
    SELECT version, body, published_at, restores, published_by, reason FROM content_versions \
    WHERE version <= $1 ORDER BY version DESC LIMIT 1";

/// The newest published versions, newest first, without their texts. Binds: the most versions.
pub(crate) const CONTENT_VERSIONS: &str = "\
    SELECT version, published_at, restores, published_by, reason FROM content_versions \
    ORDER BY version DESC LIMIT $1";
