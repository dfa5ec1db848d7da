//! The published content read back under `/operator/api/content`: the versions with who
//! published each, when, why and what a rollback restores; one version with its text; and the
//! text this node serves now.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::fields::ListQuery;
use super::views::When;
use crate::content_publication::{self, Named, PublishError};
use crate::http::params::{NoParams, PositiveId, request_parameters};
use crate::http::{ApiError, ErrorCode};
use crate::store::{ContentVersion, PublishedContent};

request_parameters! {
    /// The content version of the path.
    pub(crate) struct VersionPath {
        /// The published version
        version: PositiveId = Path "version",
    }
}

/// A published version as operators see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct VersionView {
    /// The version.
    pub version: i64,
    /// When it was published.
    pub published: When,
    /// Who published it (`null`: the command line).
    pub by: Option<String>,
    /// Why (`null`: not told).
    pub reason: Option<String>,
    /// For a rollback, the version whose content it restores (`null`: a new file).
    pub restores: Option<i64>,
}

impl VersionView {
    /// A version as operators see it.
    pub(super) fn of(version: &ContentVersion) -> Self {
        let about = &version.about;
        Self {
            version: version.version,
            published: version.published_at.into(),
            by: about.by.clone(),
            reason: about.reason.clone(),
            restores: about.restores,
        }
    }
}

/// The newest published versions.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct VersionsAnswer {
    /// Newest first.
    pub versions: Vec<VersionView>,
}

/// `GET /content/versions`.
pub(crate) struct Versions;

impl Endpoint for Versions {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/content/versions";
    const ID: &'static str = "contentVersions";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The newest published versions (100 unless `limit`), newest \
        first, each with who published it, when, why and what it restores.";
    type Params = ListQuery;
    type Answer = VersionsAnswer;
}

impl Reads for Versions {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<ListQuery>,
    ) -> Result<VersionsAnswer, ApiError> {
        let versions = state
            .app
            .store
            .content_versions(call.params.most())
            .await?
            .iter()
            .map(VersionView::of)
            .collect();
        Ok(VersionsAnswer { versions })
    }
}

/// One published version with its text.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct VersionAnswer {
    /// The version as listed.
    #[serde(flatten)]
    pub version: VersionView,
    /// Its text.
    pub text: String,
    /// Whether this node serves it.
    pub running: bool,
}

/// `GET /content/versions/{version}`.
pub(crate) struct Version;

impl Endpoint for Version {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/content/versions/{version}";
    const ID: &'static str = "contentVersion";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The version as listed, with its `text` and whether this node \
        serves it (`running`); 404 `unknown_content_version`.";
    type Params = VersionPath;
    type Answer = VersionAnswer;
}

impl Reads for Version {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<VersionPath>,
    ) -> Result<VersionAnswer, ApiError> {
        let version = call.params.version.0;
        let PublishedContent {
            version,
            text,
            published_at,
            about,
        } = content_publication::published(state.app.store.as_ref(), version)
            .await?
            .ok_or_else(|| unknown(version))?;
        Ok(VersionAnswer {
            version: VersionView::of(&ContentVersion {
                version,
                published_at,
                about,
            }),
            text,
            running: state.app.content.current().version == version,
        })
    }
}

request_parameters! {
    /// The two versions of a diff.
    pub(crate) struct VersionDiffQuery {
        /// The version the diff goes to
        version: PositiveId = Path "version",
        /// The version the diff comes from
        from: PositiveId = Query "from",
    }
}

impl VersionDiffQuery {
    /// The diff of `version` against `from`.
    pub(crate) fn of(version: i64, from: i64) -> Self {
        Self {
            version: PositiveId(version),
            from: PositiveId(from),
        }
    }
}

/// The difference between two published versions.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct VersionDiffAnswer {
    /// The version it comes from.
    pub from: i64,
    /// The version it goes to.
    pub to: i64,
    /// The unified diff (`null` when their texts are the same).
    pub diff: Option<String>,
}

/// `GET /content/versions/{version}/diff`.
pub(crate) struct VersionDiff;

impl Endpoint for VersionDiff {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/content/versions/{version}/diff";
    const ID: &'static str = "contentVersionDiff";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The unified diff from published version `from` to version \
        `version` (`null` when their texts are the same); 404 `unknown_content_version` when \
        either is unknown.";
    type Params = VersionDiffQuery;
    type Answer = VersionDiffAnswer;
}

impl Reads for VersionDiff {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<VersionDiffQuery>,
    ) -> Result<VersionDiffAnswer, ApiError> {
        let store = state.app.store.as_ref();
        let (from, to) = (call.params.from.0, call.params.version.0);
        let text = |version: i64| async move {
            content_publication::published(store, version)
                .await?
                .map(|published| published.text)
                .ok_or_else(|| unknown(version))
        };
        let (old, new) = (text(from).await?, text(to).await?);
        let named = |version: i64, text| Named {
            name: format!("content version {version}"),
            text,
        };
        Ok(VersionDiffAnswer {
            from,
            to,
            diff: content_publication::diff(&named(from, &old), &named(to, &new)),
        })
    }
}

/// 404 `unknown_content_version`.
fn unknown(version: i64) -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownContentVersion,
        message: PublishError::UnknownVersion(version).to_string(),
    }
}

/// The content this node serves.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct RunningAnswer {
    /// Its version (0: the content it started with).
    pub version: i64,
    /// Its text.
    pub text: String,
}

/// `GET /content/running`.
pub(crate) struct Running;

impl Endpoint for Running {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/content/running";
    const ID: &'static str = "runningContent";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The version this node serves (0: the content it started \
        with) and its text, as the console's editor starts from it.";
    type Params = NoParams;
    type Answer = RunningAnswer;
}

impl Reads for Running {
    type Body = NoBody;

    async fn answer(state: OperatorState, _: Read<NoParams>) -> Result<RunningAnswer, ApiError> {
        let running = state.app.content.current();
        Ok(RunningAnswer {
            version: running.version,
            text: running.content.text().to_owned(),
        })
    }
}
