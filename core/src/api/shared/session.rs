//! Who is calling: the user key the request presents (see [`presented_keys`]), resolved to an
//! account.

use time::OffsetDateTime;

use crate::App;
use crate::domain::UserKey;
use crate::http::key_owner::{self, OpensAccount};
use crate::http::presented_keys::presented_keys;
use crate::http::{ApiError, Incoming};
use crate::store::{Account, AccountId, AccountView};

/// A caller with a valid key.
pub(crate) struct Session {
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

/// A caller with a valid key, with everything the account's view shows: the session the
/// account read answers from.
pub(crate) struct ViewedSession {
    /// The key the caller presented.
    pub key: UserKey,
    /// When that key expires.
    pub expires: OffsetDateTime,
    /// The account it opens, with its holdings and clan.
    pub view: AccountView,
}

impl OpensAccount for ViewedSession {
    fn account_id(&self) -> AccountId {
        self.view.account.id
    }
}

/// The caller's session with the account's holdings and clan, by the same rule as
/// [`required`]: the primary key is resolved with the whole view in one store call, the other
/// keys presented only to their account.
pub(crate) async fn required_view(
    app: &App,
    incoming: &Incoming,
) -> Result<ViewedSession, ApiError> {
    let keys = presented_keys(incoming);
    key_owner::named_account_opening(
        &keys,
        |text| resolve_view(app, text),
        |text| resolve(app, text),
    )
    .await?
    .into_caller()?
    .ok_or(ApiError::MissingUserKey)
}

/// Resolves one key text with the account's whole view: `None` as for [`resolve`].
async fn resolve_view(app: &App, text: &str) -> Result<Option<ViewedSession>, ApiError> {
    let Some(key) = UserKey::parse(text) else {
        return Ok(None);
    };
    let lookup = app.user_keys.lookup(app.store.as_ref(), &key).await?;
    Ok(app
        .sessions
        .session_view(app.store.as_ref(), &lookup, app.clock.now())
        .await?
        .map(|found| ViewedSession {
            key,
            expires: found.expires,
            view: found.view,
        }))
}

/// The caller's session; no key is a 401 `missing_user_key`.
pub(crate) async fn required(app: &App, incoming: &Incoming) -> Result<Session, ApiError> {
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
pub(crate) async fn optional(app: &App, incoming: &Incoming) -> Result<Option<Session>, ApiError> {
    let keys = presented_keys(incoming);
    key_owner::named_account(&keys, |text| resolve(app, text))
        .await?
        .into_caller()
}

/// Resolves one key text: `None` when malformed, unknown, expired, revoked, or its account gone.
pub(crate) async fn resolve(app: &App, text: &str) -> Result<Option<Session>, ApiError> {
    let Some(key) = UserKey::parse(text) else {
        return Ok(None);
    };
    let now = app.clock.now();
    let lookup = app.user_keys.lookup(app.store.as_ref(), &key).await?;
    Ok(app
        .sessions
        .session(app.store.as_ref(), &lookup, now)
        .await?
        .map(|found| Session {
            key,
            expires: found.expires,
            account: found.account,
        }))
}
