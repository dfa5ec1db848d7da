//! Who is calling: the user key the request presents (see [`presented_keys`]), resolved to an
//! account.

use time::OffsetDateTime;

use crate::App;
use crate::domain::UserKey;
use crate::http::key_owner::{self, OpensAccount};
use crate::http::presented_keys::presented_keys;
use crate::http::{ApiError, Incoming};
use crate::store::{Account, AccountId};

/// A caller with a valid key.
pub(super) struct Session {
    /// The key the caller presented.
    pub key: UserKey,
    /// When that key expires.
    pub expires: OffsetDateTime,
    /// The account it opens.
    pub account: Account,
}

impl OpensAccount for Session {
    fn account_id(&self) -> AccountId {
        self.account.id
    }
}

/// The caller's session; no key is a 401 `missing_user_key`.
pub(super) async fn required(app: &App, incoming: &Incoming) -> Result<Session, ApiError> {
    optional(app, incoming)
        .await?
        .ok_or(ApiError::MissingUserKey)
}

/// The caller's session, or `None` when no key was presented at all.
///
/// The keys presented name the account by the rule that the rate limiter follows too
/// ([`key_owner`]): the primary key must open an account (401 otherwise), and no other key may
/// open another one (403 `key_mismatch`), so that one account's key never opens another
/// account's paths.
pub(super) async fn optional(app: &App, incoming: &Incoming) -> Result<Option<Session>, ApiError> {
    let keys = presented_keys(incoming);
    key_owner::named_account(&keys, |text| resolve(app, text))
        .await?
        .into_caller()
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
