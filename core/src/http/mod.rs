//! Everything between `http` types and handlers: the layer stack, routing, typed input, the
//! JSON envelope, errors mapped to statuses, and the few HTML pages.

mod body;
mod client_address;
pub mod cookies;
mod cors;
mod endpoint_group;
mod error;
mod error_code;
pub(crate) mod key_owner;
mod layers;
mod page_policy;
pub mod pages;
pub(crate) mod params;
pub(crate) mod presented_keys;
mod rate_limit;
mod rate_limiter;
mod redact;
mod reply;
mod request;
mod request_id;
mod request_target;
mod router;
mod security_headers;
mod shared_stack;
mod upgrade;

pub use body::{BodyError, BoxError, RequestBody, ResponseBody, boxed_request};
pub use client_address::ClientAddress;
pub use endpoint_group::EndpointGroup;
pub use error::ApiError;
pub use error_code::ErrorCode;
pub use key_owner::KeyAccounts;
pub use rate_limit::{Rate, RateLimitRule, RateLimits, Scope};
pub use rate_limiter::RateLimiter;
pub use redact::redact_path;
pub use reply::Reply;
pub use request::{Incoming, Query, parse_json};
pub use request_target::is_path_target;
pub use router::{Handler, MatchedRoute, Router, RouterState, Routes, handler};
pub use security_headers::API_CONTENT_SECURITY_POLICY;
pub use upgrade::{UpgradeHandler, UpgradedIo};

pub(crate) use layers::service_stack;
pub(crate) use page_policy::REFERENCE_PAGE_POLICY;
pub(crate) use shared_stack::{SharedStack, SharedStackFuture};
