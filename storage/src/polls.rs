//! [`PollStore`](safezone_core::store::PollStore), written once for both stores: the
//! transactions of polls and votes, and how an account's deletion takes its votes off their
//! counts.
//!
//! One vote per account and poll is settled by the primary key of `poll_votes`; a vote raises
//! its option's count (`poll_options.votes`) in its own transaction, after locking the voter's
//! row (see [`refusable`](crate::refusable) for the order of locks).

use safezone_core::store::{
    Poll, PollId, PollOption, PollOptionId, PollResults, StoreError, Window,
};

use crate::row::window;

/// A poll with one of its options, as selected by [`POLL`](crate::statements::polls::POLL).
#[derive(sqlx::FromRow)]
pub(crate) struct PollRow {
    poll_id: i64,
    question: String,
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
    option_id: i64,
    name: String,
    color_code: String,
    votes: i64,
}

impl PollRow {
    /// The polls of rows ordered by poll, each with its votes per option.
    pub(crate) fn into_polls(rows: Vec<Self>) -> Result<Vec<PollResults>, StoreError> {
        let mut polls: Vec<PollResults> = Vec::new();
        for row in rows {
            let option = PollOption {
                id: PollOptionId(row.option_id),
                name: row.name,
                color_code: row.color_code,
            };
            match polls.last_mut() {
                Some(last) if last.poll.id.0 == row.poll_id => {
                    last.poll.options.push(option);
                    last.votes.push(row.votes);
                }
                _ => polls.push(PollResults {
                    poll: Poll {
                        id: PollId(row.poll_id),
                        question: row.question,
                        options: vec![option],
                        window: window(row.opens, row.closes, row.closed_at)?,
                    },
                    votes: vec![row.votes],
                }),
            }
        }
        Ok(polls)
    }
}

/// A window's columns, as selected by [`POLL_WINDOW`](crate::statements::polls::POLL_WINDOW).
#[derive(sqlx::FromRow)]
pub(crate) struct WindowRow {
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
}

impl WindowRow {
    /// The window.
    pub(crate) fn into_window(self) -> Result<Window, StoreError> {
        window(self.opens, self.closes, self.closed_at)
    }
}

