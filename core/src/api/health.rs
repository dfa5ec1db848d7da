//! `GET /api`: the health check.

use serde::Serialize;
use utoipa::ToSchema;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{ErrorBody, Success};

/// `{service, version, database}`.
#[derive(Serialize, ToSchema)]
struct Health {
    /// Always `safezone`.
    service: &'static str,
    /// The server's version.
    version: &'static str,
    /// Always `ok`: the database answered.
    database: &'static str,
}

/// Answers success only when the database answers; 503 `database_unavailable` otherwise.
#[utoipa::path(
    get,
    path = "/api",
    tag = "health",
    operation_id = "health",
    description = "Success only when the database answers.",
    responses(
        (status = 200, description = "The service and its database answer", body = Success<Health>),
        (status = 503, description = "The database does not answer (`database_unavailable`)", body = ErrorBody),
    )
)]
pub(super) async fn check(app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    app.store.ping().await?;
    Ok(Reply::success(&Health {
        service: "safezone",
        version: env!("CARGO_PKG_VERSION"),
        database: "ok",
    }))
}
