//! The answers about the user key that many operations share, as named responses of the
//! components, and the security each kind of key use implies.
//!
//! An operation with the key in its path ([`UserKeyPath`]) gets its 401 and 403 answers here
//! (its own 403 when it declares one). Another operation names its 401 answer; that answer
//! says how it takes the key, so the security requirements follow from it and are added here: [`UserKeyRequired`] means the key is sent
//! in one of its three places, [`PresentedUserKeyInvalid`] that it may also be left out.
//! Every other operation gets 403 [`KeyMismatch`]: the rate limiter refuses keys of two
//! accounts on any operation.

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Ref, RefOr, Response};
use utoipa::{IntoParams, ToResponse};

use super::shared::{USER_KEY, USER_KEY_COOKIE, USER_KEY_QUERY, error_response, takes_parameter};

error_response!(
    /// 401 of an operation with the key in its path.
    PathKeyInvalid,
    "The user key is malformed, unknown, expired or revoked (`invalid_user_key`)"
);
error_response!(
    /// 403 of an operation with the key in its path.
    PathKeyMismatch,
    "A key sent besides the path's opens another account (`key_mismatch`)"
);
error_response!(
    /// 403 of a shop operation with the key in its path.
    PathKeyShopForbidden,
    "The account is banned from the shop and rewards (`account_banned`), or a key sent besides \
     the path's opens another account (`key_mismatch`)"
);
error_response!(
    /// 401 of an operation that needs a user key.
    UserKeyRequired,
    "No user key (`missing_user_key`), or one that is malformed, unknown, expired or revoked \
     (`invalid_user_key`)"
);
error_response!(
    /// 401 of an operation that takes a user key if one is sent.
    PresentedUserKeyInvalid,
    "A presented user key is malformed, unknown, expired or revoked (`invalid_user_key`)"
);
error_response!(
    /// 403 of an operation whose only refusal is keys of two accounts.
    KeyMismatch,
    "The keys sent open different accounts (`key_mismatch`)"
);

/// The shared responses of this module, for the components.
pub(super) fn responses() -> [(&'static str, RefOr<Response>); 6] {
    [
        PathKeyInvalid::response(),
        PathKeyMismatch::response(),
        PathKeyShopForbidden::response(),
        UserKeyRequired::response(),
        PresentedUserKeyInvalid::response(),
        KeyMismatch::response(),
    ]
}

/// The user key as the path's `{userKey}`.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct UserKeyPath {
    /// The caller's user key
    #[param(rename = "userKey", pattern = "^[0-9a-f]{48}$")]
    pub user_key: String,
}

/// Sets the security requirements of an operation from its 401 answer (see the module's
/// documentation); an operation that declares its own keeps them.
pub(super) fn add_user_key_security(operation: &mut Operation) {
    if operation.security.is_some() {
        return;
    }
    let Some(RefOr::Ref(unauthorized)) = operation.responses.responses.get("401") else {
        return;
    };
    let name = unauthorized.ref_location.rsplit('/').next();
    let optional = if name == Some(UserKeyRequired::response().0) {
        false
    } else if name == Some(PresentedUserKeyInvalid::response().0) {
        true
    } else {
        return;
    };
    let no_key = optional.then(SecurityRequirement::default);
    let keys = [USER_KEY, USER_KEY_QUERY, USER_KEY_COOKIE]
        .map(|scheme| SecurityRequirement::new::<_, _, &str>(scheme, []));
    operation.security = Some(no_key.into_iter().chain(keys).collect());
}

/// Adds to an operation with the key in its path the 401 of such keys, and 403
/// [`PathKeyMismatch`] unless it declares its own 403.
pub(super) fn add_path_key_responses(operation: &mut Operation) {
    if !takes_parameter(operation, "userKey", ParameterIn::Path) {
        return;
    }
    for (status, name) in [
        ("401", PathKeyInvalid::response().0),
        ("403", PathKeyMismatch::response().0),
    ] {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| Ref::from_response_name(name).into());
    }
}

/// Adds 403 [`KeyMismatch`] to an operation that declares no 403 of its own (after
/// [`add_path_key_responses`]): the rate limits of an operation's group (when it has a limit
/// per account) refuse keys of two accounts in one request, whatever the operation.
pub(super) fn add_key_mismatch(operation: &mut Operation) {
    operation
        .responses
        .responses
        .entry("403".to_owned())
        .or_insert_with(|| Ref::from_response_name(KeyMismatch::response().0).into());
}
