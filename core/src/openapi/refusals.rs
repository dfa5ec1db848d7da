//! Named error answers that several operations give word for word, for the components.

use utoipa::ToResponse;
use utoipa::openapi::{RefOr, Response};

use super::shared::error_response;

error_response!(
    /// 402 of an operation that takes coins or gems.
    InsufficientFunds,
    "The account cannot pay for it (`insufficient_funds`)"
);
error_response!(
    /// 410 of an obsolete endpoint.
    Obsolete,
    "Obsolete (`gone`)"
);

/// The responses of this module, for the components.
pub(super) fn responses() -> [(&'static str, RefOr<Response>); 2] {
    [InsufficientFunds::response(), Obsolete::response()]
}
