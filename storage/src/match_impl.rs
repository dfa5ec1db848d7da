//! Match reports, progress, statistics and the match log, written once for both stores like
//! [`change_impl`](crate::change_impl).
//!
//! A report is one transaction: the match id's row first (its primary key settles concurrent
//! repeats: a second report waits for the first and then finds its row), then every involved
//! account row locked in ascending id order (so concurrent reports over the same players wait
//! for each other instead of deadlocking), each player's change, the statistics, and last the
//! match log, appended under a one-row lock held to the commit so that log positions are handed
//! out in commit order and a reader following the log never misses an entry.

/// Implements the `*_sql` methods behind the match methods of
/// [`Store`](safezone_core::store::Store) for `$store` over the sqlx database `$db`, in a child
/// module `matches` of the calling one. The calling module also needs the `change` module of
/// [`impl_change`](crate::change_impl::impl_change).
macro_rules! impl_matches {
    ($store:ident, $db:ty) => {
        mod matches {
            use std::collections::{BTreeMap, HashMap};

            use safezone_core::domain::{GameMode, ItemId, TrackId};
            use safezone_core::store::{
                AccountId, BoardPlayer, Change, Granted, MatchApplied, MatchId, MatchLogEntry,
                MatchRecord, Progress, RecordedMatch, Refusal, Step, StoreError,
            };
            use sqlx::{QueryBuilder, Transaction};
            use time::OffsetDateTime;

            use super::change::apply_steps;
            use super::$store;
            use crate::economy_sql::LOCK_ACCOUNT;
            use crate::match_sql as sql;
            use crate::micros::to_micros;
            use crate::row::{BoardPlayerRow, MatchLogRow};

            /// The most rows one batched statement writes, or ids one query lists: well within
            /// both databases' limits on bound values.
            const ROWS_PER_STATEMENT: usize = 1_000;

            /// Seconds per statistics bucket.
            const SECONDS_PER_HOUR: i64 = 3_600;

            impl $store {
                /// One transaction recording `record` and applying `changes`. A unique
                /// violation, deadlock or serialization failure is returned as the error, for
                /// the caller to retry.
                pub(super) async fn report_match_once(
                    &self,
                    record: &MatchRecord,
                    changes: &[Change],
                ) -> Result<MatchApplied, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let id = record.id.as_str();
                    let recorded = sqlx::query(sql::INSERT_MATCH)
                        .bind(id)
                        .bind(record.mode.as_str())
                        .bind(to_micros(record.started))
                        .bind(to_micros(record.ended))
                        .bind(to_micros(record.reported))
                        .bind(&record.summary)
                        .execute(&mut *tx)
                        .await?;
                    if recorded.rows_affected() == 0 {
                        let answer = sqlx::query_as::<_, (String, String)>(sql::MATCH_ANSWER)
                            .bind(id)
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.rollback().await?;
                        let RecordedMatch { summary, granted } = recorded_match(answer)?;
                        return Ok(MatchApplied::Replayed { summary, granted });
                    }
                    if let Some((account, refusal)) =
                        lock_accounts(&mut tx, record, changes).await?
                    {
                        tx.rollback().await?;
                        return Ok(MatchApplied::Refused { account, refusal });
                    }
                    let mut granted = vec![Vec::new(); changes.len()];
                    let mut in_account_order: Vec<(&Change, &mut Vec<Granted>)> =
                        changes.iter().zip(granted.iter_mut()).collect();
                    // Stable: one account's changes keep their order.
                    in_account_order.sort_by_key(|(change, _)| change.account.0);
                    // Progress counters have no precondition and no grant: they are written
                    // together, in one batch after every change's other steps (a refusal
                    // rolls all of it back anyway).
                    let mut counters: BTreeMap<(i64, &str), i64> = BTreeMap::new();
                    for (change, grants) in in_account_order {
                        let mut steps = Vec::with_capacity(change.steps.len());
                        for step in &change.steps {
                            match step {
                                Step::SetProgress { counter, value } => {
                                    counters.insert((change.account.0, counter.as_str()), *value);
                                }
                                other => steps.push(other.clone()),
                            }
                        }
                        if let Err(refusal) = apply_steps(&mut tx, change, &steps, grants).await? {
                            tx.rollback().await?;
                            return Ok(MatchApplied::Refused {
                                account: change.account,
                                refusal,
                            });
                        }
                    }
                    set_counters(&mut tx, &counters).await?;
                    add_stats(&mut tx, record).await?;
                    append_to_log(&mut tx, record).await?;
                    let stored = serde_json::to_string(&granted)
                        .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                    sqlx::query(sql::SAVE_MATCH_GRANTED)
                        .bind(id)
                        .bind(stored)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Ok(MatchApplied::Done(granted))
                }

                /// The progress of each of `accounts` that exists, in the order asked.
                ///
                /// One query per table (in batches of ids), the progress version first: a
                /// change committed between the queries can only make the counters and
                /// holdings newer than the version, so a plan made from them is refused as
                /// stale rather than applied to progress it did not see.
                pub(super) async fn progress_sql(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<(AccountId, Progress)>, sqlx::Error> {
                    let mut found: HashMap<i64, Progress> = HashMap::new();
                    let mut conn = self.pool.acquire().await?;
                    for ids in accounts.chunks(ROWS_PER_STATEMENT) {
                        let mut query = in_list(sql::PROGRESS_ACCOUNTS, ids);
                        let rows = query
                            .build_query_as::<(i64, i64, i64, i64, bool)>()
                            .fetch_all(&mut *conn)
                            .await?;
                        for (id, version, experience, level, banned) in rows {
                            found.insert(
                                id,
                                Progress {
                                    version,
                                    experience,
                                    level,
                                    banned,
                                    ..Progress::default()
                                },
                            );
                        }
                        let mut query = in_list(sql::PROGRESS_COUNTERS, ids);
                        let rows = query
                            .build_query_as::<(i64, String, i64)>()
                            .fetch_all(&mut *conn)
                            .await?;
                        for (id, counter, value) in rows {
                            if let Some(progress) = found.get_mut(&id) {
                                progress.counters.insert(counter, value);
                            }
                        }
                        let mut query = in_list(sql::PROGRESS_TRACK_PASSES, ids);
                        let rows = query
                            .build_query_as::<(i64, i64)>()
                            .fetch_all(&mut *conn)
                            .await?;
                        for (id, track) in rows {
                            if let Some(progress) = found.get_mut(&id) {
                                progress.track_passes.insert(TrackId(track));
                            }
                        }
                        let mut query = in_list(sql::PROGRESS_ITEMS, ids);
                        let rows = query
                            .build_query_as::<(i64, i64)>()
                            .fetch_all(&mut *conn)
                            .await?;
                        for (id, item) in rows {
                            if let Some(progress) = found.get_mut(&id) {
                                progress.items.insert(ItemId(item));
                            }
                        }
                    }
                    Ok(accounts
                        .iter()
                        .filter_map(|id| found.get(&id.0).map(|progress| (*id, progress.clone())))
                        .collect())
                }

                /// The stored answer of a recorded match id.
                pub(super) async fn recorded_match_sql(
                    &self,
                    id: &MatchId,
                ) -> Result<Option<RecordedMatch>, sqlx::Error> {
                    sqlx::query_as::<_, (String, String)>(sql::MATCH_ANSWER)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(recorded_match)
                        .transpose()
                }

                /// An account's statistics in `mode` from the hour of `since` on, by stat key.
                pub(super) async fn stat_totals_sql(
                    &self,
                    account: AccountId,
                    mode: GameMode,
                    since: OffsetDateTime,
                ) -> Result<BTreeMap<String, i64>, sqlx::Error> {
                    let rows = sqlx::query_as::<_, (String, i64)>(sql::STAT_TOTALS)
                        .bind(account.0)
                        .bind(mode.as_str())
                        .bind(hour_of(since))
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(rows.into_iter().collect())
                }

                /// Up to `limit` match log entries after position `after`, in order.
                pub(super) async fn match_log_sql(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<MatchLogEntry>, sqlx::Error> {
                    sqlx::query_as::<_, MatchLogRow>(sql::MATCH_LOG)
                        .bind(after)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(|row| row.into_entry().map_err(decode))
                        .collect()
                }

                /// Up to `limit` accounts with match log entries after id `after`, in order.
                pub(super) async fn board_players_sql(
                    &self,
                    after: AccountId,
                    limit: u32,
                ) -> Result<Vec<BoardPlayer>, sqlx::Error> {
                    sqlx::query_as::<_, BoardPlayerRow>(sql::BOARD_PLAYERS)
                        .bind(after.0)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(|row| row.into_player().map_err(decode))
                        .collect()
                }

                /// Those of `accounts` that exist, as the leaderboards show them.
                pub(super) async fn board_players_of_sql(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<BoardPlayer>, sqlx::Error> {
                    let mut players = Vec::with_capacity(accounts.len());
                    for ids in accounts.chunks(ROWS_PER_STATEMENT) {
                        let mut query = in_list(sql::BOARD_PLAYERS_OF, ids);
                        for row in query
                            .build_query_as::<BoardPlayerRow>()
                            .fetch_all(&self.pool)
                            .await?
                        {
                            players.push(row.into_player().map_err(decode)?);
                        }
                    }
                    Ok(players)
                }
            }

            /// A match row's `(summary, granted)` as read back.
            fn recorded_match(
                (summary, granted): (String, String),
            ) -> Result<RecordedMatch, sqlx::Error> {
                let granted = serde_json::from_str(&granted)
                    .map_err(|err| sqlx::Error::Decode(Box::new(err)))?;
                Ok(RecordedMatch { summary, granted })
            }

            /// A stored value that cannot be read back, as a decoding error.
            fn decode(error: StoreError) -> sqlx::Error {
                sqlx::Error::Decode(Box::new(error))
            }

            /// The statistics bucket of a time: whole hours since the unix epoch (rounded
            /// down).
            fn hour_of(time: OffsetDateTime) -> i64 {
                time.unix_timestamp().div_euclid(SECONDS_PER_HOUR)
            }

            /// A query that starts with `start` and lists `ids` as bound values, closed by `)`.
            fn in_list(start: &'static str, ids: &[AccountId]) -> QueryBuilder<$db> {
                let mut query = QueryBuilder::new(start);
                let mut list = query.separated(", ");
                for id in ids {
                    list.push_bind(id.0);
                }
                list.push_unseparated(")");
                query
            }

            /// Locks the row of every player and every changed account, in ascending id order.
            /// Answers the first refusal: an account that does not exist, or a banned one with
            /// a change (a banned player without a change is still logged, like
            /// [`Store::apply`](safezone_core::store::Store::apply) refusing only changes).
            async fn lock_accounts(
                tx: &mut Transaction<'_, $db>,
                record: &MatchRecord,
                changes: &[Change],
            ) -> Result<Option<(AccountId, Refusal)>, sqlx::Error> {
                let mut changed: BTreeMap<i64, bool> = record
                    .players
                    .iter()
                    .map(|player| (player.account.0, false))
                    .collect();
                for change in changes {
                    changed.insert(change.account.0, true);
                }
                let now = to_micros(record.reported);
                for (account, has_change) in changed {
                    let banned = sqlx::query_scalar::<_, bool>(LOCK_ACCOUNT)
                        .bind(account)
                        .bind(now)
                        .fetch_optional(&mut **tx)
                        .await?;
                    match banned {
                        None => return Ok(Some((AccountId(account), Refusal::NoAccount))),
                        Some(true) if has_change => {
                            return Ok(Some((AccountId(account), Refusal::Banned)));
                        }
                        Some(_) => {}
                    }
                }
                Ok(None)
            }

            /// Sets progress counters, `(account id, counter) -> value`, a batch of rows per
            /// statement.
            async fn set_counters(
                tx: &mut Transaction<'_, $db>,
                counters: &BTreeMap<(i64, &str), i64>,
            ) -> Result<(), sqlx::Error> {
                let rows: Vec<_> = counters.iter().collect();
                for batch in rows.chunks(ROWS_PER_STATEMENT) {
                    let mut query = QueryBuilder::<$db>::new(sql::SET_COUNTERS);
                    query.push_values(batch, |mut row, ((account, counter), value)| {
                        row.push_bind(*account)
                            .push_bind(*counter)
                            .push_bind(**value);
                    });
                    query.push(sql::SET_COUNTERS_END);
                    query.build().execute(&mut **tx).await?;
                }
                Ok(())
            }

            /// Adds every player's statistics into the bucket of the hour the match ended, a
            /// batch of rows per statement. Stats that did not move (0) are left out.
            async fn add_stats(
                tx: &mut Transaction<'_, $db>,
                record: &MatchRecord,
            ) -> Result<(), sqlx::Error> {
                // Summed per account and key first: one statement must not add to a bucket
                // twice (PostgreSQL refuses that), and sorted rows lock in a fixed order.
                let mut sums: BTreeMap<(i64, &str), i64> = BTreeMap::new();
                for player in &record.players {
                    for (key, value) in &player.stats {
                        let sum = sums.entry((player.account.0, key.as_str())).or_insert(0);
                        *sum = sum.saturating_add(*value);
                    }
                }
                let rows: Vec<((i64, &str), i64)> =
                    sums.into_iter().filter(|(_, value)| *value != 0).collect();
                let mode = record.mode.as_str();
                let hour = hour_of(record.ended);
                for batch in rows.chunks(ROWS_PER_STATEMENT) {
                    let mut query = QueryBuilder::<$db>::new(sql::ADD_STATS);
                    query.push_values(batch, |mut row, ((account, key), value)| {
                        row.push_bind(*account)
                            .push_bind(mode)
                            .push_bind(hour)
                            .push_bind(*key)
                            .push_bind(*value);
                    });
                    query.push(sql::ADD_STATS_END);
                    query.build().execute(&mut **tx).await?;
                }
                Ok(())
            }

            /// Appends one match log entry per player, in batches, under the log's append
            /// lock (held until the transaction ends).
            async fn append_to_log(
                tx: &mut Transaction<'_, $db>,
                record: &MatchRecord,
            ) -> Result<(), sqlx::Error> {
                if record.players.is_empty() {
                    return Ok(());
                }
                let count = i64::try_from(record.players.len()).unwrap_or(i64::MAX);
                sqlx::query(sql::LOCK_MATCH_LOG)
                    .bind(count)
                    .execute(&mut **tx)
                    .await?;
                let id = record.id.as_str();
                let mode = record.mode.as_str();
                let ended = to_micros(record.ended);
                for batch in record.players.chunks(ROWS_PER_STATEMENT) {
                    let mut query = QueryBuilder::<$db>::new(sql::INSERT_MATCH_LOG);
                    query.push_values(batch, |mut row, player| {
                        row.push_bind(id)
                            .push_bind(player.account.0)
                            .push_bind(mode)
                            .push_bind(ended)
                            .push_bind(player.placement)
                            .push_bind(player.kills)
                            .push_bind(player.time_alive_secs);
                    });
                    query.build().execute(&mut **tx).await?;
                }
                Ok(())
            }
        }
    };
}

pub(crate) use impl_matches;
