//! The published content read back under `/operator/api/content`: the versions with who
//! published each, when, why and what a rollback restores; one version with its text; and the
//! text this node serves now.

use serde_json::{Value, json};

use super::fields::ListQuery;
use super::{OperatorState, auth, views};
use crate::content_publication::{self, PublishError};
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{ContentVersion, PublishedContent};

parameters! {
    /// The content version of the path.
    struct VersionPath {
        /// The published version
        version: PositiveId = Path "version",
    }
}

/// A version as operators see it: when, by whom (`null`: the command line), why (`null`: not
/// told) and, for a rollback, the version whose content it restores (`null`: a new file).
fn view(version: &ContentVersion) -> Value {
    let about = &version.about;
    json!({
        "version": version.version,
        "published": views::rfc3339(version.published_at),
        "by": about.by,
        "reason": about.reason,
        "restores": about.restores,
    })
}

/// `GET /content/versions?limit=`: the newest published versions (100 unless `limit`), newest
/// first, each with who published it, when, why and what it restores.
pub(super) async fn list(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = ListQuery::read(&incoming)?;
    let versions: Vec<Value> = state
        .app
        .store
        .content_versions(query.most())
        .await?
        .iter()
        .map(view)
        .collect();
    Ok(Reply::success(&json!({ "versions": versions })))
}

/// `GET /content/versions/{version}`: the version as listed, with its `text` and whether this
/// node serves it (`running`); 404 `unknown_content_version`.
pub(super) async fn show(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let version = VersionPath::read(&incoming)?.version.0;
    let PublishedContent {
        version,
        text,
        published_at,
        about,
    } = content_publication::published(state.app.store.as_ref(), version)
        .await?
        .ok_or_else(|| ApiError::NotFound {
            code: ErrorCode::UnknownContentVersion,
            message: PublishError::UnknownVersion(version).to_string(),
        })?;
    let mut answer = view(&ContentVersion {
        version,
        published_at,
        about,
    });
    answer["text"] = Value::String(text);
    answer["running"] = Value::Bool(state.app.content.current().version == version);
    Ok(Reply::success(&answer))
}

/// `GET /content/running`: the version this node serves (0: the content it started with) and
/// its text, as the console's editor starts from it.
pub(super) async fn running(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let running = state.app.content.current();
    Ok(Reply::success(&json!({
        "version": running.version,
        "text": running.content.text(),
    })))
}
