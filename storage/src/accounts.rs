//! [`AccountStore`](safezone_core::store::AccountStore), written once for both stores: the
//! sign-in transaction (its retry policy in [`sign_in`](crate::sign_in)), keys and sessions,
//! account views, roles, bans, the chat link, deletion and the retention sweep's deletes.

use safezone_core::domain::FriendCode;
use safezone_core::store::{
    Account, AccountId, AccountView, Clan, ClanId, KeySession, Role, StoreError,
};
use sqlx::{Postgres, Sqlite};
use time::OffsetDateTime;

use crate::economy::{HeldRow, HoldingRow};
use crate::micros::from_micros;

/// How a database creates a new account with its sign-in's events.
pub(crate) trait CreateAccount: sqlx::Database {
    /// Whether one statement can insert an account and its events
    /// ([`CREATE_ACCOUNTS`](crate::statements::accounts::CREATE_ACCOUNTS) for the concurrent
    /// first sign-ins together, [`CREATE_ACCOUNT_SIGNED_IN`](crate::statements::accounts::CREATE_ACCOUNT_SIGNED_IN)
    /// for one): not where a statement inserts into one table only (SQLite), which writes a
    /// batch's accounts and then their events in one transaction, and one sign-in's in the
    /// sign-in transaction.
    const IN_ONE_STATEMENT: bool;
}

impl CreateAccount for Postgres {
    const IN_ONE_STATEMENT: bool = true;
}

impl CreateAccount for Sqlite {
    const IN_ONE_STATEMENT: bool = false;
}

/// An `accounts` row, as selected by [`ACCOUNT_BY_ID`](crate::statements::accounts::ACCOUNT_BY_ID).
#[derive(sqlx::FromRow)]
pub(crate) struct AccountRow {
    id: i64,
    provider: String,
    identifier: String,
    name: Option<String>,
    avatar: Option<String>,
    email: Option<String>,
    friend_name: String,
    friend_digits: i32,
    status: String,
    experience: i64,
    level: i64,
    coins: i64,
    gems: i64,
    role: String,
    is_banned: bool,
    created: i64,
    updated: i64,
}

impl AccountRow {
    /// The account's id.
    pub(crate) fn id(&self) -> i64 {
        self.id
    }

    /// The account's sign-in identity: provider and identifier.
    pub(crate) fn identity(&self) -> (&str, &str) {
        (&self.provider, &self.identifier)
    }

    /// The account's friend code as stored: name and digits.
    pub(crate) fn friend_code(&self) -> (&str, i64) {
        (&self.friend_name, i64::from(self.friend_digits))
    }

    /// The account; a row that breaks the record's rules is corrupt data.
    pub(crate) fn into_account(self) -> Result<Account, StoreError> {
        let friend_code = u16::try_from(self.friend_digits)
            .ok()
            .and_then(|digits| FriendCode::new(&self.friend_name, digits).ok())
            .ok_or_else(|| {
                corrupt(
                    self.id,
                    format!("friend code {}#{}", self.friend_name, self.friend_digits),
                )
            })?;
        let role = Role::parse(&self.role)
            .ok_or_else(|| corrupt(self.id, format!("role `{}`", self.role)))?;
        Ok(Account {
            id: AccountId(self.id),
            provider: self.provider,
            identifier: self.identifier,
            name: self.name,
            avatar: self.avatar,
            email: self.email,
            friend_code,
            status: self.status,
            experience: self.experience,
            level: self.level,
            coins: self.coins,
            gems: self.gems,
            role,
            is_banned: self.is_banned,
            created: from_micros(self.created)?,
            updated: from_micros(self.updated)?,
        })
    }
}

/// A key's account and expiry, as selected by [`SESSION`](crate::statements::accounts::SESSION).
#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    #[sqlx(flatten)]
    account: AccountRow,
    key_expires: i64,
}

impl SessionRow {
    /// The key's session.
    pub(crate) fn into_session(self) -> Result<KeySession, StoreError> {
        Ok(KeySession {
            account: self.account.into_account()?,
            expires: from_micros(self.key_expires)?,
        })
    }
}

/// The account's columns of an account view's rows, as selected by
/// [`SESSION_VIEW`](crate::statements::accounts::SESSION_VIEW) and
/// [`ACCOUNT_VIEW`](crate::statements::accounts::ACCOUNT_VIEW): the account, the id of its
/// clan, and the key's expiry (null in an account's view).
#[derive(sqlx::FromRow)]
pub(crate) struct ViewedAccountRow {
    #[sqlx(flatten)]
    account: AccountRow,
    clan_id: Option<i64>,
    key_expires: Option<i64>,
}

impl ViewedAccountRow {
    /// The clan the account is a member of, if any.
    pub(crate) fn clan(&self) -> Option<ClanId> {
        self.clan_id.map(ClanId)
    }

    /// The account's view, holding what the view's rows `held` list, a member of `clan`; and
    /// the key's expiry (`None` in an account's view).
    pub(crate) fn into_view(
        self,
        held: Vec<HeldRow>,
        clan: Option<Clan>,
    ) -> Result<(AccountView, Option<OffsetDateTime>), StoreError> {
        let holdings =
            HoldingRow::into_holdings(held.into_iter().filter_map(HeldRow::holding).collect())?;
        let view = AccountView {
            account: self.account.into_account()?,
            holdings,
            clan,
        };
        Ok((view, self.key_expires.map(from_micros).transpose()?))
    }
}

