//! Who is using the console: a console session of an operator token, opened through the API
//! (`POST /operator/api/sessions`) at sign-in. The browser keeps only the session's id in a
//! cookie, never the token's secret; every request asks the API about it again
//! (`GET /operator/api/status`), so that a session ended (signing out, on any node), expired,
//! or of a revoked token stops working at once.

use serde::Deserialize;
use serde_json::json;

use super::api_call::{self, Failure};
use super::flash::Flash;
use super::{ConsoleState, PREFIX, cookie, csrf, response};
use crate::http::{Incoming, Reply, RouterState};

/// The cookie that keeps the session's id.
const COOKIE: &str = "safezone_console";

/// The signed-in token, as the API names it.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Operator {
    /// The token's name (who holds it).
    pub name: String,
    /// `read` or `full`.
    pub role: String,
}

impl Operator {
    /// Whether the token may change anything (the console hides the forms otherwise; the API
    /// refuses a read-only token's changes whatever the console shows).
    pub fn can_write(&self) -> bool {
        self.role == "full"
    }
}

/// What `GET /operator/api/status` says of the caller.
#[derive(Deserialize)]
struct StatusAnswer {
    token: Operator,
}

/// What `POST /operator/api/sessions` answers.
#[derive(Deserialize)]
struct OpenedAnswer {
    session: Opened,
    token: Operator,
}

/// A session just opened.
#[derive(Deserialize)]
struct Opened {
    /// Its id, the cookie's value.
    id: String,
    /// How long it works, in seconds.
    lifetime: u32,
}

/// A signed-in request: the session it presented and its token.
#[derive(Debug, Clone)]
pub(super) struct Session {
    id: String,
    /// How long the browser keeps the cookie, in seconds (only known when just opened).
    lifetime: u32,
    /// The token.
    pub operator: Operator,
}

impl Session {
    /// The session of `incoming`: its cookie's session id, which the API must still accept.
    /// Otherwise (no cookie, a session ended, expired or of a revoked token) the answer is the
    /// redirect to the sign-in page; an API that cannot answer gives an error page.
    pub async fn of(state: &ConsoleState, incoming: &Incoming) -> Result<Self, Reply> {
        let Some(id) = incoming.cookie(COOKIE).filter(|id| !id.is_empty()) else {
            return Err(response::see_other(&format!("{PREFIX}/sign-in")));
        };
        let checked = async {
            let answer = api_call::get(&state.api, &id, "/status").await?;
            api_call::read::<StatusAnswer>(answer)
        };
        match checked.await {
            Ok(status) => Ok(Self {
                id,
                lifetime: 0,
                operator: status.token,
            }),
            Err(failure) if failure.is_unauthorized() => {
                let secure = secure(state, incoming);
                let flash = Flash::error(format!(
                    "Your sign-in no longer works ({}): sign in again.",
                    failure.message
                ));
                Err(response::see_other(&format!("{PREFIX}/sign-in"))
                    .with_header(http::header::SET_COOKIE, &Self::expire_cookie())
                    .with_header(http::header::SET_COOKIE, &flash.set_cookie(secure)))
            }
            Err(failure) => Err(response::failure_page(&failure)),
        }
    }

    /// A new session of the token whose secret is `secret`, if the API accepts the secret.
    pub async fn open(state: &ConsoleState, secret: &str) -> Result<Self, Failure> {
        let answer = api_call::post(&state.api, secret, "/sessions", &json!({})).await?;
        let opened: OpenedAnswer = api_call::read(answer)?;
        Ok(Self {
            id: opened.session.id,
            lifetime: opened.session.lifetime,
            operator: opened.token,
        })
    }

    /// Ends this session for every node (signing out).
    pub async fn end(&self, state: &ConsoleState) -> Result<(), Failure> {
        api_call::post(&state.api, &self.id, "/sessions/end", &json!({}))
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
        cookie::set(COOKIE, &self.id, self.lifetime, secure)
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
