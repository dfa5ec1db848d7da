//! Which account a request's user keys name: one rule for the rate limiter (which resolves
//! keys through the recently resolved ones) and the API's session (which asks the store), so
//! that a request is counted against the account that serves it.
//!
//! The first key in precedence order (path, bearer, query, cookie; see [`presented_keys`])
//! names the account. Every other key must name the same one or none:
//! - a key that opens another account makes the request a 403 `key_mismatch`, the cookie
//!   included, so that one account's key never acts for or is counted against another;
//! - a path, bearer or query key that opens no account is a 403 `key_mismatch` too: the
//!   client sent it with this request, and which account it meant cannot be told;
//! - a cookie that opens no account is ignored: a browser may keep a signed-out or expired
//!   key, and that must not block a request which the primary key serves (the request is
//!   counted against the primary key's account all the same).
//!
//! The same text presented in several places counts once.
//!
//! [`presented_keys`]: super::presented_keys::presented_keys

use std::future::Future;

use super::presented_keys::KeySource;
use super::{ApiError, ErrorCode};
use crate::domain::UserKey;
use crate::store::{AccountId, StoreError};

/// Which account a key names, now: what resolving keys for the rate limits needs of the
/// application.
pub trait KeyAccounts: Send + Sync {
    /// The account that `key` opens now, from the keys resolved a moment ago or else the
    /// store, which then fills them: at most one query per key and 10 seconds. `None` for a
    /// key that opens no account.
    fn key_account(
        &self,
        key: &UserKey,
    ) -> impl Future<Output = Result<Option<AccountId>, StoreError>> + Send;
}

/// What resolving one key gives: something that belongs to an account.
pub(crate) trait OpensAccount {
    /// The account it belongs to.
    fn account_id(&self) -> AccountId;
}

impl OpensAccount for AccountId {
    fn account_id(&self) -> AccountId {
        *self
    }
}

/// What a request's keys name, by [the rule](self).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Named<T> {
    /// The request presents no key.
    Nobody,
    /// The primary key opens no account (malformed, unknown, expired or revoked).
    Unknown,
    /// Another key opens another account, or a path, bearer or query key opens none.
    Mismatch,
    /// The primary key opens this, and no other key contradicts it.
    Opened(T),
}

impl<T> Named<T> {
    /// The caller as the API treats it: `None` without a key, 401 `invalid_user_key` for a
    /// primary key that opens nothing, 403 `key_mismatch` for keys that disagree.
    pub(crate) fn into_caller(self) -> Result<Option<T>, ApiError> {
        match self {
            Self::Nobody => Ok(None),
            Self::Unknown => Err(ApiError::InvalidUserKey),
            Self::Mismatch => Err(key_mismatch()),
            Self::Opened(found) => Ok(Some(found)),
        }
    }
}

/// The 403 for keys that do not name one account.
pub(crate) fn key_mismatch() -> ApiError {
    ApiError::Forbidden {
        code: ErrorCode::KeyMismatch,
        message: "the user keys sent in this request do not belong to one account".to_owned(),
    }
}

