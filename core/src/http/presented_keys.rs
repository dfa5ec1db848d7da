//! The user keys a request presents: in the path, `Authorization: Bearer`, the `userKey` query
//! parameter or the `userKey` cookie. Which account they name is decided in
//! [`key_owner`](super::key_owner).

use crate::http::{Incoming, cookies::USER_KEY_COOKIE};

/// Where a presented key came from; earlier sources take precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeySource {
    /// The `{userKey}` path segment.
    Path,
    /// `Authorization: Bearer`.
    Bearer,
    /// The `userKey` query parameter.
    Query,
    /// The `userKey` cookie.
    Cookie,
}

/// The keys the request presents, in precedence order; an empty value (`userKey=`, as a
/// signed-out client may send) counts as none.
pub(crate) fn presented_keys(incoming: &Incoming) -> Vec<(KeySource, String)> {
    let from_path = incoming.path("userKey").ok().map(str::to_owned);
    let from_bearer = incoming.bearer().map(str::to_owned);
    let from_query = incoming.query.optional("userKey").map(str::to_owned);
    let from_cookie = incoming.cookie(USER_KEY_COOKIE);
    [
        (KeySource::Path, from_path),
        (KeySource::Bearer, from_bearer),
        (KeySource::Query, from_query),
        (KeySource::Cookie, from_cookie),
    ]
    .into_iter()
    .filter_map(|(source, key)| key.filter(|key| !key.is_empty()).map(|key| (source, key)))
    .collect()
}
