//! The database id of an account, which nearly every record names.

/// The database id of an account.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct AccountId(pub i64);
