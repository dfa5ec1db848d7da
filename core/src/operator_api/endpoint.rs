//! One endpoint of the operator API, declared once: a unit struct implementing [`Endpoint`]
//! (method, path, operation id, tag, what it does, its typed parameters and answer) and either
//! [`Reads`] (any operator token; nothing audited) or [`Changes`] (a full token, a typed body
//! with the operator's reason, its audit action and target, one audit row per call). The
//! routing table, the operator document and the typed in-process client
//! ([`OperatorApi::read`](super::OperatorApi::read)) are all built from those declarations.

use std::future::Future;

use http::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::OperatorState;
use super::auth::Credential;
use super::change_call::{Reasoned, Write};
use crate::http::params::RequestParams;
use crate::http::{ApiError, parse_json};
use crate::store::OperatorToken;

/// What every operator endpoint declares.
pub(crate) trait Endpoint: Sized + Send + 'static {
    /// `GET` for a read, `POST` for a change (and the console sessions' opening and end).
    const METHOD: Method;
    /// Its path under [`PREFIX`](super::PREFIX), `{name}` for a path parameter.
    const PATH: &'static str;
    /// Its operation id in the document (and the typed client's name for it).
    const ID: &'static str;
    /// Its tag in the document (`players`, `polls`, ...).
    const TAG: &'static str;
    /// What it does and answers, for the document.
    const ABOUT: &'static str;
    /// Its path and query parameters.
    type Params: RequestParams + Send;
    /// Its answer's fields (inside the `{"status":"success", ...}` envelope).
    type Answer: Serialize + DeserializeOwned + ToSchema + Send;
}

/// An endpoint that reads (or changes nothing an operator is accountable for: a content file's
/// diff, the console's sessions): any operator token, read-only ones too; nothing is audited.
pub(crate) trait Reads: Endpoint {
    /// Its body: [`NoBody`], or [`Json`] of one.
    type Body: ReadBody;

    /// The answer to one call.
    fn answer(
        state: OperatorState,
        call: Read<Self::Params, Self::Body>,
    ) -> impl Future<Output = Result<Self::Answer, ApiError>> + Send;
}

/// One read: who asks, how (a secret or a console session), its parameters and its body.
pub(crate) struct Read<P, B = NoBody> {
    /// The caller's token.
    pub token: OperatorToken,
    /// What the caller presented: the token's secret or a console session's id.
    pub credential: Credential,
    /// The parameters, read and checked.
    pub params: P,
    /// The body, read.
    pub body: B,
}

/// The body of a read: none, or JSON.
pub(crate) trait ReadBody: Sized + Send {
    /// Reads it from the request's body.
    fn from_bytes(bytes: &[u8]) -> Result<Self, ApiError>;

    /// Its JSON text, for a request (`None`: no body).
    fn to_text(&self) -> Option<String>;

    /// Its schema in the document, and the schemas it names (`None`: no body).
    fn documented() -> Option<DocumentedBody>;
}

/// A body's schema in the document, and the schemas it names.
pub(crate) type DocumentedBody = (RefOr<Schema>, Vec<(String, RefOr<Schema>)>);

/// No body: what a read's request does not send.
pub(crate) struct NoBody;

impl ReadBody for NoBody {
    fn from_bytes(_: &[u8]) -> Result<Self, ApiError> {
        Ok(Self)
    }

    fn to_text(&self) -> Option<String> {
        None
    }

    fn documented() -> Option<DocumentedBody> {
        None
    }
}

/// A JSON body of type `T`.
pub(crate) struct Json<T>(pub T);

impl<T: Serialize + DeserializeOwned + ToSchema + Send> ReadBody for Json<T> {
    fn from_bytes(bytes: &[u8]) -> Result<Self, ApiError> {
        parse_json(bytes).map(Self)
    }

    fn to_text(&self) -> Option<String> {
        serde_json::to_string(&self.0).ok()
    }

    fn documented() -> Option<DocumentedBody> {
        let mut schemas = Vec::new();
        T::schemas(&mut schemas);
        Some((T::schema(), schemas))
    }
}

/// An endpoint that changes: a full token, a JSON body with the operator's `reason`, and
/// exactly one audit row per call with a valid token, refused calls too
/// ([`audited`](super::audited)).
pub(crate) trait Changes: Endpoint {
    /// The audit's action (`grant`, `poll-create`, ...).
    const ACTION: &'static str;
    /// The audit's target, `{name}` standing for the path parameter `name` in lower case
    /// (`account:{accountId}`, `tournament:{tournamentCode}`, `content`).
    const TARGET: &'static str;
    /// Its body.
    type Body: Reasoned + Serialize + ToSchema + Send;
    /// What the change leaves for its answer.
    type Changed: Send;

    /// The audit's action for the body as sent (one that does not parse still gets its row):
    /// [`Changes::ACTION`] unless the body tells another (`unban`).
    fn action(_sent: &Value) -> &'static str {
        Self::ACTION
    }

    /// The audit's target for the request's path parameters (by name) and the body as sent:
    /// [`Changes::TARGET`] with the path's parameters.
    fn target(path: &[(String, String)], _sent: &Value) -> String {
        fill(Self::TARGET, |name| {
            path.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.to_ascii_lowercase())
                .unwrap_or_default()
        })
    }

    /// Makes the change, whose store call appends the call's audit row in its transaction;
    /// an error means nothing was changed.
    fn change(
        state: OperatorState,
        call: Write<Self::Params, Self::Body>,
    ) -> impl Future<Output = Result<Self::Changed, ApiError>> + Send;

    /// The answer, read after the change committed (an error here answers an error; the
    /// change and its audit row stay).
    fn answer(
        state: OperatorState,
        changed: Self::Changed,
    ) -> impl Future<Output = Result<Self::Answer, ApiError>> + Send;
}

/// `template` with each `{name}` replaced by `value(name)`.
pub(crate) fn fill(template: &str, mut value: impl FnMut(&str) -> String) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        filled.push_str(&rest[..open]);
        filled.push_str(&value(&rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    filled.push_str(rest);
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled_by_name() {
        let value = |name: &str| format!("<{name}>");
        assert_eq!(fill("account:{accountId}", value), "account:<accountId>");
        assert_eq!(fill("content", value), "content");
        assert_eq!(fill("/a/{x}/b/{y}", value), "/a/<x>/b/<y>");
        assert_eq!(fill("open{", value), "open{");
    }
}
