//! The content under `/operator/api/content`: the version this node serves and the published
//! ones, a file's diff against the running version with its check, and, audited, publishing
//! and rolling back ([`content_publication`], which the command line's `content` commands use
//! too). This node serves what it publishes at once; every other node within
//! [`Settings::content_check_every`](crate::Settings::content_check_every).

use serde::Deserialize;
use serde_json::{Value, json};

use super::audited::{self, Audit, Reasoned, Write};
use super::{OperatorState, auth, views};
use crate::content::{Content, ContentProblem};
use crate::content_publication::{self, Named, PublishError, Publisher, RolledBack};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};

/// How many published versions `GET /content` lists.
const VERSIONS_LISTED: i64 = 50;

/// What the content check's errors name the uploaded file.
const UPLOADED: &str = "uploaded";

/// `GET /content`: the version this node serves (0: the content it started with), the newest
/// published, and the newest published versions (at most 50), newest first.
pub(super) async fn status(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let store = state.app.store.as_ref();
    let versions: Vec<Value> = store
        .content_versions(VERSIONS_LISTED)
        .await?
        .iter()
        .map(|published| {
            json!({
                "version": published.version,
                "published": views::rfc3339(published.published_at),
            })
        })
        .collect();
    Ok(Reply::success(&json!({
        "running": state.app.content.current().version,
        "newest": store.content_head().await?,
        "versions": versions,
    })))
}

/// A content check's problem as the API lists it: its line (when it has one) and the message
/// `check-content` prints.
fn error_view(problem: &ContentProblem) -> Value {
    json!({ "line": problem.line(), "message": problem.message() })
}

/// The body of `diff`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffBody {
    text: String,
}

/// `POST /content/diff` `{text}`: the unified diff from the content this node serves to
/// `text` (`null` when the same), and whether `text` passes the content check, with its
/// errors (`[{line, message}]`) when it does not. Changes nothing.
pub(super) async fn diff(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let body: DiffBody = incoming.json_body().await?;
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
    let errors: Vec<Value> = Content::parse(&checked, UPLOADED)
        .err()
        .iter()
        .flat_map(|error| error.problems().iter().map(error_view))
        .collect();
    Ok(Reply::success(&json!({
        "running": running.version,
        "diff": content_publication::diff(&from, &to),
        "valid": errors.is_empty(),
        "errors": errors,
    })))
}

/// The body of `publish`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishBody {
    text: String,
    reason: String,
}

impl Reasoned for PublishBody {
    fn reason(&self) -> &str {
        &self.reason
    }
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

/// `POST /content/publish` `{text, reason}`: checks `text` as `content publish` does and
/// publishes it (400 `invalid_content`, naming the line, and nothing published when it does
/// not pass); answers `{version, running}`; audited `content-publish` on `content:VERSION`.
pub(super) async fn publish(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let audit = |_: &Value| Audit {
        action: "content-publish",
        target: "content".to_owned(),
    };
    audited::audited(
        state,
        incoming,
        audit,
        Ok(()),
        |state, write: Write<(), PublishBody>| async move {
            let now = state.app.clock.now();
            let store = state.app.store.as_ref();
            let by = publisher(&write.token.name, &write.body.reason);
            content_publication::publish(store, &write.body.text, UPLOADED, by, now, write.audit())
                .await
                .map_err(refused)
        },
        |state, version| async move {
            let running = serve_newest(&state).await?;
            Ok(json!({ "version": version, "running": running }))
        },
    )
    .await
}

/// The body of `rollback`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RollbackBody {
    /// The version to publish again; without it, the one before the version the newest
    /// descends from.
    #[serde(default)]
    to: Option<i64>,
    reason: String,
}

impl Reasoned for RollbackBody {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// `POST /content/rollback` `{to?, reason}`: publishes again, as a new version, version `to`,
/// or the version before the one the newest descends from (409 `no_earlier_content` without
/// one; 404 `unknown_content_version` for an unknown `to`; 409 `content_already_served` when it
/// has the content served now); answers `{version, from, running}`; audited
/// `content-rollback` on `content:VERSION`.
pub(super) async fn rollback(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let audit = |_: &Value| Audit {
        action: "content-rollback",
        target: "content".to_owned(),
    };
    audited::audited(
        state,
        incoming,
        audit,
        Ok(()),
        |state, write: Write<(), RollbackBody>| async move {
            let now = state.app.clock.now();
            let by = publisher(&write.token.name, &write.body.reason);
            let store = state.app.store.as_ref();
            content_publication::rollback(store, write.body.to, by, now, write.audit())
                .await
                .map_err(refused)
        },
        |state, rolled: RolledBack| async move {
            let running = serve_newest(&state).await?;
            Ok(json!({
                "version": rolled.version,
                "from": rolled.from,
                "running": running,
            }))
        },
    )
    .await
}
