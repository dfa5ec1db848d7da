//! The answer to what rocket refuses before any route (an unknown method, a malformed request):
//! the core's JSON error envelope instead of rocket's HTML page.

use rocket::Request;
use rocket::http::Status;
use rocket::response::content::RawJson;
use safezone_core::http::ErrorCode;

/// Every status rocket produces itself, as `{"status":"error","code":...,"message":...}`.
#[rocket::catch(default)]
pub(crate) fn json_error(status: Status, _request: &Request<'_>) -> (Status, RawJson<String>) {
    let message = serde_json::Value::from(format!("the server refused the request: {status}"));
    let code = code(status);
    let envelope = format!(r#"{{"status":"error","code":"{code}","message":{message}}}"#);
    (status, RawJson(envelope))
}

/// The stable code for a status (letters, digits and `_` only): the core's names where it has
/// them, else the reason phrase.
fn code(status: Status) -> String {
    match status.code {
        400 => ErrorCode::InvalidRequest.as_str().to_owned(),
        413 => ErrorCode::BodyTooLarge.as_str().to_owned(),
        500 => ErrorCode::InternalError.as_str().to_owned(),
        _ => status
            .reason_lossy()
            .chars()
            .filter_map(|c| match c {
                ' ' | '-' => Some('_'),
                c if c.is_ascii_alphanumeric() => Some(c.to_ascii_lowercase()),
                _ => None,
            })
            .collect(),
    }
}
