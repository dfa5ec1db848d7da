//! Rows as both databases return them, and their conversion into core's records.

use safezone_core::domain::{FriendCode, ItemId, PackId};
use safezone_core::store::{
    Account, AccountId, Currency, KeySession, LedgerEntry, License, PackStock, Role, StoreError,
};

use crate::micros::from_micros;

/// An `accounts` row, as selected by [`ACCOUNT_BY_ID`](crate::sql::ACCOUNT_BY_ID).
#[derive(sqlx::FromRow)]
pub(crate) struct AccountRow {
    id: i64,
    provider: String,
    identifier: String,
    name: Option<String>,
    avatar: Option<String>,
    email: Option<String>,
    friend_name: String,
    friend_digits: i32,
    status: String,
    experience: i64,
    level: i64,
    coins: i64,
    gems: i64,
    role: String,
    is_banned: bool,
    created: i64,
    updated: i64,
}

impl AccountRow {
    /// The account; a row that breaks the record's rules is corrupt data.
    pub(crate) fn into_account(self) -> Result<Account, StoreError> {
        let friend_code = u16::try_from(self.friend_digits)
            .ok()
            .and_then(|digits| FriendCode::new(&self.friend_name, digits).ok())
            .ok_or_else(|| {
                corrupt(
                    self.id,
                    format!("friend code {}#{}", self.friend_name, self.friend_digits),
                )
            })?;
        let role = Role::parse(&self.role)
            .ok_or_else(|| corrupt(self.id, format!("role `{}`", self.role)))?;
        Ok(Account {
            id: AccountId(self.id),
            provider: self.provider,
            identifier: self.identifier,
            name: self.name,
            avatar: self.avatar,
            email: self.email,
            friend_code,
            status: self.status,
            experience: self.experience,
            level: self.level,
            coins: self.coins,
            gems: self.gems,
            role,
            is_banned: self.is_banned,
            created: from_micros(self.created)?,
            updated: from_micros(self.updated)?,
        })
    }
}

/// A `user_keys` row's session, as selected by [`SESSION`](crate::sql::SESSION).
#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    account_id: i64,
    expires: i64,
}

impl SessionRow {
    /// The key's session.
    pub(crate) fn into_session(self) -> Result<KeySession, StoreError> {
        Ok(KeySession {
            account: AccountId(self.account_id),
            expires: from_micros(self.expires)?,
        })
    }
}

/// A `licenses` row, as selected by [`LICENSES`](crate::economy_sql::LICENSES).
#[derive(sqlx::FromRow)]
pub(crate) struct LicenseRow {
    id: i64,
    item_id: i64,
    quantity: i64,
}

impl From<LicenseRow> for License {
    fn from(row: LicenseRow) -> Self {
        Self {
            id: row.id,
            item: ItemId(row.item_id),
            quantity: row.quantity,
        }
    }
}

/// A `pack_stock` row, as selected by [`PACKS`](crate::economy_sql::PACKS).
#[derive(sqlx::FromRow)]
pub(crate) struct PackRow {
    id: i64,
    pack_id: i64,
    quantity: i64,
}

impl From<PackRow> for PackStock {
    fn from(row: PackRow) -> Self {
        Self {
            id: row.id,
            pack: PackId(row.pack_id),
            quantity: row.quantity,
        }
    }
}

/// A `ledger` row, as selected by [`LEDGER`](crate::economy_sql::LEDGER).
#[derive(sqlx::FromRow)]
pub(crate) struct LedgerRow {
    id: i64,
    account_id: i64,
    currency: String,
    delta: i64,
    balance_after: i64,
    reason: String,
    reference: String,
    created: i64,
}

impl LedgerRow {
    /// The ledger entry; an unknown currency is corrupt data.
    pub(crate) fn into_entry(self) -> Result<LedgerEntry, StoreError> {
        let currency = match self.currency.as_str() {
            "coins" => Currency::Coins,
            "gems" => Currency::Gems,
            other => {
                return Err(StoreError::Internal(format!(
                    "ledger row {} holds an unknown currency `{other}`",
                    self.id
                )));
            }
        };
        Ok(LedgerEntry {
            id: self.id,
            account: AccountId(self.account_id),
            currency,
            delta: self.delta,
            balance_after: self.balance_after,
            reason: self.reason,
            reference: self.reference,
            created: from_micros(self.created)?,
        })
    }
}

fn corrupt(id: i64, what: String) -> StoreError {
    StoreError::Internal(format!("account {id} holds an invalid {what}"))
}
