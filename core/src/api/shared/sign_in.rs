//! Signing in an identity (a device, an identity provider's user, a chat-platform user):
//! creating its account on first use, issuing a user key, and the answer
//! `{status, user, firstLogin}`.

use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use crate::App;
use crate::api::views::ApiUser;
use crate::auth::KeptView;
use crate::domain::{FriendCode, NAME_MAX_CHARS, NAME_MIN_CHARS, UserKey, player_names};
use crate::http::{ApiError, Reply};
use crate::live_content::Published;
use crate::store::{Account, Clan, Holdings, NewSignIn, SignedIn};

/// Friend codes offered to a new account for its name.
const FRIEND_CODE_TRIES: usize = 24;

/// Generated names offered after those, each with [`FALLBACK_CODE_TRIES`] codes, for a name
/// whose codes are (nearly) all taken: a common provider name has only 10,000.
const FALLBACK_NAMES: usize = 2;

/// Friend codes offered for each fallback name.
const FALLBACK_CODE_TRIES: usize = 8;

/// Who is signing in.
#[derive(Clone)]
pub(crate) struct Identity {
    /// The sign-in provider (`device`, `idpone`, `chat`, ...).
    pub provider: String,
    /// The identity's id at that provider.
    pub identifier: String,
    /// The display name the provider gave, if any.
    pub name: Option<String>,
    /// The avatar address the provider gave, if any.
    pub avatar: Option<String>,
    /// The e-mail address the provider gave, if any.
    pub email: Option<String>,
}

/// A finished sign-in: the account as it is now and the new key.
pub(crate) struct SignedInUser {
    /// The account.
    pub account: Account,
    holdings: Holdings,
    clan: Option<Clan>,
    /// The new key.
    pub key: UserKey,
    key_expires: time::OffsetDateTime,
    /// Whether this sign-in created the account.
    pub first_login: bool,
    /// The content the sign-in was answered with.
    published: Arc<Published>,
}

/// `{user, firstLogin}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct SignInAnswer<'a> {
    user: ApiUser<'a>,
    /// Whether this sign-in created the account.
    #[serde(rename = "firstLogin")]
    first_login: bool,
}

/// Signs `identity` in, creating its account (named after the provider's name when that makes
/// a friend-code name, otherwise with a generated name) on first use. An identity whose
/// account's view this node keeps ([`SessionCache`](crate::auth::SessionCache)) only has its
/// event written.
pub(crate) async fn complete(app: &App, identity: Identity) -> Result<SignedInUser, ApiError> {
    let now = app.clock.now();
    let known = app
        .sessions
        .identity(&identity.provider, &identity.identifier);
    if let Some(kept) = known.and_then(|account| app.sessions.kept_view(account))
        && let Some(signed_in) = sign_in_kept(app, kept, &identity.provider, now).await?
    {
        return Ok(signed_in);
    }
    let counter = known.and_then(|account| app.sessions.counter_of(account));
    let code_name = identity
        .name
        .as_deref()
        .and_then(friend_code_name)
        .unwrap_or_else(player_names::generate);
    let friend_code_candidates = friend_code_candidates(code_name)?;
    let method = identity.provider.clone();
    let signed_in = app
        .store
        .sign_in(NewSignIn {
            provider: identity.provider,
            identifier: identity.identifier,
            name: identity.name,
            avatar: identity.avatar,
            email: identity.email,
            friend_code_candidates,
            now,
        })
        .await?;
    let account = &signed_in.account;
    app.sessions
        .remember_identity(&account.provider, &account.identifier, account.id);
    // The view is kept only when its account's counter was read before the store read it.
    let counter = counter.filter(|_| known == Some(account.id));
    finish(app, &method, signed_in, counter, now).await
}

/// The sign-in of an account whose view this node keeps: its event written (and its key
/// generation read) by the store, the view from memory; `None` when the account is gone.
async fn sign_in_kept(
    app: &App,
    kept: KeptView,
    provider: &str,
    now: time::OffsetDateTime,
) -> Result<Option<SignedInUser>, ApiError> {
    let KeptView { view, counter } = kept;
    let Some(key_generation) = app
        .store
        .sign_in_account(view.account.id, provider, now)
        .await?
    else {
        return Ok(None);
    };
    let signed_in = SignedIn {
        account: view.account,
        holdings: view.holdings,
        clan: view.clan,
        first_login: false,
        key_generation,
    };
    finish(app, provider, signed_in, Some(counter), now)
        .await
        .map(Some)
}

