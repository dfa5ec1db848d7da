//! The sign-in policy both stores share: what an unknown identity tries first, which friend code
//! to offer next, and when to give up.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use safezone_core::domain::FriendCode;
use safezone_core::store::{Account, AccountView, SignedIn, StoreError};

use crate::group_commit::GroupCommit;

/// The sign-ins of existing accounts, written in batches: each appends its `signed_in` event
/// and answers the account's key generation, or `None` when the account is gone.
pub(crate) type ExistingSignIns = GroupCommit<ExistingSignIn, Option<i64>>;

/// The first sign-ins creating their accounts, written in batches: each answers the account
/// created, or `None` when nothing was written for it.
pub(crate) type NewAccounts = GroupCommit<NewAccount, Option<Account>>;

/// What a sign-in of an identity the node does not know in memory tries first: reading the
/// identity's account, or creating one with the concurrent first sign-ins (where an identity
/// that has an account writes nothing, and is then read). Both orders are correct; each costs
/// the other kind of sign-in one more step: read first, a new device's read finds nothing (on
/// SQLite a third of its sign-in's CPU, two hand-offs to a worker thread); created first, a
/// returning player's sign-in joins a batch that writes nothing for it. So a store tries first
/// what most of its recent such sign-ins turned out to be: new devices on a launch day, returning
/// players after a node's start. Shared by the store's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct FirstTries(Arc<AtomicI32>);

impl FirstTries {
    /// How far the recent sign-ins can lean one way: a change of mix turns the order after at
    /// most twice this many sign-ins.
    const MOST_LEAN: i32 = 8;

    /// Whether to create first: more of the recent sign-ins were new accounts than not.
    pub(crate) fn create_first(&self) -> bool {
        self.0.load(Ordering::Relaxed) > 0
    }

    /// Counts a sign-in that created its account (`new`) or found one.
    pub(crate) fn turned_out(&self, new: bool) {
        let step = if new { 1 } else { -1 };
        // The closure always answers, so the update cannot fail.
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |lean| {
                Some((lean + step).clamp(-Self::MOST_LEAN, Self::MOST_LEAN))
            });
    }
}

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

#[cfg(test)]
mod tests {
    use super::FirstTries;

    #[test]
    fn reads_first_until_new_accounts_lead_and_turns_back_within_the_bound() {
        let tries = FirstTries::default();
        assert!(!tries.create_first(), "a store starts by reading first");
        tries.turned_out(true);
        assert!(tries.create_first());
        for _ in 0..100 {
            tries.turned_out(true);
        }
        let clone = tries.clone();
        for _ in 0..FirstTries::MOST_LEAN {
            assert!(clone.create_first(), "the clones share the count");
            clone.turned_out(false);
        }
        assert!(
            !tries.create_first(),
            "the lean is bounded: as many found turn it back"
        );
    }
}
