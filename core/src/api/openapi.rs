//! `GET /api/openapi.json`: the OpenAPI 3.1 document of the whole API, rendered once.

use std::sync::LazyLock;

use http::StatusCode;
use serde_json::value::RawValue;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};

/// The document as JSON, rendered on first use.
static DOCUMENT: LazyLock<Result<Box<RawValue>, String>> = LazyLock::new(|| {
    serde_json::value::to_raw_value(&super::document()).map_err(|error| error.to_string())
});

/// Answers the document (not wrapped in the success envelope).
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "health",
    operation_id = "openapi",
    description = "This OpenAPI 3.1 document.",
    responses((status = 200, description = "The document", body = Object))
)]
pub(super) async fn document(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    match &*DOCUMENT {
        Ok(document) => Ok(Reply::json(StatusCode::OK, document)),
        Err(error) => Err(ApiError::Internal {
            detail: format!("the OpenAPI document did not serialize: {error}"),
        }),
    }
}
