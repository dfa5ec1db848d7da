//! `GET /api/asyncapi.json`: the AsyncAPI 3.0 document of the realtime channel, rendered once.

use std::sync::LazyLock;

use http::StatusCode;
use serde_json::Value;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};

/// The document, built on first use.
static DOCUMENT: LazyLock<Value> = LazyLock::new(crate::realtime::asyncapi::document);

/// Answers the document (not wrapped in the success envelope).
#[utoipa::path(
    get,
    path = "/api/asyncapi.json",
    tag = "realtime",
    operation_id = "asyncapi",
    description = "The AsyncAPI 3.0 document of the realtime channel (`GET /api/realtime`): \
        its messages, their schemas and examples.",
    responses((status = 200, description = "The document", body = Object))
)]
pub(super) async fn document(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(Reply::json(StatusCode::OK, &*DOCUMENT))
}
