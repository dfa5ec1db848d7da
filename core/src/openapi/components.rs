//! The document's components: the envelopes, every shared response and the security schemes.

use utoipa::openapi::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{PartialSchema, ToResponse, ToSchema};

use super::shared::{
    BodyTooLarge, Done, ErrorBody, GAME_SERVER, SuccessStatus, TooManyRequests, USER_KEY,
    USER_KEY_COOKIE, USER_KEY_QUERY, Unavailable,
};
use super::{idempotency, refusals, tournament, user_key};
use crate::http::ErrorCode;

/// Adds the envelopes, the shared responses and the security schemes to the components.
pub(super) fn add_components(document: &mut OpenApi) {
    let components = document.components.get_or_insert_with(Default::default);
    components
        .schemas
        .insert(ErrorBody::name().into_owned(), ErrorBody::schema());
    components
        .schemas
        .insert(ErrorCode::name().into_owned(), ErrorCode::schema());
    components
        .schemas
        .insert(Done::name().into_owned(), Done::schema());
    components
        .schemas
        .insert(SuccessStatus::name().into_owned(), SuccessStatus::schema());
    for (name, response) in [
        TooManyRequests::response(),
        Unavailable::response(),
        BodyTooLarge::response(),
    ]
    .into_iter()
    .chain(user_key::responses())
    .chain(refusals::responses())
    .chain(tournament::responses())
    .chain(idempotency::responses())
    {
        components.responses.insert(name.to_owned(), response);
    }
    let bearer = |description: &str| {
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(description))
                .build(),
        )
    };
    components.add_security_scheme(
        USER_KEY,
        bearer("The user key (48 lower-case hex characters) sent as `Authorization: Bearer`"),
    );
    components.add_security_scheme(
        USER_KEY_QUERY,
        SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
            "userKey",
            "The user key as the `userKey` query parameter",
        ))),
    );
    components.add_security_scheme(
        USER_KEY_COOKIE,
        SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
            crate::http::cookies::USER_KEY_COOKIE,
            "The user key as the `userKey` cookie (set by the browser login)",
        ))),
    );
    components.add_security_scheme(
        GAME_SERVER,
        bearer("The game servers' credential (`--game-server-token`), as `Authorization: Bearer`"),
    );
}
