//! Who is calling: the user key the request presents (see [`presented_keys`]), resolved to an
//! account.

use time::OffsetDateTime;

use crate::App;
use crate::domain::UserKey;
use crate::http::presented_keys::{KeySource, presented_keys};
use crate::http::{ApiError, Incoming};
use crate::store::Account;

/// A caller with a valid key.
pub(super) struct Session {
    /// The key the caller presented.
    pub key: UserKey,
    /// When that key expires.
    pub expires: OffsetDateTime,
    /// The account it opens.
    pub account: Account,
}

/// The caller's session; no key is a 401 `missing_user_key`.
pub(super) async fn required(app: &App, incoming: &Incoming) -> Result<Session, ApiError> {
    optional(app, incoming)
        .await?
        .ok_or(ApiError::MissingUserKey)
}

/// The caller's session, or `None` when no key was presented at all.
///
/// A presented key must be valid (401 otherwise). When the path or query names a key and the
/// bearer header or query presents another, both must open the same account (403 otherwise),
/// so that one account's key never opens another account's paths.
pub(super) async fn optional(app: &App, incoming: &Incoming) -> Result<Option<Session>, ApiError> {
    let keys = presented_keys(incoming);
    let Some((_, primary)) = keys.first() else {
        return Ok(None);
    };
    let session = resolve(app, primary)
        .await?
        .ok_or(ApiError::InvalidUserKey)?;
    for (source, other) in keys.iter().skip(1) {
        if *source == KeySource::Cookie || other == primary {
            continue;
        }
        let same_account = resolve(app, other)
            .await?
            .is_some_and(|other| other.account.id == session.account.id);
        if !same_account {
            return Err(ApiError::Forbidden {
                code: "key_mismatch",
                message: "the user keys sent in this request do not belong to one account"
                    .to_owned(),
            });
        }
    }
    Ok(Some(session))
}

/// Resolves one key text: `None` when malformed, unknown, expired, revoked, or its account gone.
pub(super) async fn resolve(app: &App, text: &str) -> Result<Option<Session>, ApiError> {
    let Some(key) = UserKey::parse(text) else {
        return Ok(None);
    };
    let now = app.clock.now();
    Ok(app
        .store
        .session(&key.hash(), now)
        .await?
        .map(|found| Session {
            key,
            expires: found.expires,
            account: found.account,
        }))
}
