//! [`FriendStore`](safezone_core::store::FriendStore), written once for both stores: the
//! transactions of friend requests, friendships and blocks.
//!
//! Every change locks both accounts' rows first, in id order (as the clan transactions and
//! account deletion do, see [`refusable`](crate::refusable)): changes between the same two
//! accounts run one after the other, and a deletion of either either ends first (the account
//! is missing, the change refused) or waits and takes the new rows with the account (every
//! table of friends cascades from both accounts). Within that, one request per direction is
//! the primary key of `friend_requests`, one friendship per pair the primary key of
//! `friendships` over the ordered pair: two requests that meet make one friendship.

use safezone_core::store::{AccountId, ClanBadge, ClanId, Listed, PlayerCard, StoreError};

use crate::micros::from_micros;
use crate::row::friend_code;

/// A player on one of an account's lists, as selected by the lists' statements
/// ([`FRIENDS`](crate::statements::friends::FRIENDS), ...).
#[derive(sqlx::FromRow)]
pub(crate) struct ListedRow {
    account_id: i64,
    friend_name: String,
    friend_digits: i32,
    avatar: Option<String>,
    level: i64,
    clan_id: Option<i64>,
    clan_tag: Option<String>,
    clan_name: Option<String>,
    since: i64,
}

impl ListedRow {
    /// The listed player of the row.
    pub(crate) fn into_listed(self) -> Result<Listed, StoreError> {
        let clan = match (self.clan_id, self.clan_tag, self.clan_name) {
            (Some(id), Some(tag), Some(name)) => Some(ClanBadge {
                id: ClanId(id),
                tag,
                name,
            }),
            _ => None,
        };
        Ok(Listed {
            player: PlayerCard {
                account: AccountId(self.account_id),
                friend_code: friend_code(&self.friend_name, self.friend_digits)?,
                avatar: self.avatar,
                level: self.level,
                clan,
            },
            since: from_micros(self.since)?,
        })
    }
}

/// The two accounts in id order, as a friendship stores them.
pub(crate) fn ordered(one: AccountId, other: AccountId) -> (AccountId, AccountId) {
    if one <= other {
        (one, other)
    } else {
        (other, one)
    }
}

