//! The one-time message a form's action leaves for the page it redirects to: the API's
//! success or its refusal, kept in a short-lived cookie and shown once.

use http::HeaderMap;
use percent_encoding::{NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use serde_json::Value;

use super::cookie;
use crate::operator_api::Failure;

/// The cookie that carries the message.
const COOKIE: &str = "safezone_console_flash";

/// The most characters a message keeps (a cookie is small).
const MAX_CHARS: usize = 600;

/// A message for the next page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Flash {
    /// Whether it tells of a success (else a refusal or failure).
    pub ok: bool,
    /// The text, for a person.
    pub text: String,
}

impl Flash {
    /// A success.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            ok: true,
            text: text.into(),
        }
    }

    /// A refusal or failure.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            ok: false,
            text: text.into(),
        }
    }

    /// What an API call tells the operator: `label: done` with the answer's plain fields
    /// (`moved: 2`), or `label refused: why (code)` (`failed` when the server failed).
    pub fn outcome(label: &str, outcome: &Result<Value, Failure>) -> Self {
        match outcome {
            Ok(answer) => {
                let details: Vec<String> = answer
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(name, _)| name.as_str() != "status")
                    .filter_map(|(name, value)| Some(format!("{name}: {}", plain(value)?)))
                    .collect();
                if details.is_empty() {
                    Self::ok(format!("{label}: done."))
                } else {
                    Self::ok(format!("{label}: done ({}).", details.join(", ")))
                }
            }
            Err(failure) if failure.status.is_server_error() => {
                Self::error(format!("{label} failed: {failure}."))
            }
            Err(failure) => Self::error(format!("{label} refused: {failure}.")),
        }
    }

    /// The `Set-Cookie` that leaves it for the next page.
    pub fn set_cookie(&self, secure: bool) -> String {
        let text: String = self.text.chars().take(MAX_CHARS).collect();
        let kind = if self.ok { "ok" } else { "error" };
        let value = format!("{kind}.{}", utf8_percent_encode(&text, NON_ALPHANUMERIC));
        cookie::set(COOKIE, &value, 60, secure)
    }

    /// The message a request carries, if any.
    pub fn read(headers: &HeaderMap) -> Option<Self> {
        let value = crate::http::cookies::read(headers, COOKIE)?;
        let (kind, text) = value.split_once('.')?;
        let text = percent_decode_str(text).decode_utf8().ok()?.into_owned();
        match kind {
            "ok" => Some(Self::ok(text)),
            "error" => Some(Self::error(text)),
            _ => None,
        }
    }

    /// Whether the request carries a message (which its page answer then expires).
    pub fn sent(headers: &HeaderMap) -> bool {
        crate::http::cookies::read(headers, COOKIE).is_some_and(|value| !value.is_empty())
    }

    /// The `Set-Cookie` that forgets a message once shown.
    pub fn expire() -> String {
        cookie::expire(COOKIE)
    }
}

/// A plain value of an answer as text: a number, text, `true` or `false`, or a list of those
/// (`a, b`; `none` when empty); `None` for anything else (an account, a poll).
fn plain(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        Value::Array(items) if items.is_empty() => Some("none".to_owned()),
        Value::Array(items) => items
            .iter()
            .map(plain)
            .collect::<Option<Vec<_>>>()
            .map(|texts| texts.join(", ")),
        Value::Null | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_survives_its_cookie() {
        let flash = Flash::error("Refund refused: <b>\"no\"</b>; é (x)");
        let set = flash.set_cookie(false);
        let pair = set.split(';').next().unwrap();
        assert!(
            pair.bytes()
                .all(|b| b.is_ascii_graphic() && b != b';' && b != b'"')
        );
        let mut headers = HeaderMap::new();
        headers.insert(http::header::COOKIE, pair.parse().unwrap());
        assert_eq!(Flash::read(&headers), Some(flash));
        assert!(Flash::sent(&headers));
        headers.insert(
            http::header::COOKIE,
            format!("{COOKIE}=bogus.x").parse().unwrap(),
        );
        assert_eq!(Flash::read(&headers), None);
    }

    #[test]
    fn an_outcome_tells_the_answer_or_the_refusal() {
        let done = Flash::outcome(
            "Refund",
            &Ok(serde_json::json!({"status": "success", "account": {}, "moved": 1})),
        );
        assert_eq!(done, Flash::ok("Refund: done (moved: 1)."));
        let listed = Flash::outcome(
            "Whitelist change",
            &Ok(serde_json::json!({"whitelist": ["A#0001", "B#0002"], "unknown": []})),
        );
        assert_eq!(
            listed,
            Flash::ok("Whitelist change: done (unknown: none, whitelist: A#0001, B#0002).")
        );
        let refused = Flash::outcome(
            "Ban",
            &Err(Failure {
                status: http::StatusCode::FORBIDDEN,
                code: "operator_read_only".to_owned(),
                message: "the operator token bob is read-only".to_owned(),
            }),
        );
        assert_eq!(
            refused,
            Flash::error("Ban refused: the operator token bob is read-only (operator_read_only).")
        );
    }
}
