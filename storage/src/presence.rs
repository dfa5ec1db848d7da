//! [`PresenceStore`](safezone_core::store::PresenceStore), written once for both stores.
//!
//! Each node writes only its own rows (`presence` by account and node) and its heartbeat
//! (`presence_nodes`); a reader counts a node's rows while it beats
//! ([`Presence::of`](safezone_core::store::Presence::of)), so a crashed node's players stop
//! showing online within [`PRESENCE_NODE_ALIVE`](safezone_core::store::PRESENCE_NODE_ALIVE)
//! without anyone deleting its rows. The retention sweep forgets such a node later, folding
//! its rows into `last_seen`.

/// Implements [`PresenceStore`](safezone_core::store::PresenceStore) for `$store` over the
/// sqlx database `$db` (see [`impl_store`](crate::impl_store)), in a child module `presence`
/// of the calling one, which also needs the `matches` module of
/// [`impl_matches`](crate::matches::impl_matches) (its batches of rows).
macro_rules! impl_presence {
    ($store:ident, $db:ty) => {
        mod presence {
            use std::collections::HashMap;

            use async_trait::async_trait;
            use safezone_core::store::{AccountId, Presence, PresenceStore, StoreError};
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::{matches, $store};
            use crate::bulk::Rows;
            use crate::error::{decode, store_error};
            use crate::micros::{from_micros, to_micros};
            use crate::statements::presence as sql;

            #[async_trait]
            impl PresenceStore for $store {
                async fn mark_presence(
                    &self,
                    node: &str,
                    online: &[AccountId],
                    offline: &[AccountId],
                    now: OffsetDateTime,
                ) -> Result<(), StoreError> {
                    let marked = async {
                        let mut tx = self.begin().await?;
                        mark_in(&mut tx, node, online, offline, to_micros(now)).await?;
                        tx.commit().await
                    };
                    marked.await.map_err(store_error)
                }

                async fn presence_node_stopped(
                    &self,
                    node: &str,
                    now: OffsetDateTime,
                ) -> Result<(), StoreError> {
                    let stopped = async {
                        let mut tx = self.begin().await?;
                        leave_node(&mut tx, node, to_micros(now)).await?;
                        sqlx::query(sql::DELETE_NODE)
                            .bind(node)
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await
                    };
                    stopped.await.map_err(store_error)
                }

                async fn presence(
                    &self,
                    accounts: &[AccountId],
                    now: OffsetDateTime,
                ) -> Result<HashMap<AccountId, Presence>, StoreError> {
                    let read = async {
                        let ids: Vec<i64> = accounts.iter().map(|account| account.0).collect();
                        if ids.is_empty() {
                            return Ok(HashMap::new());
                        }
                        let mut connection = self.pool.acquire().await?;
                        let beats = matches::fetch_one_of::<(i64, i64)>(
                            &mut connection,
                            sql::HEARTBEATS,
                            &ids,
                            "",
                        )
                        .await?;
                        let seen = matches::fetch_one_of::<(i64, i64)>(
                            &mut connection,
                            sql::LAST_SEEN,
                            &ids,
                            "",
                        )
                        .await?;
                        let mut heartbeats: HashMap<i64, Vec<OffsetDateTime>> = HashMap::new();
                        for (account, beat) in beats {
                            let beat = from_micros(beat).map_err(decode)?;
                            heartbeats.entry(account).or_default().push(beat);
                        }
                        let mut closed: HashMap<i64, OffsetDateTime> = HashMap::new();
                        for (account, at) in seen {
                            closed.insert(account, from_micros(at).map_err(decode)?);
                        }
                        Ok(accounts
                            .iter()
                            .map(|account| {
                                let beats =
                                    heartbeats.get(&account.0).map_or(&[][..], Vec::as_slice);
                                let presence =
                                    Presence::of(beats, closed.get(&account.0).copied(), now);
                                (*account, presence)
                            })
                            .collect())
                    };
                    read.await.map_err(store_error)
                }

                async fn delete_dead_presence_nodes(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let swept = async {
                        let before = to_micros(before);
                        let nodes = sqlx::query_scalar::<_, String>(sql::DEAD_NODES)
                            .bind(before)
                            .bind(i64::from(limit))
                            .fetch_all(&self.pool)
                            .await?;
                        let mut forgotten = 0;
                        for node in nodes {
                            let mut tx = self.begin().await?;
                            let last = sqlx::query_scalar::<_, i64>(sql::DELETE_DEAD_NODE)
                                .bind(&node)
                                .bind(before)
                                .fetch_optional(&mut *tx)
                                .await?;
                            if let Some(last) = last {
                                leave_node(&mut tx, &node, last).await?;
                                forgotten += 1;
                            }
                            tx.commit().await?;
                        }
                        Ok(forgotten)
                    };
                    swept.await.map_err(store_error)
                }
            }

            /// Beats for `node`, records `online` on it and takes `offline` off it, last seen
            /// `now` (unix microseconds).
            async fn mark_in(
                tx: &mut Transaction<'_, $db>,
                node: &str,
                online: &[AccountId],
                offline: &[AccountId],
                now: i64,
            ) -> Result<(), sqlx::Error> {
                sqlx::query(sql::HEARTBEAT)
                    .bind(node)
                    .bind(now)
                    .execute(&mut **tx)
                    .await?;
                let ids = |accounts: &[AccountId]| -> Vec<i64> {
                    accounts.iter().map(|account| account.0).collect()
                };
                let opened = Rows::new()
                    .int("account", ids(online))
                    .text("node", vec![node; online.len()])
                    .int("opened", vec![now; online.len()]);
                matches::execute_rows(&mut **tx, sql::MARK_ONLINE, &opened, sql::MARK_ONLINE_END)
                    .await?;
                let closed = Rows::new()
                    .int("account", ids(offline))
                    .text("node", vec![node; offline.len()]);
                matches::execute_rows(&mut **tx, sql::MARK_OFFLINE, &closed, sql::MARK_OFFLINE_END)
                    .await?;
                let seen = Rows::new()
                    .int("account", ids(offline))
                    .int("seen", vec![now; offline.len()]);
                matches::execute_rows(&mut **tx, sql::SEEN, &seen, sql::SEEN_END).await
            }

            /// Takes every account off `node`, last seen at `seen` (unix microseconds).
            async fn leave_node(
                tx: &mut Transaction<'_, $db>,
                node: &str,
                seen: i64,
            ) -> Result<(), sqlx::Error> {
                sqlx::query(sql::SEEN_ALL_OF_NODE)
                    .bind(node)
                    .bind(seen)
                    .execute(&mut **tx)
                    .await?;
                sqlx::query(sql::DELETE_NODE_PRESENCE)
                    .bind(node)
                    .execute(&mut **tx)
                    .await?;
                Ok(())
            }
        }
    };
}

pub(crate) use impl_presence;
