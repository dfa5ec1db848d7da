//! [`LedgerHistory`](safezone_core::store::LedgerHistory), written once for both stores: an
//! account's ledger newest first, filtered and paged (statements in
//! [`statements::ledger_history`](crate::statements::ledger_history)).

use safezone_core::store::{AccountId, Currency, LedgerCursor, LedgerEntry, StoreError};

use crate::micros::from_micros;

/// A ledger row as a page reads it: id, account, currency, delta, balance after, reason,
/// reference, created.
pub(crate) type LedgerPageRow = (i64, i64, String, i64, i64, String, String, i64);

/// The entry of `row`; an unknown currency is corrupt data.
pub(crate) fn entry(row: LedgerPageRow) -> Result<LedgerEntry, StoreError> {
    let (id, account, currency, delta, balance_after, reason, reference, created) = row;
    let currency = match currency.as_str() {
        "coins" => Currency::Coins,
        "gems" => Currency::Gems,
        other => {
            return Err(StoreError::Internal(format!(
                "ledger row {id} holds an unknown currency `{other}`"
            )));
        }
    };
    Ok(LedgerEntry {
        id,
        account: AccountId(account),
        currency,
        delta,
        balance_after,
        reason,
        reference,
        created: from_micros(created)?,
    })
}

/// Where a page ending with `row` leaves the ledger.
pub(crate) fn cursor(row: &LedgerPageRow) -> LedgerCursor {
    LedgerCursor {
        created_micros: row.7,
        id: row.0,
    }
}

/// Implements [`LedgerHistory`](safezone_core::store::LedgerHistory) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), in a child module `ledger_history`
/// of the calling one.
macro_rules! impl_ledger_history {
    ($store:ident) => {
        mod ledger_history {
            use async_trait::async_trait;
            use safezone_core::store::{
                AccountId, Currency, LEDGER_PAGE_MAX, LedgerCursor, LedgerFilter, LedgerHistory,
                LedgerPage, StoreError,
            };

            use super::$store;
            use crate::error::store_error;
            use crate::ledger_history::{LedgerPageRow, cursor, entry};
            use crate::micros::to_micros;
            use crate::statements::ledger_history as sql;

            #[async_trait]
            impl LedgerHistory for $store {
                async fn ledger_page(
                    &self,
                    account: AccountId,
                    filter: &LedgerFilter,
                    after: Option<LedgerCursor>,
                    limit: u32,
                ) -> Result<LedgerPage, StoreError> {
                    let limit = limit.clamp(1, LEDGER_PAGE_MAX);
                    // Both currencies, or the one asked for and one no row has.
                    let (first, second) = match filter.currency {
                        None => (Currency::Coins.as_str(), Currency::Gems.as_str()),
                        Some(currency) => (currency.as_str(), ""),
                    };
                    let from = filter.from.map_or(i64::MIN, to_micros);
                    // Rows before `until` are those before (until, the lowest id).
                    let until = filter
                        .until
                        .map_or((i64::MAX, i64::MAX), |until| (to_micros(until), i64::MIN));
                    let before = after
                        .map(|cursor| (cursor.created_micros, cursor.id))
                        .map_or(until, |cursor| cursor.min(until));
                    let statement = match filter.reason {
                        None => sql::LEDGER_PAGE,
                        Some(_) => sql::LEDGER_PAGE_OF_REASON,
                    };
                    let mut query = sqlx::query_as::<_, LedgerPageRow>(statement)
                        .bind(account.0)
                        .bind(first)
                        .bind(second)
                        .bind(from)
                        .bind(before.0)
                        .bind(before.1)
                        // One more row than shown tells whether a next page starts after them.
                        .bind(i64::from(limit) + 1);
                    if let Some(reason) = &filter.reason {
                        query = query.bind(reason.as_str());
                    }
                    let mut rows = query.fetch_all(&self.pool).await.map_err(store_error)?;
                    let more = rows.len() > limit as usize;
                    rows.truncate(limit as usize);
                    let next = rows.last().filter(|_| more).map(cursor);
                    let entries = rows.into_iter().map(entry).collect::<Result<_, _>>()?;
                    Ok(LedgerPage { entries, next })
                }
            }
        }
    };
}

pub(crate) use impl_ledger_history;
