//! `/api/metrics/update`: clients report their WebGL version; it has no effect.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{Done, ErrorBody};

/// The only WebGL version the spec allows.
const WEBGL2: &str = "webgl2";

/// `{"webgl_version": "webgl2"}`.
#[derive(Deserialize, ToSchema)]
struct MetricsReport {
    /// Always `webgl2`.
    #[schema(pattern = "^webgl2$")]
    webgl_version: String,
}

#[utoipa::path(
    post,
    path = "/api/metrics/update",
    tag = "metrics",
    operation_id = "reportMetrics",
    description = "The client's WebGL version; checked, then ignored.",
    request_body(content = MetricsReport, content_type = "application/json"),
    responses(
        (status = 200, description = "Accepted", body = Done),
        (status = 400, description = "No JSON body, or `webgl_version` is not `webgl2` (`invalid_body`)", body = ErrorBody),
    )
)]
/// `POST`: the JSON body `{"webgl_version": "webgl2"}` is required and checked, then ignored.
pub(super) async fn accept(_app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let report: MetricsReport = incoming.json_body().await?;
    if report.webgl_version != WEBGL2 {
        return Err(ApiError::InvalidBody {
            reason: format!("field `webgl_version` must be `{WEBGL2}`"),
        });
    }
    Ok(Reply::done())
}

#[utoipa::path(
    get,
    path = "/api/metrics/update",
    tag = "metrics",
    operation_id = "pingMetrics",
    description = "No parameters, no effect.",
    responses((status = 200, description = "Accepted", body = Done))
)]
/// `GET`: no parameters, no effect.
pub(super) async fn ignore(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(Reply::done())
}
