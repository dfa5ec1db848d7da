//! The console's answers: pages rendered from templates, redirects after a form, error pages,
//! and the headers every answer carries (a content policy that loads only the console's own
//! files and posts forms only to it, never framed, never cached, its address told only to
//! itself: `Referrer-Policy: same-origin`, so that its forms send their origin).

use askama::Template;
use bytes::Bytes;
use http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, LOCATION, REFERRER_POLICY, SET_COOKIE,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use http::{HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::Value;

use super::PREFIX;
use super::flash::Flash;
use super::frame::Frame;
use super::session::{NoSession, Session};
use crate::http::Reply;
use crate::operator_api::Failure;

/// The console's content policy: its own stylesheet, forms posted to itself, nothing inline,
/// never framed.
pub(super) const POLICY: &str =
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A page that tells what went wrong.
#[derive(Template)]
#[template(path = "console/error.html")]
struct ErrorPage<'a> {
    frame: Frame,
    status: u16,
    title: &'a str,
    message: &'a str,
}

/// `page` rendered, answered with `status`.
pub(super) fn page(status: StatusCode, page: &impl Template) -> Reply {
    match page.render() {
        Ok(html) => html_reply(status, html),
        Err(error) => {
            tracing::error!(%error, "a console page did not render");
            html_reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "<!doctype html>\n<title>Error</title><p>The page did not render; it has been \
                 logged.</p>\n"
                    .to_owned(),
            )
        }
    }
}

/// An HTML answer.
fn html_reply(status: StatusCode, html: String) -> Reply {
    let mut response = Response::new(Full::new(Bytes::from(html)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    Reply::from(response)
}

/// `303 See Other` to `location` (a console path): where a form's action sends the browser.
pub(super) fn see_other(location: &str) -> Reply {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SEE_OTHER;
    Reply::from(response).with_header(LOCATION, location)
}

/// `303` to `location` with `flash` for the page there.
pub(super) fn see_other_with(location: &str, flash: &Flash, secure: bool) -> Reply {
    see_other(location).with_header(SET_COOKIE, &flash.set_cookie(secure))
}

/// An error page of `status`.
pub(super) fn error_page(status: StatusCode, title: &str, message: &str) -> Reply {
    page(
        status,
        &ErrorPage {
            frame: Frame::bare(),
            status: status.as_u16(),
            title,
            message,
        },
    )
}

/// The answer to a request without a working session: to the sign-in page (the cookie of a
/// session the API refused forgotten, with why), or an error page when the API could not say.
pub(super) fn sign_in_again(none: NoSession, secure: bool) -> Reply {
    let sign_in = format!("{PREFIX}/sign-in");
    match none {
        NoSession::Absent => see_other(&sign_in),
        NoSession::Refused(failure) => {
            let flash = Flash::error(format!(
                "Your sign-in no longer works ({}): sign in again.",
                failure.message
            ));
            see_other(&sign_in)
                .with_header(SET_COOKIE, &Session::expire_cookie())
                .with_header(SET_COOKIE, &flash.set_cookie(secure))
        }
        NoSession::Failed(failure) => failure_page(&failure),
    }
}

/// The page `render` makes of an API answer, or the error page of the call's failure.
pub(super) fn page_of<T, P: Template>(
    answer: Result<T, Failure>,
    render: impl FnOnce(T) -> P,
) -> Reply {
    match answer {
        Ok(answer) => page(StatusCode::OK, &render(answer)),
        Err(failure) => failure_page(&failure),
    }
}

/// The page of an API call that could not be made.
pub(super) fn failure_page(failure: &Failure) -> Reply {
    error_page(
        failure.status,
        "The operator API did not answer",
        &failure.to_string(),
    )
}

/// 403: a form without its token (or with another session's).
pub(super) fn forbidden_form() -> Reply {
    error_page(
        StatusCode::FORBIDDEN,
        "This form cannot be accepted",
        "The form's token is missing or belongs to another sign-in, so nothing was done. Go \
         back, reload the page and try again.",
    )
}

/// 403: a POST that did not come from the console's own pages, for the reason `why`.
pub(super) fn forbidden_origin(why: &str) -> Reply {
    error_page(
        StatusCode::FORBIDDEN,
        "This form cannot be accepted",
        &format!(
            "It did not come from the console's own pages ({why}), so nothing was done. Open \
             the console at its own address and try again."
        ),
    )
}

/// A finished console answer: the router's own JSON errors (unknown page, wrong method, bad
/// form) as error pages, the console's headers, and the one-time message expired once a page
/// (not a redirect) has shown it.
pub(super) async fn finish(
    response: Response<Full<Bytes>>,
    had_flash: bool,
) -> Response<Full<Bytes>> {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    let mut response = if is_json {
        let (parts, body) = response.into_parts();
        let bytes = body
            .collect()
            .await
            .map(|collected| collected.to_bytes())
            .unwrap_or_default();
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let message = answer["message"].as_str().unwrap_or("The request failed.");
        let title = match parts.status {
            StatusCode::NOT_FOUND => "No such page",
            StatusCode::METHOD_NOT_ALLOWED => "Not allowed here",
            _ => "The request cannot be answered",
        };
        let mut page = error_page(parts.status, title, message).into_response();
        for (name, value) in &parts.headers {
            if name != CONTENT_TYPE && name != http::header::CONTENT_LENGTH {
                page.headers_mut().insert(name, value.clone());
            }
        }
        page
    } else {
        response
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (CONTENT_SECURITY_POLICY, POLICY),
        (X_FRAME_OPTIONS, "DENY"),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if !headers.contains_key(CACHE_CONTROL) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if had_flash
        && !response.status().is_redirection()
        && let Ok(expire) = HeaderValue::from_str(&Flash::expire())
    {
        response.headers_mut().append(SET_COOKIE, expire);
    }
    response
}
