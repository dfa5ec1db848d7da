//! The one error type of the API and the one place where errors become HTTP statuses.

use std::fmt;

use http::{Method, StatusCode};
use serde::Serialize;

use super::{ErrorCode, Reply};
use crate::store::{Rejection, RejectionStatus, StoreError};

/// Every way a request can fail, each with its HTTP status, stable `code` and message.
#[derive(Debug)]
pub enum ApiError {
    /// A required parameter is absent.
    MissingParameter {
        /// The parameter's name.
        name: &'static str,
    },
    /// A parameter is present but its value is not acceptable.
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong with the value.
        reason: String,
    },
    /// A parameter given different values in the query string and in the form body.
    ConflictingParameter {
        /// The parameter's name.
        name: String,
    },
    /// Exactly one of several parameters must be present, and none or several are.
    ExactlyOneOf {
        /// The parameters of which one must be present.
        names: &'static [&'static str],
        /// Those present.
        given: Vec<&'static str>,
    },
    /// The request body is absent or not what the endpoint takes.
    InvalidBody {
        /// What is wrong with the body.
        reason: String,
    },
    /// The request body is larger than the configured limit.
    BodyTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The path is not validly percent-encoded UTF-8.
    InvalidPathEncoding,
    /// The request target is not a path (`CONNECT host:port`, `OPTIONS *`).
    InvalidRequestTarget,
    /// No user key came with a request that needs one.
    MissingUserKey,
    /// The user key is malformed, unknown, expired or revoked.
    InvalidUserKey,
    /// A credential from elsewhere (a chat-platform token) was refused.
    Unauthorized {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// The caller is known but may not do this.
    Forbidden {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// A request refused as bad input with a code of its own (400), such as a content file
    /// that does not pass the check.
    Invalid {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// A purchase receipt that its store did not confirm.
    InvalidReceipt {
        /// Why, as the store's verifier said.
        reason: String,
    },
    /// A header is present but its value is not acceptable.
    InvalidHeader {
        /// The header's name.
        name: &'static str,
        /// What is wrong with the value.
        reason: String,
    },
    /// No endpoint answers this path.
    RouteNotFound,
    /// The thing the request names does not exist.
    NotFound {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// The account's state does not allow this (already owned, already claimed, nothing to open).
    Conflict {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// A studio's hook refused the change: its status, code and message
    /// ([`crate::hooks`]).
    Rejected(Rejection),
    /// The account cannot pay for this; the message gives the price and the balance.
    InsufficientFunds {
        /// Text for a person.
        message: String,
    },
    /// The path exists but not for this method.
    MethodNotAllowed {
        /// The methods the path answers.
        allowed: Vec<Method>,
    },
    /// The endpoint is obsolete and answers no more.
    Gone {
        /// What to use instead.
        message: String,
    },
    /// A service Safezone relies on (chat platform, receipt verifier) cannot be reached.
    Upstream {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
    },
    /// The operator has not configured what this endpoint needs.
    Unconfigured {
        /// What is missing, for the message.
        what: &'static str,
    },
    /// The database does not answer.
    Unavailable,
    /// This node is still loading what the request reads (its leaderboards); try again after
    /// `retry_after_secs`.
    Loading {
        /// Stable machine-readable code.
        code: ErrorCode,
        /// Text for a person.
        message: String,
        /// Seconds to wait before asking again (`Retry-After`).
        retry_after_secs: u32,
    },
    /// The request took longer than the configured time.
    Timeout,
    /// A rate limit of this node is spent; try again after `retry_after_secs`.
    RateLimited {
        /// The endpoint group (`sign-in`).
        group: &'static str,
        /// What the limit counts by (`address`, `account`).
        scope: &'static str,
        /// Seconds until the next request is allowed (`Retry-After`).
        retry_after_secs: u64,
    },
    /// This node has as many requests in flight as it takes; try again in a second.
    Overloaded,
    /// The account has as many realtime channels open on this node as it may.
    TooManyChannels {
        /// How many it may have open.
        limit: usize,
    },
    /// A bug or an unexpected failure; the detail is logged, never sent.
    Internal {
        /// What went wrong, for the log only.
        detail: String,
    },
}

/// The error envelope: `{"status":"error","code":...,"message":...}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    status: &'static str,
    code: &'a str,
    message: &'a str,
}

impl ApiError {
    /// A value that is present but wrong; `reason` completes "parameter `name` ...".
    pub fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Self::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::MissingParameter { .. }
            | Self::InvalidParameter { .. }
            | Self::ConflictingParameter { .. }
            | Self::InvalidBody { .. }
            | Self::ExactlyOneOf { .. }
            | Self::InvalidReceipt { .. }
            | Self::Invalid { .. }
            | Self::InvalidHeader { .. }
            | Self::InvalidPathEncoding
            | Self::InvalidRequestTarget => StatusCode::BAD_REQUEST,
            Self::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::MissingUserKey | Self::InvalidUserKey | Self::Unauthorized { .. } => {
                StatusCode::UNAUTHORIZED
            }
            Self::Upstream { .. } => StatusCode::BAD_GATEWAY,
            Self::Unconfigured { .. } => StatusCode::NOT_IMPLEMENTED,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::RouteNotFound | Self::NotFound { .. } => StatusCode::NOT_FOUND,
            Self::Conflict { .. } => StatusCode::CONFLICT,
            Self::InsufficientFunds { .. } => StatusCode::PAYMENT_REQUIRED,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::Gone { .. } => StatusCode::GONE,
            Self::RateLimited { .. } | Self::TooManyChannels { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            Self::Unavailable | Self::Timeout | Self::Overloaded | Self::Loading { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Rejected(rejection) => match rejection.status {
                RejectionStatus::Forbidden => StatusCode::FORBIDDEN,
                RejectionStatus::Conflict => StatusCode::CONFLICT,
                RejectionStatus::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            },
        }
    }

    /// The stable machine-readable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::MissingParameter { .. } => ErrorCode::MissingParameter,
            Self::InvalidParameter { .. }
            | Self::ConflictingParameter { .. }
            | Self::ExactlyOneOf { .. } => ErrorCode::InvalidParameter,
            Self::InvalidBody { .. } => ErrorCode::InvalidBody,
            Self::BodyTooLarge { .. } => ErrorCode::BodyTooLarge,
            Self::InvalidPathEncoding => ErrorCode::InvalidPathEncoding,
            Self::InvalidRequestTarget => ErrorCode::InvalidRequestTarget,
            Self::InvalidHeader { .. } => ErrorCode::InvalidHeader,
            Self::InvalidReceipt { .. } => ErrorCode::InvalidReceipt,
            Self::InsufficientFunds { .. } => ErrorCode::InsufficientFunds,
            Self::MissingUserKey => ErrorCode::MissingUserKey,
            Self::InvalidUserKey => ErrorCode::InvalidUserKey,
            Self::RouteNotFound => ErrorCode::NotFound,
            Self::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            Self::Gone { .. } => ErrorCode::Gone,
            Self::Unavailable => ErrorCode::DatabaseUnavailable,
            Self::Unconfigured { .. } => ErrorCode::NotConfigured,
            Self::Timeout => ErrorCode::Timeout,
            Self::RateLimited { .. } => ErrorCode::RateLimited,
            Self::Overloaded => ErrorCode::Overloaded,
            Self::TooManyChannels { .. } => ErrorCode::TooManyChannels,
            Self::Internal { .. } => ErrorCode::InternalError,
            Self::Rejected(_) => ErrorCode::StudioRejection,
            Self::Forbidden { code, .. }
            | Self::Unauthorized { code, .. }
            | Self::Upstream { code, .. }
            | Self::NotFound { code, .. }
            | Self::Conflict { code, .. }
            | Self::Invalid { code, .. }
            | Self::Loading { code, .. } => *code,
        }
    }

    /// The `code` the error body carries: [`code`](Self::code), or for a studio's refusal the
    /// studio's own.
    pub fn wire_code(&self) -> &'static str {
        match self {
            Self::Rejected(rejection) => rejection.code.as_str(),
            other => other.code().as_str(),
        }
    }

    /// The text for a person; never internal detail.
    pub fn message(&self) -> String {
        match self {
            Self::MissingParameter { name } => format!("parameter `{name}` is required"),
            Self::InvalidParameter { name, reason } => format!("parameter `{name}` {reason}"),
            Self::ConflictingParameter { name } => format!(
                "parameter `{name}` has one value in the query string and another in the form \
                 body"
            ),
            Self::ExactlyOneOf { names, given } => format!(
                "exactly one of {} is required; {} given",
                quoted_list(names),
                if given.is_empty() {
                    "none was".to_owned()
                } else {
                    format!("{} were", quoted_list(given))
                }
            ),
            Self::InvalidBody { reason } => format!("request body {reason}"),
            Self::InvalidHeader { name, reason } => format!("header `{name}` {reason}"),
            Self::InvalidReceipt { reason } => format!("the receipt is not valid: {reason}"),
            Self::BodyTooLarge { limit } => {
                format!("request body is larger than the limit of {limit} bytes")
            }
            Self::InvalidPathEncoding => "the path is not validly percent-encoded UTF-8".to_owned(),
            Self::InvalidRequestTarget => {
                "the request target must be a path such as /api, not host:port or *".to_owned()
            }
            Self::MissingUserKey => "a user key is required (path, `userKey` parameter, \
                `userKey` cookie or `Authorization: Bearer`)"
                .to_owned(),
            Self::InvalidUserKey => {
                "the user key is malformed, unknown, expired or revoked".to_owned()
            }
            Self::RouteNotFound => "no endpoint at this path".to_owned(),
            Self::MethodNotAllowed { allowed } => {
                format!("this path answers only {}", method_list(allowed))
            }
            Self::Unavailable => "the database is not answering; try again shortly".to_owned(),
            Self::Timeout => "the request took too long; try again".to_owned(),
            Self::RateLimited {
                group,
                scope,
                retry_after_secs,
            } => format!(
                "too many {group} requests for this {scope}; try again in {retry_after_secs} s"
            ),
            Self::Overloaded => "the server is busy; try again in a second".to_owned(),
            Self::TooManyChannels { limit } => format!(
                "this account has {limit} realtime channels open on this server, as many as it \
                 may; close one first"
            ),
            Self::Internal { .. } => "internal error; it has been logged".to_owned(),
            Self::Rejected(rejection) => rejection.message.clone(),
            Self::Unconfigured { what } => {
                format!("{what} is not configured on this server")
            }
            Self::Forbidden { message, .. }
            | Self::Unauthorized { message, .. }
            | Self::Upstream { message, .. }
            | Self::NotFound { message, .. }
            | Self::Conflict { message, .. }
            | Self::Invalid { message, .. }
            | Self::Loading { message, .. }
            | Self::InsufficientFunds { message }
            | Self::Gone { message } => message.clone(),
        }
    }

    /// The JSON error response, with `Allow` on a 405. Internal errors are logged here.
    pub fn into_reply(self) -> Reply {
        if let Self::Internal { detail } = &self {
            tracing::error!(%detail, "internal error");
        }
        let message = self.message();
        let body = ErrorBody {
            status: "error",
            code: self.wire_code(),
            message: &message,
        };
        let reply = Reply::json(self.status(), &body);
        match self {
            Self::MethodNotAllowed { allowed } => {
                reply.with_header(http::header::ALLOW, &method_list(&allowed))
            }
            Self::Loading {
                retry_after_secs, ..
            } => reply.with_header(http::header::RETRY_AFTER, &retry_after_secs.to_string()),
            Self::RateLimited {
                retry_after_secs, ..
            } => reply.with_header(http::header::RETRY_AFTER, &retry_after_secs.to_string()),
            Self::Overloaded => reply.with_header(http::header::RETRY_AFTER, "1"),
            _ => reply,
        }
    }
}

/// `` `a`, `b` ``: parameter names as messages list them.
fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    quoted.join(", ")
}

/// `GET, HEAD, POST`: the methods as `Allow` lists them.
fn method_list(methods: &[Method]) -> String {
    let names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    names.join(", ")
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.wire_code())
    }
}

impl std::error::Error for ApiError {}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(why) => {
                tracing::warn!(%why, "database unavailable");
                Self::Unavailable
            }
            other => Self::Internal {
                detail: other.to_string(),
            },
        }
    }
}
