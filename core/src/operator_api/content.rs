//! The content under `/operator/api/content`: the version this node serves and the published
//! ones, a file's diff against the running version with its check, and, audited, publishing
//! and rolling back ([`content_publication`], which the command line's `content` commands use
//! too). This node serves what it publishes at once; every other node within
//! [`Settings::content_check_every`](crate::Settings::content_check_every).

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::change_call::{Write, reasoned};
use super::endpoint::{Changes, Endpoint, Json, NoBody, Read, Reads};
use super::views::When;
use crate::content::{Content, ContentProblem};
use crate::content_publication::{self, Named, PublishError, Publisher, RolledBack};
use crate::http::params::NoParams;
use crate::http::{ApiError, ErrorCode};

/// How many published versions `GET /content` lists.
const VERSIONS_LISTED: i64 = 50;

/// What the content check's errors name the uploaded file.
const UPLOADED: &str = "uploaded";

/// A published version, listed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct PublishedView {
    /// The version.
    pub version: i64,
    /// When it was published.
    pub published: When,
}

/// The content this node serves and the published versions.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ContentAnswer {
    /// The version this node serves (0: the content it started with).
    pub running: i64,
    /// The newest published version (0: none).
    pub newest: i64,
    /// The newest published versions (at most 50), newest first.
    pub versions: Vec<PublishedView>,
}

/// `GET /content`.
pub(crate) struct ContentStatus;

impl Endpoint for ContentStatus {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/content";
    const ID: &'static str = "content";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The version this node serves (0: the content it started \
        with), the newest published, and the newest published versions (at most 50), newest \
        first.";
    type Params = NoParams;
    type Answer = ContentAnswer;
}

impl Reads for ContentStatus {
    type Body = NoBody;

    async fn answer(state: OperatorState, _: Read<NoParams>) -> Result<ContentAnswer, ApiError> {
        let store = state.app.store.as_ref();
        let versions = store
            .content_versions(VERSIONS_LISTED)
            .await?
            .iter()
            .map(|published| PublishedView {
                version: published.version,
                published: published.published_at.into(),
            })
            .collect();
        Ok(ContentAnswer {
            running: state.app.content.current().version,
            newest: store.content_head().await?,
            versions,
        })
    }
}

/// A content check's problem: its line (when it has one) and the message `check-content`
/// prints.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct ContentError {
    /// The line it is on.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ContentError {
    /// A problem as the API lists it.
    fn of(problem: &ContentProblem) -> Self {
        Self {
            line: problem.line(),
            message: problem.message().to_string(),
        }
    }
}

/// The body of `diff`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiffBody {
    /// The content file's text.
    pub text: String,
}

/// A content file's diff and check.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct DiffAnswer {
    /// The version this node serves.
    pub running: i64,
    /// The unified diff from it to the text (`null` when the same).
    pub diff: Option<String>,
    /// Whether the text passes the content check.
    pub valid: bool,
    /// Its problems when it does not.
    pub errors: Vec<ContentError>,
}

/// `POST /content/diff`.
pub(crate) struct Diff;

impl Endpoint for Diff {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/content/diff";
    const ID: &'static str = "contentDiff";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "The unified diff from the content this node serves to `text` \
        (`null` when the same), and whether `text` passes the content check, with its errors \
        (`[{line, message}]`) when it does not. Changes nothing.";
    type Params = NoParams;
    type Answer = DiffAnswer;
}

impl Reads for Diff {
    type Body = Json<DiffBody>;

    async fn answer(
        state: OperatorState,
        call: Read<NoParams, Json<DiffBody>>,
    ) -> Result<DiffAnswer, ApiError> {
        let Json(body) = call.body;
        let running = state.app.content.current();
        let from = Named {
            name: if running.version == 0 {
                "the content this node started with".to_owned()
            } else {
                format!("content version {}", running.version)
            },
            text: running.content.text(),
        };
        let to = Named {
            name: UPLOADED.to_owned(),
            text: &body.text,
        };
        let checked = content_publication::normalise_line_ends(&body.text);
        let errors: Vec<ContentError> = Content::parse(&checked, UPLOADED)
            .err()
            .iter()
            .flat_map(|error| error.problems().iter().map(ContentError::of))
            .collect();
        Ok(DiffAnswer {
            running: running.version,
            diff: content_publication::diff(&from, &to),
            valid: errors.is_empty(),
            errors,
        })
    }
}

/// The body of `publish`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PublishBody {
    /// The content file's text.
    pub text: String,
    /// Why, for the audit and the version.
    pub reason: String,
}

