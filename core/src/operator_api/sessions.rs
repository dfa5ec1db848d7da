//! The console's sessions: `POST /operator/api/sessions` opens one with an operator token's
//! secret, `POST /operator/api/sessions/end` ends the one presented. A session's id then stands
//! for the token (`Authorization: Bearer session_...`, see [`auth`]) until it is ended, expires
//! after [`LIFETIME`], or the token is revoked, on every node (the sessions are in the
//! database).

use serde_json::json;
use time::Duration;

use super::auth::{self, Credential};
use super::{OperatorState, views};
use crate::domain::OperatorSessionId;
use crate::http::{ApiError, Incoming, Reply};
use crate::store::NewOperatorSession;

/// How long a session works: a working day.
pub(super) const LIFETIME: Duration = Duration::hours(12);

/// `POST /operator/api/sessions`, with the token's secret as bearer: a new session of that
/// token: its id (shown once; the database keeps only its SHA-256), when it expires, its
/// lifetime in seconds, and the token's name and role. A session cannot open another (400):
/// only the secret can, so a session never outlives its [`LIFETIME`].
pub(super) async fn open(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    if let Credential::Session(_) = auth::credential(&incoming)? {
        return Err(ApiError::invalid(
            "Authorization",
            "a console session cannot open another session: present the operator token's \
             secret",
        ));
    }
    let token = auth::caller(&state, &incoming).await?;
    let id = OperatorSessionId::generate();
    let now = state.app.clock.now();
    let expires = now + LIFETIME;
    let opened = state
        .app
        .store
        .open_operator_session(NewOperatorSession {
            id_hash: id.hash(),
            token: token.id,
            created_at: now,
            expires_at: expires,
        })
        .await?;
    if !opened {
        return Err(auth::invalid_token());
    }
    Ok(Reply::success(&json!({
        "session": {
            "id": id.as_str(),
            "expires": views::rfc3339(expires),
            "lifetime": LIFETIME.whole_seconds(),
        },
        "token": { "name": token.name, "role": token.role.as_str() },
    })))
}

/// `POST /operator/api/sessions/end`, with a session's id as bearer: ends it at once, on every
/// node (`ended: true`); 401 for a session that no longer works, 400 for a token's secret
/// (a token is revoked, not ended: `operator-token revoke`).
pub(super) async fn end(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    let Credential::Session(session) = auth::credential(&incoming)? else {
        return Err(ApiError::invalid(
            "Authorization",
            "only a console session can be ended: present its id (an operator token is revoked \
             with `operator-token revoke`)",
        ));
    };
    auth::caller(&state, &incoming).await?;
    let ended = state
        .app
        .store
        .end_operator_session(&session.hash(), state.app.clock.now())
        .await?;
    Ok(Reply::success(&json!({ "ended": ended })))
}