/// Issues the new key of `signed_in` (signed in by `method` at `now`), keeps its account's
/// view with the key when it was read under the change counter `counter`, counts the sign-in
/// and answers it.
async fn finish(
    app: &App,
    method: &str,
    signed_in: SignedIn,
    counter: Option<u64>,
    now: time::OffsetDateTime,
) -> Result<SignedInUser, ApiError> {
    let (key, key_expires) = app
        .user_keys
        .issue(
            app.store.as_ref(),
            signed_in.account.id,
            signed_in.key_generation,
            now + app.settings.key_lifetime,
        )
        .await?;
    if let Some(counter) = counter {
        app.sessions.keep_signed_in(
            counter,
            &signed_in.account,
            signed_in.clan.is_none().then_some(&signed_in.holdings),
            signed_in.key_generation,
            key_expires,
            &key.hash(),
        );
    }
    app.metrics
        .business
        .signed_in(method, signed_in.first_login);
    Ok(SignedInUser {
        account: signed_in.account,
        holdings: signed_in.holdings,
        clan: signed_in.clan,
        key,
        key_expires,
        first_login: signed_in.first_login,
        published: app.content.current(),
    })
}

impl SignedInUser {
    /// The account as ApiUser, with the key.
    pub(crate) fn user(&self) -> ApiUser<'_> {
        ApiUser::new(
            &self.published.content,
            &self.account,
            &self.holdings,
            self.clan.as_ref(),
            &self.key,
            self.key_expires,
        )
    }

    /// `{status, user, firstLogin}`.
    pub(crate) fn answer(&self) -> Reply {
        Reply::success(&SignInAnswer {
            user: self.user(),
            first_login: self.first_login,
        })
    }
}

/// A friend-code name made of the ASCII letters and digits of a provider's display name, cut to
/// the longest allowed; `None` when too few remain.
fn friend_code_name(display_name: &str) -> Option<String> {
    let name: String = display_name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(NAME_MAX_CHARS)
        .collect();
    (name.len() >= NAME_MIN_CHARS).then_some(name)
}

/// The friend codes offered to a new account, in order: [`FRIEND_CODE_TRIES`] of `name`, then
/// [`FALLBACK_CODE_TRIES`] of each of [`FALLBACK_NAMES`] generated names.
fn friend_code_candidates(name: String) -> Result<Vec<FriendCode>, ApiError> {
    let fallbacks = std::iter::repeat_with(player_names::generate).take(FALLBACK_NAMES);
    let per_name = std::iter::once((name, FRIEND_CODE_TRIES))
        .chain(fallbacks.map(|name| (name, FALLBACK_CODE_TRIES)))
        .map(|(name, tries)| {
            FriendCode::random_candidates(&name, tries).map_err(|error| ApiError::Internal {
                detail: format!("name {name} is not a friend-code name: {error}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(per_name.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_whose_codes_are_taken_is_followed_by_generated_names() {
        let candidates = friend_code_candidates("John".to_owned()).expect("a friend-code name");
        assert_eq!(
            candidates.len(),
            FRIEND_CODE_TRIES + FALLBACK_NAMES * FALLBACK_CODE_TRIES
        );
        let (own, fallbacks) = candidates.split_at(FRIEND_CODE_TRIES);
        assert!(own.iter().all(|code| code.name() == "John"));
        for group in fallbacks.chunks(FALLBACK_CODE_TRIES) {
            assert!(group.iter().all(|code| code.name() == group[0].name()));
            assert_ne!(group[0].name(), "John");
        }
        let distinct: std::collections::HashSet<_> = candidates.iter().collect();
        assert!(distinct.len() >= FRIEND_CODE_TRIES + FALLBACK_CODE_TRIES);
        assert!(friend_code_candidates("no".to_owned()).is_err());
    }

    #[test]
    fn friend_code_names_keep_letters_and_digits() {
        assert_eq!(
            friend_code_name("Ace Pilot 7!").as_deref(),
            Some("AcePilot7")
        );
        assert_eq!(friend_code_name("<b>").as_deref(), None);
        assert_eq!(friend_code_name("Ωμέγα").as_deref(), None);
        assert_eq!(
            friend_code_name("abcdefghijklmnopqrstuvwxyz").as_deref(),
            Some("abcdefghijklmnop")
        );
    }
}
