//! The OpenAPI 3.1 document of the whole API, generated from the code by `utoipa`: each
//! handler's `#[utoipa::path]` annotation and the `ToSchema` of its input and output types.
//! Served at `GET /api/openapi.json`.
//!
//! What every operation shares is added here once: the error envelope, the success envelope,
//! the security schemes, and the answers any request may get (429 when rate limited, 503 when
//! the database does not answer or the request takes too long, 413 for a body over the limit).
//! What a class of operations shares is said once too: the user key's 401 / 403 answers (named
//! responses, from which the security requirements follow; added to every operation with the
//! key in its path), the `Idempotency-Key` header and
//! the `Idempotent-Replayed` header of its answers, a POST's query parameters as the fields of
//! an optional form body, and aliases as copies of one operation.

mod account;
mod aliases;
mod community;
#[cfg(test)]
mod document_tests;
mod form_body;
mod idempotency;
mod refusals;
mod shared;
mod tournament;
mod user_key;

use std::collections::HashMap;

use utoipa::OpenApi;
use utoipa::openapi::PathItem;
use utoipa::openapi::path::Operation;

pub use idempotency::{IdempotencyKey, InvalidParameterOrKey};
pub use refusals::{InsufficientFunds, Obsolete};
pub use shared::{
    BodyTooLarge, Done, ErrorBody, GAME_SERVER, SuccessStatus, TooManyRequests, USER_KEY,
    USER_KEY_COOKIE, USER_KEY_QUERY, Unavailable,
};
pub use tournament::{InvalidTournamentCode, TournamentCodePath, UnknownTournament};
pub use user_key::{
    KeyMismatch, PathKeyShopForbidden, PresentedUserKeyInvalid, UserKeyPath, UserKeyRequired,
};

/// The success envelope of an answer with fields: `{"status":"success", ...fields of T}`.
pub type Success<T> = shared::Success<T>;

/// The whole API's document: the account side's paths and the community side's, merged, with
/// the answers every operation may give.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = account::AccountApi::openapi();
    document.merge(community::CommunityApi::openapi());
    shared::add_components(&mut document);
    for item in document.paths.paths.values_mut() {
        if let Some(operation) = &mut item.post {
            form_body::add_form_body(operation);
        }
        for (_, operation) in operations(item) {
            shared::add_common_responses(operation);
            user_key::add_path_key_responses(operation);
            user_key::add_key_mismatch(operation);
            user_key::add_user_key_security(operation);
            idempotency::add_replayed_header(operation);
        }
    }
    distinguish_operation_ids(&mut document);
    document
}

/// One handler serving several methods (`GET` and `POST /user/login/{provider}`) gives each
/// the same operation id; the method is appended to such ids (`loginGet`, `loginPost`) so
/// that every id names one operation.
fn distinguish_operation_ids(document: &mut utoipa::openapi::OpenApi) {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for item in document.paths.paths.values_mut() {
        for (_, operation) in operations(item) {
            if let Some(id) = &operation.operation_id {
                *uses.entry(id.clone()).or_default() += 1;
            }
        }
    }
    for item in document.paths.paths.values_mut() {
        for (method, operation) in operations(item) {
            if let Some(id) = &mut operation.operation_id
                && uses.get(id.as_str()).is_some_and(|count| *count > 1)
            {
                id.push_str(method);
            }
        }
    }
}

/// The operations of one path with their methods (capitalized, for operation ids).
fn operations(item: &mut PathItem) -> impl Iterator<Item = (&'static str, &mut Operation)> {
    [
        ("Get", &mut item.get),
        ("Put", &mut item.put),
        ("Post", &mut item.post),
        ("Delete", &mut item.delete),
        ("Options", &mut item.options),
        ("Head", &mut item.head),
        ("Patch", &mut item.patch),
        ("Trace", &mut item.trace),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_mut().map(|operation| (method, operation)))
}