/// What `keys` (as [`presented_keys`](super::presented_keys::presented_keys) lists them) name,
/// each distinct text resolved once by `resolve` (`None`: it opens no account), the primary
/// first; the others only when the primary opens an account.
pub(crate) async fn named_account<'k, T, E, R, F>(
    keys: &'k [(KeySource, String)],
    resolve: R,
) -> Result<Named<T>, E>
where
    T: OpensAccount,
    R: Fn(&'k str) -> F,
    F: Future<Output = Result<Option<T>, E>>,
{
    named_account_opening(keys, &resolve, &resolve).await
}

/// Like [`named_account`], with the primary key resolved by `open_primary` (which may read
/// more than the account, since what it opens is the answer) and the others by `resolve`,
/// which only has to tell their account.
pub(crate) async fn named_account_opening<'k, T, U, E, P, PF, R, F>(
    keys: &'k [(KeySource, String)],
    open_primary: P,
    mut resolve: R,
) -> Result<Named<T>, E>
where
    T: OpensAccount,
    U: OpensAccount,
    P: FnOnce(&'k str) -> PF,
    PF: Future<Output = Result<Option<T>, E>>,
    R: FnMut(&'k str) -> F,
    F: Future<Output = Result<Option<U>, E>>,
{
    let Some(((_, primary), others)) = keys.split_first() else {
        return Ok(Named::Nobody);
    };
    let Some(found) = open_primary(primary).await? else {
        return Ok(Named::Unknown);
    };
    for (index, (source, other)) in others.iter().enumerate() {
        let seen_before = keys[..=index].iter().any(|(_, earlier)| earlier == other);
        if seen_before {
            continue;
        }
        match resolve(other).await? {
            Some(opened) if opened.account_id() == found.account_id() => {}
            None if *source == KeySource::Cookie => {}
            Some(_) | None => return Ok(Named::Mismatch),
        }
    }
    Ok(Named::Opened(found))
}

/// The account the key `text` opens, as `accounts` tells it (from the keys resolved a moment
/// ago, or else the store): `None` for a malformed key or one that opens no account.
pub(crate) async fn recent_account<A: KeyAccounts>(
    accounts: &A,
    text: &str,
) -> Result<Option<AccountId>, StoreError> {
    let Some(key) = UserKey::parse(text) else {
        return Ok(None);
    };
    accounts.key_account(&key).await
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::convert::Infallible;

    use super::KeySource::{Bearer, Cookie, Path, Query};
    use super::*;

    /// `A1` and `A2` open account 1, `B` opens account 2, anything else none.
    fn accounts() -> HashMap<&'static str, AccountId> {
        HashMap::from([
            ("A1", AccountId(1)),
            ("A2", AccountId(1)),
            ("B", AccountId(2)),
        ])
    }

    /// What `keys` name, and the texts resolved on the way.
    async fn named(keys: &[(KeySource, &str)]) -> (Named<AccountId>, Vec<String>) {
        let keys: Vec<(KeySource, String)> = keys
            .iter()
            .map(|(source, text)| (*source, (*text).to_owned()))
            .collect();
        let accounts = accounts();
        let resolved = RefCell::new(Vec::new());
        let named = named_account(&keys, |text| {
            resolved.borrow_mut().push(text.to_owned());
            let found = accounts.get(text).copied();
            async move { Ok::<_, Infallible>(found) }
        })
        .await;
        let Ok(named) = named;
        (named, resolved.into_inner())
    }

    #[tokio::test]
    async fn the_primary_key_names_the_account() {
        assert_eq!(named(&[]).await.0, Named::Nobody);
        assert_eq!(named(&[(Path, "A1")]).await.0, Named::Opened(AccountId(1)));
        assert_eq!(named(&[(Cookie, "B")]).await.0, Named::Opened(AccountId(2)));
        assert_eq!(named(&[(Path, "stale")]).await.0, Named::Unknown);
        let (primary_unknown, resolved) = named(&[(Bearer, "stale"), (Cookie, "A1")]).await;
        assert_eq!(primary_unknown, Named::Unknown);
        assert_eq!(resolved, ["stale"]);
    }

    #[tokio::test]
    async fn keys_of_the_same_account_agree_and_a_text_is_resolved_once() {
        let (same, resolved) = named(&[(Path, "A1"), (Bearer, "A2"), (Query, "A1")]).await;
        assert_eq!(same, Named::Opened(AccountId(1)));
        assert_eq!(resolved, ["A1", "A2"]);
        let (repeated, resolved) = named(&[(Path, "A1"), (Cookie, "A1")]).await;
        assert_eq!(repeated, Named::Opened(AccountId(1)));
        assert_eq!(resolved, ["A1"]);
    }

    #[tokio::test]
    async fn a_cookie_that_opens_nothing_is_ignored() {
        for cookie in ["not-a-key", "f".repeat(48).as_str()] {
            assert_eq!(
                named(&[(Path, "A1"), (Cookie, cookie)]).await.0,
                Named::Opened(AccountId(1))
            );
        }
    }

    #[tokio::test]
    async fn another_account_or_a_sent_key_that_opens_nothing_is_a_mismatch() {
        for keys in [
            [(Path, "A1"), (Cookie, "B")],
            [(Path, "A1"), (Bearer, "B")],
            [(Bearer, "B"), (Query, "A2")],
            [(Path, "A1"), (Bearer, "not-a-key")],
            [(Path, "A1"), (Query, "not-a-key")],
        ] {
            assert_eq!(named(&keys).await.0, Named::Mismatch, "{keys:?}");
        }
        assert!(matches!(
            Named::<AccountId>::Mismatch.into_caller(),
            Err(ApiError::Forbidden {
                code: ErrorCode::KeyMismatch,
                ..
            })
        ));
        assert!(matches!(
            Named::<AccountId>::Unknown.into_caller(),
            Err(ApiError::InvalidUserKey)
        ));
    }
}
