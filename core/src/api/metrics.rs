//! `/api/metrics/update`: clients report their WebGL version; it has no effect.

use serde::Deserialize;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};

/// The only WebGL version the spec allows.
const WEBGL2: &str = "webgl2";

#[derive(Deserialize)]
struct MetricsReport {
    webgl_version: String,
}

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

/// `GET`: no parameters, no effect.
pub(super) async fn ignore(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(Reply::done())
}
