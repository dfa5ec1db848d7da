//! Who is using the console: the operator token whose secret the browser keeps in a cookie,
//! asked of the API (`GET /operator/api/status`) on every request, so that a revoked token
//! stops working at once.

use serde::Deserialize;

use super::api_call::{self, Failure};
use super::flash::Flash;
use super::{ConsoleState, PREFIX, cookie, csrf, response};
use crate::http::{Incoming, Reply, RouterState};

/// The cookie that keeps the secret.
const COOKIE: &str = "safezone_console";

/// How long a sign-in lasts, in seconds: a working day.
const LIFETIME: u32 = 12 * 60 * 60;

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

/// A signed-in request: the secret it presented and its token.
#[derive(Debug, Clone)]
pub(super) struct Session {
    secret: String,
    /// The token.
    pub operator: Operator,
}

impl Session {
    /// The session of `incoming`: its cookie's secret, which the API must still accept.
    /// Otherwise (no cookie, a token unknown or revoked) the answer is the redirect to the
    /// sign-in page; an API that cannot answer gives an error page.
    pub async fn of(state: &ConsoleState, incoming: &Incoming) -> Result<Self, Reply> {
        let Some(secret) = incoming.cookie(COOKIE).filter(|secret| !secret.is_empty()) else {
            return Err(response::see_other(&format!("{PREFIX}/sign-in")));
        };
        match Self::check(state, &secret).await {
            Ok(session) => Ok(session),
            Err(failure) if failure.is_unauthorized() => {
                let secure = secure(state, incoming);
                let flash = Flash::error(format!(
                    "Your operator token no longer works ({}): sign in again.",
                    failure.message
                ));
                Err(response::see_other(&format!("{PREFIX}/sign-in"))
                    .with_header(http::header::SET_COOKIE, &cookie::expire(COOKIE))
                    .with_header(http::header::SET_COOKIE, &flash.set_cookie(secure)))
            }
            Err(failure) => Err(response::failure_page(&failure)),
        }
    }

    /// The session of `secret` if the API accepts it.
    pub async fn check(state: &ConsoleState, secret: &str) -> Result<Self, Failure> {
        let answer = api_call::get(&state.api, secret, "/status").await?;
        let status: StatusAnswer = api_call::read(answer)?;
        Ok(Self {
            secret: secret.to_owned(),
            operator: status.token,
        })
    }

    /// The secret, for the API calls made for this operator.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// The form token every form of this session carries.
    pub fn csrf(&self) -> String {
        csrf::token(&self.secret)
    }

    /// The `Set-Cookie` that keeps this session in the browser.
    pub fn set_cookie(&self, secure: bool) -> String {
        cookie::set(COOKIE, &self.secret, LIFETIME, secure)
    }

    /// The `Set-Cookie` that ends a session.
    pub fn expire_cookie() -> String {
        cookie::expire(COOKIE)
    }
}

/// Whether the console's cookies for `incoming` must be `Secure`.
pub(super) fn secure(state: &ConsoleState, incoming: &Incoming) -> bool {
    cookie::over_https(&incoming.headers, state.settings().trust_forwarded_for)
}
