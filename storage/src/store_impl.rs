//! The sign-in transaction and the [`Store`](safezone_core::store::Store) methods, written once
//! for both stores. Their statements are shared ([`statements`](crate::statements)) and only the sqlx database
//! type differs, so a macro stamps out the same code for each instead of a generic version
//! spelling out every bound the queries need.

/// Implements the private `attempt` method (one sign-in transaction), `delete_account_sql`,
/// `read_view` (an account's view on a connection) and
/// [`Store`](safezone_core::store::Store) for `$store` over the sqlx database `$db`, a type
/// with a `pool` field and an
/// `async fn begin(&self) -> Result<sqlx::Transaction<'_, DB>, sqlx::Error>` that opens a write
/// transaction the way its database needs. The calling module also needs the `account_log`
/// module of [`impl_account_log`](crate::account_log_impl::impl_account_log) and the
/// `community` module of [`impl_community`](crate::community_impl::impl_community).
///
/// The code goes in a child module `shared` of the calling one, so its imports do not clash
/// with the caller's and it still reaches the store's private `pool` and `begin`.
macro_rules! impl_store {
    ($store:ident, $db:ty) => {
        mod shared {
            use async_trait::async_trait;
            use safezone_core::domain::{FriendCode, KeyHash};
            use safezone_core::store::{
                Account, AccountChange, AccountId, AccountView, Applied, Change, Holdings,
                KeySession, LedgerEntry, NewSignIn, SessionView, SignedIn, Store, StoreError,
            };
            use sqlx::{Database, FromRow};
            use time::OffsetDateTime;

            use super::{account_log, community, $store};
            use crate::error::{is_retryable_conflict, is_unique_violation, store_error};
            use crate::micros::to_micros;
            use crate::row::{
                AccountRow, ClanRow, HeldRow, HoldingRow, LedgerRow, SessionRow, ViewedAccountRow,
            };
            use crate::sign_in::{Attempt, sign_in_with};
            use crate::statements::accounts as sql;
            use crate::statements::{community as community_sql, economy as economy_sql};

            /// A statement of an account view with its binds.
            type ViewQuery<'q> =
                sqlx::query::Query<'q, $db, <$db as Database>::Arguments>;

            /// Runs `query` ([`SESSION_VIEW`](sql::SESSION_VIEW) or
            /// [`ACCOUNT_VIEW`](sql::ACCOUNT_VIEW)) on `connection`, then reads the clan when
            /// the account is in one: the account's view and the key's expiry (`None` in an
            /// account's view); `None` without a row.
            pub(super) async fn read_view(
                connection: &mut <$db as Database>::Connection,
                query: ViewQuery<'_>,
            ) -> Result<Option<(AccountView, Option<OffsetDateTime>)>, sqlx::Error> {
                let rows = query.fetch_all(&mut *connection).await?;
                let Some(first) = rows.first() else {
                    return Ok(None);
                };
                let head = ViewedAccountRow::from_row(first)?;
                let held = rows.iter().map(HeldRow::from_row).collect::<Result<_, _>>()?;
                let clan = match head.clan() {
                    Some(clan) => {
                        let members = sqlx::query_as::<_, ClanRow>(community_sql::CLAN)
                            .bind(clan.0)
                            .fetch_all(&mut *connection)
                            .await?;
                        ClanRow::into_clans(members).map_err(decode)?.pop()
                    }
                    None => None,
                };
                head.into_view(held, clan).map(Some).map_err(decode)
            }

            /// A record that breaks its rules, as the error of a statement.
            fn decode(error: StoreError) -> sqlx::Error {
                sqlx::Error::Decode(Box::new(error))
            }

            /// Locks the row of the signing-in identity's account, if it has one, and
            /// answers its id.
            async fn lock_identity(
                connection: &mut <$db as Database>::Connection,
                sign_in: &NewSignIn,
            ) -> Result<Option<i64>, sqlx::Error> {
                sqlx::query_scalar::<_, i64>(sql::LOCK_ACCOUNT_OF_IDENTITY)
                    .bind(&sign_in.provider)
                    .bind(&sign_in.identifier)
                    .fetch_optional(connection)
                    .await
            }

            impl $store {
                /// Runs `statement`, a bounded delete binding a time and the most rows, in a
                /// write transaction of its own; answers how many rows went.
                async fn delete_batch(
                    &self,
                    statement: &'static str,
                    time: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(statement)
                            .bind(to_micros(time))
                            .bind(i64::from(limit))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected())
                    };
                    deleted.await.map_err(store_error)
                }

                /// One sign-in transaction, offering `code` if the identity has no account yet.
                /// An existing account is looked for first (most sign-ins are of one) and its
                /// row locked before the key is written; a new account holds nothing yet, so
                /// only an existing one's view is read.
                async fn attempt(
                    &self,
                    sign_in: &NewSignIn,
                    code: Option<&FriendCode>,
                ) -> Result<Attempt, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let mut existing = lock_identity(&mut tx, sign_in).await?;
                    let mut created = None;
                    if existing.is_none() {
                        let Some(code) = code else {
                            tx.rollback().await?;
                            return Ok(Attempt::NoAccount);
                        };
                        let inserted = sqlx::query_as::<_, AccountRow>(sql::INSERT_ACCOUNT)
                            .bind(&sign_in.provider)
                            .bind(&sign_in.identifier)
                            .bind(&sign_in.name)
                            .bind(&sign_in.avatar)
                            .bind(&sign_in.email)
                            .bind(code.name())
                            .bind(i32::from(code.digits()))
                            .bind(to_micros(sign_in.now))
                            .fetch_optional(&mut *tx)
                            .await;
                        match inserted {
                            Err(err) if is_unique_violation(&err) => {
                                tx.rollback().await?;
                                return Ok(Attempt::CodeTaken);
                            }
                            // A concurrent sign-in created the account first: lock it.
                            Ok(None) => existing = lock_identity(&mut tx, sign_in).await?,
                            other => created = other?,
                        }
                    }
                    let id = match (&created, existing) {
                        (Some(account), _) => account.id(),
                        (None, Some(id)) => id,
                        (None, None) => {
                            tx.rollback().await?;
                            return Ok(Attempt::NoAccount);
                        }
                    };
                    sqlx::query(sql::INSERT_KEY)
                        .bind(sign_in.key_hash.as_str())
                        .bind(id)
                        .bind(to_micros(sign_in.now))
                        .bind(to_micros(sign_in.key_expires))
                        .execute(&mut *tx)
                        .await?;
                    let first_login = created.is_some();
                    let view = match created {
                        Some(account) => AccountView {
                            account: account.into_account().map_err(decode)?,
                            holdings: Holdings::default(),
                            clan: None,
                        },
                        None => {
                            let query = sqlx::query(sql::ACCOUNT_VIEW).bind(id);
                            let Some((view, _)) = read_view(&mut tx, query).await? else {
                                return Err(sqlx::Error::RowNotFound);
                            };
                            view
                        }
                    };
                    tx.commit().await?;
                    Ok(Attempt::SignedIn(Box::new(view), first_login))
                }

                /// Applies `change` (reading the account's view after it when `view`), trying
                /// again when a concurrent rename took the friend code this one chose between
                /// the check and the update: the unique index refuses it, and the change is
                /// tried again with that code known to be taken.
                async fn apply_retried(
                    &self,
                    change: &Change,
                    view: bool,
                ) -> Result<(Applied, Option<AccountView>), StoreError> {
                    let mut attempts = 0;
                    loop {
                        attempts += 1;
                        match self.apply_once(change, view).await {
                            Err(err) if is_unique_violation(&err) && attempts < 5 => {
                                tracing::debug!("friend code taken concurrently; retrying");
                            }
                            other => return other.map_err(store_error),
                        }
                    }
                }

                /// Links a chat user to the account in one transaction that locks the
                /// account's row first, so that a concurrent deletion either ends first (and
                /// nothing is linked) or waits and takes the link with the account. Answers
                /// whether the account exists.
                async fn link_chat_sql(
                    &self,
                    account: AccountId,
                    chat_user: &str,
                    premium: bool,
                    now: OffsetDateTime,
                ) -> Result<bool, sqlx::Error> {
                    let now = to_micros(now);
                    let mut tx = self.begin().await?;
                    let locked = sqlx::query_scalar::<_, bool>(economy_sql::LOCK_ACCOUNT)
                        .bind(account.0)
                        .bind(now)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if locked.is_none() {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    sqlx::query(sql::LINK_CHAT)
                        .bind(account.0)
                        .bind(chat_user)
                        .bind(premium)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Ok(true)
                }

                /// Deletes an account (its rows go by cascade) and appends the deletion to the
                /// account log, in one transaction; answers whether the account existed. The
                /// account's row and then its clan's are locked first, as the clan transactions
                /// lock them, so that the cascade takes it out of its clan one after the other
                /// with joins, leaves and other deletions; then the places of its tournament
                /// entries are freed, each under its tournament's row lock.
                async fn delete_account_sql(
                    &self,
                    account: AccountId,
                ) -> Result<bool, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    if !community::lock_departing(&mut tx, account).await? {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    community::free_places(&mut tx, account).await?;
                    let done = sqlx::query(sql::DELETE_ACCOUNT)
                        .bind(account.0)
                        .execute(&mut *tx)
                        .await?;
                    let changed = done.rows_affected() > 0;
                    account_log::commit_logged(tx, changed, account, &AccountChange::Deleted).await
                }
            }

            #[async_trait]
            impl Store for $store {
                async fn ping(&self) -> Result<(), StoreError> {
                    sqlx::query(sql::PING)
                        .execute(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(())
                }

                async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError> {
                    sign_in_with(&sign_in.friend_code_candidates, |code| {
                        self.attempt(&sign_in, code)
                    })
                    .await
                }

                async fn session(
                    &self,
                    key: &KeyHash,
                    now: OffsetDateTime,
                ) -> Result<Option<KeySession>, StoreError> {
                    sqlx::query_as::<_, SessionRow>(sql::SESSION)
                        .bind(key.as_str())
                        .bind(to_micros(now))
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(SessionRow::into_session)
                        .transpose()
                }

                async fn session_view(
                    &self,
                    key: &KeyHash,
                    now: OffsetDateTime,
                ) -> Result<Option<SessionView>, StoreError> {
                    let read = async {
                        let mut connection = self.pool.acquire().await?;
                        let query = sqlx::query(sql::SESSION_VIEW)
                            .bind(key.as_str())
                            .bind(to_micros(now));
                        read_view(&mut connection, query).await
                    };
                    Ok(match read.await.map_err(store_error)? {
                        Some((view, Some(expires))) => Some(SessionView { view, expires }),
                        Some((_, None)) | None => None,
                    })
                }

                async fn delete_expired_keys(
                    &self,
                    now: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_batch(sql::DELETE_EXPIRED_KEYS, now, limit).await
                }

                async fn forget_idempotency_keys(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_batch(economy_sql::FORGET_IDEMPOTENCY, before, limit)
                        .await
                }

                async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
                    sqlx::query_as::<_, AccountRow>(sql::ACCOUNT_BY_ID)
                        .bind(id.0)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(AccountRow::into_account)
                        .transpose()
                }

                async fn revoke_key(&self, key: &KeyHash) -> Result<bool, StoreError> {
                    let done = sqlx::query(sql::DELETE_KEY)
                        .bind(key.as_str())
                        .execute(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(done.rows_affected() > 0)
                }

                async fn revoke_all_keys(&self, account: AccountId) -> Result<u64, StoreError> {
                    let done = sqlx::query(sql::DELETE_KEYS_OF_ACCOUNT)
                        .bind(account.0)
                        .execute(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(done.rows_affected())
                }

                async fn delete_account(&self, account: AccountId) -> Result<bool, StoreError> {
                    self.delete_account_sql(account).await.map_err(store_error)
                }

                async fn account_by_friend_code(
                    &self,
                    code: &FriendCode,
                ) -> Result<Option<Account>, StoreError> {
                    sqlx::query_as::<_, AccountRow>(sql::ACCOUNT_BY_FRIEND_CODE)
                        .bind(code.name())
                        .bind(i32::from(code.digits()))
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(AccountRow::into_account)
                        .transpose()
                }

                async fn apply(&self, change: Change) -> Result<Applied, StoreError> {
                    Ok(self.apply_retried(&change, false).await?.0)
                }

                async fn apply_viewed(
                    &self,
                    change: Change,
                ) -> Result<(Applied, Option<AccountView>), StoreError> {
                    self.apply_retried(&change, true).await
                }

                async fn holdings(&self, account: AccountId) -> Result<Holdings, StoreError> {
                    let rows = sqlx::query_as::<_, HoldingRow>(economy_sql::HOLDINGS)
                        .bind(account.0)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    HoldingRow::into_holdings(rows)
                }

                async fn claimed(
                    &self,
                    account: AccountId,
                    keys: &[String],
                ) -> Result<Vec<String>, StoreError> {
                    if keys.is_empty() {
                        return Ok(Vec::new());
                    }
                    let mut query = sqlx::QueryBuilder::new(economy_sql::CLAIMED_OF_ACCOUNT);
                    query.push_bind(account.0).push(economy_sql::CLAIM_KEY_IN);
                    let mut list = query.separated(", ");
                    for key in keys {
                        list.push_bind(key);
                    }
                    list.push_unseparated(")");
                    query
                        .build_query_scalar::<String>()
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)
                }

                async fn ledger(&self, account: AccountId) -> Result<Vec<LedgerEntry>, StoreError> {
                    sqlx::query_as::<_, LedgerRow>(economy_sql::LEDGER)
                        .bind(account.0)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(LedgerRow::into_entry)
                        .collect()
                }

                async fn chat_premium(
                    &self,
                    account: AccountId,
                ) -> Result<Option<bool>, StoreError> {
                    sqlx::query_scalar::<_, bool>(economy_sql::CHAT_PREMIUM)
                        .bind(account.0)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)
                }

                async fn link_chat(
                    &self,
                    account: AccountId,
                    chat_user: &str,
                    premium: bool,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    self.link_chat_sql(account, chat_user, premium, now)
                        .await
                        .map_err(store_error)
                }

                async fn set_role(
                    &self,
                    account: AccountId,
                    role: safezone_core::store::Role,
                ) -> Result<bool, StoreError> {
                    self.set_role_sql(account, role).await.map_err(store_error)
                }

                async fn set_banned(
                    &self,
                    account: AccountId,
                    banned: bool,
                ) -> Result<bool, StoreError> {
                    self.set_banned_sql(account, banned)
                        .await
                        .map_err(store_error)
                }

                async fn create_poll(
                    &self,
                    poll: safezone_core::store::NewPoll,
                ) -> Result<safezone_core::store::Poll, StoreError> {
                    self.create_poll_sql(&poll).await.map_err(store_error)
                }

                async fn close_poll(
                    &self,
                    poll: safezone_core::store::PollId,
                    now: OffsetDateTime,
                ) -> Result<safezone_core::store::Closing, StoreError> {
                    self.close_poll_sql(poll, now).await.map_err(store_error)
                }

                async fn polls_to_vote(
                    &self,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Vec<safezone_core::store::Poll>, StoreError> {
                    self.polls_to_vote_sql(account, now)
                        .await
                        .map_err(store_error)
                }

                async fn vote(
                    &self,
                    vote: safezone_core::store::Vote,
                ) -> Result<Result<(), safezone_core::store::VoteRefusal>, StoreError> {
                    self.vote_sql(&vote).await.map_err(store_error)
                }

                async fn poll_results(
                    &self,
                    poll: safezone_core::store::PollId,
                ) -> Result<Option<safezone_core::store::PollResults>, StoreError> {
                    self.poll_results_sql(poll).await.map_err(store_error)
                }

                async fn create_tournament(
                    &self,
                    tournament: safezone_core::store::NewTournament,
                ) -> Result<bool, StoreError> {
                    self.create_tournament_sql(&tournament)
                        .await
                        .map_err(store_error)
                }

                async fn close_tournament(
                    &self,
                    code: &safezone_core::store::TournamentCode,
                    now: OffsetDateTime,
                ) -> Result<safezone_core::store::Closing, StoreError> {
                    self.close_tournament_sql(code, now)
                        .await
                        .map_err(store_error)
                }

                async fn tournament(
                    &self,
                    code: &safezone_core::store::TournamentCode,
                ) -> Result<Option<safezone_core::store::Tournament>, StoreError> {
                    self.tournament_sql(code).await.map_err(store_error)
                }

                async fn tournament_standing(
                    &self,
                    code: &safezone_core::store::TournamentCode,
                    account: AccountId,
                ) -> Result<safezone_core::store::TournamentStanding, StoreError> {
                    self.tournament_standing_sql(code, account)
                        .await
                        .map_err(store_error)
                }

                async fn join_tournament(
                    &self,
                    code: &safezone_core::store::TournamentCode,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<
                    Result<
                        safezone_core::store::Tournament,
                        safezone_core::store::TournamentRefusal,
                    >,
                    StoreError,
                > {
                    self.join_tournament_sql(code, account, now)
                        .await
                        .map_err(store_error)
                }

                async fn whitelist(
                    &self,
                    code: &safezone_core::store::TournamentCode,
                ) -> Result<Option<Vec<FriendCode>>, StoreError> {
                    self.whitelist_sql(code).await.map_err(store_error)
                }

                async fn edit_whitelist(
                    &self,
                    edit: safezone_core::store::WhitelistEdit,
                ) -> Result<Option<safezone_core::store::WhitelistEdited>, StoreError> {
                    self.edit_whitelist_sql(&edit).await.map_err(store_error)
                }

                async fn clans_available(
                    &self,
                    account: Option<AccountId>,
                    limit: i64,
                ) -> Result<Vec<safezone_core::store::Clan>, StoreError> {
                    self.clans_available_sql(account, limit)
                        .await
                        .map_err(store_error)
                }

                async fn clan_of(
                    &self,
                    account: AccountId,
                ) -> Result<Option<safezone_core::store::Clan>, StoreError> {
                    self.clan_of_sql(account).await.map_err(store_error)
                }

                async fn create_clan(
                    &self,
                    clan: safezone_core::store::NewClan,
                ) -> Result<
                    Result<safezone_core::store::Clan, safezone_core::store::ClanRefusal>,
                    StoreError,
                > {
                    self.create_clan_sql(&clan).await.map_err(store_error)
                }

                async fn invite_to_clan(
                    &self,
                    clan: safezone_core::store::ClanId,
                    inviter: AccountId,
                    invitee: AccountId,
                    now: OffsetDateTime,
                ) -> Result<Result<(), safezone_core::store::ClanRefusal>, StoreError> {
                    self.invite_to_clan_sql(clan, inviter, invitee, now)
                        .await
                        .map_err(store_error)
                }

                async fn join_clan(
                    &self,
                    clan: safezone_core::store::ClanId,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<
                    Result<safezone_core::store::Clan, safezone_core::store::ClanRefusal>,
                    StoreError,
                > {
                    self.join_clan_sql(clan, account, now)
                        .await
                        .map_err(store_error)
                }

                async fn leave_clan(
                    &self,
                    clan: safezone_core::store::ClanId,
                    account: AccountId,
                    now: OffsetDateTime,
                ) -> Result<
                    Result<safezone_core::store::ClanLeft, safezone_core::store::ClanRefusal>,
                    StoreError,
                > {
                    self.leave_clan_sql(clan, account, now)
                        .await
                        .map_err(store_error)
                }

                async fn progress(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<(AccountId, safezone_core::store::Progress)>, StoreError> {
                    if accounts.is_empty() {
                        return Ok(Vec::new());
                    }
                    self.progress_sql(accounts).await.map_err(store_error)
                }

                async fn report_match(
                    &self,
                    record: &safezone_core::store::MatchRecord,
                    changes: &[Change],
                ) -> Result<safezone_core::store::MatchApplied, StoreError> {
                    // Concurrent reports can get in each other's way: a rename taking the
                    // friend code another took meanwhile (a unique violation), or on
                    // PostgreSQL a deadlock or serialization failure. The whole report is
                    // tried again; a concurrent repeat of the match id then finds it recorded.
                    let mut attempts = 0;
                    loop {
                        attempts += 1;
                        match self.report_match_once(record, changes).await {
                            Err(err) if is_retryable_conflict(&err) && attempts < 5 => {
                                tracing::debug!(error = %err, "match report collided; retrying");
                            }
                            other => return other.map_err(store_error),
                        }
                    }
                }

                async fn recorded_match(
                    &self,
                    id: &safezone_core::store::MatchId,
                ) -> Result<Option<safezone_core::store::RecordedMatch>, StoreError> {
                    self.recorded_match_sql(id).await.map_err(store_error)
                }

                async fn stat_totals(
                    &self,
                    account: AccountId,
                    mode: safezone_core::domain::GameMode,
                    since: OffsetDateTime,
                ) -> Result<std::collections::BTreeMap<String, i64>, StoreError> {
                    self.stat_totals_sql(account, mode, since)
                        .await
                        .map_err(store_error)
                }

                async fn match_log(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<safezone_core::store::MatchLogEntry>, StoreError> {
                    self.match_log_sql(after, limit).await.map_err(store_error)
                }

                async fn account_log(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<safezone_core::store::AccountLogEntry>, StoreError> {
                    self.account_log_sql(after, limit)
                        .await
                        .map_err(store_error)
                }

                async fn account_log_head(&self) -> Result<i64, StoreError> {
                    self.account_log_head_sql().await.map_err(store_error)
                }

                fn pools(&self) -> Vec<safezone_core::store::PoolStatus> {
                    self.pool_statuses()
                }

                async fn board_players(
                    &self,
                    after: AccountId,
                    limit: u32,
                ) -> Result<Vec<safezone_core::store::BoardPlayer>, StoreError> {
                    self.board_players_sql(after, limit).await.map_err(store_error)
                }

                async fn board_players_of(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<safezone_core::store::BoardPlayer>, StoreError> {
                    self.board_players_of_sql(accounts).await.map_err(store_error)
                }
            }
        }
    };
}

pub(crate) use impl_store;