/// A publication or rollback that did not happen, as the API answers it.
fn refused(error: PublishError) -> ApiError {
    match error {
        PublishError::Invalid(_) => ApiError::Invalid {
            code: ErrorCode::InvalidContent,
            message: format!("field `text` does not pass the content check: {error}"),
        },
        PublishError::NothingPublished | PublishError::FirstVersion(_) => ApiError::Conflict {
            code: ErrorCode::NoEarlierContent,
            message: error.to_string(),
        },
        PublishError::UnknownVersion(_) => ApiError::NotFound {
            code: ErrorCode::UnknownContentVersion,
            message: error.to_string(),
        },
        PublishError::AlreadyServed(..) => ApiError::Conflict {
            code: ErrorCode::ContentAlreadyServed,
            message: error.to_string(),
        },
        PublishError::Unreadable { .. } => ApiError::Conflict {
            code: ErrorCode::ContentUnreadable,
            message: error.to_string(),
        },
        PublishError::Store(error) => error.into(),
    }
}

/// The caller's token, with its reason, as the publisher.
fn publisher<'a>(token: &'a str, reason: &'a str) -> Publisher<'a> {
    Publisher {
        by: Some(token),
        reason: Some(reason.trim()),
    }
}

/// Serves the newest published content on this node now rather than at its next check.
async fn serve_newest(state: &OperatorState) -> Result<i64, ApiError> {
    Ok(state.app.content.refresh(state.app.store.as_ref()).await?)
}

/// A version published.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct Published {
    /// The new version.
    pub version: i64,
    /// The version this node serves now.
    pub running: i64,
}

/// `POST /content/publish`.
pub(crate) struct Publish;

impl Endpoint for Publish {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/content/publish";
    const ID: &'static str = "publishContent";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "Checks `text` as `content publish` does and publishes it (400 \
        `invalid_content`, naming the line, and nothing published when it does not pass); \
        answers `{version, running}`; audited `content-publish` on `content:VERSION`.";
    type Params = NoParams;
    type Answer = Published;
}

impl Changes for Publish {
    const ACTION: &'static str = "content-publish";
    const TARGET: &'static str = "content";
    type Body = PublishBody;
    type Changed = i64;

    async fn change(
        state: OperatorState,
        write: Write<NoParams, PublishBody>,
    ) -> Result<i64, ApiError> {
        let now = state.app.clock.now();
        let store = state.app.store.as_ref();
        let by = publisher(&write.token.name, &write.body.reason);
        content_publication::publish(store, &write.body.text, UPLOADED, by, now, write.audit())
            .await
            .map_err(refused)
    }

    async fn answer(state: OperatorState, version: i64) -> Result<Published, ApiError> {
        let running = serve_newest(&state).await?;
        Ok(Published { version, running })
    }
}

/// The body of `rollback`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RollbackBody {
    /// The version to publish again; without it, the one before the version the newest
    /// descends from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<i64>,
    /// Why, for the audit and the version.
    pub reason: String,
}

/// A rollback made.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct RolledBackAnswer {
    /// The new version.
    pub version: i64,
    /// The version whose content it restores.
    pub from: i64,
    /// The version this node serves now.
    pub running: i64,
}

/// `POST /content/rollback`.
pub(crate) struct Rollback;

impl Endpoint for Rollback {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/content/rollback";
    const ID: &'static str = "rollbackContent";
    const TAG: &'static str = "content";
    const ABOUT: &'static str = "Publishes again, as a new version, version `to`, or the \
        version before the one the newest descends from (409 `no_earlier_content` without one; \
        404 `unknown_content_version` for an unknown `to`; 409 `content_already_served` when it \
        has the content served now); answers `{version, from, running}`; audited \
        `content-rollback` on `content:VERSION`.";
    type Params = NoParams;
    type Answer = RolledBackAnswer;
}

impl Changes for Rollback {
    const ACTION: &'static str = "content-rollback";
    const TARGET: &'static str = "content";
    type Body = RollbackBody;
    type Changed = RolledBack;

    async fn change(
        state: OperatorState,
        write: Write<NoParams, RollbackBody>,
    ) -> Result<RolledBack, ApiError> {
        let now = state.app.clock.now();
        let by = publisher(&write.token.name, &write.body.reason);
        let store = state.app.store.as_ref();
        content_publication::rollback(store, write.body.to, by, now, write.audit())
            .await
            .map_err(refused)
    }

    async fn answer(
        state: OperatorState,
        rolled: RolledBack,
    ) -> Result<RolledBackAnswer, ApiError> {
        let running = serve_newest(&state).await?;
        Ok(RolledBackAnswer {
            version: rolled.version,
            from: rolled.from,
            running,
        })
    }
}

reasoned!(PublishBody, RollbackBody);
