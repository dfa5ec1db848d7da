//! [`TournamentStore`](safezone_core::store::TournamentStore), written once for both stores:
//! the transactions of tournaments, their entrants and whitelists, and how an account's
//! deletion frees the places it took.
//!
//! One entry per account and tournament is settled by the primary key of `tournament_entries`,
//! the capacity by the conditional update of `tournaments.entrants` (whose row lock makes
//! concurrent joins of one tournament wait for each other on PostgreSQL; SQLite's
//! `BEGIN IMMEDIATE` serializes every write). Joins and whitelist edits lock the accounts' rows
//! before the tournament's (see [`refusable`](crate::refusable) for the order of locks).

use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::store::{Entrant, StoreError, Tournament, TournamentCode};

use crate::micros::from_micros;
use crate::row::{friend_code, window};

/// A `tournaments` row, as selected by [`TOURNAMENT`](crate::statements::tournaments::TOURNAMENT).
#[derive(sqlx::FromRow)]
pub(crate) struct TournamentRow {
    code: String,
    mode: String,
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
    capacity: i64,
    entrants: i64,
    whitelist_only: bool,
}

impl TournamentRow {
    /// The tournament; an invalid code or mode is corrupt data.
    pub(crate) fn into_tournament(self) -> Result<Tournament, StoreError> {
        let invalid = |what: String| {
            StoreError::Internal(format!(
                "tournament `{}` holds an invalid {what}",
                self.code
            ))
        };
        let code =
            TournamentCode::parse(&self.code).map_err(|why| invalid(format!("code: {why}")))?;
        let mode =
            GameMode::parse(&self.mode).ok_or_else(|| invalid(format!("mode `{}`", self.mode)))?;
        Ok(Tournament {
            code,
            mode,
            window: window(self.opens, self.closes, self.closed_at)?,
            capacity: self.capacity,
            entrants: self.entrants,
            whitelist_only: self.whitelist_only,
        })
    }
}

/// A friend code's parts, as selected by [`WHITELIST`](crate::statements::tournaments::WHITELIST).
#[derive(sqlx::FromRow)]
pub(crate) struct FriendCodeRow {
    friend_name: String,
    friend_digits: i32,
}

impl FriendCodeRow {
    /// The friend code; an invalid one is corrupt data.
    pub(crate) fn into_friend_code(self) -> Result<FriendCode, StoreError> {
        friend_code(&self.friend_name, self.friend_digits)
    }
}

/// An entrant of a tournament, as selected by
/// [`ENTRANTS`](crate::statements::tournaments::ENTRANTS).
#[derive(sqlx::FromRow)]
pub(crate) struct EntrantRow {
    friend_name: String,
    friend_digits: i32,
    created: i64,
}

impl EntrantRow {
    /// The entrant; an invalid friend code or time is corrupt data.
    pub(crate) fn into_entrant(self) -> Result<Entrant, StoreError> {
        Ok(Entrant {
            friend_code: friend_code(&self.friend_name, self.friend_digits)?,
            joined: from_micros(self.created)?,
        })
    }
}

