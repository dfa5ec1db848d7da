//! The OpenAPI 3.1 document of the whole API, generated from the code by `utoipa`: each
//! handler's `#[utoipa::path]` annotation and the `ToSchema` of its input and output types,
//! handed in by the endpoints' declarations ([`Documented`]). Served at
//! `GET /api/openapi.json`. This module holds the document's shared vocabulary and never names
//! an endpoint.
//!
//! What every operation shares is added here once: the error envelope, the success envelope,
//! the security schemes, and the answers any request may get (429 when rate limited, 503 when
//! the database does not answer or the request takes too long, 413 for a body over the limit).
//! What a class of operations shares is said once too: the user key's 401 / 403 answers (named
//! responses, from which the security requirements follow; added to every operation with the
//! key in its path), the `Idempotency-Key` header and
//! the `Idempotent-Replayed` header of its answers, and a POST's query parameters as the fields
//! of an optional form body.

mod components;
mod form_body;
mod idempotency;
mod names;
mod operator;
mod refusals;
mod shared;
mod tournament;
mod user_key;
mod v3_0;

use std::collections::HashMap;

use utoipa::OpenApi;
use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{Components, PathItem, RefOr};

use crate::domain::GameMode;
use crate::leaderboard::{Category, TimeWindow};

pub use idempotency::{IdempotencyKey, InvalidParameterOrKey};
pub use operator::{OperatorAccess, operator_document};
pub use refusals::{InsufficientFunds, Obsolete};
pub use shared::{
    BodyTooLarge, Done, ErrorBody, GAME_SERVER, SuccessStatus, TooManyRequests, USER_KEY,
    USER_KEY_COOKIE, USER_KEY_QUERY, Unavailable,
};
pub use tournament::{InvalidTournamentCode, UnknownTournament};
pub use user_key::{
    KeyMismatch, PathKeyShopForbidden, PresentedUserKeyInvalid, UserKeyPath, UserKeyRequired,
};
pub use v3_0::to_openapi_3_0;

/// The success envelope of an answer with fields: `{"status":"success", ...fields of T}`.
pub type Success<T> = shared::Success<T>;

/// One operation of the document, as an endpoint's declaration gives it.
pub struct Documented {
    /// The path pattern it is served at (`/api/user/{userKey}`).
    pub path: String,
    /// The methods it answers.
    pub methods: Vec<HttpMethod>,
    /// The operation, as the handler's `#[utoipa::path]` describes it (with its tags).
    pub operation: Operation,
    /// The schemas its parameters, bodies and responses name, by name.
    pub schemas: Vec<(String, RefOr<Schema>)>,
}

/// What the document says before its operations: the title, the tags and the schemas that
/// only parameters name (responses and bodies bring their own).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Safezone",
        description = "The Safezone game backend's REST API. Every JSON answer is an envelope: \
            `{\"status\":\"success\", ...}` or `{\"status\":\"error\",\"code\":...,\"message\":...}`."
    ),
    servers((
        url = "/",
        description = "The server that serves this document (`/api/openapi.json`): every path \
            is relative to its origin"
    )),
    components(schemas(GameMode, TimeWindow, Category)),
    tags(
        (name = "health", description = "Health, this document and its reference page"),
        (name = "metrics", description = "Client metrics (no effect)"),
        (name = "config", description = "The client configuration"),
        (name = "sign-in", description = "Devices, identity providers, the chat platform"),
        (name = "account", description = "The caller's account and keys"),
        (name = "shop", description = "The shop, purchases, packs and receipts"),
        (name = "rewards", description = "Claimable rewards"),
        (name = "polls", description = "The operator's polls"),
        (name = "tournaments", description = "Tournaments: status, joining, whitelists"),
        (name = "clans", description = "Clans (obsolete in the client, still served)"),
        (name = "friends", description = "Friends, friend requests, blocks and presence"),
        (name = "matches", description = "The game servers' match reports"),
        (name = "progression", description = "Quests and reward tracks (season passes)"),
        (name = "leaderboards", description = "Live leaderboards and public profiles"),
        (name = "realtime", description = "The player's realtime channel (a WebSocket) and its \
            AsyncAPI document"),
    )
)]
struct Preamble;

/// The whole API's document: the `declared` operations with the answers every operation may
/// give.
pub fn document(declared: impl IntoIterator<Item = Documented>) -> utoipa::openapi::OpenApi {
    let mut document = Preamble::openapi();
    let components = document.components.get_or_insert_with(Components::new);
    for documented in declared {
        components.schemas.extend(documented.schemas);
        document.paths.add_path_operation(
            &documented.path,
            documented.methods,
            documented.operation,
        );
    }
    components::add_components(&mut document);
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
