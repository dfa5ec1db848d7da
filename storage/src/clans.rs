//! [`ClanStore`](safezone_core::store::ClanStore), written once for both stores: the
//! transactions of clans, and the locks an account's deletion takes on its clan.
//!
//! One clan per account is settled by the unique `clan_members.account_id`, one tag by its
//! unique index, one invitation by the primary key of `clan_invites`. A clan's members change
//! one transaction after the other: creating, joining, inviting and account deletion lock the
//! account's row first and then the clan's row, leaving locks the clan's row (see
//! [`refusable`](crate::refusable) for the order of locks). So the `clan_member_left` trigger,
//! which hands a clan on or dissolves it, always runs with the clan locked and, at PostgreSQL's
//! READ COMMITTED, sees every earlier change of the members committed; and an account being
//! deleted is never made a member or an invitee behind the deletion's back.

use safezone_core::store::{AccountId, Clan, ClanId, ClanMember, StoreError};

use crate::micros::from_micros;
use crate::row::friend_code;

/// A clan with one of its members, as selected by [`CLAN`](crate::statements::clans::CLAN).
#[derive(sqlx::FromRow)]
pub(crate) struct ClanRow {
    clan_id: i64,
    creator_id: i64,
    tag: String,
    clan_name: String,
    description: Option<String>,
    max_members: i64,
    created: i64,
    account_id: i64,
    friend_name: String,
    friend_digits: i32,
    avatar: Option<String>,
    status: String,
}

impl ClanRow {
    /// The clans of rows in which each clan's rows follow each other, members in row order.
    pub(crate) fn into_clans(rows: Vec<Self>) -> Result<Vec<Clan>, StoreError> {
        let mut clans: Vec<Clan> = Vec::new();
        for row in rows {
            let member = ClanMember {
                account: AccountId(row.account_id),
                friend_code: friend_code(&row.friend_name, row.friend_digits)?,
                avatar: row.avatar,
                status: row.status,
            };
            match clans.last_mut() {
                Some(last) if last.id.0 == row.clan_id => last.members.push(member),
                _ => clans.push(Clan {
                    id: ClanId(row.clan_id),
                    creator: AccountId(row.creator_id),
                    tag: row.tag,
                    name: row.clan_name,
                    description: row.description,
                    max_members: row.max_members,
                    members: vec![member],
                    created: from_micros(row.created)?,
                }),
            }
        }
        Ok(clans)
    }
}

/// Implements [`ClanStore`](safezone_core::store::ClanStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `lock_departing` for account
/// deletion, in a child module `clans` of the calling one, which also needs the `events` module
/// of [`impl_events`](crate::events::impl_events) and the `refusable` module of
/// [`impl_refusable`](crate::refusable::impl_refusable).
macro_rules! impl_clans {
    ($store:ident, $db:ty) => {
        mod clans {
            use async_trait::async_trait;
            use safezone_core::events::EventPayload;
            use safezone_core::store::{
                AccountId, Clan, ClanId, ClanLeft, ClanRefusal, ClanStore, NewClan, StoreError,
            };
            use sqlx::Transaction;
            use time::OffsetDateTime;

            use super::refusable::{lock_account, settle};
            use super::{events, $store};
            use crate::clans::ClanRow;
            use crate::error::{decode, store_error};
            use crate::micros::to_micros;
            use crate::statements::clans as sql;
            use crate::statements::friends::IS_BLOCKED;

            #[async_trait]
            impl ClanStore for $store {
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
                events::append_for(tx, account, now, happened).await?;
                Ok(())
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
                // Both accounts' rows are locked (in id order, before the clan's): a
                // concurrent deletion of the invitee either ends first, and the invitee is
                // unknown, or waits for the invitation and takes it away with the account; the
                // inviter's `clan_invited` event is written after its row was locked, as every
                // event of an account is.
                let (inviter_banned, invitee_exists) = if inviter <= invitee {
                    let inviter_banned = lock_account(tx, inviter).await?;
                    (inviter_banned, lock_account(tx, invitee).await?.is_some())
                } else {
                    let invitee_exists = lock_account(tx, invitee).await?.is_some();
                    (lock_account(tx, inviter).await?, invitee_exists)
                };
                if let Err(refusal) = may_act(inviter_banned) {
                    return Ok(Err(refusal));
                }
                if lock_clan(tx, clan, now).await?.is_none() {
                    return Ok(Err(ClanRefusal::UnknownClan));
                }
                if clan_of_in(tx, inviter).await? != Some(clan.0) {
                    return Ok(Err(ClanRefusal::NotMember));
                }
                if !invitee_exists {
                    return Ok(Err(ClanRefusal::UnknownUser));
                }
                // A block is taken and lifted with the invitee's row locked (as every change of
                // friends locks both accounts), so it stands until the invitation is made.
                let blocked = sqlx::query_scalar::<_, i32>(IS_BLOCKED)
                    .bind(invitee.0)
                    .bind(inviter.0)
                    .fetch_optional(&mut **tx)
                    .await?;
                if blocked.is_some() {
                    return Ok(Err(ClanRefusal::Blocked));
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
                if invited.rows_affected() != 1 {
                    return Ok(Err(ClanRefusal::AlreadyInvited));
                }
                let happened = vec![EventPayload::ClanInvited {
                    clan: clan.0,
                    invitee,
                }];
                events::append_for(tx, inviter, now, happened).await?;
                Ok(Ok(()))
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

pub(crate) use impl_clans;
