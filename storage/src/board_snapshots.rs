//! [`BoardSnapshotStore`](safezone_core::store::BoardSnapshotStore), written once for both
//! stores: the boards' snapshots (tables `board_snapshots`, `board_snapshot_parts` and the
//! one-row `board_snapshot_claim`).
//!
//! A snapshot is begun (the turn claimed by one conditional update, so one node of many wins
//! it), its parts stored one statement each, and completed with the pruning of older ones in
//! one last transaction: a writer stopped anywhere before leaves an incomplete snapshot nobody
//! reads, and the previous complete one stays.
//!
//! A part is megabytes in one message, and a connection keeps the buffer it grew for the
//! largest message it sent or received: each part's connection gives that room back before it
//! returns to the pool, or every connection of a long-running node would end up holding a
//! part's worth of memory.

/// Implements [`BoardSnapshotStore`](safezone_core::store::BoardSnapshotStore) for `$store`
/// (see [`impl_store`](crate::impl_store)), in a child module `board_snapshots` of the calling
/// one.
macro_rules! impl_board_snapshots {
    ($store:ident) => {
        mod board_snapshots {
            use async_trait::async_trait;
            use safezone_core::store::{BoardSnapshotInfo, BoardSnapshotStore, StoreError};
            use sqlx::Connection;
            use time::OffsetDateTime;

            use super::$store;
            use crate::error::store_error;
            use crate::micros::{from_micros, to_micros};
            use crate::statements::board_snapshots as sql;

            #[async_trait]
            impl BoardSnapshotStore for $store {
                async fn begin_board_snapshot(
                    &self,
                    match_seq: i64,
                    account_seq: i64,
                    now: OffsetDateTime,
                    unless_since: OffsetDateTime,
                ) -> Result<Option<i64>, StoreError> {
                    let begun = async {
                        let mut tx = self.begin().await?;
                        let claimed = sqlx::query(sql::CLAIM_SNAPSHOT)
                            .bind(to_micros(now))
                            .bind(to_micros(unless_since))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if claimed == 0 {
                            tx.rollback().await?;
                            return Ok(None);
                        }
                        let id = sqlx::query_scalar::<_, i64>(sql::BEGIN_SNAPSHOT)
                            .bind(match_seq)
                            .bind(account_seq)
                            .bind(to_micros(now))
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(Some(id))
                    };
                    begun.await.map_err(store_error)
                }

                async fn write_board_snapshot_part(
                    &self,
                    id: i64,
                    part: u32,
                    bytes: &[u8],
                ) -> Result<(), StoreError> {
                    let written = async {
                        let mut connection = self.write_connection().await?;
                        sqlx::query(sql::INSERT_PART)
                            .bind(id)
                            .bind(i64::from(part))
                            .bind(bytes)
                            .execute(&mut *connection)
                            .await?;
                        connection.shrink_buffers();
                        Ok::<_, sqlx::Error>(())
                    };
                    written.await.map_err(store_error)
                }

                async fn finish_board_snapshot(
                    &self,
                    id: i64,
                    parts: u32,
                    keep: u32,
                ) -> Result<bool, StoreError> {
                    let finished = async {
                        let mut tx = self.begin().await?;
                        let completed = sqlx::query(sql::COMPLETE_SNAPSHOT)
                            .bind(id)
                            .bind(i64::from(parts))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if completed == 0 {
                            tx.rollback().await?;
                            return Ok(false);
                        }
                        let older_kept = i64::from(keep.saturating_sub(1));
                        for prune in [sql::PRUNE_PARTS, sql::PRUNE_SNAPSHOTS] {
                            sqlx::query(prune)
                                .bind(id)
                                .bind(older_kept)
                                .execute(&mut *tx)
                                .await?;
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(true)
                    };
                    finished.await.map_err(store_error)
                }

                async fn newest_board_snapshot(
                    &self,
                ) -> Result<Option<BoardSnapshotInfo>, StoreError> {
                    let row = sqlx::query_as::<_, (i64, i64, i64, i64, i64)>(sql::NEWEST_SNAPSHOT)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?;
                    row.map(|(id, match_seq, account_seq, taken_at, parts)| {
                        Ok(BoardSnapshotInfo {
                            id,
                            match_seq,
                            account_seq,
                            taken_at: from_micros(taken_at)?,
                            parts: u32::try_from(parts).map_err(|_| {
                                StoreError::Internal(format!("snapshot {id} has {parts} parts"))
                            })?,
                        })
                    })
                    .transpose()
                }

                async fn board_snapshot_part(
                    &self,
                    id: i64,
                    part: u32,
                ) -> Result<Option<Vec<u8>>, StoreError> {
                    let read = async {
                        let mut connection = self.pool.acquire().await?;
                        let bytes = sqlx::query_scalar::<_, Vec<u8>>(sql::PART)
                            .bind(id)
                            .bind(i64::from(part))
                            .fetch_optional(&mut *connection)
                            .await?;
                        connection.shrink_buffers();
                        Ok::<_, sqlx::Error>(bytes)
                    };
                    read.await.map_err(store_error)
                }
            }
        }
    };
}

pub(crate) use impl_board_snapshots;
