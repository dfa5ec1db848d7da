//! `GET /operator/api/status`: this node as an operator sees it: its version, the content
//! version it serves, its leaderboards and its database; and the caller's token.

use serde_json::json;

use super::{OperatorState, auth};
use crate::http::{ApiError, Incoming, Reply};

/// This node's version, published content version (0: the content it started with), the
/// content file it was started with (`null`: the shipped one) and whether it is what it serves
/// (a published version wins over it), whether
/// its leaderboards are loaded, and whether its database answers, with its pools; and the
/// caller's token, its name and role (what the console shows and which forms it offers).
pub(super) async fn status(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let token = auth::caller(&state, &incoming).await?;
    let app = &state.app;
    let boards = app.leaderboards.status();
    let database = app.store.ping().await;
    let pools: Vec<_> = app
        .store
        .pools()
        .into_iter()
        .map(|pool| {
            json!({
                "name": pool.name,
                "open": pool.open,
                "idle": pool.idle,
                "max": pool.max,
            })
        })
        .collect();
    Ok(Reply::success(&json!({
        "token": { "name": token.name, "role": token.role.as_str() },
        "version": env!("CARGO_PKG_VERSION"),
        "content_version": app.content.current().version,
        "content_file": {
            "path": app.settings.content_file,
            "served": app.content.current().version == 0,
        },
        "leaderboards": {
            "ready": boards.ready,
            "loaded_results": boards.loaded_results,
            "players": boards.players,
        },
        "database": {
            "reachable": database.is_ok(),
            "error": database.err().map(|error| error.to_string()),
            "pools": pools,
        },
    })))
}
