//! Signing in with an operator token's secret (the API opens a console session of it), and out
//! again (the API ends the session).

use askama::Template;
use http::StatusCode;
use http::header::SET_COOKIE;

use super::flash::Flash;
use super::frame::Frame;
use super::session::{self, Session};
use super::{ConsoleState, PREFIX, checked, get, post, response};
use crate::http::{ApiError, Handler, Incoming, Reply, Routes, handler};

/// The sign-in page.
#[derive(Template)]
#[template(path = "console/sign_in.html")]
struct SignInPage {
    frame: Frame,
    error: Option<String>,
}

/// The sign-in routes: the page, signing in, signing out.
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let sign_out: Handler<ConsoleState> = checked(sign_out);
    let routes = get(routes, "/sign-in", handler(page));
    let routes = post(routes, "/sign-in", handler(sign_in));
    post(routes, "/sign-out", sign_out)
}

/// `GET /sign-in`: the form asking for the token's secret.
async fn page(_: ConsoleState, incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(response::page(
        StatusCode::OK,
        &SignInPage {
            frame: Frame::signed_out(&incoming),
            error: None,
        },
    ))
}

/// `POST /sign-in` with `secret`: when the API accepts it, a new console session, the cookie
/// that keeps the session's id (never the secret) and the way to the console; otherwise the
/// form again, saying why (401). Like every console POST, it is refused (403) unless the
/// browser sent it from the console's own pages (see [`super::origin`]): no page elsewhere may
/// sign the browser in with a token of its choosing.
async fn sign_in(state: ConsoleState, incoming: Incoming) -> Result<Reply, ApiError> {
    let secret = incoming.query.optional("secret").unwrap_or_default().trim();
    let refused = |status: StatusCode, error: String| {
        response::page(
            status,
            &SignInPage {
                frame: Frame::bare(),
                error: Some(error),
            },
        )
    };
    if secret.is_empty() {
        return Ok(refused(
            StatusCode::UNAUTHORIZED,
            "Paste the secret of your operator token.".to_owned(),
        ));
    }
    match Session::open(&state, secret).await {
        Ok(session) => {
            let secure = session::secure(&state, &incoming);
            let flash = Flash::ok(format!(
                "Signed in as {} ({}).",
                session.operator.name,
                if session.operator.can_write() {
                    "full access"
                } else {
                    "read-only"
                }
            ));
            Ok(
                response::see_other_with(&format!("{PREFIX}/"), &flash, secure)
                    .with_header(SET_COOKIE, &session.set_cookie(secure)),
            )
        }
        Err(failure) if failure.is_unauthorized() || failure.status == StatusCode::BAD_REQUEST => {
            Ok(refused(
                StatusCode::UNAUTHORIZED,
                format!("This token was not accepted: {}.", failure.message),
            ))
        }
        Err(failure) => Ok(response::failure_page(&failure)),
    }
}

/// `POST /sign-out`: the session ended through the API (on every node: a copy of the cookie
/// stops working too), the cookie forgotten, back to the sign-in page. When the API cannot end
/// it, an error page, and the cookie is kept so that signing out can be tried again.
async fn sign_out(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    match session.end(&state).await {
        Err(failure) if !failure.is_unauthorized() => Ok(response::failure_page(&failure)),
        Ok(()) | Err(_) => {
            let secure = session::secure(&state, &incoming);
            Ok(response::see_other_with(
                &format!("{PREFIX}/sign-in"),
                &Flash::ok("Signed out."),
                secure,
            )
            .with_header(SET_COOKIE, &Session::expire_cookie()))
        }
    }
}
