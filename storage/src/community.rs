//! [`CommunityStore`](safezone_core::store::CommunityStore), written once for both stores: the
//! transactions of polls, tournaments, whitelists and clans, and the locks account deletion
//! takes on them.
//!
//! Each change is one transaction that checks its preconditions in order and answers the first
//! that fails as a refusal, changing nothing. Concurrent duplicates are settled by the
//! database: the primary keys of `poll_votes`, `tournament_entries` and `clan_invites`, the
//! unique `clan_members.account_id` and tag index, and the conditional update of
//! `tournaments.entrants` (whose row lock makes concurrent joins of one tournament wait for
//! each other on PostgreSQL; SQLite's `BEGIN IMMEDIATE` serializes every write).
//!
//! A clan's members change one transaction after the other: creating, joining, inviting and
//! account deletion lock the account's row first and then the clan's row, leaving and
//! whitelist edits lock the clan's or tournament's row after any account rows they need
//! (see [`LOCK_ACCOUNT`](crate::statements::community::LOCK_ACCOUNT)). So the
//! `clan_member_left` trigger always runs with the clan locked and, at PostgreSQL's READ
//! COMMITTED, sees every earlier change of the members committed; and an account being deleted
//! is never made a member, an invitee or whitelisted behind the deletion's back. Votes and
//! tournament joins lock the account's row first too, so a deletion racing them either ends
//! first (the account is missing) or waits and takes the vote or entry with it; and the
//! deletion frees its entries' places under their tournaments' row locks, after the clan's,
//! and takes its votes off their options' counts (`poll_options.votes`, which a vote raises in
//! its own transaction).

