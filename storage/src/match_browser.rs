//! [`MatchBrowser`](safezone_core::store::MatchBrowser), written once for both stores: the
//! recorded matches paged newest reported first, one match's results, and an operator's removal
//! of one result (statements in [`statements::match_browser`](crate::statements::match_browser)).

use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::store::{
    AccountId, MatchCursor, MatchId, MatchResult, MatchSummary, StoreError,
};

use crate::micros::from_micros;

/// A match as a list reads it: id, mode, started, ended, reported, players.
pub(crate) type MatchSummaryRow = (String, String, i64, i64, i64, i64);

/// A result as a match reads it: account id, friend name, friend digits, placement, kills,
/// seconds alive.
pub(crate) type MatchResultRow = (i64, String, i32, i64, i64, i64);

/// A stored value that breaks the record's rules: corrupt data.
fn corrupt(what: String) -> StoreError {
    StoreError::Internal(format!("the match browser read {what}"))
}

/// The match of `row`.
pub(crate) fn summary(row: MatchSummaryRow) -> Result<MatchSummary, StoreError> {
    let (id, mode, started, ended, reported, players) = row;
    Ok(MatchSummary {
        id: MatchId::parse(&id).ok_or_else(|| corrupt(format!("the match id `{id}`")))?,
        mode: GameMode::parse(&mode)
            .ok_or_else(|| corrupt(format!("the mode `{mode}` of match {id}")))?,
        started: from_micros(started)?,
        ended: from_micros(ended)?,
        reported: from_micros(reported)?,
        players: u32::try_from(players).unwrap_or(u32::MAX),
    })
}

/// The result of `row`.
pub(crate) fn result(row: MatchResultRow) -> Result<MatchResult, StoreError> {
    let (account, name, digits, placement, kills, time_alive_secs) = row;
    let friend_code = u16::try_from(digits)
        .ok()
        .and_then(|digits| FriendCode::new(&name, digits).ok())
        .ok_or_else(|| {
            corrupt(format!(
                "the friend code {name}#{digits} of account {account}"
            ))
        })?;
    Ok(MatchResult {
        account: AccountId(account),
        friend_code,
        placement,
        kills,
        time_alive_secs,
    })
}

/// Where a page ending with `summary` leaves the matches.
pub(crate) fn cursor(summary: &MatchSummary) -> MatchCursor {
    MatchCursor {
        reported_micros: crate::micros::to_micros(summary.reported),
        id: summary.id.clone(),
    }
}

/// Implements [`MatchBrowser`](safezone_core::store::MatchBrowser) for `$store` (see
/// [`impl_store`](crate::impl_store)), in a child module `match_browser` of the calling one.
/// The calling module also needs the `account_log` module of
/// [`impl_account_log`](crate::account_log::impl_account_log) and the `operator` module of
/// [`impl_operator`](crate::operator::impl_operator).
macro_rules! impl_match_browser {
    ($store:ident) => {
        mod match_browser {
            use async_trait::async_trait;
            use safezone_core::store::{
                AccountChange, AccountId, MATCH_PAGE_MAX, MatchBrowser, MatchCursor, MatchId,
                MatchPage, MatchResults, NewAuditEntry, ResultRemoval, StoreError,
            };
            use time::OffsetDateTime;

            use super::{account_log, operator, $store};
            use crate::error::store_error;
            use crate::match_browser::{MatchResultRow, MatchSummaryRow, cursor, result, summary};
            use crate::micros::to_micros;
            use crate::statements::{economy as economy_sql, match_browser as sql};

            #[async_trait]
            impl MatchBrowser for $store {
                async fn recent_matches(
                    &self,
                    after: Option<&MatchCursor>,
                    limit: u32,
                ) -> Result<MatchPage, StoreError> {
                    let limit = limit.clamp(1, MATCH_PAGE_MAX);
                    // The first page: before any time a match can be reported at.
                    let (reported, id) = after.map_or((i64::MAX, ""), |cursor| {
                        (cursor.reported_micros, cursor.id.as_str())
                    });
                    let mut rows = sqlx::query_as::<_, MatchSummaryRow>(sql::RECENT_MATCHES)
                        .bind(reported)
                        .bind(id)
                        // One more match than shown tells whether a next page starts after them.
                        .bind(i64::from(limit) + 1)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    let more = rows.len() > limit as usize;
                    rows.truncate(limit as usize);
                    let matches: Vec<_> =
                        rows.into_iter().map(summary).collect::<Result<_, _>>()?;
                    let next = matches.last().filter(|_| more).map(cursor);
                    Ok(MatchPage { matches, next })
                }

                /// Two reads: a result removed between them is missing from the results.
                async fn match_results(
                    &self,
                    id: &MatchId,
                ) -> Result<Option<MatchResults>, StoreError> {
                    let found = sqlx::query_as::<_, MatchSummaryRow>(sql::MATCH_SUMMARY)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?;
                    let Some(found) = found else {
                        return Ok(None);
                    };
                    let results = sqlx::query_as::<_, MatchResultRow>(sql::MATCH_RESULTS)
                        .bind(id.as_str())
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(result)
                        .collect::<Result<_, _>>()?;
                    Ok(Some(MatchResults {
                        summary: summary(found)?,
                        results,
                    }))
                }

                async fn remove_result(
                    &self,
                    id: &MatchId,
                    account: AccountId,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Option<ResultRemoval>, StoreError> {
                    let remove = async {
                        let mut tx = self.begin().await?;
                        let locked = sqlx::query_scalar::<_, bool>(economy_sql::LOCK_ACCOUNT)
                            .bind(account.0)
                            .bind(to_micros(now))
                            .fetch_optional(&mut *tx)
                            .await?;
                        if locked.is_none() {
                            tx.rollback().await?;
                            return Ok(None);
                        }
                        let deleted = sqlx::query(sql::DELETE_RESULT)
                            .bind(id.as_str())
                            .bind(account.0)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if deleted > 0 {
                            // Every board takes the player off and counts again what is left.
                            let change = AccountChange::ResultsRemoved { through: 0 };
                            account_log::commit_logged(tx, true, account, &change, now, audit)
                                .await?;
                            return Ok(Some(ResultRemoval::Removed));
                        }
                        match audit {
                            Some(entry) => {
                                operator::append(&mut tx, entry).await?;
                                tx.commit().await?;
                            }
                            None => tx.rollback().await?,
                        }
                        Ok::<_, sqlx::Error>(Some(ResultRemoval::NoSuchResult))
                    };
                    remove.await.map_err(store_error)
                }
            }
        }
    };
}

pub(crate) use impl_match_browser;
