//! The sign-in policy both stores share: which friend code to offer next, and when to give up.

use safezone_core::domain::FriendCode;
use safezone_core::store::{Account, AccountView, SignedIn, StoreError};

use crate::group_commit::GroupCommit;

/// The sign-ins of existing accounts, written in batches: each appends its `signed_in` event
/// and answers the account's key generation, or `None` when the account is gone.
pub(crate) type ExistingSignIns = GroupCommit<ExistingSignIn, Option<i64>>;

/// The first sign-ins creating their accounts, written in batches: each answers the account
/// created, or `None` when nothing was written for it.
pub(crate) type NewAccounts = GroupCommit<NewAccount, Option<Account>>;

/// An account to create with its first sign-in's events.
pub(crate) struct NewAccount {
    /// The sign-in provider.
    pub(crate) provider: String,
    /// The identity's id at the provider.
    pub(crate) identifier: String,
    /// Display name, avatar and e-mail address from the provider.
    pub(crate) name: Option<String>,
    /// See `name`.
    pub(crate) avatar: Option<String>,
    /// See `name`.
    pub(crate) email: Option<String>,
    /// The friend code offered: its name and digits.
    pub(crate) friend_name: String,
    /// See `friend_name`.
    pub(crate) friend_digits: i64,
    /// When it signed in, in microseconds.
    pub(crate) created: i64,
    /// The `account_created` event's payload, as JSON.
    pub(crate) created_payload: String,
    /// The `signed_in` event's payload, as JSON.
    pub(crate) signed_in_payload: String,
}

/// The event one sign-in of an existing account appends.
pub(crate) struct ExistingSignIn {
    /// The account's id.
    pub(crate) account: i64,
    /// The `signed_in` event's payload, as JSON.
    pub(crate) payload: String,
    /// When it signed in, in microseconds.
    pub(crate) created: i64,
}

/// How one sign-in transaction ended.
pub(crate) enum Attempt {
    /// The sign-in committed: the account's view after it, whether it is new, and its key
    /// generation.
    SignedIn(Box<AccountView>, bool, u32),
    /// The identity has no account and the offered friend code is taken; nothing was written.
    CodeTaken,
    /// The identity has no account; nothing was written. Offered a code, this means the
    /// account was created by a concurrent sign-in and deleted before the lock of its row
    /// (possible in PostgreSQL), or (PostgreSQL's creation in one statement) created by a
    /// concurrent sign-in: the next attempt with the same code creates a fresh account or signs
    /// the one created in.
    NoAccount,
}

/// Runs sign-in transactions until one commits: offers the candidates in order, skipping taken
/// codes, then (every code taken, or none offered) only signs in an existing account.
pub(crate) async fn sign_in_with<'a, F, Fut>(
    candidates: &'a [FriendCode],
    mut attempt: F,
) -> Result<SignedIn, StoreError>
where
    F: FnMut(Option<&'a FriendCode>) -> Fut,
    Fut: Future<Output = Result<Attempt, StoreError>>,
{
    let mut codes = candidates.iter();
    let mut code = codes.next();
    loop {
        match attempt(code).await? {
            Attempt::SignedIn(view, first_login, key_generation) => {
                let AccountView {
                    account,
                    holdings,
                    clan,
                } = *view;
                return Ok(SignedIn {
                    account,
                    holdings,
                    clan,
                    first_login,
                    key_generation,
                });
            }
            Attempt::CodeTaken => {
                tracing::debug!(?code, "friend code taken; offering the next one");
                code = codes.next();
            }
            Attempt::NoAccount if code.is_none() => return Err(StoreError::FriendCodesExhausted),
            Attempt::NoAccount => tracing::debug!("account deleted during sign-in; retrying"),
        }
    }
}