fn corrupt(id: i64, what: String) -> StoreError {
    StoreError::Internal(format!("account {id} holds an invalid {what}"))
}

/// Implements [`AccountStore`](safezone_core::store::AccountStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), with `read_view` (an account's view
/// on a connection) for the economy's transaction, in a child module `accounts` of the calling
/// one. The calling module also needs the `account_log` module of
/// [`impl_account_log`](crate::account_log::impl_account_log), the `clans`, `tournaments` and
/// `polls` modules of [`impl_clans`](crate::clans::impl_clans),
/// [`impl_tournaments`](crate::tournaments::impl_tournaments) and
/// [`impl_polls`](crate::polls::impl_polls), the `events` module of
/// [`impl_events`](crate::events::impl_events) and the `matches` module of
/// [`impl_matches`](crate::matches::impl_matches).
macro_rules! impl_accounts {
    ($store:ident, $db:ty) => {
        mod accounts {
            use std::collections::HashMap;
            use std::sync::Arc;

            use async_trait::async_trait;
            use safezone_core::domain::{FriendCode, KEY_GENERATIONS, KeyHash};
            use safezone_core::events::EventPayload;
            use safezone_core::store::{
                Account, AccountChange, AccountChanges, AccountId, AccountStore, AccountView,
                Holdings, KeyLookup, KeySession, NewAuditEntry, NewSignIn, Role, SessionView,
                SignedIn, StoreError,
            };
            use sqlx::{Database, FromRow, Row};
            use time::OffsetDateTime;

            use super::{
                account_log, clans, events, matches, operator, polls, tournaments, $store,
            };
            use crate::accounts::{AccountRow, CreateAccount, SessionRow, ViewedAccountRow};
            use crate::bulk::{BulkRows, Rows};
            use crate::clans::ClanRow;
            use crate::economy::HeldRow;
            use crate::error::{decode, is_unique_violation, store_error};
            use crate::micros::to_micros;
            use crate::sign_in::{Attempt, ExistingSignIn, NewAccount, sign_in_with};
            use crate::statements::accounts as sql;
            use crate::statements::{clans as clans_sql, economy as economy_sql};

            /// The events of a first sign-in with `code`, `(kind, payload)`: `account_created`,
            /// then `signed_in`.
            fn first_sign_in_events(
                sign_in: &NewSignIn,
                code: &FriendCode,
            ) -> Result<[(&'static str, String); 2], sqlx::Error> {
                let events = [
                    EventPayload::AccountCreated {
                        provider: sign_in.provider.clone(),
                        friend_code: code.to_string(),
                    },
                    EventPayload::SignedIn {
                        provider: sign_in.provider.clone(),
                        first_login: true,
                    },
                ];
                let [created, signed_in] = events.map(|event| {
                    event
                        .to_json()
                        .map(|payload| (event.kind(), payload))
                        .map_err(|err| sqlx::Error::Encode(Box::new(err)))
                });
                Ok([created?, signed_in?])
            }

            /// The kinds of [`first_sign_in_events`].
            fn first_sign_in_kinds() -> [&'static str; 2] {
                [
                    EventPayload::AccountCreated {
                        provider: String::new(),
                        friend_code: String::new(),
                    }
                    .kind(),
                    EventPayload::SignedIn {
                        provider: String::new(),
                        first_login: true,
                    }
                    .kind(),
                ]
            }

            /// A statement of an account view with its binds.
            type ViewQuery<'q> = sqlx::query::Query<'q, $db, <$db as Database>::Arguments>;

            /// Runs `query` ([`SESSION_VIEW`](sql::SESSION_VIEW) or
            /// [`ACCOUNT_VIEW`](sql::ACCOUNT_VIEW)) on `connection`, then reads the clan when
            /// the account is in one: the account's view and the key's expiry (`None` in an
            /// account's view); `None` without a row.
            pub(super) async fn read_view(
                connection: &mut <$db as Database>::Connection,
                query: ViewQuery<'_>,
            ) -> Result<Option<(AccountView, Option<OffsetDateTime>)>, sqlx::Error> {
                let rows = query.fetch_all(&mut *connection).await?;
                view_of(connection, &rows).await
            }

            /// The views of the accounts `ids` on `connection`, by account id (an id without
            /// an account has none), read with one statement for as many ids as the database
            /// takes in one ([`ACCOUNT_VIEWS`](sql::ACCOUNT_VIEWS)) and one per clan.
            pub(super) async fn read_views(
                connection: &mut <$db as Database>::Connection,
                ids: &[i64],
            ) -> Result<HashMap<i64, AccountView>, sqlx::Error> {
                let mut views = HashMap::with_capacity(ids.len());
                for batch in ids.chunks(<$db as BulkRows>::MAX_ROWS) {
                    let mut query = sqlx::QueryBuilder::<$db>::new(sql::ACCOUNT_VIEWS);
                    <$db as BulkRows>::push_one_of(&mut query, batch);
                    query.push(sql::ACCOUNT_VIEWS_END);
                    let rows = query.build().fetch_all(&mut *connection).await?;
                    for account_rows in rows.chunk_by(|one, next| {
                        one.try_get::<i64, _>("id").ok() == next.try_get::<i64, _>("id").ok()
                    }) {
                        if let Some((view, _)) = view_of(connection, account_rows).await? {
                            views.insert(view.account.id.0, view);
                        }
                    }
                }
                Ok(views)
            }

            /// The view that an account's rows (see `select_account_view!`) make up, reading
            /// its clan on `connection` when it is in one, with the key's expiry (`None` in an
            /// account's view); `None` without a row.
            async fn view_of(
                connection: &mut <$db as Database>::Connection,
                rows: &[<$db as Database>::Row],
            ) -> Result<Option<(AccountView, Option<OffsetDateTime>)>, sqlx::Error> {
                let Some(first) = rows.first() else {
                    return Ok(None);
                };
                let head = ViewedAccountRow::from_row(first)?;
                let held = rows
                    .iter()
                    .map(HeldRow::from_row)
                    .collect::<Result<_, _>>()?;
                let clan = match head.clan() {
                    Some(clan) => {
                        let members = sqlx::query_as::<_, ClanRow>(clans_sql::CLAN)
                            .bind(clan.0)
                            .fetch_all(&mut *connection)
                            .await?;
                        ClanRow::into_clans(members).map_err(decode)?.pop()
                    }
                    None => None,
                };
                head.into_view(held, clan).map(Some).map_err(decode)
            }

            /// A stored key generation as a key carries it.
            fn generation_of(stored: i64) -> Result<u32, sqlx::Error> {
                u32::try_from(stored)
                    .ok()
                    .filter(|generation| *generation < KEY_GENERATIONS)
                    .ok_or_else(|| {
                        decode(StoreError::Internal(format!(
                            "key generation {stored} is out of range"
                        )))
                    })
            }

            /// `payload` without the personal data it tells, when it tells some: a deleted
            /// account's friend code goes from its creation and renames (their kinds stay).
            fn without_personal_data(payload: EventPayload) -> Option<EventPayload> {
                match payload {
                    EventPayload::AccountCreated { provider, .. } => {
                        Some(EventPayload::AccountCreated {
                            provider,
                            friend_code: String::new(),
                        })
                    }
                    EventPayload::Renamed { .. } => Some(EventPayload::Renamed {
                        friend_code: String::new(),
                    }),
                    _ => None,
                }
            }

            /// Erases the personal data of `account`'s events in the deletion's transaction
            /// `tx`: their payloads are written again without it; ids, kinds, amounts and
            /// whether each was relayed stay.
            async fn erase_personal_data(
                tx: &mut sqlx::Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<(), sqlx::Error> {
                let told = sqlx::query_as::<_, (i64, String)>(sql::PERSONAL_EVENTS)
                    .bind(account.0)
                    .fetch_all(&mut **tx)
                    .await?;
                for (id, payload) in told {
                    let payload = EventPayload::from_json(&payload)
                        .map_err(|err| sqlx::Error::Decode(Box::new(err)))?;
                    let Some(erased) = without_personal_data(payload) else {
                        continue;
                    };
                    let erased = erased
                        .to_json()
                        .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                    sqlx::query(sql::SET_EVENT_PAYLOAD)
                        .bind(id)
                        .bind(erased)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }

            /// Locks the row of the signing-in identity's account, if it has one, and
            /// answers its id and key generation.
            async fn lock_identity(
                connection: &mut <$db as Database>::Connection,
                sign_in: &NewSignIn,
            ) -> Result<Option<(i64, i64)>, sqlx::Error> {
                sqlx::query_as::<_, (i64, i64)>(sql::LOCK_ACCOUNT_OF_IDENTITY)
                    .bind(&sign_in.provider)
                    .bind(&sign_in.identifier)
                    .fetch_optional(connection)
                    .await
            }

            impl $store {
                /// Runs `statement`, a bounded delete binding a time and the most rows, in a
                /// write transaction of its own; answers how many rows went.
                pub(super) async fn delete_batch(
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

                /// The sign-in of an existing identity (most sign-ins): its account's view
                /// read, then its event appended with those of the concurrent sign-ins, one
                /// statement and one commit for all (`existing_sign_ins`); `None` when the
                /// identity has no account (or it was deleted between the two, and nothing was
                /// written).
                async fn sign_in_existing(
                    &self,
                    sign_in: &NewSignIn,
                ) -> Result<Option<Attempt>, StoreError> {
                    let mut reader = self.pool.acquire().await.map_err(store_error)?;
                    let query = sqlx::query(sql::ACCOUNT_VIEW_OF_IDENTITY)
                        .bind(&sign_in.provider)
                        .bind(&sign_in.identifier);
                    let Some((view, _)) =
                        read_view(&mut reader, query).await.map_err(store_error)?
                    else {
                        return Ok(None);
                    };
                    drop(reader);
                    let generation = self
                        .signed_in_event(view.account.id, &sign_in.provider, sign_in.now)
                        .await?;
                    Ok(generation
                        .map(|generation| Attempt::SignedIn(Box::new(view), false, generation)))
                }

                /// Appends an existing account's `signed_in` event with those of the
                /// concurrent sign-ins (`existing_sign_ins`); its key generation, or `None`
                /// (nothing written) when the account is gone.
                async fn signed_in_event(
                    &self,
                    account: AccountId,
                    provider: &str,
                    now: OffsetDateTime,
                ) -> Result<Option<u32>, StoreError> {
                    let happened = EventPayload::SignedIn {
                        provider: provider.to_owned(),
                        first_login: false,
                    };
                    let payload = happened.to_json().map_err(|err| {
                        StoreError::Internal(format!("a sign-in event did not serialize: {err}"))
                    })?;
                    let signed_in = ExistingSignIn {
                        account: account.0,
                        payload,
                        created: to_micros(now),
                    };
                    let store = self.clone();
                    let generation = self
                        .existing_sign_ins
                        .submit(signed_in, move |batch| {
                            let store = store.clone();
                            async move { store.write_existing_sign_ins(batch).await }
                        })
                        .await?;
                    generation
                        .map(generation_of)
                        .transpose()
                        .map_err(store_error)
                }

                /// Writes a batch of existing accounts' sign-ins with one statement (its own
                /// commit): for each, its account's key generation, or `None` when the account
                /// is gone (its event is not written).
                async fn write_existing_sign_ins(
                    &self,
                    batch: Vec<ExistingSignIn>,
                ) -> Vec<Result<Option<i64>, StoreError>> {
                    let kind = EventPayload::SignedIn {
                        provider: String::new(),
                        first_login: false,
                    }
                    .kind();
                    let rows = Rows::new()
                        .int("account", batch.iter().map(|one| one.account).collect())
                        .text("kind", vec![kind; batch.len()])
                        .text(
                            "payload",
                            batch.iter().map(|one| one.payload.as_str()).collect(),
                        )
                        .int("created", batch.iter().map(|one| one.created).collect());
                    let written = async {
                        let mut writer = self.write_connection().await?;
                        matches::fetch_rows::<(i64, i64)>(
                            &mut writer,
                            sql::SIGN_INS_EXISTING,
                            &rows,
                            sql::SIGN_INS_EXISTING_END,
                        )
                        .await
                    };
                    match written.await {
                        Ok(written) => {
                            let generations: HashMap<i64, i64> = written.into_iter().collect();
                            batch
                                .iter()
                                .map(|one| Ok(generations.get(&one.account).copied()))
                                .collect()
                        }
                        Err(err) => {
                            let err = store_error(err);
                            batch.iter().map(|_| Err(err.clone())).collect()
                        }
                    }
                }

                /// Records the revocation of one signed key with its `keys_revoked` event, in
                /// one transaction that locks the account's row first; `false` (nothing
                /// written) when the key no longer opens its account or was revoked before.
                async fn revoke_signed_key(
                    &self,
                    account: AccountId,
                    generation: u32,
                    expires: OffsetDateTime,
                    hash: &KeyHash,
                ) -> Result<bool, sqlx::Error> {
                    let now = OffsetDateTime::now_utc();
                    let mut tx = self.begin().await?;
                    let locked = sqlx::query_scalar::<_, bool>(economy_sql::LOCK_ACCOUNT)
                        .bind(account.0)
                        .bind(to_micros(now))
                        .fetch_optional(&mut *tx)
                        .await?;
                    let revoked = match locked {
                        Some(_) => sqlx::query(sql::REVOKE_SIGNED_KEY)
                            .bind(hash.as_str())
                            .bind(to_micros(expires))
                            .bind(account.0)
                            .bind(i64::from(generation))
                            .execute(&mut *tx)
                            .await?
                            .rows_affected(),
                        None => 0,
                    };
                    if revoked == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    let happened = vec![EventPayload::KeysRevoked { all: false }];
                    events::append_for(&mut tx, account, now, happened).await?;
                    tx.commit().await?;
                    Ok(true)
                }

                /// Creates the identity's account with `code` and its events with those of the
                /// concurrent first sign-ins, one statement and one commit for all
                /// (`new_accounts`); `None` (nothing written) when its identity has an account,
                /// comes again in the batch, or its code is taken, for
                /// [`create_account`](Self::create_account) to tell which.
                async fn create_with_others(
                    &self,
                    sign_in: &NewSignIn,
                    code: &FriendCode,
                ) -> Result<Option<Account>, StoreError> {
                    let [created, signed_in] =
                        first_sign_in_events(sign_in, code).map_err(store_error)?;
                    let new_account = NewAccount {
                        provider: sign_in.provider.clone(),
                        identifier: sign_in.identifier.clone(),
                        name: sign_in.name.clone(),
                        avatar: sign_in.avatar.clone(),
                        email: sign_in.email.clone(),
                        friend_name: code.name().to_owned(),
                        friend_digits: i64::from(code.digits()),
                        created: to_micros(sign_in.now),
                        created_payload: created.1,
                        signed_in_payload: signed_in.1,
                    };
                    let store = self.clone();
                    self.new_accounts
                        .submit(new_account, move |batch| {
                            let store = store.clone();
                            async move { store.write_new_accounts(batch).await }
                        })
                        .await
                }

                /// [`create_with_others`](Self::create_with_others) as a sign-in's attempt:
                /// the new account signed in (counted in `first_tries`), or `None`.
                async fn created_with_others(
                    &self,
                    sign_in: &NewSignIn,
                    code: &FriendCode,
                ) -> Result<Option<Attempt>, StoreError> {
                    let Some(account) = self.create_with_others(sign_in, code).await? else {
                        return Ok(None);
                    };
                    self.first_tries.turned_out(true);
                    let view = AccountView {
                        account,
                        holdings: Holdings::default(),
                        clan: None,
                    };
                    Ok(Some(Attempt::SignedIn(Box::new(view), true, 0)))
                }

                /// Writes a batch of new accounts with their events in one statement (its own
                /// commit): for each, the account created, or `None`.
                async fn write_new_accounts(
                    &self,
                    batch: Vec<NewAccount>,
                ) -> Vec<Result<Option<Account>, StoreError>> {
                    let [created_kind, signed_in_kind] = first_sign_in_kinds();
                    let rows = Rows::new()
                        .int("at", (0..batch.len()).map(|at| at as i64).collect())
                        .text(
                            "provider",
                            batch.iter().map(|one| one.provider.as_str()).collect(),
                        )
                        .text(
                            "identifier",
                            batch.iter().map(|one| one.identifier.as_str()).collect(),
                        )
                        .maybe_text(
                            "name",
                            batch.iter().map(|one| one.name.as_deref()).collect(),
                        )
                        .maybe_text(
                            "avatar",
                            batch.iter().map(|one| one.avatar.as_deref()).collect(),
                        )
                        .maybe_text(
                            "email",
                            batch.iter().map(|one| one.email.as_deref()).collect(),
                        )
                        .text(
                            "friend_name",
                            batch.iter().map(|one| one.friend_name.as_str()).collect(),
                        )
                        .int(
                            "friend_digits",
                            batch.iter().map(|one| one.friend_digits).collect(),
                        )
                        .int("created", batch.iter().map(|one| one.created).collect())
                        .text("created_kind", vec![created_kind; batch.len()])
                        .text(
                            "created_payload",
                            batch
                                .iter()
                                .map(|one| one.created_payload.as_str())
                                .collect(),
                        )
                        .text("signed_in_kind", vec![signed_in_kind; batch.len()])
                        .text(
                            "signed_in_payload",
                            batch
                                .iter()
                                .map(|one| one.signed_in_payload.as_str())
                                .collect(),
                        );
                    let written = if <$db as CreateAccount>::IN_ONE_STATEMENT {
                        self.create_accounts_in_one_statement(&rows).await
                    } else {
                        self.create_accounts_table_by_table(&rows, &batch).await
                    };
                    let created = written.map_err(store_error).and_then(|rows| {
                        rows.into_iter()
                            .map(AccountRow::into_account)
                            .collect::<Result<Vec<Account>, StoreError>>()
                    });
                    let mut created: HashMap<(String, String), Account> = match created {
                        Ok(created) => created
                            .into_iter()
                            .map(|account| {
                                (
                                    (account.provider.clone(), account.identifier.clone()),
                                    account,
                                )
                            })
                            .collect(),
                        Err(err) => return batch.iter().map(|_| Err(err.clone())).collect(),
                    };
                    // The first of an identity's rows in the batch made its account; a later
                    // one finds it taken (`None`) and signs it in on its next attempt.
                    batch
                        .iter()
                        .map(|one| {
                            Ok(created.remove(&(one.provider.clone(), one.identifier.clone())))
                        })
                        .collect()
                }

                /// The accounts of a batch of first sign-ins (`rows`) and their events, created
                /// by one statement ([`CREATE_ACCOUNTS`](sql::CREATE_ACCOUNTS)); answers the
                /// accounts created.
                async fn create_accounts_in_one_statement(
                    &self,
                    rows: &Rows<'_>,
                ) -> Result<Vec<AccountRow>, sqlx::Error> {
                    let mut connection = self.pool.acquire().await?;
                    matches::fetch_rows::<AccountRow>(
                        &mut connection,
                        sql::CREATE_ACCOUNTS,
                        rows,
                        sql::CREATE_ACCOUNTS_END,
                    )
                    .await
                }

                /// The accounts of a batch of first sign-ins (`rows`, made of `batch`) and then
                /// their events, a statement each in one transaction, where a statement writes
                /// one table (SQLite); answers the accounts created.
                async fn create_accounts_table_by_table(
                    &self,
                    rows: &Rows<'_>,
                    batch: &[NewAccount],
                ) -> Result<Vec<AccountRow>, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let mut created = matches::fetch_rows::<AccountRow>(
                        &mut *tx,
                        sql::INSERT_ACCOUNTS,
                        rows,
                        sql::INSERT_ACCOUNTS_END,
                    )
                    .await?;
                    created.sort_by_key(AccountRow::id);
                    // The row that made an account: its identity with the code it offered.
                    let made: HashMap<((&str, &str), (&str, i64)), &NewAccount> = batch
                        .iter()
                        .map(|one| {
                            let identity = (one.provider.as_str(), one.identifier.as_str());
                            let code = (one.friend_name.as_str(), one.friend_digits);
                            ((identity, code), one)
                        })
                        .collect();
                    let [created_kind, signed_in_kind] = first_sign_in_kinds();
                    let mut events = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                    for account in &created {
                        // Every account created comes from one of the batch's rows.
                        let Some(one) = made.get(&(account.identity(), account.friend_code()))
                        else {
                            continue;
                        };
                        for (kind, payload) in [
                            (created_kind, one.created_payload.as_str()),
                            (signed_in_kind, one.signed_in_payload.as_str()),
                        ] {
                            events.0.push(account.id());
                            events.1.push(kind);
                            events.2.push(payload);
                            events.3.push(one.created);
                        }
                    }
                    let events = Rows::new()
                        .int("account", events.0)
                        .text("kind", events.1)
                        .text("payload", events.2)
                        .int("created", events.3);
                    matches::execute_rows(
                        &mut *tx,
                        crate::statements::events::INSERT_EVENTS,
                        &events,
                        crate::statements::matches::FROM_ROWS_END,
                    )
                    .await?;
                    tx.commit().await?;
                    Ok(created)
                }

                /// Creates the identity's account with `code` and its events in one statement
                /// ([`CREATE_ACCOUNT_SIGNED_IN`](sql::CREATE_ACCOUNT_SIGNED_IN)): `NoAccount`
                /// when the identity has an account already (created meanwhile by a concurrent
                /// sign-in, which the next attempt signs in), `CodeTaken` when the code is.
                async fn create_account(
                    &self,
                    sign_in: &NewSignIn,
                    code: &FriendCode,
                ) -> Result<Attempt, sqlx::Error> {
                    let events = first_sign_in_events(sign_in, code)?;
                    let mut query = sqlx::query_as::<_, AccountRow>(sql::CREATE_ACCOUNT_SIGNED_IN)
                        .bind(&sign_in.provider)
                        .bind(&sign_in.identifier)
                        .bind(&sign_in.name)
                        .bind(&sign_in.avatar)
                        .bind(&sign_in.email)
                        .bind(code.name())
                        .bind(i32::from(code.digits()))
                        .bind(to_micros(sign_in.now));
                    for (kind, payload) in events {
                        query = query.bind(kind).bind(payload);
                    }
                    let created = match query.fetch_optional(&self.pool).await {
                        Err(err) if is_unique_violation(&err) => return Ok(Attempt::CodeTaken),
                        created => created?,
                    };
                    let Some(created) = created else {
                        return Ok(Attempt::NoAccount);
                    };
                    let view = AccountView {
                        account: created.into_account().map_err(decode)?,
                        holdings: Holdings::default(),
                        clan: None,
                    };
                    Ok(Attempt::SignedIn(Box::new(view), true, 0))
                }

                /// One sign-in: an existing identity's, else one creating its account with
                /// `code` (tried first when most recent sign-ins were new: `first_tries`), else
                /// a transaction offering `code`.
                async fn attempt(
                    &self,
                    sign_in: &NewSignIn,
                    code: Option<&FriendCode>,
                ) -> Result<Attempt, StoreError> {
                    let created_first = code.filter(|_| self.first_tries.create_first());
                    if let Some(code) = created_first
                        && let Some(account) = self.created_with_others(sign_in, code).await?
                    {
                        return Ok(account);
                    }
                    if let Some(signed_in) = self.sign_in_existing(sign_in).await? {
                        self.first_tries.turned_out(false);
                        return Ok(signed_in);
                    }
                    if let Some(code) = code {
                        if created_first.is_none()
                            && let Some(account) = self.created_with_others(sign_in, code).await?
                        {
                            return Ok(account);
                        }
                        // Nothing written: the statement (PostgreSQL) or the transaction
                        // (SQLite) below tells why.
                        if <$db as CreateAccount>::IN_ONE_STATEMENT {
                            return self
                                .create_account(sign_in, code)
                                .await
                                .map_err(store_error);
                        }
                    }
                    self.sign_in_transaction(sign_in, code)
                        .await
                        .map_err(store_error)
                }

                /// One sign-in transaction, offering `code` if the identity has no account yet:
                /// the account is created (or, created meanwhile by a concurrent sign-in,
                /// locked) and its events appended; a new account holds nothing yet, so only
                /// an existing one's view is read.
                async fn sign_in_transaction(
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
                    let (id, generation) = match (&created, existing) {
                        (Some(account), _) => (account.id(), 0),
                        (None, Some(found)) => found,
                        (None, None) => {
                            tx.rollback().await?;
                            return Ok(Attempt::NoAccount);
                        }
                    };
                    let first_login = created.is_some();
                    let mut happened = Vec::new();
                    if let (true, Some(code)) = (first_login, code) {
                        happened.push(EventPayload::AccountCreated {
                            provider: sign_in.provider.clone(),
                            friend_code: code.to_string(),
                        });
                    }
                    happened.push(EventPayload::SignedIn {
                        provider: sign_in.provider.clone(),
                        first_login,
                    });
                    events::append_for(&mut tx, AccountId(id), sign_in.now, happened).await?;
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
                    Ok(Attempt::SignedIn(
                        Box::new(view),
                        first_login,
                        generation_of(generation)?,
                    ))
                }
            }

            #[async_trait]
            impl AccountStore for $store {
                async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError> {
                    sign_in_with(&sign_in.friend_code_candidates, |code| {
                        self.attempt(&sign_in, code)
                    })
                    .await
                }

                async fn sign_in_account(
                    &self,
                    account: AccountId,
                    provider: &str,
                    now: OffsetDateTime,
                ) -> Result<Option<u32>, StoreError> {
                    self.signed_in_event(account, provider, now).await
                }

                async fn session(
                    &self,
                    key: &KeyLookup,
                    now: OffsetDateTime,
                ) -> Result<Option<KeySession>, StoreError> {
                    let query = match key {
                        KeyLookup::Stored(hash) => sqlx::query_as::<_, SessionRow>(sql::SESSION)
                            .bind(hash.as_str())
                            .bind(to_micros(now)),
                        KeyLookup::Signed { expires, .. } if *expires <= now => return Ok(None),
                        KeyLookup::Signed {
                            account,
                            generation,
                            expires,
                            hash,
                        } => sqlx::query_as::<_, SessionRow>(sql::SIGNED_SESSION)
                            .bind(account.0)
                            .bind(i64::from(*generation))
                            .bind(to_micros(*expires))
                            .bind(hash.as_str()),
                    };
                    query
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(SessionRow::into_session)
                        .transpose()
                }

                async fn session_view(
                    &self,
                    key: &KeyLookup,
                    now: OffsetDateTime,
                ) -> Result<Option<SessionView>, StoreError> {
                    let query = match key {
                        KeyLookup::Stored(hash) => sqlx::query(sql::SESSION_VIEW)
                            .bind(hash.as_str())
                            .bind(to_micros(now)),
                        KeyLookup::Signed { expires, .. } if *expires <= now => return Ok(None),
                        KeyLookup::Signed {
                            account,
                            generation,
                            expires,
                            hash,
                        } => sqlx::query(sql::SIGNED_SESSION_VIEW)
                            .bind(account.0)
                            .bind(i64::from(*generation))
                            .bind(to_micros(*expires))
                            .bind(hash.as_str()),
                    };
                    let read = async {
                        let mut connection = self.pool.acquire().await?;
                        read_view(&mut connection, query).await
                    };
                    Ok(match read.await.map_err(store_error)? {
                        Some((view, Some(expires))) => Some(SessionView { view, expires }),
                        Some((_, None)) | None => None,
                    })
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

                async fn account_by_identity(
                    &self,
                    provider: &str,
                    identifier: &str,
                ) -> Result<Option<Account>, StoreError> {
                    sqlx::query_as::<_, AccountRow>(sql::ACCOUNT_BY_IDENTITY)
                        .bind(provider)
                        .bind(identifier)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?
                        .map(AccountRow::into_account)
                        .transpose()
                }

                async fn stored_key_secret(&self, candidate: &str) -> Result<String, StoreError> {
                    let stored = async {
                        let mut tx = self.begin().await?;
                        sqlx::query(sql::STORE_KEY_SECRET)
                            .bind(candidate)
                            .execute(&mut *tx)
                            .await?;
                        let secret = sqlx::query_scalar::<_, String>(sql::KEY_SECRET)
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(secret)
                    };
                    stored.await.map_err(store_error)
                }

                async fn key_generation(
                    &self,
                    account: AccountId,
                ) -> Result<Option<u32>, StoreError> {
                    sqlx::query_scalar::<_, i64>(sql::KEY_GENERATION)
                        .bind(account.0)
                        .fetch_optional(&self.pool)
                        .await
                        .and_then(|found| found.map(generation_of).transpose())
                        .map_err(store_error)
                }

                /// A signed key's revocation is recorded with its `keys_revoked` event, in one
                /// transaction that locks the account's row first; a stored key's row is
                /// deleted.
                async fn revoke_key(&self, key: &KeyLookup) -> Result<bool, StoreError> {
                    match key {
                        KeyLookup::Stored(hash) => {
                            let done = sqlx::query(sql::DELETE_KEY)
                                .bind(hash.as_str())
                                .execute(&self.pool)
                                .await
                                .map_err(store_error)?;
                            Ok(done.rows_affected() > 0)
                        }
                        KeyLookup::Signed {
                            account,
                            generation,
                            expires,
                            hash,
                        } => {
                            let revoked = self
                                .revoke_signed_key(*account, *generation, *expires, hash)
                                .await
                                .map_err(store_error)?;
                            if revoked {
                                self.changes.changed(*account);
                            }
                            Ok(revoked)
                        }
                    }
                }

                /// One transaction: moves the account's key generation on (which locks its
                /// row, so its events keep their commit order), deletes its stored keys and,
                /// with `audit`, appends the audit row.
                async fn revoke_all_keys(
                    &self,
                    account: AccountId,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<bool, StoreError> {
                    let revoked = async {
                        let mut tx = self.begin().await?;
                        let moved = sqlx::query(sql::NEXT_KEY_GENERATION)
                            .bind(account.0)
                            .execute(&mut *tx)
                            .await?;
                        if moved.rows_affected() == 0 {
                            tx.rollback().await?;
                            return Ok(false);
                        }
                        sqlx::query(sql::DELETE_KEYS_OF_ACCOUNT)
                            .bind(account.0)
                            .execute(&mut *tx)
                            .await?;
                        let happened = vec![EventPayload::KeysRevoked { all: true }];
                        events::append_for(&mut tx, account, OffsetDateTime::now_utc(), happened)
                            .await?;
                        if let Some(entry) = audit {
                            operator::append(&mut tx, entry).await?;
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(true)
                    };
                    let revoked = revoked.await.map_err(store_error)?;
                    if revoked {
                        self.changes.changed(account);
                    }
                    Ok(revoked)
                }

                async fn delete_expired_keys(
                    &self,
                    now: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    let stored = self
                        .delete_batch(sql::DELETE_EXPIRED_KEYS, now, limit)
                        .await?;
                    let revocations = self
                        .delete_batch(sql::DELETE_EXPIRED_REVOCATIONS, now, limit)
                        .await?;
                    Ok(stored + revocations)
                }

                async fn forget_idempotency_keys(
                    &self,
                    before: OffsetDateTime,
                    limit: u32,
                ) -> Result<u64, StoreError> {
                    self.delete_batch(economy_sql::FORGET_IDEMPOTENCY, before, limit)
                        .await
                }

                /// Deletes an account (its rows go by cascade) and appends the deletion to the
                /// account log, in one transaction. The account's row and then its clan's are
                /// locked first, as the clan transactions lock them, so that the cascade takes
                /// it out of its clan one after the other with joins, leaves and other
                /// deletions; then the places of its tournament entries are freed, each under
                /// its tournament's row lock. The friend codes its events tell are erased from
                /// their payloads in the same transaction.
                async fn delete_account(
                    &self,
                    account: AccountId,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<bool, StoreError> {
                    let deleted = async {
                        let mut tx = self.begin().await?;
                        if !clans::lock_departing(&mut tx, account).await? {
                            tx.rollback().await?;
                            return Ok(false);
                        }
                        tournaments::free_places(&mut tx, account).await?;
                        polls::withdraw_votes(&mut tx, account).await?;
                        let done = sqlx::query(sql::DELETE_ACCOUNT)
                            .bind(account.0)
                            .execute(&mut *tx)
                            .await?;
                        let changed = done.rows_affected() > 0;
                        if changed {
                            erase_personal_data(&mut tx, account).await?;
                        }
                        account_log::commit_logged(
                            tx,
                            changed,
                            account,
                            &AccountChange::Deleted,
                            OffsetDateTime::now_utc(),
                            audit,
                        )
                        .await
                    };
                    let deleted = deleted.await.map_err(store_error)?;
                    if deleted {
                        self.changes.changed(account);
                    }
                    Ok(deleted)
                }

                /// Links in one transaction that locks the account's row first, so that a
                /// concurrent deletion either ends first (and nothing is linked) or waits and
                /// takes the link with the account.
                async fn link_chat(
                    &self,
                    account: AccountId,
                    chat_user: &str,
                    premium: bool,
                    now: OffsetDateTime,
                ) -> Result<bool, StoreError> {
                    let linked = async {
                        let micros = to_micros(now);
                        let mut tx = self.begin().await?;
                        let locked = sqlx::query_scalar::<_, bool>(economy_sql::LOCK_ACCOUNT)
                            .bind(account.0)
                            .bind(micros)
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
                            .bind(micros)
                            .execute(&mut *tx)
                            .await?;
                        let happened = vec![EventPayload::ChatLinked { premium }];
                        events::append_for(&mut tx, account, now, happened).await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(true)
                    };
                    let linked = linked.await.map_err(store_error)?;
                    if linked {
                        self.changes.changed(account);
                    }
                    Ok(linked)
                }

                /// Sets the role and appends its `role_changed` event, in one transaction.
                async fn set_role(
                    &self,
                    account: AccountId,
                    role: Role,
                ) -> Result<bool, StoreError> {
                    let set = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::SET_ROLE)
                            .bind(account.0)
                            .bind(role.as_str())
                            .execute(&mut *tx)
                            .await?;
                        if done.rows_affected() != 1 {
                            tx.rollback().await?;
                            return Ok(false);
                        }
                        let happened = vec![EventPayload::RoleChanged {
                            role: role.as_str().to_owned(),
                        }];
                        events::append_for(&mut tx, account, OffsetDateTime::now_utc(), happened)
                            .await?;
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(true)
                    };
                    let set = set.await.map_err(store_error)?;
                    if set {
                        self.changes.changed(account);
                    }
                    Ok(set)
                }

                /// Bans or unbans the account and appends the new state to the account log, in
                /// one transaction.
                async fn set_banned(
                    &self,
                    account: AccountId,
                    banned: bool,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<bool, StoreError> {
                    let set = async {
                        let mut tx = self.begin().await?;
                        let done = sqlx::query(sql::SET_BANNED)
                            .bind(account.0)
                            .bind(banned)
                            .execute(&mut *tx)
                            .await?;
                        let changed = done.rows_affected() == 1;
                        account_log::commit_logged(
                            tx,
                            changed,
                            account,
                            &AccountChange::Banned(banned),
                            OffsetDateTime::now_utc(),
                            audit,
                        )
                        .await
                    };
                    let set = set.await.map_err(store_error)?;
                    if set {
                        self.changes.changed(account);
                    }
                    Ok(set)
                }

                fn account_changes(&self) -> Option<Arc<AccountChanges>> {
                    Some(Arc::clone(&self.changes))
                }
            }
        }
    };
}

pub(crate) use impl_accounts;