/// Implements [`CommunityStore`](safezone_core::store::CommunityStore) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), with `lock_departing`,
/// `free_places` and `withdraw_votes` for account deletion, in a child module `community` of
/// the calling one, which also needs the `events` module of
/// [`impl_events`](crate::events::impl_events).
macro_rules! impl_community {
    ($store:ident, $db:ty) => {
        mod community {
            use async_trait::async_trait;
            use safezone_core::domain::FriendCode;
            use safezone_core::events::EventPayload;
            use safezone_core::store::{
                AccountId, Clan, ClanId, ClanLeft, ClanRefusal, Closing, CommunityStore, Entrant,
                NewAuditEntry, NewClan, NewPoll, NewTournament, Poll, PollEdit, PollEditRefusal,
                PollId, PollResults, StoreError, Tournament, TournamentCode, TournamentEdit,
                TournamentEditRefusal, TournamentRefusal, TournamentStanding, Vote, VoteRefusal,
                WhitelistEdit, WhitelistEdited,
            };
            use sqlx::{Pool, Transaction};
            use time::OffsetDateTime;

            use super::{events, operator, $store};
            use crate::error::store_error;
            use crate::micros::to_micros;
            use crate::row::{
                ClanRow, EntrantRow, FriendCodeRow, PollRow, TournamentRow, WindowRow,
            };
            use crate::statements::community as sql;

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
            impl CommunityStore for $store {
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

                async fn clans_available(
                    &self,
                    account: Option<AccountId>,
                    limit: i64,
                ) -> Result<Vec<Clan>, StoreError> {
                    let clans = async {
                        let rows = match account {
                            Some(account) => {
                                sqlx::query_as::<_, ClanRow>(sql::CLANS_FOR_ACCOUNT)
                                    .bind(account.0)
                                    .fetch_all(&self.pool)
                                    .await?
                            }
                            None => {
                                sqlx::query_as::<_, ClanRow>(sql::LARGEST_CLANS)
                                    .bind(limit)
                                    .fetch_all(&self.pool)
                                    .await?
                            }
                        };
                        ClanRow::into_clans(rows).map_err(decode)
                    };
                    clans.await.map_err(store_error)
                }

                async fn clan_of(&self, account: AccountId) -> Result<Option<Clan>, StoreError> {
                    let clan = async {
                        let rows = sqlx::query_as::<_, ClanRow>(sql::CLAN_OF)
                            .bind(account.0)
                            .fetch_all(&self.pool)
                            .await?;
                        Ok(ClanRow::into_clans(rows).map_err(decode)?.pop())
                    };
                    clan.await.map_err(store_error)
                }

                async fn create_clan(
                    &self,
                    clan: NewClan,
                ) -> Result<Result<Clan, ClanRefusal>, StoreError> {
                    let created = async {
                        let mut tx = self.begin().await?;
                        let outcome = create_clan_in(&mut tx, &clan).await?;
                        if let Ok(created) = &outcome {
                            joined_event(&mut tx, created, clan.creator, true, clan.now).await?;
                        }
                        settle(tx, outcome, None).await
                    };
                    let created = created.await.map_err(store_error)?;
                    if created.is_ok() {
                        self.changes.changed(clan.creator);
                    }
                    Ok(created)
                }

                async fn invite_to_clan(
                    &self,
                    clan: ClanId,
                    inviter: AccountId,
                    invitee: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Result<(), ClanRefusal>, StoreError> {
                    let invited = async {
                        let mut tx = self.begin().await?;
                        let outcome = invite_in(&mut tx, clan, inviter, invitee, now).await?;
                        settle(tx, outcome, None).await
                    };
                    invited.await.map_err(store_error)
                }

                async fn join_clan(
                    &self,
                    clan: ClanId,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Result<Clan, ClanRefusal>, StoreError> {
                    let joined = async {
                        let mut tx = self.begin().await?;
                        let outcome = join_clan_in(&mut tx, clan, account, now).await?;
                        if let Ok(joined) = &outcome {
                            joined_event(&mut tx, joined, account, false, now).await?;
                        }
                        settle(tx, outcome, None).await
                    };
                    let joined = joined.await.map_err(store_error)?;
                    if joined.is_ok() {
                        self.changes.changed(account);
                    }
                    Ok(joined)
                }

                /// The `clan_member_left` trigger hands the clan on or dissolves it.
                async fn leave_clan(
                    &self,
                    clan: ClanId,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Result<ClanLeft, ClanRefusal>, StoreError> {
                    let left = async {
                        let mut tx = self.begin().await?;
                        let outcome = leave_clan_in(&mut tx, clan, account, now).await?;
                        settle(tx, outcome, None).await
                    };
                    let left = left.await.map_err(store_error)?;
                    if left.is_ok() {
                        self.changes.changed(account);
                    }
                    Ok(left)
                }
            }

            /// Appends `account`'s `clan_joined` event (its row is locked by the join).
            async fn joined_event(
                tx: &mut Transaction<'_, $db>,
                clan: &Clan,
                account: AccountId,
                created: bool,
                now: OffsetDateTime,
            ) -> Result<(), sqlx::Error> {
                let happened = vec![EventPayload::ClanJoined {
                    clan: clan.id.0,
                    created,
                }];
                events::append_for(tx, account, now, happened).await
            }

            /// A closing as [`settle`] takes it: closing what is closed already is done too,
            /// closing what does not exist is refused.
            fn closed_or_unknown(closing: Closing) -> Result<Closing, Closing> {
                match closing {
                    Closing::Unknown => Err(closing),
                    done => Ok(done),
                }
            }

            /// Corrupt data met in a query, as the sqlx error that ends the operation.
            fn decode(error: StoreError) -> sqlx::Error {
                sqlx::Error::Decode(Box::new(error))
            }

            /// Commits when the operation succeeded, with the operator's `audit` row when it is
            /// an operator's, and rolls back when it was refused.
            async fn settle<T, R>(
                mut tx: Transaction<'_, $db>,
                outcome: Result<T, R>,
                audit: Option<&NewAuditEntry>,
            ) -> Result<Result<T, R>, sqlx::Error> {
                if outcome.is_ok() {
                    operator::audited(&mut tx, audit).await?;
                    tx.commit().await?;
                } else {
                    tx.rollback().await?;
                }
                Ok(outcome)
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

            /// Whether the account is banned; `None` when it does not exist.
            async fn is_banned(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<Option<bool>, sqlx::Error> {
                sqlx::query_scalar::<_, bool>(sql::IS_BANNED)
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await
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

            /// The voter's row is locked first (see [`sql::LOCK_ACCOUNT`]): a concurrent
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
            /// first, in id order and before the tournament's row (see [`sql::LOCK_ACCOUNT`]):
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

            /// A clan with its members, read inside the transaction.
            async fn clan_in(
                tx: &mut Transaction<'_, $db>,
                clan: i64,
            ) -> Result<Clan, sqlx::Error> {
                let rows = sqlx::query_as::<_, ClanRow>(sql::CLAN)
                    .bind(clan)
                    .fetch_all(&mut **tx)
                    .await?;
                ClanRow::into_clans(rows)
                    .map_err(decode)?
                    .pop()
                    .ok_or(sqlx::Error::RowNotFound)
            }

            /// The clan an account is a member of.
            async fn clan_of_in(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<Option<i64>, sqlx::Error> {
                sqlx::query_scalar::<_, i64>(sql::CLAN_OF_ACCOUNT)
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await
            }

            /// Locks the clan's row; its most members, `None` without the clan.
            async fn lock_clan(
                tx: &mut Transaction<'_, $db>,
                clan: ClanId,
                now: OffsetDateTime,
            ) -> Result<Option<i64>, sqlx::Error> {
                sqlx::query_scalar::<_, i64>(sql::LOCK_CLAN)
                    .bind(clan.0)
                    .bind(to_micros(now))
                    .fetch_optional(&mut **tx)
                    .await
            }

            /// Locks the account's row for the rest of the transaction (see
            /// [`sql::LOCK_ACCOUNT`] for the order of locks); whether it is banned, `None` when
            /// it does not exist.
            async fn lock_account(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<Option<bool>, sqlx::Error> {
                sqlx::query_scalar::<_, bool>(sql::LOCK_ACCOUNT)
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await
            }

            /// Locks an account about to be deleted, then the row of the clan it is a member
            /// of, in the order the clan transactions take them: the deletion's cascade then
            /// takes it out of the clan with the clan locked, as leaving does. Answers whether
            /// the account exists.
            pub(super) async fn lock_departing(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<bool, sqlx::Error> {
                if lock_account(tx, account).await?.is_none() {
                    return Ok(false);
                }
                sqlx::query(sql::LOCK_CLAN_OF_ACCOUNT)
                    .bind(account.0)
                    .execute(&mut **tx)
                    .await?;
                Ok(true)
            }

            /// Frees the place of every tournament entry of an account about to be deleted
            /// (its row locked by [`lock_departing`]), locking the tournaments' rows one by one
            /// in code order: after the account's row, as joins and whitelist edits take them,
            /// and in one order among deletions, so that none deadlock. With the account locked
            /// no entry of it comes or goes meanwhile, so each count stays the number of
            /// entries once the cascade takes them.
            pub(super) async fn free_places(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<(), sqlx::Error> {
                update_each::<String>(tx, account, sql::TOURNAMENTS_ENTERED, sql::FREE_PLACE).await
            }

            /// Takes the votes of an account about to be deleted (its row locked by
            /// [`lock_departing`]) off their options' counts, one option at a time in id order,
            /// so that deletions lock options in one order and never deadlock; the cascade then
            /// deletes the votes.
            pub(super) async fn withdraw_votes(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<(), sqlx::Error> {
                update_each::<i64>(tx, account, sql::OPTIONS_VOTED, sql::UNCOUNT_VOTE).await
            }

            /// Runs `update` once for each value `select` answers for the account, in the
            /// order it answers them (each statement binds one value).
            async fn update_each<T>(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
                select: &'static str,
                update: &'static str,
            ) -> Result<(), sqlx::Error>
            where
                T: for<'r> sqlx::Decode<'r, $db>
                    + for<'q> sqlx::Encode<'q, $db>
                    + sqlx::Type<$db>
                    + Send
                    + Unpin
                    + 'static,
            {
                let values = sqlx::query_scalar::<_, T>(select)
                    .bind(account.0)
                    .fetch_all(&mut **tx)
                    .await?;
                for value in values {
                    sqlx::query(update).bind(value).execute(&mut **tx).await?;
                }
                Ok(())
            }

            /// `Ok(())` when the account exists (`banned` is `Some`) and is not banned.
            fn may_act(banned: Option<bool>) -> Result<(), ClanRefusal> {
                match banned {
                    None => Err(ClanRefusal::NoAccount),
                    Some(true) => Err(ClanRefusal::Banned),
                    Some(false) => Ok(()),
                }
            }

            async fn create_clan_in(
                tx: &mut Transaction<'_, $db>,
                clan: &NewClan,
            ) -> Result<Result<Clan, ClanRefusal>, sqlx::Error> {
                if let Err(refusal) = may_act(lock_account(tx, clan.creator).await?) {
                    return Ok(Err(refusal));
                }
                if clan_of_in(tx, clan.creator).await?.is_some() {
                    return Ok(Err(ClanRefusal::AlreadyInClan));
                }
                let now = to_micros(clan.now);
                let id = sqlx::query_scalar::<_, i64>(sql::INSERT_CLAN)
                    .bind(&clan.tag)
                    .bind(&clan.name)
                    .bind(&clan.description)
                    .bind(clan.creator.0)
                    .bind(clan.max_members)
                    .bind(now)
                    .fetch_optional(&mut **tx)
                    .await?;
                let Some(id) = id else {
                    return Ok(Err(ClanRefusal::TagTaken));
                };
                let member = sqlx::query(sql::INSERT_MEMBER)
                    .bind(id)
                    .bind(clan.creator.0)
                    .bind(now)
                    .execute(&mut **tx)
                    .await?;
                if member.rows_affected() == 0 {
                    return Ok(Err(ClanRefusal::AlreadyInClan));
                }
                Ok(Ok(clan_in(tx, id).await?))
            }

            async fn invite_in(
                tx: &mut Transaction<'_, $db>,
                clan: ClanId,
                inviter: AccountId,
                invitee: AccountId,
                now: OffsetDateTime,
            ) -> Result<Result<(), ClanRefusal>, sqlx::Error> {
                if let Err(refusal) = may_act(is_banned(tx, inviter).await?) {
                    return Ok(Err(refusal));
                }
                // The invitee's row is locked (before the clan's) so that a concurrent deletion
                // of the account either ends first, and the invitee is unknown, or waits for
                // the invitation and takes it away with the account.
                let invitee_exists = lock_account(tx, invitee).await?.is_some();
                if lock_clan(tx, clan, now).await?.is_none() {
                    return Ok(Err(ClanRefusal::UnknownClan));
                }
                // Only the inviter's row is not locked: a member of the locked clan, it stays
                // one (and its account stays) until the transaction ends.
                if clan_of_in(tx, inviter).await? != Some(clan.0) {
                    return Ok(Err(ClanRefusal::NotMember));
                }
                if !invitee_exists {
                    return Ok(Err(ClanRefusal::UnknownUser));
                }
                if clan_of_in(tx, invitee).await? == Some(clan.0) {
                    return Ok(Err(ClanRefusal::AlreadyMember));
                }
                let invited = sqlx::query(sql::INSERT_INVITE)
                    .bind(clan.0)
                    .bind(invitee.0)
                    .bind(inviter.0)
                    .bind(to_micros(now))
                    .execute(&mut **tx)
                    .await?;
                Ok(if invited.rows_affected() == 1 {
                    Ok(())
                } else {
                    Err(ClanRefusal::AlreadyInvited)
                })
            }

            async fn join_clan_in(
                tx: &mut Transaction<'_, $db>,
                clan: ClanId,
                account: AccountId,
                now: OffsetDateTime,
            ) -> Result<Result<Clan, ClanRefusal>, sqlx::Error> {
                if let Err(refusal) = may_act(lock_account(tx, account).await?) {
                    return Ok(Err(refusal));
                }
                let Some(max_members) = lock_clan(tx, clan, now).await? else {
                    return Ok(Err(ClanRefusal::UnknownClan));
                };
                if clan_of_in(tx, account).await?.is_some() {
                    return Ok(Err(ClanRefusal::AlreadyInClan));
                }
                let invitation = sqlx::query(sql::DELETE_INVITE)
                    .bind(clan.0)
                    .bind(account.0)
                    .execute(&mut **tx)
                    .await?;
                if invitation.rows_affected() == 0 {
                    return Ok(Err(ClanRefusal::NotInvited));
                }
                let members = sqlx::query_scalar::<_, i64>(sql::MEMBER_COUNT)
                    .bind(clan.0)
                    .fetch_one(&mut **tx)
                    .await?;
                if members >= max_members {
                    return Ok(Err(ClanRefusal::Full));
                }
                let joined = sqlx::query(sql::INSERT_MEMBER)
                    .bind(clan.0)
                    .bind(account.0)
                    .bind(to_micros(now))
                    .execute(&mut **tx)
                    .await?;
                if joined.rows_affected() == 0 {
                    return Ok(Err(ClanRefusal::AlreadyInClan));
                }
                Ok(Ok(clan_in(tx, clan.0).await?))
            }

            async fn leave_clan_in(
                tx: &mut Transaction<'_, $db>,
                clan: ClanId,
                account: AccountId,
                now: OffsetDateTime,
            ) -> Result<Result<ClanLeft, ClanRefusal>, sqlx::Error> {
                if lock_clan(tx, clan, now).await?.is_none() {
                    return Ok(Err(ClanRefusal::UnknownClan));
                }
                let left = sqlx::query(sql::DELETE_MEMBER)
                    .bind(clan.0)
                    .bind(account.0)
                    .execute(&mut **tx)
                    .await?;
                if left.rows_affected() == 0 {
                    return Ok(Err(ClanRefusal::NotMember));
                }
                let remains = sqlx::query_scalar::<_, i64>(sql::CLAN_EXISTS)
                    .bind(clan.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                Ok(Ok(if remains.is_some() {
                    ClanLeft::Left
                } else {
                    ClanLeft::Dissolved
                }))
            }
        }
    };
}

pub(crate) use impl_community;