/// Implements [`PollStore`](safezone_core::store::PollStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `withdraw_votes` for account
/// deletion, in a child module `polls` of the calling one, which also needs the `operator`
/// module of [`impl_operator`](crate::operator::impl_operator) and the `refusable` module of
/// [`impl_refusable`](crate::refusable::impl_refusable).
macro_rules! impl_polls {
    ($store:ident, $db:ty) => {
        mod polls {
            use async_trait::async_trait;
            use safezone_core::store::{
                AccountId, Closing, NewAuditEntry, NewPoll, Poll, PollEdit, PollEditRefusal,
                PollId, PollResults, PollStore, StoreError, Vote, VoteRefusal,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::refusable::{closed_or_unknown, lock_account, settle};
            use super::{operator, $store};
            use crate::error::{decode, store_error};
            use crate::micros::to_micros;
            use crate::polls::{PollRow, WindowRow};
            use crate::statements::polls as sql;

            #[async_trait]
            impl PollStore for $store {
                async fn create_poll(
                    &self,
                    poll: NewPoll,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Poll, StoreError> {
                    let created = async {
                        let mut tx = self.begin().await?;
                        let id = sqlx::query_scalar::<_, i64>(sql::INSERT_POLL)
                            .bind(&poll.question)
                            .bind(to_micros(poll.opens))
                            .bind(to_micros(poll.closes))
                            .bind(to_micros(poll.now))
                            .fetch_one(&mut *tx)
                            .await?;
                        for (position, option) in (0_i32..).zip(&poll.options) {
                            sqlx::query(sql::INSERT_POLL_OPTION)
                                .bind(id)
                                .bind(position)
                                .bind(&option.name)
                                .bind(&option.color_code)
                                .execute(&mut *tx)
                                .await?;
                        }
                        let rows = sqlx::query_as::<_, PollRow>(sql::POLL)
                            .bind(id)
                            .fetch_all(&mut *tx)
                            .await?;
                        if let Some(entry) = audit {
                            operator::append(&mut tx, &entry.on_created(id)).await?;
                        }
                        tx.commit().await?;
                        PollRow::into_polls(rows)
                            .map_err(decode)?
                            .pop()
                            .map(|results| results.poll)
                            .ok_or(sqlx::Error::RowNotFound)
                    };
                    created.await.map_err(store_error)
                }

                async fn close_poll(
                    &self,
                    poll: PollId,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Closing, StoreError> {
                    let closing = async {
                        let mut tx = self.begin().await?;
                        let closed = sqlx::query(sql::CLOSE_POLL)
                            .bind(poll.0)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?;
                        let closing = if closed.rows_affected() == 1 {
                            Closing::Closed
                        } else {
                            let exists = sqlx::query_scalar::<_, i64>(sql::POLL_EXISTS)
                                .bind(poll.0)
                                .fetch_optional(&mut *tx)
                                .await?;
                            if exists.is_some() {
                                Closing::AlreadyClosed
                            } else {
                                Closing::Unknown
                            }
                        };
                        settle(tx, closed_or_unknown(closing), audit).await
                    };
                    Ok(closing
                        .await
                        .map_err(store_error)?
                        .unwrap_or_else(|unknown| unknown))
                }

                async fn polls_to_vote(
                    &self,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Vec<Poll>, StoreError> {
                    let polls = async {
                        let rows = sqlx::query_as::<_, PollRow>(sql::POLLS_TO_VOTE)
                            .bind(account.0)
                            .bind(to_micros(now))
                            .fetch_all(&self.pool)
                            .await?;
                        Ok(PollRow::into_polls(rows)
                            .map_err(decode)?
                            .into_iter()
                            .map(|results| results.poll)
                            .collect())
                    };
                    polls.await.map_err(store_error)
                }

                /// The voter, the poll's window and the option are checked, and the primary
                /// key refuses a second vote.
                async fn vote(&self, vote: Vote) -> Result<Result<(), VoteRefusal>, StoreError> {
                    let voted = async {
                        let mut tx = self.begin().await?;
                        let outcome = vote_in(&mut tx, &vote).await?;
                        settle(tx, outcome, None).await
                    };
                    voted.await.map_err(store_error)
                }

                async fn poll_results(
                    &self,
                    poll: PollId,
                ) -> Result<Option<PollResults>, StoreError> {
                    let results = async {
                        let rows = sqlx::query_as::<_, PollRow>(sql::POLL)
                            .bind(poll.0)
                            .fetch_all(&self.pool)
                            .await?;
                        Ok(PollRow::into_polls(rows).map_err(decode)?.pop())
                    };
                    results.await.map_err(store_error)
                }

                async fn polls(&self, limit: i64) -> Result<Vec<PollResults>, StoreError> {
                    let polls = async {
                        let rows = sqlx::query_as::<_, PollRow>(sql::NEWEST_POLLS)
                            .bind(limit)
                            .fetch_all(&self.pool)
                            .await?;
                        let mut polls = PollRow::into_polls(rows).map_err(decode)?;
                        polls.reverse();
                        Ok(polls)
                    };
                    polls.await.map_err(store_error)
                }

                async fn edit_poll(
                    &self,
                    edit: PollEdit,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Result<Poll, PollEditRefusal>, StoreError> {
                    let edited = async {
                        let mut tx = self.begin().await?;
                        let outcome = edit_poll_in(&mut tx, &edit).await?;
                        settle(tx, outcome, audit).await
                    };
                    edited.await.map_err(store_error)
                }
            }

            /// With the poll's row locked, the stored poll is edited by [`Poll::edited`]; a
            /// vote is checked against the window it reads, before or after.
            async fn edit_poll_in(
                tx: &mut Transaction<'_, $db>,
                edit: &PollEdit,
            ) -> Result<Result<Poll, PollEditRefusal>, sqlx::Error> {
                let locked = sqlx::query_scalar::<_, i64>(sql::LOCK_POLL)
                    .bind(edit.poll.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                if locked.is_none() {
                    return Ok(Err(PollEditRefusal::Unknown));
                }
                let rows = sqlx::query_as::<_, PollRow>(sql::POLL)
                    .bind(edit.poll.0)
                    .fetch_all(&mut **tx)
                    .await?;
                let Some(stored) = PollRow::into_polls(rows).map_err(decode)?.pop() else {
                    return Ok(Err(PollEditRefusal::Unknown));
                };
                let poll = match stored.poll.edited(edit) {
                    Ok(poll) => poll,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                sqlx::query(sql::UPDATE_POLL)
                    .bind(poll.id.0)
                    .bind(&poll.question)
                    .bind(to_micros(poll.window.closes))
                    .execute(&mut **tx)
                    .await?;
                Ok(Ok(poll))
            }

            /// The voter's row is locked first (see [`LOCK_ACCOUNT`](crate::statements::refusable::LOCK_ACCOUNT)): a concurrent
            /// deletion of the account either ends first, and the voter is missing, or waits
            /// and takes the vote with the account.
            async fn vote_in(
                tx: &mut Transaction<'_, $db>,
                vote: &Vote,
            ) -> Result<Result<(), VoteRefusal>, sqlx::Error> {
                match lock_account(tx, vote.account).await? {
                    None => return Ok(Err(VoteRefusal::NoAccount)),
                    Some(true) => return Ok(Err(VoteRefusal::Banned)),
                    Some(false) => {}
                }
                let window = sqlx::query_as::<_, WindowRow>(sql::POLL_WINDOW)
                    .bind(vote.poll.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                let Some(window) = window else {
                    return Ok(Err(VoteRefusal::UnknownPoll));
                };
                if let Err(not_open) = window.into_window().map_err(decode)?.check(vote.now) {
                    return Ok(Err(VoteRefusal::NotOpen(not_open)));
                }
                let option = sqlx::query_scalar::<_, i64>(sql::POLL_HAS_OPTION)
                    .bind(vote.poll.0)
                    .bind(vote.option.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                if option.is_none() {
                    return Ok(Err(VoteRefusal::UnknownOption));
                }
                let recorded = sqlx::query(sql::INSERT_VOTE)
                    .bind(vote.poll.0)
                    .bind(vote.account.0)
                    .bind(vote.option.0)
                    .bind(to_micros(vote.now))
                    .execute(&mut **tx)
                    .await?;
                if recorded.rows_affected() != 1 {
                    return Ok(Err(VoteRefusal::AlreadyVoted));
                }
                sqlx::query(sql::COUNT_VOTE)
                    .bind(vote.poll.0)
                    .bind(vote.option.0)
                    .execute(&mut **tx)
                    .await?;
                Ok(Ok(()))
            }

            /// Takes the votes of an account about to be deleted (its row locked by the clans'
            /// `lock_departing`) off their options' counts, one option at a time in id order,
            /// so that deletions lock options in one order and never deadlock; the cascade then
            /// deletes the votes.
            pub(super) async fn withdraw_votes(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<(), sqlx::Error> {
                let options = sqlx::query_scalar::<_, i64>(sql::OPTIONS_VOTED)
                    .bind(account.0)
                    .fetch_all(&mut **tx)
                    .await?;
                for option in options {
                    sqlx::query(sql::UNCOUNT_VOTE)
                        .bind(option)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }
        }
    };
}

pub(crate) use impl_polls;
