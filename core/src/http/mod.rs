//! Everything between `http` types and handlers: the layer stack, routing, typed input, the
//! JSON envelope, errors mapped to statuses, and the few HTML pages.

pub mod cookies;
mod error;
mod layers;
pub mod pages;
mod redact;
mod reply;
mod request;
mod router;

pub use error::ApiError;
pub use layers::{BodyError, BoxError, RequestBody, ResponseBody};
pub use redact::redact_path;
pub use reply::Reply;
pub use request::{Incoming, Query};
pub use router::{Handler, Router, Routes, handler};

pub(crate) use layers::{Stack, service_stack};
