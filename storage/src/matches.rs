//! [`MatchStore`](safezone_core::store::MatchStore), written once for both stores: match
//! reports, progress, statistics, the match log and the players the leaderboards show.
//!
//! A report is one transaction of a fixed number of statements, whatever its number of
//! players: the match id's row first (its primary key settles concurrent repeats: a second
//! report waits for the first and then finds its row), then every involved account row locked
//! in ascending id order by one statement (so concurrent reports over the same players wait for
//! each other instead of deadlocking), the players' changes written table by table
//! ([`match_batch`](crate::match_batch): claims, items, packs, passes, the accounts' rows with
//! their version and balance checks, the ledger, progress counters), the statistics, and last
//! the match log, appended under a one-row lock held only from there to the commit so that log
//! positions are handed out in commit order and a reader following the log never misses an
//! entry, while reports do everything else side by side.

use std::collections::BTreeMap;

use safezone_core::domain::{GameMode, ItemId, TrackId};
use safezone_core::store::{AccountId, BoardPlayer, MatchLogEntry, Progress, StoreError};
use serde::de::DeserializeOwned;
use sqlx::{Postgres, Sqlite};

use crate::error::decode;
use crate::micros::from_micros;
use crate::row::friend_code;

/// A `match_log` row, as selected by [`MATCH_LOG`](crate::statements::matches::MATCH_LOG).
#[derive(sqlx::FromRow)]
pub(crate) struct MatchLogRow {
    seq: i64,
    account_id: i64,
    mode: String,
    ended: i64,
    placement: i64,
    kills: i64,
    time_alive: i64,
}

impl MatchLogRow {
    /// The log entry; an unknown mode is corrupt data.
    pub(crate) fn into_entry(self) -> Result<MatchLogEntry, StoreError> {
        let mode = GameMode::parse(&self.mode).ok_or_else(|| {
            StoreError::Internal(format!(
                "match log entry {} holds an invalid mode `{}`",
                self.seq, self.mode
            ))
        })?;
        Ok(MatchLogEntry {
            seq: self.seq,
            account: AccountId(self.account_id),
            mode,
            ended: from_micros(self.ended)?,
            placement: self.placement,
            kills: self.kills,
            time_alive_secs: self.time_alive,
        })
    }
}

/// An account as the leaderboards show it, as selected by
/// [`BOARD_PLAYERS_OF`](crate::statements::matches::BOARD_PLAYERS_OF).
#[derive(sqlx::FromRow)]
pub(crate) struct BoardPlayerRow {
    id: i64,
    friend_name: String,
    friend_digits: i32,
    is_banned: bool,
}

impl BoardPlayerRow {
    /// The player; a friend code that does not parse is corrupt data.
    pub(crate) fn into_player(self) -> Result<BoardPlayer, StoreError> {
        Ok(BoardPlayer {
            account: AccountId(self.id),
            friend_code: friend_code(&self.friend_name, self.friend_digits)?,
            is_banned: self.is_banned,
        })
    }
}

/// How a database reads the progress of a match's players: in one statement, a row per account
/// ([`ProgressRow`]: its counters, passes and items gathered as JSON by the database), or one
/// query per table.
///
/// On SQLite every row a statement answers crosses from sqlx's worker thread to the task; one
/// row per account instead of one per counter took 4-7% off a 100-player report's CPU. On
/// PostgreSQL the database's own time is what bounds the reports, and building the JSON took
/// it longer than answering the rows (BENCHMARKS.md, fifteenth session).
pub(crate) trait ProgressReader: sqlx::Database {
    /// The one statement's start, the condition on the accounts' ids following it; `None`
    /// reads one query per table.
    const PROGRESS_OF: Option<&'static str>;
}

impl ProgressReader for Postgres {
    const PROGRESS_OF: Option<&'static str> = None;
}

impl ProgressReader for Sqlite {
    const PROGRESS_OF: Option<&'static str> = Some(crate::statements::matches::SQLITE_PROGRESS_OF);
}

/// An account's progress as a [`ProgressReader::PROGRESS_OF`] statement reads it.
#[derive(sqlx::FromRow)]
pub(crate) struct ProgressRow {
    id: i64,
    progress_version: i64,
    experience: i64,
    level: i64,
    is_banned: bool,
    /// The counters, a JSON object of counter keys to values.
    counters: String,
    /// The reward tracks whose pass the account bought, a JSON array of ids.
    passes: String,
    /// The items the account owns, a JSON array of ids.
    items: String,
}

