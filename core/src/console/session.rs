//! Who is using the console: a console session of an operator token, opened through the API
//! (`POST /operator/api/sessions`) at sign-in. The browser keeps only the session's id in a
//! cookie, never the token's secret; every request asks the API about it again
//! (`GET /operator/api/status`), so that a session ended (signing out, on any node), expired,
//! or of a revoked token stops working at once.

use super::{ConsoleState, cookie, csrf};
use crate::http::params::NoParams;
use crate::http::{Incoming, RouterState};
use crate::operator_api::Failure;
use crate::operator_api::sessions::{EndSession, OpenSession};
use crate::operator_api::status::{Status, TokenView};

/// The cookie that keeps the session's id.
const COOKIE: &str = "safezone_console";

/// A signed-in request: the session it presented and its token.
#[derive(Debug, Clone)]
pub(super) struct Session {
    id: String,
    /// How long the browser keeps the cookie, in seconds (only known when just opened).
    lifetime: i64,
    /// The token, as the API names it.
    pub operator: TokenView,
}

/// Why a request has no working session.
pub(super) enum NoSession {
    /// It presented none.
    Absent,
    /// The API no longer accepts the one it presented (ended, expired, of a revoked token).
    Refused(Failure),
    /// The API could not say.
    Failed(Failure),
}

impl Session {
    /// The session of `incoming`: its cookie's session id, which the API must still accept.
    pub async fn of(state: &ConsoleState, incoming: &Incoming) -> Result<Self, NoSession> {
        let Some(id) = incoming.cookie(COOKIE).filter(|id| !id.is_empty()) else {
            return Err(NoSession::Absent);
        };
        match state.api.read::<Status>(&id, &NoParams).await {
            Ok(status) => Ok(Self {
                id,
                lifetime: 0,
                operator: status.token,
            }),
            Err(failure) if failure.is_unauthorized() => Err(NoSession::Refused(failure)),
            Err(failure) => Err(NoSession::Failed(failure)),
        }
    }

    /// A new session of the token whose secret is `secret`, if the API accepts the secret.
    pub async fn open(state: &ConsoleState, secret: &str) -> Result<Self, Failure> {
        let opened = state.api.read::<OpenSession>(secret, &NoParams).await?;
        Ok(Self {
            id: opened.session.id,
            lifetime: opened.session.lifetime,
            operator: opened.token,
        })
    }

    /// Ends this session for every node (signing out).
    pub async fn end(&self, state: &ConsoleState) -> Result<(), Failure> {
        state
            .api
            .read::<EndSession>(&self.id, &NoParams)
            .await
            .map(drop)
    }

    /// The session's secret, its id: the bearer of the API calls made for this operator.
    pub fn secret(&self) -> &str {
        &self.id
    }

    /// The form token every form of this session carries.
    pub fn csrf(&self) -> String {
        csrf::token(&self.id)
    }

    /// The `Set-Cookie` that keeps this session in the browser for its lifetime.
    pub fn set_cookie(&self, secure: bool) -> String {
        cookie::set(
            COOKIE,
            &self.id,
            u32::try_from(self.lifetime).unwrap_or_default(),
            secure,
        )
    }

    /// The `Set-Cookie` that ends a session in the browser.
    pub fn expire_cookie() -> String {
        cookie::expire(COOKIE)
    }
}

/// Whether the console's cookies for `incoming` must be `Secure`.
pub(super) fn secure(state: &ConsoleState, incoming: &Incoming) -> bool {
    cookie::over_https(&incoming.headers, state.settings().trust_forwarded_for)
}
