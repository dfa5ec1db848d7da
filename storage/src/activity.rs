//! [`ActivityStore`](safezone_core::store::ActivityStore), written once for both stores: the
//! activity rollup's hourly and daily counters (`activity_hours`, `activity_days`, both written
//! by each batch), the accounts' last sign-ins (`account_last_sign_in`) and its cursor, a row
//! of the sinks' `event_consumers` (statements in
//! [`statements::activity`](crate::statements::activity)).
//!
//! A batch is one transaction that first moves the cursor from where the batch was read
//! (`... WHERE position = $from`), then adds the counters and keeps the sign-ins: on
//! PostgreSQL at READ COMMITTED a second node applying the same batch waits on the cursor's
//! row for the first to commit, then finds it moved and writes nothing; on SQLite the write
//! transactions take turns. So no event is counted twice.

/// Implements [`ActivityStore`](safezone_core::store::ActivityStore) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), in a child module `activity`
/// of the calling one. The calling module also needs the `matches` module of
/// [`impl_matches`](crate::matches::impl_matches).
macro_rules! impl_activity {
    ($store:ident, $db:ty) => {
        mod activity {
            use std::collections::BTreeMap;

            use async_trait::async_trait;
            use safezone_core::store::{
                ActivityBatch, ActivityMetric, ActivityPoint, ActivityStore, Bucket, StoreError,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::{matches, $store};
            use crate::bulk::Rows;
            use crate::error::store_error;
            use crate::micros::to_micros;
            use crate::statements::activity as sql;

            /// Seconds in an hour: counters are kept by whole hours since the unix epoch.
            const HOUR_SECS: i64 = 3_600;

            /// Hours in a day: daily counters are kept by whole days since the unix epoch.
            const DAY_HOURS: i64 = 24;

            /// The hour holding `time`, in whole hours since the unix epoch.
            fn hour_of(time: OffsetDateTime) -> i64 {
                time.unix_timestamp().div_euclid(HOUR_SECS)
            }

            /// The start of the hour `hour`.
            fn start_of(hour: i64) -> Result<OffsetDateTime, StoreError> {
                OffsetDateTime::from_unix_timestamp(hour.saturating_mul(HOUR_SECS))
                    .map_err(|err| StoreError::Internal(format!("stored hour {hour}: {err}")))
            }

            /// `batch`'s counts summed per metric, day and subject.
            fn daily(batch: &ActivityBatch) -> Vec<(&'static str, i64, &str, i64)> {
                let mut days: BTreeMap<(&'static str, i64, &str), i64> = BTreeMap::new();
                for count in &batch.counts {
                    let day = count.hour.div_euclid(DAY_HOURS);
                    *days
                        .entry((count.metric.as_str(), day, count.subject.as_str()))
                        .or_default() += count.value;
                }
                days.into_iter()
                    .map(|((metric, day, subject), value)| (metric, day, subject, value))
                    .collect()
            }

            /// Adds `batch` in `tx`, after the cursor moved.
            async fn add(
                tx: &mut Transaction<'_, $db>,
                batch: &ActivityBatch,
            ) -> Result<(), sqlx::Error> {
                let counts = Rows::new()
                    .text(
                        "metric",
                        batch
                            .counts
                            .iter()
                            .map(|count| count.metric.as_str())
                            .collect(),
                    )
                    .int(
                        "hour",
                        batch.counts.iter().map(|count| count.hour).collect(),
                    )
                    .text(
                        "subject",
                        batch
                            .counts
                            .iter()
                            .map(|count| count.subject.as_str())
                            .collect(),
                    )
                    .int(
                        "value",
                        batch.counts.iter().map(|count| count.value).collect(),
                    );
                matches::execute_rows(&mut **tx, sql::ADD_COUNTS, &counts, sql::ADD_COUNTS_END)
                    .await?;
                let daily = daily(batch);
                let days = Rows::new()
                    .text("metric", daily.iter().map(|day| day.0).collect())
                    .int("day", daily.iter().map(|day| day.1).collect())
                    .text("subject", daily.iter().map(|day| day.2).collect())
                    .int("value", daily.iter().map(|day| day.3).collect());
                matches::execute_rows(&mut **tx, sql::ADD_DAYS, &days, sql::ADD_DAYS_END).await?;
                let sign_ins = Rows::new()
                    .int(
                        "account",
                        batch
                            .sign_ins
                            .iter()
                            .map(|(account, _)| account.0)
                            .collect(),
                    )
                    .int(
                        "at",
                        batch
                            .sign_ins
                            .iter()
                            .map(|(_, at)| to_micros(*at))
                            .collect(),
                    );
                matches::execute_rows(&mut **tx, sql::SIGN_INS, &sign_ins, sql::SIGN_INS_END)
                    .await?;
                let deleted = Rows::new().int(
                    "account",
                    batch.deleted.iter().map(|account| account.0).collect(),
                );
                matches::execute_rows(
                    &mut **tx,
                    sql::FORGET_SIGN_INS,
                    &deleted,
                    sql::FORGET_SIGN_INS_END,
                )
                .await
            }

            #[async_trait]
            impl ActivityStore for $store {
                async fn activity_cursor(
                    &self,
                    name: &str,
                    now: OffsetDateTime,
                ) -> Result<i64, StoreError> {
                    let found = sqlx::query_scalar::<_, i64>(sql::CURSOR)
                        .bind(name)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?;
                    if let Some(position) = found {
                        return Ok(position);
                    }
                    let created = async {
                        let mut tx = self.begin().await?;
                        sqlx::query(sql::NEW_CURSOR)
                            .bind(name)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?;
                        let position = sqlx::query_scalar::<_, i64>(sql::CURSOR)
                            .bind(name)
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(position)
                    };
                    created.await.map_err(store_error)
                }

                async fn apply_activity(
                    &self,
                    name: &str,
                    from: i64,
                    to: i64,
                    batch: &ActivityBatch,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let applied = async {
                        let mut tx = self.begin().await?;
                        let moved = sqlx::query(sql::MOVE_CURSOR)
                            .bind(name)
                            .bind(from)
                            .bind(to)
                            .bind(to_micros(now))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if moved != 1 {
                            tx.rollback().await?;
                            return Ok::<_, sqlx::Error>(false);
                        }
                        add(&mut tx, batch).await?;
                        tx.commit().await?;
                        Ok(true)
                    };
                    applied.await.map_err(store_error)
                }

                async fn activity(
                    &self,
                    metric: ActivityMetric,
                    bucket: Bucket,
                    from: OffsetDateTime,
                    until: OffsetDateTime,
                ) -> Result<Vec<ActivityPoint>, StoreError> {
                    // Whole buckets: from the one holding `from` to the one holding `until`.
                    let (statement, hours) = match bucket {
                        Bucket::Hour => (sql::HOURS, 1),
                        Bucket::Day => (sql::DAYS, DAY_HOURS),
                    };
                    let rows = sqlx::query_as::<_, (i64, String, i64)>(statement)
                        .bind(metric.as_str())
                        .bind(hour_of(from).div_euclid(hours))
                        .bind(hour_of(until).div_euclid(hours))
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    rows.into_iter()
                        .map(|(bucket, subject, value)| {
                            Ok(ActivityPoint {
                                start: start_of(bucket * hours)?,
                                subject,
                                value,
                            })
                        })
                        .collect()
                }

                async fn delete_activity_counters(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        let hour = hour_of(before);
                        let mut done = 0;
                        for (statement, bound) in [
                            (sql::DELETE_HOURS, hour),
                            (sql::DELETE_DAYS, hour.div_euclid(DAY_HOURS)),
                        ] {
                            done += sqlx::query(statement)
                                .bind(bound)
                                .bind(i64::from(limit))
                                .execute(&mut *tx)
                                .await?
                                .rows_affected();
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(done)
                    };
                    deleted.await.map_err(store_error)
                }
            }
        }
    };
}

pub(crate) use impl_activity;
