//! What every operation of the document shares: the two envelopes, the security schemes' names,
//! and the answers any request may get.

use serde::Serialize;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa::{ToResponse, ToSchema};

use crate::http::ErrorCode;

/// The security scheme of the user key sent as `Authorization: Bearer <key>`.
pub const USER_KEY: &str = "userKey";
/// The security scheme of the user key sent as the `userKey` query parameter.
pub const USER_KEY_QUERY: &str = "userKeyQuery";
/// The security scheme of the user key sent as the `userKey` cookie.
pub const USER_KEY_COOKIE: &str = "userKeyCookie";
/// The security scheme of the game servers' credential (`Authorization: Bearer <credential>`).
pub const GAME_SERVER: &str = "gameServer";

/// The error envelope every failure answers: `{"status":"error","code":...,"message":...}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always `error`.
    #[schema(pattern = "^error$")]
    pub status: String,
    /// A stable machine-readable code (`ErrorCode` lists them all).
    pub code: ErrorCode,
    /// What went wrong, for people; it names the parameter at fault.
    pub message: String,
}

/// The `status` of every success: `success`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SuccessStatus {
    /// The request succeeded.
    Success,
}

/// The success envelope: `{"status":"success", ...fields of T}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T> {
    /// Always `success`.
    pub status: SuccessStatus,
    /// The answer's own fields, at the top level.
    #[serde(flatten)]
    pub fields: T,
}

/// The answer `{"status":"success"}` with no other field.
#[derive(Debug, Serialize, ToSchema)]
pub struct Done {
    /// Always `success`.
    pub status: SuccessStatus,
}

/// Declares a named error response: a unit struct whose [`ToResponse`] answers the error
/// envelope with `description`.
macro_rules! error_response {
    ($(#[$doc:meta])* $name:ident, $description:literal) => {
        $(#[$doc])*
        pub struct $name;

        impl<'r> utoipa::ToResponse<'r> for $name {
            fn response() -> (
                &'r str,
                utoipa::openapi::RefOr<utoipa::openapi::Response>,
            ) {
                let response = utoipa::openapi::ResponseBuilder::new()
                    .description($description)
                    .content("application/json", $crate::openapi::shared::error_content())
                    .build();
                (stringify!($name), response.into())
            }
        }
    };
}
pub(super) use error_response;

/// 429: this client address or account sent too many requests (`Retry-After` says when to ask
/// again), or a studio's hook refused a change with its limit.
pub struct TooManyRequests;

impl<'r> ToResponse<'r> for TooManyRequests {
    fn response() -> (&'r str, RefOr<utoipa::openapi::Response>) {
        let retry_after = HeaderBuilder::new()
            .schema(Some(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0)),
            ))
            .description(Some("Seconds to wait before asking again"))
            .build();
        let response = ResponseBuilder::new()
            .description(
                "Too many requests from this client address or account (`rate_limited`), or a \
                 limit of the studio's own hooks is reached (the studio's code, \
                 `studio_rejection` here)",
            )
            .header("Retry-After", retry_after)
            .content("application/json", error_content())
            .build();
        ("TooManyRequests", response.into())
    }
}

error_response!(
    /// 503: the database does not answer, the node is still loading, or the request took
    /// longer than allowed.
    Unavailable,
    "The service cannot answer now: the database does not answer (`database_unavailable`), \
     the node is loading, or the request took too long (`timeout`)"
);
error_response!(
    /// 413: the request's body is larger than the configured limit.
    BodyTooLarge,
    "The body is larger than the configured limit (`body_too_large`)"
);

/// `application/json` content of [`ErrorBody`], by reference.
pub(super) fn error_content() -> Content {
    Content::new(Some(Ref::from_schema_name(ErrorBody::name())))
}

/// Adds to one operation the answers any request may get: 429 and 503, and 413 when it takes a
/// body. What the operation declares itself is kept.
pub(super) fn add_common_responses(operation: &mut Operation) {
    let mut common = vec![
        ("429", TooManyRequests::response().0),
        ("503", Unavailable::response().0),
    ];
    if operation.request_body.is_some() {
        common.push(("413", BodyTooLarge::response().0));
    }
    for (status, name) in common {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| Ref::from_response_name(name).into());
    }
}

/// Whether `operation` takes the parameter `name` in `place`.
pub(super) fn takes_parameter(operation: &Operation, name: &str, place: ParameterIn) -> bool {
    operation.parameters.iter().flatten().any(|parameter| {
        matches!(parameter, RefOr::T(parameter)
            if parameter.name == name && parameter.parameter_in == place)
    })
}
