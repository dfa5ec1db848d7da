//! What can go wrong in a store, independently of the database behind it.

use std::fmt;

/// A failure of a [`Store`](super::Store) operation.
#[derive(Debug, Clone)]
pub enum StoreError {
    /// Every friend code offered for a new account is already taken.
    FriendCodesExhausted,
    /// The database could not be reached or refused the operation; the text says why.
    Unavailable(String),
    /// Any other database failure (a bug, a broken migration, corrupt data); the text says why.
    Internal(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FriendCodesExhausted => f.write_str("every offered friend code is taken"),
            Self::Unavailable(why) => write!(f, "database unavailable: {why}"),
            Self::Internal(why) => write!(f, "database error: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}
