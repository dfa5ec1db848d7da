//! The records of accounts that core and a store exchange: accounts, their roles, sign-ins,
//! keys and sessions, and the views of an account.

use time::OffsetDateTime;

use super::{AccountId, Clan, Holdings};
use crate::domain::{FriendCode, KeyHash};

/// What an account may do beyond playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An ordinary player.
    Player,
    /// An operator: may edit tournament whitelists and use the admin endpoints.
    Admin,
}

impl Role {
    /// The role's name as stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Player => "player",
            Self::Admin => "admin",
        }
    }

    /// Reads a stored role name; unknown names are `None`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "player" => Some(Self::Player),
            "admin" => Some(Self::Admin),
            _ => None,
        }
    }
}

/// A stored account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The account's id.
    pub id: AccountId,
    /// The sign-in provider that created the account (`device`, `idpone`, ...).
    pub provider: String,
    /// The account's id at that provider.
    pub identifier: String,
    /// Display name, if the provider gave one.
    pub name: Option<String>,
    /// Avatar address, if the provider gave one.
    pub avatar: Option<String>,
    /// E-mail address, if the provider gave one.
    pub email: Option<String>,
    /// The account's unique friend code.
    pub friend_code: FriendCode,
    /// Presence as last reported (`offline` until a game server says otherwise).
    pub status: String,
    /// Experience points.
    pub experience: i64,
    /// Account level.
    pub level: i64,
    /// Coin balance.
    pub coins: i64,
    /// Gem balance.
    pub gems: i64,
    /// What the account may do beyond playing.
    pub role: Role,
    /// Whether an operator banned the account.
    pub is_banned: bool,
    /// When the account was created.
    pub created: OffsetDateTime,
    /// When the account last changed.
    pub updated: OffsetDateTime,
}

/// A sign-in to perform: the identity, what a new account starts with, and the new key.
#[derive(Debug, Clone)]
pub struct NewSignIn {
    /// The sign-in provider (`device`, ...).
    pub provider: String,
    /// The account's id at that provider (for devices, the device id).
    pub identifier: String,
    /// The display name the provider gave, if any, for a new account.
    pub name: Option<String>,
    /// Avatar address for a new account.
    pub avatar: Option<String>,
    /// E-mail address for a new account.
    pub email: Option<String>,
    /// Friend codes to try, in order, when the account is new.
    pub friend_code_candidates: Vec<FriendCode>,
    /// The time of the sign-in.
    pub now: OffsetDateTime,
}

/// The result of a sign-in.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The signed-in account as stored after the sign-in.
    pub account: Account,
    /// What the account holds (nothing for a new account).
    pub holdings: Holdings,
    /// The clan the account is a member of, if any.
    pub clan: Option<Clan>,
    /// Whether this sign-in created the account.
    pub first_login: bool,
    /// The account's key generation, for the new key to carry.
    pub key_generation: u32,
}

/// How the store finds the session of a presented user key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyLookup {
    /// A key recorded by a release before signed keys, by its hash; it works until its
    /// recorded expiry unless revoked.
    Stored(KeyHash),
    /// A signed key whose signature checked: it opens its account while unexpired, issued
    /// under the account's current key generation and not revoked on its own.
    Signed {
        /// The account the key names.
        account: AccountId,
        /// The key generation it was issued under.
        generation: u32,
        /// When it expires.
        expires: OffsetDateTime,
        /// Its hash, under which a revocation of this one key is recorded.
        hash: KeyHash,
    },
}

/// An account with everything its wire view shows besides: what it holds and its clan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountView {
    /// The account as stored.
    pub account: Account,
    /// What it holds.
    pub holdings: Holdings,
    /// The clan it is a member of, if any.
    pub clan: Option<Clan>,
}

/// An unexpired, unrevoked user key's session with the account's whole view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionView {
    /// The account the key opens, with its holdings and clan, as stored now.
    pub view: AccountView,
    /// When the key expires.
    pub expires: OffsetDateTime,
}

/// An unexpired, unrevoked user key's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySession {
    /// The account the key opens, as stored now.
    pub account: Account,
    /// When the key expires.
    pub expires: OffsetDateTime,
}