impl ProgressRow {
    /// The account's id and progress; JSON that does not parse is corrupt data.
    pub(crate) fn into_progress(self) -> Result<(i64, Progress), sqlx::Error> {
        let counters: BTreeMap<String, i64> = parsed(self.id, "counters", &self.counters)?;
        let passes: Vec<i64> = parsed(self.id, "passes", &self.passes)?;
        let items: Vec<i64> = parsed(self.id, "items", &self.items)?;
        let progress = Progress {
            version: self.progress_version,
            experience: self.experience,
            level: self.level,
            counters,
            track_passes: passes.into_iter().map(TrackId).collect(),
            items: items.into_iter().map(ItemId).collect(),
            banned: self.is_banned,
        };
        Ok((self.id, progress))
    }
}

/// `text`, the JSON of account `id`'s `what`; JSON that does not parse as one is corrupt data.
fn parsed<T: DeserializeOwned>(id: i64, what: &str, text: &str) -> Result<T, sqlx::Error> {
    serde_json::from_str(text).map_err(|err| {
        decode(StoreError::Internal(format!(
            "the progress of account {id} holds invalid {what} `{text}`: {err}"
        )))
    })
}

/// Implements [`MatchStore`](safezone_core::store::MatchStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), in a child module `matches` of the
/// calling one. The calling module also needs the `economy` module of
/// [`impl_economy`](crate::economy::impl_economy).
macro_rules! impl_matches {
    ($store:ident, $db:ty) => {
        mod matches {
            use std::collections::{BTreeMap, HashMap, HashSet};

            use async_trait::async_trait;
            use safezone_core::domain::{GameMode, ItemId, PackId, TrackId};
            use safezone_core::store::{
                AccountChange, AccountId, BoardPlayer, Change, Granted, MatchApplied, MatchId,
                MatchLogEntry, MatchRecord, MatchStore, Progress, RecordedMatch, Refusal,
                NewAuditEntry, RemovedResults, StoreError,
            };
            use sqlx::{QueryBuilder, Transaction};
            use time::OffsetDateTime;

            use super::economy::apply_steps;
            use super::{$store, account_log, events, operator};
            use crate::bulk::{BulkRows, Rows};
            use crate::error::{decode, is_retryable_conflict, store_error};
            use crate::match_batch::{AccountWrite, Batch, Leaf, PackWrite, Plan, Position, Walk};
            use crate::matches::{BoardPlayerRow, MatchLogRow, ProgressReader, ProgressRow};
            use crate::micros::to_micros;
            use crate::packed;
            use crate::statements::{economy as economy_sql, matches as sql};

            /// The database's connection, which a transaction and a pooled connection lend.
            type Connection = <$db as sqlx::Database>::Connection;

            /// A batch's outcome before what follows it (a report's statistics and log): what
            /// each change granted, or the first refusal (the account and why).
            pub(super) type Applied = Result<Vec<Vec<Granted>>, (i64, Refusal)>;

            /// A match row as [`sql::MATCH_ANSWER`] reads it: summary, grants, and their
            /// packed values.
            type StoredMatch = (String, String, Option<Vec<u8>>, Option<Vec<u8>>);

            /// Seconds per statistics bucket.
            const SECONDS_PER_HOUR: i64 = 3_600;

            impl $store {
                /// One transaction recording `record` and applying `changes`. A unique
                /// violation, deadlock or serialization failure is returned as the error, for
                /// the caller to retry.
                async fn report_match_once(
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
                        .bind(packed::pack(&record.summary))
                        .execute(&mut *tx)
                        .await?;
                    if recorded.rows_affected() == 0 {
                        let answer = sqlx::query_as::<_, StoredMatch>(sql::MATCH_ANSWER)
                            .bind(id)
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.rollback().await?;
                        let RecordedMatch { summary, granted } = recorded_match(answer)?;
                        return Ok(MatchApplied::Replayed { summary, granted });
                    }
                    let players = record.players.iter().map(|player| player.account.0);
                    let applied = match lock_accounts(&mut tx, players.clone(), changes).await? {
                        Some(refused) => Err(refused),
                        None => match Batch::new(changes) {
                            Some(batch) => {
                                let touched = to_micros(record.reported);
                                apply_batch(&mut tx, players, touched, changes, &batch).await?
                            }
                            None => apply_one_by_one(&mut tx, record, changes).await?,
                        },
                    };
                    let granted = match applied {
                        Ok(granted) => granted,
                        Err((account, refusal)) => {
                            tx.rollback().await?;
                            return Ok(MatchApplied::Refused {
                                account: AccountId(account),
                                refusal,
                            });
                        }
                    };
                    add_stats(&mut tx, record).await?;
                    let happened = safezone_core::events::match_events(record, changes, &granted);
                    events::append(&mut tx, record.reported, &happened).await?;
                    let stored = serde_json::to_string(&granted)
                        .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                    sqlx::query(sql::SAVE_MATCH_GRANTED)
                        .bind(id)
                        .bind(packed::pack(&stored))
                        .execute(&mut *tx)
                        .await?;
                    // Last: the log's lock is held from here to the commit only.
                    append_to_log(&mut tx, record).await?;
                    tx.commit().await?;
                    for player in &record.players {
                        self.changes.changed(player.account);
                    }
                    for change in changes {
                        self.changes.changed(change.account);
                    }
                    Ok(MatchApplied::Done(granted))
                }
            }

            #[async_trait]
            impl MatchStore for $store {
                /// As the database reads progress best: one statement, a row per account
                /// (SQLite), or one query per table (PostgreSQL).
                async fn progress(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<(AccountId, Progress)>, StoreError> {
                    if accounts.is_empty() {
                        return Ok(Vec::new());
                    }
                    let read = async {
                        let mut conn = self.pool.acquire().await?;
                        let ids: Vec<i64> = accounts.iter().map(|id| id.0).collect();
                        let found = match <$db as ProgressReader>::PROGRESS_OF {
                            Some(statement) => progress_in_one(&mut conn, statement, &ids).await?,
                            None => progress_by_table(&mut conn, &ids).await?,
                        };
                        Ok::<_, sqlx::Error>(
                            accounts
                                .iter()
                                .filter_map(|id| {
                                    found.get(&id.0).map(|progress| (*id, progress.clone()))
                                })
                                .collect(),
                        )
                    };
                    read.await.map_err(store_error)
                }

                async fn report_match(
                    &self,
                    record: &MatchRecord,
                    changes: &[Change],
                ) -> Result<MatchApplied, StoreError> {
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
                    id: &MatchId,
                ) -> Result<Option<RecordedMatch>, StoreError> {
                    let recorded = async {
                        sqlx::query_as::<_, StoredMatch>(sql::MATCH_ANSWER)
                            .bind(id.as_str())
                            .fetch_optional(&self.pool)
                            .await?
                            .map(recorded_match)
                            .transpose()
                    };
                    recorded.await.map_err(store_error)
                }

                /// By the statistics bucket of the hour of `since`.
                async fn stat_totals(
                    &self,
                    account: AccountId,
                    mode: GameMode,
                    since: OffsetDateTime,
                ) -> Result<BTreeMap<String, i64>, StoreError> {
                    let rows = sqlx::query_as::<_, (String, i64)>(sql::STAT_TOTALS)
                        .bind(account.0)
                        .bind(mode.as_str())
                        .bind(hour_of(since))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(rows.into_iter().collect())
                }

                /// Buckets of hours before the hour of `before`, in one short transaction.
                async fn delete_stat_hours(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::DELETE_STAT_HOURS)
                            .bind(hour_of(before))
                            .bind(i64::from(limit))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done.rows_affected())
                    };
                    deleted.await.map_err(store_error)
                }

                async fn match_log(
                    &self,
                    after: i64,
                    limit: u32,
                ) -> Result<Vec<MatchLogEntry>, StoreError> {
                    sqlx::query_as::<_, MatchLogRow>(sql::MATCH_LOG)
                        .bind(after)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .and_then(log_entries)
                        .map_err(store_error)
                }

                async fn board_players_of(
                    &self,
                    accounts: &[AccountId],
                ) -> Result<Vec<BoardPlayer>, StoreError> {
                    let players = async {
                        let mut conn = self.pool.acquire().await?;
                        let ids: Vec<i64> = accounts.iter().map(|id| id.0).collect();
                        let rows: Vec<BoardPlayerRow> =
                            fetch_one_of(&mut conn, sql::BOARD_PLAYERS_OF, &ids, "").await?;
                        rows.into_iter()
                            .map(|row| row.into_player().map_err(decode))
                            .collect::<Result<Vec<_>, sqlx::Error>>()
                    };
                    players.await.map_err(store_error)
                }

                async fn results_of(
                    &self,
                    account: AccountId,
                    after: i64,
                    through: i64,
                ) -> Result<Vec<MatchLogEntry>, StoreError> {
                    sqlx::query_as::<_, MatchLogRow>(sql::RESULTS_OF)
                        .bind(account.0)
                        .bind(after)
                        .bind(through)
                        .fetch_all(&self.pool)
                        .await
                        .and_then(log_entries)
                        .map_err(store_error)
                }

                async fn recent_results(
                    &self,
                    account: AccountId,
                    limit: u32,
                ) -> Result<Vec<MatchLogEntry>, StoreError> {
                    sqlx::query_as::<_, MatchLogRow>(sql::RECENT_RESULTS)
                        .bind(account.0)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await
                        .and_then(log_entries)
                        .map_err(store_error)
                }

                async fn remove_results(
                    &self,
                    account: AccountId,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Option<RemovedResults>, StoreError> {
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
                        let through: i64 = sqlx::query_scalar(sql::LAST_RESULT_OF)
                            .bind(account.0)
                            .fetch_one(&mut *tx)
                            .await?;
                        let deleted = sqlx::query(sql::DELETE_RESULTS_OF)
                            .bind(account.0)
                            .bind(through)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        let change = AccountChange::ResultsRemoved { through };
                        if deleted > 0 {
                            account_log::commit_logged(tx, true, account, &change, now, audit)
                                .await?;
                        } else if let Some(entry) = audit {
                            operator::append(&mut tx, entry).await?;
                            tx.commit().await?;
                        } else {
                            tx.rollback().await?;
                        }
                        Ok(Some(RemovedResults {
                            removed: deleted,
                            through: if deleted > 0 { through } else { 0 },
                        }))
                    };
                    remove.await.map_err(store_error)
                }
            }

            /// The entries of match log rows; a row that cannot be read back is corrupt data.
            fn log_entries(rows: Vec<MatchLogRow>) -> Result<Vec<MatchLogEntry>, sqlx::Error> {
                rows.into_iter()
                    .map(|row| row.into_entry().map_err(decode))
                    .collect()
            }

            /// A match row's summary and grants as read back: their packed values, or the
            /// texts of a match recorded before they were packed.
            fn recorded_match(
                (summary, granted, packed_summary, packed_granted): StoredMatch,
            ) -> Result<RecordedMatch, sqlx::Error> {
                let summary = match packed_summary {
                    Some(packed_summary) => packed::unpack(&packed_summary)?,
                    None => summary,
                };
                let granted = match packed_granted {
                    Some(packed_granted) => packed::unpack(&packed_granted)?,
                    None => granted,
                };
                let granted = serde_json::from_str(&granted)
                    .map_err(|err| sqlx::Error::Decode(Box::new(err)))?;
                Ok(RecordedMatch { summary, granted })
            }

            /// The statistics bucket of a time: whole hours since the unix epoch (rounded
            /// down).
            fn hour_of(time: OffsetDateTime) -> i64 {
                time.unix_timestamp().div_euclid(SECONDS_PER_HOUR)
            }

            /// The statement `head`, `rows` (as a table) and `tail`, for each batch of rows the
            /// database takes in one statement.
            fn statements(head: &str, rows: &Rows<'_>, tail: &str) -> Vec<QueryBuilder<$db>> {
                if rows.len() == 0 {
                    return Vec::new();
                }
                rows.batches(<$db as BulkRows>::MAX_ROWS)
                    .iter()
                    .map(|batch| {
                        let mut query = QueryBuilder::<$db>::new(head);
                        <$db as BulkRows>::push_rows(&mut query, batch);
                        query.push(tail);
                        query
                    })
                    .collect()
            }

            /// The progress of the accounts `ids` by one statement, `statement` then the
            /// condition on their ids ([`ProgressReader::PROGRESS_OF`]).
            async fn progress_in_one(
                conn: &mut Connection,
                statement: &str,
                ids: &[i64],
            ) -> Result<HashMap<i64, Progress>, sqlx::Error> {
                fetch_one_of::<ProgressRow>(conn, statement, ids, "")
                    .await?
                    .into_iter()
                    .map(ProgressRow::into_progress)
                    .collect()
            }

            /// The progress of the accounts `ids` by one query per table, the progress version
            /// first: a change committed between the queries can only make the counters and
            /// holdings newer than the version, so a plan made from them is refused as stale
            /// rather than applied to progress it did not see.
            async fn progress_by_table(
                conn: &mut Connection,
                ids: &[i64],
            ) -> Result<HashMap<i64, Progress>, sqlx::Error> {
                let rows: Vec<(i64, i64, i64, i64, bool)> =
                    fetch_one_of(conn, sql::PROGRESS_ACCOUNTS, ids, "").await?;
                let mut found: HashMap<i64, Progress> = rows
                    .into_iter()
                    .map(|(id, version, experience, level, banned)| {
                        let progress = Progress {
                            version,
                            experience,
                            level,
                            banned,
                            ..Progress::default()
                        };
                        (id, progress)
                    })
                    .collect();
                let rows: Vec<(i64, String, i64)> =
                    fetch_one_of(conn, sql::PROGRESS_COUNTERS, ids, "").await?;
                for (id, counter, value) in rows {
                    if let Some(progress) = found.get_mut(&id) {
                        progress.counters.insert(counter, value);
                    }
                }
                let rows: Vec<(i64, i64)> =
                    fetch_one_of(conn, sql::PROGRESS_TRACK_PASSES, ids, "").await?;
                for (id, track) in rows {
                    if let Some(progress) = found.get_mut(&id) {
                        progress.track_passes.insert(TrackId(track));
                    }
                }
                let rows: Vec<(i64, i64)> = fetch_one_of(conn, sql::PROGRESS_ITEMS, ids, "").await?;
                for (id, item) in rows {
                    if let Some(progress) = found.get_mut(&id) {
                        progress.items.insert(ItemId(item));
                    }
                }
                Ok(found)
            }

            /// Runs the statement `head`, `rows`, `tail` and answers the rows it returns.
            pub(super) async fn fetch_rows<T>(
                conn: &mut Connection,
                head: &str,
                rows: &Rows<'_>,
                tail: &str,
            ) -> Result<Vec<T>, sqlx::Error>
            where
                T: for<'r> sqlx::FromRow<'r, <$db as sqlx::Database>::Row> + Send + Unpin,
            {
                let mut found = Vec::new();
                for mut query in statements(head, rows, tail) {
                    found.extend(query.build_query_as::<T>().fetch_all(&mut *conn).await?);
                }
                Ok(found)
            }

            /// Runs the query `head`, the condition that a column is one of `ids`, `tail`, for
            /// each batch of ids the database takes in one statement; answers the rows found.
            pub(super) async fn fetch_one_of<T>(
                conn: &mut Connection,
                head: &str,
                ids: &[i64],
                tail: &str,
            ) -> Result<Vec<T>, sqlx::Error>
            where
                T: for<'r> sqlx::FromRow<'r, <$db as sqlx::Database>::Row> + Send + Unpin,
            {
                let mut found = Vec::new();
                for batch in ids.chunks(<$db as BulkRows>::MAX_ROWS) {
                    let mut query = QueryBuilder::<$db>::new(head);
                    <$db as BulkRows>::push_one_of(&mut query, batch);
                    query.push(tail);
                    found.extend(query.build_query_as::<T>().fetch_all(&mut *conn).await?);
                }
                Ok(found)
            }

            /// Runs the statement `head`, `rows`, `tail`.
            pub(super) async fn execute_rows(
                conn: &mut Connection,
                head: &str,
                rows: &Rows<'_>,
                tail: &str,
            ) -> Result<(), sqlx::Error> {
                for mut query in statements(head, rows, tail) {
                    query.build().execute(&mut *conn).await?;
                }
                Ok(())
            }

            /// Locks the row of every player and every changed account, in ascending id order,
            /// with one statement. Answers the first refusal: an account that does not exist,
            /// or a banned one with a change (a banned player without a change is still logged,
            /// like [`EconomyStore::apply`](safezone_core::store::EconomyStore::apply) refusing
            /// only changes).
            pub(super) async fn lock_accounts(
                tx: &mut Transaction<'_, $db>,
                players: impl IntoIterator<Item = i64>,
                changes: &[Change],
            ) -> Result<Option<(i64, Refusal)>, sqlx::Error> {
                let mut changed: BTreeMap<i64, bool> =
                    players.into_iter().map(|player| (player, false)).collect();
                for change in changes {
                    changed.insert(change.account.0, true);
                }
                let ids: Vec<i64> = changed.keys().copied().collect();
                let tail = format!("{}{}", sql::LOCK_ACCOUNTS_END, <$db as BulkRows>::LOCK_READ);
                let banned: HashMap<i64, bool> =
                    fetch_one_of::<(i64, bool)>(&mut **tx, sql::LOCK_ACCOUNTS, &ids, &tail)
                        .await?
                        .into_iter()
                        .collect();
                Ok(changed.into_iter().find_map(|(account, has_change)| {
                    match banned.get(&account) {
                        None => Some((account, Refusal::NoAccount)),
                        Some(true) if has_change => Some((account, Refusal::Banned)),
                        Some(_) => None,
                    }
                }))
            }

            /// Applies the changes table by table ([`Batch`]): the claims of their
            /// [`Step::Once`](safezone_core::store::Step::Once)s (a statement per level of
            /// nesting), the items, packs and passes they give, the rows of the accounts (the
            /// changed ones and `players`, each marked changed at `touched`), the ledger and
            /// the progress counters. The first refusal in account and step order is the
            /// answer. The accounts' rows are locked already.
            pub(super) async fn apply_batch(
                tx: &mut Transaction<'_, $db>,
                players: impl IntoIterator<Item = i64>,
                touched: i64,
                changes: &[Change],
                batch: &Batch<'_>,
            ) -> Result<Applied, sqlx::Error> {
                let mut claims = HashMap::new();
                let leaves = loop {
                    match batch.walk(&claims) {
                        Walk::Leaves(leaves) => break leaves,
                        Walk::Claims(unknown) => {
                            let rows = Rows::new()
                                .int(
                                    "account",
                                    unknown.iter().map(|((account, _), _)| *account).collect(),
                                )
                                .text(
                                    "claim_key",
                                    unknown.iter().map(|((_, key), _)| *key).collect(),
                                )
                                .int(
                                    "created",
                                    unknown.iter().map(|(_, created)| *created).collect(),
                                );
                            let recorded: HashSet<(i64, String)> = fetch_rows::<(i64, String)>(
                                &mut **tx,
                                sql::RECORD_CLAIMS,
                                &rows,
                                sql::RECORD_CLAIMS_END,
                            )
                            .await?
                            .into_iter()
                            .collect();
                            for ((account, key), _) in unknown {
                                let new = recorded.contains(&(account, key.to_owned()));
                                claims.insert((account, key), new);
                            }
                        }
                    }
                };
                let licensed = give_licenses(tx, changes, &leaves).await?;
                let plan = Plan::new(changes, players, &leaves, &licensed);
                let mut refusals = plan.refusals.clone();
                refusals.extend(give_packs(tx, &plan.packs).await?);
                refusals.extend(give_passes(tx, &plan.passes).await?);
                let (balances, refused) = write_accounts(tx, &plan.accounts, touched).await?;
                refusals.extend(refused);
                if let Some((_, account, refusal)) = refusals
                    .into_iter()
                    .min_by_key(|(position, _, _)| *position)
                {
                    return Ok(Err((account, refusal)));
                }
                let ledger = plan.ledger(&balances);
                let rows = Rows::new()
                    .int("account", ledger.iter().map(|row| row.account).collect())
                    .text("currency", ledger.iter().map(|row| row.currency).collect())
                    .int("delta", ledger.iter().map(|row| row.delta).collect())
                    .int(
                        "balance_after",
                        ledger.iter().map(|row| row.balance_after).collect(),
                    )
                    .text("reason", ledger.iter().map(|row| row.reason).collect())
                    .text(
                        "reference",
                        ledger.iter().map(|row| row.reference).collect(),
                    )
                    .int("created", ledger.iter().map(|row| row.created).collect());
                execute_rows(&mut **tx, sql::INSERT_LEDGER, &rows, sql::FROM_ROWS_END).await?;
                set_counters(tx, &plan.counters).await?;
                Ok(Ok(plan.granted))
            }

            /// Gives the items the leaves license; answers those given now,
            /// `(account, item)` (the others were owned).
            async fn give_licenses(
                tx: &mut Transaction<'_, $db>,
                changes: &[Change],
                leaves: &[Leaf<'_>],
            ) -> Result<HashSet<(i64, i64)>, sqlx::Error> {
                let wanted = crate::match_batch::licenses(leaves, changes);
                let rows = Rows::new()
                    .int("account", wanted.iter().map(|row| row.0).collect())
                    .int("item", wanted.iter().map(|row| row.1).collect())
                    .int("created", wanted.iter().map(|row| row.2).collect());
                Ok(fetch_rows::<(i64, i64)>(
                    &mut **tx,
                    sql::GIVE_LICENSES,
                    &rows,
                    sql::GIVE_LICENSES_END,
                )
                .await?
                .into_iter()
                .collect())
            }

            /// Gives unopened packs, each kind up to its limit; answers the refusals of the
            /// kinds that would pass it.
            async fn give_packs(
                tx: &mut Transaction<'_, $db>,
                packs: &BTreeMap<(i64, i64), PackWrite>,
            ) -> Result<Vec<(Position, i64, Refusal)>, sqlx::Error> {
                let rows = Rows::new()
                    .int(
                        "account",
                        packs.keys().map(|(account, _)| *account).collect(),
                    )
                    .int("pack", packs.keys().map(|(_, pack)| *pack).collect())
                    .int(
                        "quantity",
                        packs.values().map(|write| write.total).collect(),
                    );
                let given: HashSet<(i64, i64)> = fetch_rows::<(i64, i64)>(
                    &mut **tx,
                    sql::GIVE_PACKS,
                    &rows,
                    &sql::give_packs_end(),
                )
                .await?
                .into_iter()
                .collect();
                let mut refusals = Vec::new();
                for (&(account, pack), write) in packs {
                    if given.contains(&(account, pack)) {
                        continue;
                    }
                    let stock = sqlx::query_scalar::<_, i64>(sql::PACK_STOCK)
                        .bind(account)
                        .bind(pack)
                        .fetch_optional(&mut **tx)
                        .await?
                        .unwrap_or(0);
                    if let Some(position) = write.first_refusal(stock) {
                        refusals.push((position, account, Refusal::PackLimit(PackId(pack))));
                    }
                }
                Ok(refusals)
            }

            /// Gives track passes; answers the refusals of those owned already.
            async fn give_passes(
                tx: &mut Transaction<'_, $db>,
                passes: &[(i64, i64, i64, Position)],
            ) -> Result<Vec<(Position, i64, Refusal)>, sqlx::Error> {
                let rows = Rows::new()
                    .int("account", passes.iter().map(|pass| pass.0).collect())
                    .int("track", passes.iter().map(|pass| pass.1).collect())
                    .int("created", passes.iter().map(|pass| pass.2).collect());
                let given: HashSet<(i64, i64)> = fetch_rows::<(i64, i64)>(
                    &mut **tx,
                    sql::GIVE_PASSES,
                    &rows,
                    sql::GIVE_PASSES_END,
                )
                .await?
                .into_iter()
                .collect();
                Ok(passes
                    .iter()
                    .filter(|(account, track, _, _)| !given.contains(&(*account, *track)))
                    .map(|(account, track, _, position)| {
                        (
                            *position,
                            *account,
                            Refusal::TrackAlreadyOwned(TrackId(*track)),
                        )
                    })
                    .collect())
            }

            /// Writes every account's row (and its time of change, `now`) with one statement
            /// that checks the progress versions and balance limits. Answers the balances
            /// after it, `id -> (coins, gems)`, and the refusals of the rows it left.
            async fn write_accounts(
                tx: &mut Transaction<'_, $db>,
                accounts: &BTreeMap<i64, AccountWrite>,
                now: i64,
            ) -> Result<(HashMap<i64, (i64, i64)>, Vec<(Position, i64, Refusal)>), sqlx::Error>
            {
                let column =
                    |value: fn(&AccountWrite) -> i64| accounts.values().map(value).collect();
                let rows = Rows::new()
                    .int("account", accounts.keys().copied().collect())
                    .int("touched", vec![now; accounts.len()])
                    .maybe_int(
                        "expected_version",
                        accounts.values().map(|write| write.version).collect(),
                    )
                    .int("versions", column(|write| write.versions))
                    .int("experience_added", column(|write| write.experience))
                    .maybe_int(
                        "new_level",
                        accounts.values().map(|write| write.level).collect(),
                    )
                    .int("coins_added", column(|write| write.coins))
                    .int("gems_added", column(|write| write.gems));
                let written: Vec<(i64, i64, i64)> = fetch_rows(
                    &mut **tx,
                    sql::WRITE_ACCOUNTS,
                    &rows,
                    &sql::write_accounts_end(),
                )
                .await?;
                let balances: HashMap<i64, (i64, i64)> = written
                    .into_iter()
                    .map(|(id, coins, gems)| (id, (coins, gems)))
                    .collect();
                let mut refusals = Vec::new();
                for (&account, write) in accounts {
                    if balances.contains_key(&account) {
                        continue;
                    }
                    let (version, coins, gems) =
                        sqlx::query_as::<_, (i64, i64, i64)>(sql::ACCOUNT_CHECKED)
                            .bind(account)
                            .fetch_one(&mut **tx)
                            .await?;
                    if let Some((position, refusal)) = write.first_refusal(version, coins, gems) {
                        refusals.push((position, account, refusal));
                    }
                }
                Ok((balances, refusals))
            }

            /// Applies each change's steps one at a time, in account order: for changes with
            /// steps the batch does not apply ([`Batch::new`]). The accounts' rows are still
            /// written by one statement, for their time of change.
            async fn apply_one_by_one(
                tx: &mut Transaction<'_, $db>,
                record: &MatchRecord,
                changes: &[Change],
            ) -> Result<Applied, sqlx::Error> {
                let mut granted = vec![Vec::new(); changes.len()];
                let mut in_account_order: Vec<(&Change, &mut Vec<Granted>)> =
                    changes.iter().zip(granted.iter_mut()).collect();
                // Stable: one account's changes keep their order.
                in_account_order.sort_by_key(|(change, _)| change.account.0);
                for (change, grants) in in_account_order {
                    if let Err(refusal) = apply_steps(tx, change, &change.steps, grants).await? {
                        return Ok(Err((change.account.0, refusal)));
                    }
                }
                let untouched: BTreeMap<i64, AccountWrite> = record
                    .players
                    .iter()
                    .map(|player| player.account.0)
                    .chain(changes.iter().map(|change| change.account.0))
                    .map(|account| (account, AccountWrite::default()))
                    .collect();
                write_accounts(tx, &untouched, to_micros(record.reported)).await?;
                Ok(Ok(granted))
            }

            /// Sets progress counters, `(account id, counter) -> value`, with one statement.
            async fn set_counters(
                tx: &mut Transaction<'_, $db>,
                counters: &BTreeMap<(i64, &str), i64>,
            ) -> Result<(), sqlx::Error> {
                let rows = Rows::new()
                    .int(
                        "account",
                        counters.keys().map(|(account, _)| *account).collect(),
                    )
                    .text(
                        "counter",
                        counters.keys().map(|(_, counter)| *counter).collect(),
                    )
                    .int("value", counters.values().copied().collect());
                execute_rows(&mut **tx, sql::SET_COUNTERS, &rows, sql::SET_COUNTERS_END).await
            }

            /// Adds every player's statistics into the bucket of the hour the match ended,
            /// with one statement. Stats that did not move (0) are left out.
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
                sums.retain(|_, value| *value != 0);
                let rows = Rows::new()
                    .int(
                        "account",
                        sums.keys().map(|(account, _)| *account).collect(),
                    )
                    .text("mode", vec![record.mode.as_str(); sums.len()])
                    .int("hour", vec![hour_of(record.ended); sums.len()])
                    .text("stat_key", sums.keys().map(|(_, key)| *key).collect())
                    .int("value", sums.values().copied().collect());
                execute_rows(&mut **tx, sql::ADD_STATS, &rows, sql::ADD_STATS_END).await
            }

            /// Appends one match log entry per player, with one statement, under the log's
            /// append lock (held until the transaction ends).
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
                let players = &record.players;
                let rows = Rows::new()
                    .text("match_id", vec![record.id.as_str(); players.len()])
                    .int(
                        "account",
                        players.iter().map(|player| player.account.0).collect(),
                    )
                    .text("mode", vec![record.mode.as_str(); players.len()])
                    .int("ended", vec![to_micros(record.ended); players.len()])
                    .int(
                        "placement",
                        players.iter().map(|player| player.placement).collect(),
                    )
                    .int("kills", players.iter().map(|player| player.kills).collect())
                    .int(
                        "time_alive",
                        players
                            .iter()
                            .map(|player| player.time_alive_secs)
                            .collect(),
                    );
                execute_rows(&mut **tx, sql::INSERT_MATCH_LOG, &rows, sql::FROM_ROWS_END).await
            }
        }
    };
}

pub(crate) use impl_matches;