/// Implements [`TournamentStore`](safezone_core::store::TournamentStore) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), with `free_places` for account
/// deletion, in a child module `tournaments` of the calling one, which also needs the
/// `refusable` module of [`impl_refusable`](crate::refusable::impl_refusable).
macro_rules! impl_tournaments {
    ($store:ident, $db:ty) => {
        mod tournaments {
            use async_trait::async_trait;
            use safezone_core::domain::FriendCode;
            use safezone_core::store::{
                AccountId, Closing, Entrant, NewAuditEntry, NewTournament, StoreError, Tournament,
                TournamentCode, TournamentEdit, TournamentEditRefusal, TournamentRefusal,
                TournamentStanding, TournamentStore, WhitelistEdit, WhitelistEdited,
            };
            use sqlx::{Pool, Transaction};
            use time::OffsetDateTime;

            use super::refusable::{closed_or_unknown, lock_account, settle};
            use super::$store;
            use crate::error::{decode, store_error};
            use crate::micros::to_micros;
            use crate::statements::tournaments as sql;
            use crate::tournaments::{EntrantRow, FriendCodeRow, TournamentRow};

            /// The tournament with this code.
            async fn find_tournament(
                pool: &Pool<$db>,
                code: &TournamentCode,
            ) -> Result<Option<Tournament>, sqlx::Error> {
                sqlx::query_as::<_, TournamentRow>(sql::TOURNAMENT)
                    .bind(code.as_str())
                    .fetch_optional(pool)
                    .await?
                    .map(TournamentRow::into_tournament)
                    .transpose()
                    .map_err(decode)
            }

            #[async_trait]
            impl TournamentStore for $store {
                async fn create_tournament(
                    &self,
                    tournament: NewTournament,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<bool, StoreError> {
                    let created = async {
                        let mut tx = self.begin().await?;
                        let created = sqlx::query(sql::INSERT_TOURNAMENT)
                            .bind(tournament.code.as_str())
                            .bind(tournament.mode.as_str())
                            .bind(to_micros(tournament.opens))
                            .bind(to_micros(tournament.closes))
                            .bind(tournament.capacity)
                            .bind(tournament.whitelist_only)
                            .bind(to_micros(tournament.now))
                            .execute(&mut *tx)
                            .await?;
                        let outcome = if created.rows_affected() == 1 {
                            Ok(())
                        } else {
                            Err(())
                        };
                        settle(tx, outcome, audit).await
                    };
                    Ok(created.await.map_err(store_error)?.is_ok())
                }

                async fn close_tournament(
                    &self,
                    code: &TournamentCode,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Closing, StoreError> {
                    let closing = async {
                        let mut tx = self.begin().await?;
                        let closed = sqlx::query(sql::CLOSE_TOURNAMENT)
                            .bind(code.as_str())
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?;
                        let closing = if closed.rows_affected() == 1 {
                            Closing::Closed
                        } else {
                            let locked = sqlx::query_scalar::<_, String>(sql::LOCK_TOURNAMENT)
                                .bind(code.as_str())
                                .fetch_optional(&mut *tx)
                                .await?;
                            if locked.is_some() {
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

                async fn tournament(
                    &self,
                    code: &TournamentCode,
                ) -> Result<Option<Tournament>, StoreError> {
                    find_tournament(&self.pool, code).await.map_err(store_error)
                }

                async fn tournaments(&self, limit: i64) -> Result<Vec<Tournament>, StoreError> {
                    let tournaments = async {
                        let rows = sqlx::query_as::<_, TournamentRow>(sql::NEWEST_TOURNAMENTS)
                            .bind(limit)
                            .fetch_all(&self.pool)
                            .await?;
                        rows.into_iter()
                            .map(TournamentRow::into_tournament)
                            .collect::<Result<Vec<_>, _>>()
                            .map_err(decode)
                    };
                    tournaments.await.map_err(store_error)
                }

                async fn edit_tournament(
                    &self,
                    edit: TournamentEdit,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Result<Tournament, TournamentEditRefusal>, StoreError> {
                    let edited = async {
                        let mut tx = self.begin().await?;
                        let outcome = edit_tournament_in(&mut tx, &edit).await?;
                        settle(tx, outcome, audit).await
                    };
                    edited.await.map_err(store_error)
                }

                async fn tournament_entrants(
                    &self,
                    code: &TournamentCode,
                ) -> Result<Option<Vec<Entrant>>, StoreError> {
                    let entrants = async {
                        if find_tournament(&self.pool, code).await?.is_none() {
                            return Ok(None);
                        }
                        let rows = sqlx::query_as::<_, EntrantRow>(sql::ENTRANTS)
                            .bind(code.as_str())
                            .fetch_all(&self.pool)
                            .await?;
                        rows.into_iter()
                            .map(EntrantRow::into_entrant)
                            .collect::<Result<Vec<_>, _>>()
                            .map(Some)
                            .map_err(decode)
                    };
                    entrants.await.map_err(store_error)
                }

                async fn tournament_standing(
                    &self,
                    code: &TournamentCode,
                    account: AccountId,
                ) -> Result<TournamentStanding, StoreError> {
                    let standing = async {
                        let whitelisted = sqlx::query_scalar::<_, i64>(sql::IS_WHITELISTED)
                            .bind(code.as_str())
                            .bind(account.0)
                            .fetch_optional(&self.pool)
                            .await?;
                        let joined = sqlx::query_scalar::<_, i64>(sql::HAS_JOINED)
                            .bind(code.as_str())
                            .bind(account.0)
                            .fetch_optional(&self.pool)
                            .await?;
                        Ok::<_, sqlx::Error>(TournamentStanding {
                            whitelisted: whitelisted.is_some(),
                            joined: joined.is_some(),
                        })
                    };
                    standing.await.map_err(store_error)
                }

                /// Atomic against the capacity (see `join_in`).
                async fn join_tournament(
                    &self,
                    code: &TournamentCode,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Result<Tournament, TournamentRefusal>, StoreError> {
                    let joined = async {
                        let mut tx = self.begin().await?;
                        let outcome = join_in(&mut tx, code, account, now).await?;
                        settle(tx, outcome, None).await
                    };
                    joined.await.map_err(store_error)
                }

                async fn whitelist(
                    &self,
                    code: &TournamentCode,
                ) -> Result<Option<Vec<FriendCode>>, StoreError> {
                    let whitelist = async {
                        if find_tournament(&self.pool, code).await?.is_none() {
                            return Ok(None);
                        }
                        let rows = sqlx::query_as::<_, FriendCodeRow>(sql::WHITELIST)
                            .bind(code.as_str())
                            .fetch_all(&self.pool)
                            .await?;
                        rows.into_iter()
                            .map(FriendCodeRow::into_friend_code)
                            .collect::<Result<Vec<_>, _>>()
                            .map(Some)
                            .map_err(decode)
                    };
                    whitelist.await.map_err(store_error)
                }

                /// With the tournament's row locked, so that concurrent edits apply one after
                /// the other.
                async fn edit_whitelist(
                    &self,
                    edit: WhitelistEdit,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Option<WhitelistEdited>, StoreError> {
                    let edited = async {
                        let mut tx = self.begin().await?;
                        let outcome = edit_whitelist_in(&mut tx, &edit).await?;
                        settle(tx, outcome.ok_or(()), audit).await.map(Result::ok)
                    };
                    edited.await.map_err(store_error)
                }
            }

            /// With the tournament's row locked (joins, which take a place on that row, wait),
            /// the stored tournament is edited by [`Tournament::edited`].
            async fn edit_tournament_in(
                tx: &mut Transaction<'_, $db>,
                edit: &TournamentEdit,
            ) -> Result<Result<Tournament, TournamentEditRefusal>, sqlx::Error> {
                let code = edit.code.as_str();
                let locked = sqlx::query_scalar::<_, String>(sql::LOCK_TOURNAMENT)
                    .bind(code)
                    .fetch_optional(&mut **tx)
                    .await?;
                if locked.is_none() {
                    return Ok(Err(TournamentEditRefusal::Unknown));
                }
                let row = sqlx::query_as::<_, TournamentRow>(sql::TOURNAMENT)
                    .bind(code)
                    .fetch_one(&mut **tx)
                    .await?;
                let stored = row.into_tournament().map_err(decode)?;
                let tournament = match stored.edited(edit) {
                    Ok(tournament) => tournament,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                sqlx::query(sql::UPDATE_TOURNAMENT)
                    .bind(code)
                    .bind(tournament.mode.as_str())
                    .bind(to_micros(tournament.window.opens))
                    .bind(to_micros(tournament.window.closes))
                    .bind(tournament.capacity)
                    .bind(tournament.whitelist_only)
                    .execute(&mut **tx)
                    .await?;
                Ok(Ok(tournament))
            }

            /// The id of the account with this friend code.
            async fn account_id(
                tx: &mut Transaction<'_, $db>,
                code: &FriendCode,
            ) -> Result<Option<i64>, sqlx::Error> {
                sqlx::query_scalar::<_, i64>(sql::ACCOUNT_ID_BY_FRIEND_CODE)
                    .bind(code.name())
                    .bind(i32::from(code.digits()))
                    .fetch_optional(&mut **tx)
                    .await
            }

            /// The account's row is locked first and the tournament's (by taking the place)
            /// after it, in the order account deletion takes them: a concurrent deletion either
            /// ends first, and the account is missing, or waits and frees the place it took.
            /// The entry is inserted before the place is taken, so that a second join of one
            /// account is refused by the primary key and never takes a place.
            async fn join_in(
                tx: &mut Transaction<'_, $db>,
                code: &TournamentCode,
                account: AccountId,
                now: OffsetDateTime,
            ) -> Result<Result<Tournament, TournamentRefusal>, sqlx::Error> {
                match lock_account(tx, account).await? {
                    None => return Ok(Err(TournamentRefusal::NoAccount)),
                    Some(true) => return Ok(Err(TournamentRefusal::Banned)),
                    Some(false) => {}
                }
                let row = sqlx::query_as::<_, TournamentRow>(sql::TOURNAMENT)
                    .bind(code.as_str())
                    .fetch_optional(&mut **tx)
                    .await?;
                let Some(row) = row else {
                    return Ok(Err(TournamentRefusal::Unknown));
                };
                let tournament = row.into_tournament().map_err(decode)?;
                let whitelisted = sqlx::query_scalar::<_, i64>(sql::IS_WHITELISTED)
                    .bind(code.as_str())
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                let joined = sqlx::query_scalar::<_, i64>(sql::HAS_JOINED)
                    .bind(code.as_str())
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                let standing = TournamentStanding {
                    whitelisted: whitelisted.is_some(),
                    joined: joined.is_some(),
                };
                if let Err(refusal) = tournament.admits(standing, now) {
                    return Ok(Err(refusal));
                }
                let entered = sqlx::query(sql::INSERT_ENTRY)
                    .bind(code.as_str())
                    .bind(account.0)
                    .bind(to_micros(now))
                    .execute(&mut **tx)
                    .await?;
                if entered.rows_affected() == 0 {
                    return Ok(Err(TournamentRefusal::AlreadyJoined));
                }
                let entrants = sqlx::query_scalar::<_, i64>(sql::TAKE_PLACE)
                    .bind(code.as_str())
                    .fetch_optional(&mut **tx)
                    .await?;
                Ok(match entrants {
                    Some(entrants) => Ok(Tournament {
                        entrants,
                        ..tournament
                    }),
                    None => Err(TournamentRefusal::Full {
                        capacity: tournament.capacity,
                    }),
                })
            }

            /// `None` without the tournament. The accounts to add are looked up and locked
            /// first, in id order and before the tournament's row (see [`LOCK_ACCOUNT`](crate::statements::refusable::LOCK_ACCOUNT)):
            /// an account deleted meanwhile is then reported unknown instead of breaking its
            /// foreign key, and no deletion waits on a whitelist row this edit holds while the
            /// edit waits on its account.
            async fn edit_whitelist_in(
                tx: &mut Transaction<'_, $db>,
                edit: &WhitelistEdit,
            ) -> Result<Option<WhitelistEdited>, sqlx::Error> {
                let additions = lock_accounts(tx, &edit.add).await?;
                let code = edit.code.as_str();
                let locked = sqlx::query_scalar::<_, String>(sql::LOCK_TOURNAMENT)
                    .bind(code)
                    .fetch_optional(&mut **tx)
                    .await?;
                if locked.is_none() {
                    return Ok(None);
                }
                if edit.replace {
                    sqlx::query(sql::CLEAR_WHITELIST)
                        .bind(code)
                        .execute(&mut **tx)
                        .await?;
                }
                let mut unknown: Vec<FriendCode> = Vec::new();
                let mut note_unknown = |friend_code: &FriendCode| {
                    if !unknown.contains(friend_code) {
                        unknown.push(friend_code.clone());
                    }
                };
                for friend_code in &edit.remove {
                    match account_id(tx, friend_code).await? {
                        Some(account) => {
                            sqlx::query(sql::WHITELIST_REMOVE)
                                .bind(code)
                                .bind(account)
                                .execute(&mut **tx)
                                .await?;
                        }
                        None => note_unknown(friend_code),
                    }
                }
                for (friend_code, account) in edit.add.iter().zip(additions) {
                    match account {
                        Some(account) => {
                            sqlx::query(sql::WHITELIST_ADD)
                                .bind(code)
                                .bind(account)
                                .bind(to_micros(edit.now))
                                .execute(&mut **tx)
                                .await?;
                        }
                        None => note_unknown(friend_code),
                    }
                }
                let whitelist = sqlx::query_as::<_, FriendCodeRow>(sql::WHITELIST)
                    .bind(code)
                    .fetch_all(&mut **tx)
                    .await?
                    .into_iter()
                    .map(FriendCodeRow::into_friend_code)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(decode)?;
                Ok(Some(WhitelistEdited { whitelist, unknown }))
            }

            /// The ids of the accounts with these friend codes, each `None` when no account has
            /// it (or it was deleted before its row was locked); their rows are locked in id
            /// order.
            async fn lock_accounts(
                tx: &mut Transaction<'_, $db>,
                codes: &[FriendCode],
            ) -> Result<Vec<Option<i64>>, sqlx::Error> {
                let mut ids = Vec::with_capacity(codes.len());
                for friend_code in codes {
                    ids.push(account_id(tx, friend_code).await?);
                }
                let mut in_order: Vec<i64> = ids.iter().flatten().copied().collect();
                in_order.sort_unstable();
                in_order.dedup();
                let mut deleted = Vec::new();
                for id in in_order {
                    if lock_account(tx, AccountId(id)).await?.is_none() {
                        deleted.push(id);
                    }
                }
                Ok(ids
                    .into_iter()
                    .map(|id| id.filter(|id| !deleted.contains(id)))
                    .collect())
            }

            /// Frees the place of every tournament entry of an account about to be deleted
            /// (its row locked by the clans' `lock_departing`), locking the tournaments' rows
            /// one by one in code order: after the account's row, as joins and whitelist edits
            /// take them, and in one order among deletions, so that none deadlock. With the
            /// account locked no entry of it comes or goes meanwhile, so each count stays the
            /// number of entries once the cascade takes them.
            pub(super) async fn free_places(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<(), sqlx::Error> {
                let codes = sqlx::query_scalar::<_, String>(sql::TOURNAMENTS_ENTERED)
                    .bind(account.0)
                    .fetch_all(&mut **tx)
                    .await?;
                for code in codes {
                    sqlx::query(sql::FREE_PLACE)
                        .bind(code)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }
        }
    };
}

pub(crate) use impl_tournaments;
