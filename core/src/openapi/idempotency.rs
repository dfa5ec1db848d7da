//! The `Idempotency-Key` request header of the operations that change an account, and the
//! `Idempotent-Replayed` header their success answers carry.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{RefOr, Response};
use utoipa::{IntoParams, ToResponse};

use super::shared::{error_response, takes_parameter};

/// The name of the request header.
const HEADER: &str = "Idempotency-Key";

/// The `Idempotency-Key` header parameter.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyKey {
    /// Makes the request idempotent: a repeat with the same key changes nothing and answers like the first
    #[param(
        rename = "Idempotency-Key",
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]+$"
    )]
    pub idempotency_key: Option<String>,
}

error_response!(
    /// 400 of an operation that takes query parameters and `Idempotency-Key`.
    InvalidParameterOrKey,
    "A missing or bad parameter (`missing_parameter`, `invalid_parameter`) or \
     `Idempotency-Key` (`invalid_header`)"
);

/// The responses of this module, for the components.
pub(super) fn responses() -> [(&'static str, RefOr<Response>); 1] {
    [InvalidParameterOrKey::response()]
}

/// Adds `Idempotent-Replayed` to the 200 answer of an operation that takes `Idempotency-Key`.
pub(super) fn add_replayed_header(operation: &mut Operation) {
    if !takes_parameter(operation, HEADER, ParameterIn::Header) {
        return;
    }
    let Some(RefOr::T(success)) = operation.responses.responses.get_mut("200") else {
        return;
    };
    let replayed = HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .description(Some(
            "`true` when this answers a repeated `Idempotency-Key` and nothing changed",
        ))
        .build();
    success
        .headers
        .insert("Idempotent-Replayed".to_owned(), RefOr::T(replayed));
}