/// Implements [`FriendStore`](safezone_core::store::FriendStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), in a child module `friends` of the
/// calling one, which also needs the `events` module of
/// [`impl_events`](crate::events::impl_events) and the `refusable` module of
/// [`impl_refusable`](crate::refusable::impl_refusable).
macro_rules! impl_friends {
    ($store:ident, $db:ty) => {
        mod friends {
            use async_trait::async_trait;
            use safezone_core::events::EventPayload;
            use safezone_core::store::{
                AccountId, FriendChange, FriendChanged, FriendLimits, FriendLists, FriendRefusal,
                FriendStore, Listed, StoreError,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::refusable::{lock_account, settle};
            use super::{events, $store};
            use crate::error::store_error;
            use crate::friends::{ListedRow, ordered};
            use crate::micros::to_micros;
            use crate::statements::friends as sql;

            /// A change made: how it ended and the acting account's events.
            type Made = (FriendChanged, Vec<EventPayload>);

            #[async_trait]
            impl FriendStore for $store {
                async fn change_friendship(
                    &self,
                    account: AccountId,
                    other: AccountId,
                    change: FriendChange,
                    limits: FriendLimits,
                    now: OffsetDateTime,
                ) -> Result<Result<FriendChanged, FriendRefusal>, StoreError> {
                    let changed = async {
                        let mut tx = self.begin().await?;
                        let outcome =
                            change_in(&mut tx, account, other, change, limits, now).await?;
                        let outcome = match outcome {
                            Ok((changed, happened)) => {
                                events::append_for(&mut tx, account, now, happened).await?;
                                Ok(changed)
                            }
                            Err(refusal) => Err(refusal),
                        };
                        settle(tx, outcome, None).await
                    };
                    changed.await.map_err(store_error)
                }

                async fn friend_lists(
                    &self,
                    account: AccountId,
                ) -> Result<FriendLists, StoreError> {
                    Ok(FriendLists {
                        friends: self.listed(sql::FRIENDS, account).await?,
                        incoming: self.listed(sql::INCOMING, account).await?,
                        outgoing: self.listed(sql::OUTGOING, account).await?,
                        blocked: self.listed(sql::BLOCKED, account).await?,
                    })
                }

                async fn are_friends(
                    &self,
                    one: AccountId,
                    other: AccountId,
                ) -> Result<bool, StoreError> {
                    let (low, high) = ordered(one, other);
                    let found = sqlx::query_scalar::<_, i32>(sql::ARE_FRIENDS)
                        .bind(low.0)
                        .bind(high.0)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?;
                    Ok(found.is_some())
                }

                async fn expire_friend_requests(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let expired = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::EXPIRE_REQUESTS)
                            .bind(to_micros(before))
                            .bind(i64::from(limit))
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok(done.rows_affected())
                    };
                    expired.await.map_err(store_error)
                }
            }

            impl $store {
                /// The players of one list (`statement` binds the account).
                async fn listed(
                    &self,
                    statement: &'static str,
                    account: AccountId,
                ) -> Result<Vec<Listed>, StoreError> {
                    sqlx::query_as::<_, ListedRow>(statement)
                        .bind(account.0)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?
                        .into_iter()
                        .map(ListedRow::into_listed)
                        .collect()
                }
            }

            /// Locks both accounts' rows in id order, checks that both exist (and, for a
            /// request or an accept, that the acting one is not banned), then makes the change.
            async fn change_in(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
                other: AccountId,
                change: FriendChange,
                limits: FriendLimits,
                now: OffsetDateTime,
            ) -> Result<Result<Made, FriendRefusal>, sqlx::Error> {
                let (low, high) = ordered(account, other);
                let low_banned = lock_account(tx, low).await?;
                let high_banned = lock_account(tx, high).await?;
                let (mine, theirs) = if account == low {
                    (low_banned, high_banned)
                } else {
                    (high_banned, low_banned)
                };
                let Some(banned) = mine else {
                    return Ok(Err(FriendRefusal::NoAccount));
                };
                if theirs.is_none() {
                    return Ok(Err(FriendRefusal::UnknownPlayer));
                }
                let befriending = matches!(change, FriendChange::Request | FriendChange::Accept);
                if banned && befriending {
                    return Ok(Err(FriendRefusal::Banned));
                }
                let pair = Pair {
                    account,
                    other,
                    now: to_micros(now),
                };
                match change {
                    FriendChange::Request => request(tx, pair, limits).await,
                    FriendChange::Accept => accept(tx, pair, limits).await,
                    FriendChange::Decline => withdraw(tx, other, account).await.map(|gone| {
                        gone.then(|| {
                            answered(EventPayload::FriendRequestDeclined { friend: other })
                        })
                        .ok_or(FriendRefusal::NoRequest)
                    }),
                    FriendChange::Cancel => withdraw(tx, account, other).await.map(|gone| {
                        gone.then(|| {
                            answered(EventPayload::FriendRequestCancelled { friend: other })
                        })
                        .ok_or(FriendRefusal::NoRequest)
                    }),
                    FriendChange::Remove => unfriend(tx, pair).await.map(|gone| {
                        gone.then(|| answered(EventPayload::FriendRemoved { friend: other }))
                            .ok_or(FriendRefusal::NotFriends)
                    }),
                    FriendChange::Block => block(tx, pair).await,
                    FriendChange::Unblock => {
                        let lifted = sqlx::query(sql::DELETE_BLOCK)
                            .bind(account.0)
                            .bind(other.0)
                            .execute(&mut **tx)
                            .await?;
                        Ok(if lifted.rows_affected() == 1 {
                            Ok(answered(EventPayload::PlayerBlocked {
                                player: other,
                                blocked: false,
                            }))
                        } else {
                            Err(FriendRefusal::NotBlocked)
                        })
                    }
                }
            }

            /// The two accounts of a change and its time (unix microseconds).
            #[derive(Clone, Copy)]
            struct Pair {
                account: AccountId,
                other: AccountId,
                now: i64,
            }

            /// A change that is done, with its one event.
            fn answered(event: EventPayload) -> Made {
                (FriendChanged::Done, vec![event])
            }

            /// Whether `blocker` blocked `blocked`.
            async fn blocked(
                tx: &mut Transaction<'_, $db>,
                blocker: AccountId,
                blocked: AccountId,
            ) -> Result<bool, sqlx::Error> {
                let found = sqlx::query_scalar::<_, i32>(sql::IS_BLOCKED)
                    .bind(blocker.0)
                    .bind(blocked.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                Ok(found.is_some())
            }

            /// How many friends the account has.
            async fn friend_count(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<i64, sqlx::Error> {
                sqlx::query_scalar::<_, i64>(sql::FRIEND_COUNT)
                    .bind(account.0)
                    .fetch_one(&mut **tx)
                    .await
            }

            /// Deletes the request `from` sent `to`; whether there was one.
            async fn withdraw(
                tx: &mut Transaction<'_, $db>,
                from: AccountId,
                to: AccountId,
            ) -> Result<bool, sqlx::Error> {
                let gone = sqlx::query(sql::DELETE_REQUEST)
                    .bind(from.0)
                    .bind(to.0)
                    .execute(&mut **tx)
                    .await?;
                Ok(gone.rows_affected() == 1)
            }

            /// Ends the pair's friendship; whether there was one.
            async fn unfriend(
                tx: &mut Transaction<'_, $db>,
                pair: Pair,
            ) -> Result<bool, sqlx::Error> {
                let (low, high) = ordered(pair.account, pair.other);
                let gone = sqlx::query(sql::DELETE_FRIENDSHIP)
                    .bind(low.0)
                    .bind(high.0)
                    .execute(&mut **tx)
                    .await?;
                Ok(gone.rows_affected() == 1)
            }

            /// Makes the pair friends, each held to the most friends; the acting account's
            /// `friend_accepted` event.
            async fn befriend(
                tx: &mut Transaction<'_, $db>,
                pair: Pair,
                limits: FriendLimits,
            ) -> Result<Result<Made, FriendRefusal>, sqlx::Error> {
                if friend_count(tx, pair.account).await? >= limits.friends_max {
                    return Ok(Err(FriendRefusal::FriendsFull));
                }
                if friend_count(tx, pair.other).await? >= limits.friends_max {
                    return Ok(Err(FriendRefusal::TheirFriendsFull));
                }
                let (low, high) = ordered(pair.account, pair.other);
                let made = sqlx::query(sql::INSERT_FRIENDSHIP)
                    .bind(low.0)
                    .bind(high.0)
                    .bind(pair.now)
                    .execute(&mut **tx)
                    .await?;
                if made.rows_affected() == 0 {
                    return Ok(Err(FriendRefusal::AlreadyFriends));
                }
                let event = EventPayload::FriendAccepted { friend: pair.other };
                Ok(Ok((FriendChanged::Befriended, vec![event])))
            }

            /// A request: refused across a block either way or between friends; meeting the
            /// other's request, it makes them friends; else it is recorded, held to the most
            /// requests out.
            async fn request(
                tx: &mut Transaction<'_, $db>,
                pair: Pair,
                limits: FriendLimits,
            ) -> Result<Result<Made, FriendRefusal>, sqlx::Error> {
                let Pair { account, other, .. } = pair;
                if blocked(tx, other, account).await? {
                    return Ok(Err(FriendRefusal::BlockedByThem));
                }
                if blocked(tx, account, other).await? {
                    return Ok(Err(FriendRefusal::BlockedByYou));
                }
                let (low, high) = ordered(account, other);
                let friends = sqlx::query_scalar::<_, i32>(sql::ARE_FRIENDS)
                    .bind(low.0)
                    .bind(high.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                if friends.is_some() {
                    return Ok(Err(FriendRefusal::AlreadyFriends));
                }
                if withdraw(tx, other, account).await? {
                    return befriend(tx, pair, limits).await;
                }
                let out = sqlx::query_scalar::<_, i64>(sql::REQUESTS_OUT)
                    .bind(account.0)
                    .fetch_one(&mut **tx)
                    .await?;
                if out >= limits.requests_max {
                    return Ok(Err(FriendRefusal::RequestsFull));
                }
                let sent = sqlx::query(sql::INSERT_REQUEST)
                    .bind(account.0)
                    .bind(other.0)
                    .bind(pair.now)
                    .execute(&mut **tx)
                    .await?;
                if sent.rows_affected() == 0 {
                    return Ok(Err(FriendRefusal::AlreadyRequested));
                }
                let event = EventPayload::FriendRequested { friend: other };
                Ok(Ok((FriendChanged::Requested, vec![event])))
            }

            /// Accepting the other's request (a block takes requests away, so none is left
            /// across one).
            async fn accept(
                tx: &mut Transaction<'_, $db>,
                pair: Pair,
                limits: FriendLimits,
            ) -> Result<Result<Made, FriendRefusal>, sqlx::Error> {
                if !withdraw(tx, pair.other, pair.account).await? {
                    return Ok(Err(FriendRefusal::NoRequest));
                }
                befriend(tx, pair, limits).await
            }

            /// A block: recorded once; it ends the friendship and the requests either way,
            /// each with the event the other is told.
            async fn block(
                tx: &mut Transaction<'_, $db>,
                pair: Pair,
            ) -> Result<Result<Made, FriendRefusal>, sqlx::Error> {
                let Pair { account, other, .. } = pair;
                let made = sqlx::query(sql::INSERT_BLOCK)
                    .bind(account.0)
                    .bind(other.0)
                    .bind(pair.now)
                    .execute(&mut **tx)
                    .await?;
                if made.rows_affected() == 0 {
                    return Ok(Err(FriendRefusal::AlreadyBlocked));
                }
                let mut happened = Vec::new();
                if unfriend(tx, pair).await? {
                    happened.push(EventPayload::FriendRemoved { friend: other });
                }
                if withdraw(tx, account, other).await? {
                    happened.push(EventPayload::FriendRequestCancelled { friend: other });
                }
                if withdraw(tx, other, account).await? {
                    happened.push(EventPayload::FriendRequestDeclined { friend: other });
                }
                happened.push(EventPayload::PlayerBlocked {
                    player: other,
                    blocked: true,
                });
                Ok(Ok((FriendChanged::Done, happened)))
            }
        }
    };
}

pub(crate) use impl_friends;
