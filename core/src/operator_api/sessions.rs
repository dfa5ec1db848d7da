//! The console's sessions: `POST /operator/api/sessions` opens one with an operator token's
//! secret, `POST /operator/api/sessions/end` ends the one presented. A session's id then stands
//! for the token (`Authorization: Bearer session_...`, see [`auth`]) until it is ended, expires
//! after [`LIFETIME`], or the token is revoked, on every node (the sessions are in the
//! database).

use http::Method;
use serde::{Deserialize, Serialize};
use time::Duration;
use utoipa::ToSchema;

use super::OperatorState;
use super::auth::{self, Credential};
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::status::TokenView;
use super::views::When;
use crate::domain::OperatorSessionId;
use crate::http::ApiError;
use crate::http::params::NoParams;
use crate::store::NewOperatorSession;

/// How long a session works: a working day.
pub(super) const LIFETIME: Duration = Duration::hours(12);

/// A session just opened.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct SessionView {
    /// Its id, shown once (the database keeps only its SHA-256).
    pub id: String,
    /// When it expires.
    pub expires: When,
    /// Its lifetime in seconds.
    pub lifetime: i64,
}

/// The answer of opening a session.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct OpenedSession {
    /// The session.
    pub session: SessionView,
    /// The token it stands for.
    pub token: TokenView,
}

/// `POST /sessions`.
pub(crate) struct OpenSession;

impl Endpoint for OpenSession {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/sessions";
    const ID: &'static str = "openSession";
    const TAG: &'static str = "sessions";
    const ABOUT: &'static str = "With the token's secret as bearer: a new session of that \
        token: its id (shown once; the database keeps only its SHA-256), when it expires, its \
        lifetime in seconds, and the token's name and role. A session cannot open another \
        (400): only the secret can, so a session never outlives its lifetime (12 hours).";
    type Params = NoParams;
    type Answer = OpenedSession;
}

impl Reads for OpenSession {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<NoParams>) -> Result<OpenedSession, ApiError> {
        if let Credential::Session(_) = call.credential {
            return Err(ApiError::invalid(
                "Authorization",
                "a console session cannot open another session: present the operator token's \
                 secret",
            ));
        }
        let id = OperatorSessionId::generate();
        let now = state.app.clock.now();
        let expires = now + LIFETIME;
        let opened = state
            .app
            .store
            .open_operator_session(NewOperatorSession {
                id_hash: id.hash(),
                token: call.token.id,
                created_at: now,
                expires_at: expires,
            })
            .await?;
        if !opened {
            return Err(auth::invalid_token());
        }
        Ok(OpenedSession {
            session: SessionView {
                id: id.as_str().to_owned(),
                expires: expires.into(),
                lifetime: LIFETIME.whole_seconds(),
            },
            token: TokenView::of(&call.token),
        })
    }
}

/// Whether a session was ended.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct SessionEnded {
    /// `true` when this call ended it.
    pub ended: bool,
}

/// `POST /sessions/end`.
pub(crate) struct EndSession;

impl Endpoint for EndSession {
    const METHOD: Method = Method::POST;
    const PATH: &'static str = "/sessions/end";
    const ID: &'static str = "endSession";
    const TAG: &'static str = "sessions";
    const ABOUT: &'static str = "With a session's id as bearer: ends it at once, on every \
        node (`ended: true`); 401 for a session that no longer works, 400 for a token's secret \
        (a token is revoked, not ended: `operator-token revoke`).";
    type Params = NoParams;
    type Answer = SessionEnded;
}

impl Reads for EndSession {
    type Body = NoBody;

    async fn answer(state: OperatorState, call: Read<NoParams>) -> Result<SessionEnded, ApiError> {
        let Credential::Session(session) = call.credential else {
            return Err(ApiError::invalid(
                "Authorization",
                "only a console session can be ended: present its id (an operator token is \
                 revoked with `operator-token revoke`)",
            ));
        };
        let ended = state
            .app
            .store
            .end_operator_session(&session.hash(), state.app.clock.now())
            .await?;
        Ok(SessionEnded { ended })
    }
}
