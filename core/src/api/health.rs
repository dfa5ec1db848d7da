//! `GET /api`: the health check.

use serde::Serialize;

use crate::App;
use crate::http::{ApiError, Incoming, Reply};

#[derive(Serialize)]
struct Health {
    service: &'static str,
    version: &'static str,
    database: &'static str,
}

/// Answers success only when the database answers; 503 `database_unavailable` otherwise.
pub(super) async fn check(app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    app.store.ping().await?;
    Ok(Reply::success(&Health {
        service: "safezone",
        version: env!("CARGO_PKG_VERSION"),
        database: "ok",
    }))
}
