//! [`EconomyStore`](safezone_core::store::EconomyStore), written once for both stores: the
//! economy's transaction ([`EconomyStore::apply`](safezone_core::store::EconomyStore::apply))
//! and the reads of holdings, claims, the ledger and the chat premium. The transaction's steps
//! are also what a match report applies to each player ([`matches`](crate::matches)).

use safezone_core::domain::{IapId, ItemId, PackId};
use safezone_core::store::{
    AccountId, Currency, Holdings, IapPurchase, LedgerEntry, License, PackStock, StoreError,
    Subscription,
};

use crate::micros::from_micros;

/// One thing an account holds, as selected by [`HOLDINGS`](crate::statements::economy::HOLDINGS):
/// `kind` says which table it comes from, `thing` is the item, pack or product id, `amount`
/// the quantity (or, for a purchase, the cost in cents).
#[derive(sqlx::FromRow)]
pub(crate) struct HoldingRow {
    kind: String,
    id: i64,
    thing: i64,
    amount: i64,
    expires: Option<i64>,
}

impl HoldingRow {
    /// The holdings these rows make up; an unknown kind is corrupt data.
    pub(crate) fn into_holdings(rows: Vec<Self>) -> Result<Holdings, StoreError> {
        let mut holdings = Holdings::default();
        for row in rows {
            match row.kind.as_str() {
                "license" => holdings.licenses.push(License {
                    id: row.id,
                    item: ItemId(row.thing),
                    quantity: row.amount,
                }),
                "pack" => holdings.packs.push(PackStock {
                    id: row.id,
                    pack: PackId(row.thing),
                    quantity: row.amount,
                }),
                "iap" => holdings.iaps.push(IapPurchase {
                    id: row.id,
                    iap: IapId(row.thing),
                    cost_cents: row.amount,
                }),
                "subscription" => holdings.subscriptions.push(Subscription {
                    id: row.id,
                    iap: IapId(row.thing),
                    expires: row.expires.map(from_micros).transpose()?,
                }),
                other => {
                    return Err(StoreError::Internal(format!(
                        "holdings row {} of unknown kind `{other}`",
                        row.id
                    )));
                }
            }
        }
        Ok(holdings)
    }
}

/// The holding's columns of an account view's row, in the shape of [`HoldingRow`]: all null on
/// the one row of an account that holds nothing.
#[derive(sqlx::FromRow)]
pub(crate) struct HeldRow {
    held_kind: Option<String>,
    held_id: Option<i64>,
    held_thing: Option<i64>,
    held_amount: Option<i64>,
    held_expires: Option<i64>,
}

impl HeldRow {
    /// The holding, if the row holds one.
    pub(crate) fn holding(self) -> Option<HoldingRow> {
        Some(HoldingRow {
            kind: self.held_kind?,
            id: self.held_id?,
            thing: self.held_thing?,
            amount: self.held_amount?,
            expires: self.held_expires,
        })
    }
}

/// A `ledger` row, as selected by [`LEDGER`](crate::statements::economy::LEDGER).
#[derive(sqlx::FromRow)]
pub(crate) struct LedgerRow {
    id: i64,
    account_id: i64,
    currency: String,
    delta: i64,
    balance_after: i64,
    reason: String,
    reference: String,
    created: i64,
}

impl LedgerRow {
    /// The ledger entry; an unknown currency is corrupt data.
    pub(crate) fn into_entry(self) -> Result<LedgerEntry, StoreError> {
        let currency = match self.currency.as_str() {
            "coins" => Currency::Coins,
            "gems" => Currency::Gems,
            other => {
                return Err(StoreError::Internal(format!(
                    "ledger row {} holds an unknown currency `{other}`",
                    self.id
                )));
            }
        };
        Ok(LedgerEntry {
            id: self.id,
            account: AccountId(self.account_id),
            currency,
            delta: self.delta,
            balance_after: self.balance_after,
            reason: self.reason,
            reference: self.reference,
            created: from_micros(self.created)?,
        })
    }
}

/// Implements [`EconomyStore`](safezone_core::store::EconomyStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), in a child module `economy` of the
/// calling one, with `apply_steps` for the other transactions that apply a change's steps. The
/// calling module also needs the `purchases` module of
/// [`impl_purchases`](crate::purchases::impl_purchases), the `account_log` module of
/// [`impl_account_log`](crate::account_log::impl_account_log), the `accounts` module of
/// [`impl_accounts`](crate::accounts::impl_accounts) and the `events` module of
/// [`impl_events`](crate::events::impl_events).
macro_rules! impl_economy {
    ($store:ident, $db:ty) => {
        mod economy {
            use std::collections::HashSet;
            use std::future::Future;
            use std::pin::Pin;

            use async_trait::async_trait;
            use safezone_core::domain::{FriendCode, ItemId, PackId};
            use safezone_core::store::{
                AccountChange, AccountId, AccountView, Applied, BALANCE_MAX, Change, Currency,
                EconomyStore, Granted, Holdings, LedgerEntry, NewAuditEntry, PACKS_MAX, Refusal,
                Step, StoreError,
            };
            use sqlx::Transaction;

            use super::{account_log, accounts, events, operator, $store};
            use crate::economy::{HoldingRow, LedgerRow};
            use crate::error::{is_unique_violation, store_error};
            use crate::micros::to_micros;
            use crate::purchases::batchable;
            use crate::statements::economy as sql;

            /// A step's result: what it granted, or the precondition that failed.
            type StepResult = Result<Option<Granted>, Refusal>;

            /// Steps applied (their grants added to a list), or the precondition that failed.
            pub(super) type StepsResult = Result<(), Refusal>;

            /// The boxed future of [`apply_steps`] nested in a [`Step::Once`]: an async
            /// function cannot hold its own future unboxed.
            type NestedSteps<'a> =
                Pin<Box<dyn Future<Output = Result<StepsResult, sqlx::Error>> + Send + 'a>>;

            impl $store {
                /// One transaction applying `change`; with `view`, the account's view as the
                /// change (or, for a repeat, the first application) left it is read before the
                /// transaction ends; with `audit`, the operator's audit row is appended when the
                /// change is done. A unique violation (a concurrent rename took the chosen
                /// friend code) is returned as the error, for the caller to retry.
                async fn apply_once(
                    &self,
                    change: &Change,
                    view: bool,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<(Applied, Option<AccountView>), sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let account = change.account.0;
                    let banned = sqlx::query_scalar::<_, bool>(sql::LOCK_ACCOUNT)
                        .bind(account)
                        .bind(to_micros(change.now))
                        .fetch_optional(&mut *tx)
                        .await?;
                    let refused = match banned {
                        None => Some(Applied::Refused(Refusal::NoAccount)),
                        Some(true) => Some(Applied::Refused(Refusal::Banned)),
                        Some(false) => first_use_of_key(&mut tx, change).await?,
                    };
                    if let Some(answer) = refused {
                        let viewed = match answer {
                            Applied::Replayed(_) if view => viewed(&mut tx, account).await?,
                            _ => None,
                        };
                        tx.rollback().await?;
                        return Ok((answer, viewed));
                    }
                    let mut granted = Vec::new();
                    if let Err(refusal) =
                        apply_steps(&mut tx, change, &change.steps, &mut granted).await?
                    {
                        tx.rollback().await?;
                        return Ok((Applied::Refused(refusal), None));
                    }
                    let happened = safezone_core::events::change_events(change, &granted);
                    let appended =
                        events::append_for(&mut tx, change.account, change.now, happened).await?;
                    operator::audited(&mut tx, audit).await?;
                    if let Some(idempotency) = &change.idempotency {
                        let stored = serde_json::to_string(&granted)
                            .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                        sqlx::query(sql::SAVE_GRANTED)
                            .bind(account)
                            .bind(&idempotency.key)
                            .bind(stored)
                            .execute(&mut *tx)
                            .await?;
                    }
                    let viewed = if view {
                        viewed(&mut tx, account).await?
                    } else {
                        None
                    };
                    tx.commit().await?;
                    self.changes.changed(change.account);
                    self.changes.told_here(appended.told_by_own_accounts());
                    Ok((Applied::Done(granted), viewed))
                }

                /// Applies `change` (reading the account's view after it when `view`), trying
                /// again when a concurrent rename took the friend code this one chose between
                /// the check and the update: the unique index refuses it, and the change is
                /// tried again with that code known to be taken.
                async fn apply_retried(
                    &self,
                    change: &Change,
                    view: bool,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<(Applied, Option<AccountView>), StoreError> {
                    let mut attempts = 0;
                    loop {
                        attempts += 1;
                        match self.apply_once(change, view, audit).await {
                            Err(err) if is_unique_violation(&err) && attempts < 5 => {
                                tracing::debug!("friend code taken concurrently; retrying");
                            }
                            other => return other.map_err(store_error),
                        }
                    }
                }

                /// Applies `change`: a purchase without an operator's audit goes with the
                /// concurrent ones ([`purchases`](crate::purchases)); one the batch leaves, and
                /// every other change, gets a transaction of its own.
                async fn apply_routed(
                    &self,
                    change: Change,
                    view: bool,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<(Applied, Option<AccountView>), StoreError> {
                    if audit.is_none() && batchable(&change) {
                        if let Some((granted, viewed)) =
                            self.purchase_together(change.clone()).await?
                        {
                            return Ok((Applied::Done(granted), viewed.filter(|_| view)));
                        }
                    }
                    self.apply_retried(&change, view, audit).await
                }
            }

            #[async_trait]
            impl EconomyStore for $store {
                async fn apply(
                    &self,
                    change: Change,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<Applied, StoreError> {
                    Ok(self.apply_routed(change, false, audit).await?.0)
                }

                async fn apply_viewed(
                    &self,
                    change: Change,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<(Applied, Option<AccountView>), StoreError> {
                    self.apply_routed(change, true, audit).await
                }

                async fn holdings(&self, account: AccountId) -> Result<Holdings, StoreError> {
                    let rows = sqlx::query_as::<_, HoldingRow>(sql::HOLDINGS)
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
                    let mut query = sqlx::QueryBuilder::new(sql::CLAIMED_OF_ACCOUNT);
                    query.push_bind(account.0).push(sql::CLAIM_KEY_IN);
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
                    sqlx::query_as::<_, LedgerRow>(sql::LEDGER)
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
                    sqlx::query_scalar::<_, bool>(sql::CHAT_PREMIUM)
                        .bind(account.0)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)
                }
            }

            /// The view of `account`, locked by the transaction `tx`.
            async fn viewed(
                tx: &mut Transaction<'_, $db>,
                account: i64,
            ) -> Result<Option<AccountView>, sqlx::Error> {
                let query = sqlx::query(crate::statements::accounts::ACCOUNT_VIEW).bind(account);
                let viewed = accounts::read_view(tx, query).await?;
                Ok(viewed.map(|(view, _)| view))
            }

            /// Records the change's idempotency key. `None` when there is none or it is new;
            /// otherwise the answer for a key used before: the first grants, or a refusal when
            /// the key was used for another request.
            async fn first_use_of_key(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
            ) -> Result<Option<Applied>, sqlx::Error> {
                let Some(idempotency) = &change.idempotency else {
                    return Ok(None);
                };
                // The retention sweep may forget the key between the insert that found it and
                // the read (PostgreSQL reads each statement's own snapshot): then it is free
                // again and the next insert records it. The sweep forgets only old keys, so a
                // key recorded anew stays, and this ends by the second turn.
                let (fingerprint, granted) = loop {
                    let recorded = sqlx::query(sql::INSERT_IDEMPOTENCY)
                        .bind(change.account.0)
                        .bind(&idempotency.key)
                        .bind(&idempotency.fingerprint)
                        .bind(to_micros(change.now))
                        .execute(&mut **tx)
                        .await?;
                    if recorded.rows_affected() == 1 {
                        return Ok(None);
                    }
                    let used = sqlx::query_as::<_, (String, String)>(sql::IDEMPOTENCY)
                        .bind(change.account.0)
                        .bind(&idempotency.key)
                        .fetch_optional(&mut **tx)
                        .await?;
                    if let Some(used) = used {
                        break used;
                    }
                };
                if fingerprint != idempotency.fingerprint {
                    return Ok(Some(Applied::Refused(Refusal::IdempotencyKeyReused)));
                }
                let granted = serde_json::from_str(&granted)
                    .map_err(|err| sqlx::Error::Decode(Box::new(err)))?;
                Ok(Some(Applied::Replayed(granted)))
            }

            /// Applies `steps` of `change` in order, checking each precondition and adding
            /// what each gave to `granted`; stops at the first refusal. The caller has locked
            /// the account row and rolls back on a refusal.
            pub(super) async fn apply_steps(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                steps: &[Step],
                granted: &mut Vec<Granted>,
            ) -> Result<StepsResult, sqlx::Error> {
                for step in steps {
                    if let Err(refusal) = apply_step(tx, change, step, granted).await? {
                        return Ok(Err(refusal));
                    }
                }
                Ok(Ok(()))
            }

            /// Records the claim `key` and applies `steps` if it is new; skips them when the
            /// key was recorded before. A refusal of a nested step refuses the whole change.
            async fn once(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                key: &str,
                steps: &[Step],
                granted: &mut Vec<Granted>,
            ) -> Result<StepsResult, sqlx::Error> {
                let recorded = sqlx::query(sql::INSERT_CLAIM)
                    .bind(change.account.0)
                    .bind(key)
                    .bind(to_micros(change.now))
                    .execute(&mut **tx)
                    .await?;
                if recorded.rows_affected() == 0 {
                    return Ok(Ok(()));
                }
                apply_nested(tx, change, steps, granted).await
            }

            /// [`apply_steps`], boxed for the steps nested in a [`Step::Once`].
            fn apply_nested<'a>(
                tx: &'a mut Transaction<'_, $db>,
                change: &'a Change,
                steps: &'a [Step],
                granted: &'a mut Vec<Granted>,
            ) -> NestedSteps<'a> {
                Box::pin(apply_steps(tx, change, steps, granted))
            }

            /// Records the first of `keys` not yet recorded for `account` at `now`; `false`
            /// when every one is.
            async fn claim_first(
                tx: &mut Transaction<'_, $db>,
                account: i64,
                keys: &[String],
                now: i64,
            ) -> Result<bool, sqlx::Error> {
                for key in keys {
                    let inserted = sqlx::query(sql::INSERT_CLAIM)
                        .bind(account)
                        .bind(key)
                        .bind(now)
                        .execute(&mut **tx)
                        .await?;
                    if inserted.rows_affected() == 1 {
                        return Ok(true);
                    }
                }
                Ok(false)
            }

            /// Applies one step, checking its precondition and adding what it gave to
            /// `granted`.
            async fn apply_step(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                step: &Step,
                granted: &mut Vec<Granted>,
            ) -> Result<StepsResult, sqlx::Error> {
                let account = change.account.0;
                let now = to_micros(change.now);
                let outcome: StepResult = match step {
                    Step::Once { key, steps } => {
                        return once(tx, change, key, steps, granted).await;
                    }
                    Step::Debit { currency, amount } => {
                        move_currency(tx, change, *currency, -amount).await?
                    }
                    Step::Credit { currency, amount } => {
                        move_currency(tx, change, *currency, *amount).await?
                    }
                    Step::AddExperience { amount } => {
                        sqlx::query(sql::ADD_EXPERIENCE)
                            .bind(account)
                            .bind(amount)
                            .execute(&mut **tx)
                            .await?;
                        Ok(Some(Granted::Experience { amount: *amount }))
                    }
                    Step::AddItem { item } => {
                        if insert_license(tx, change, *item).await? {
                            Ok(Some(Granted::Item { item: *item }))
                        } else {
                            Err(Refusal::AlreadyOwned(*item))
                        }
                    }
                    Step::GrantItem {
                        item,
                        duplicate_coins,
                        owned_by_everyone,
                    } => {
                        if !owned_by_everyone && insert_license(tx, change, *item).await? {
                            Ok(Some(Granted::Item { item: *item }))
                        } else {
                            grant_duplicate(tx, change, *item, *duplicate_coins).await?
                        }
                    }
                    Step::GrantPacks { pack, quantity } => {
                        grant_packs(tx, change, *pack, *quantity).await?
                    }
                    Step::RemoveItem { item } => {
                        let removed = sqlx::query(sql::DELETE_LICENSE)
                            .bind(account)
                            .bind(item.0)
                            .execute(&mut **tx)
                            .await?;
                        if removed.rows_affected() == 1 {
                            Ok(None)
                        } else {
                            Err(Refusal::NotOwned(*item))
                        }
                    }
                    Step::RemovePacks { pack, quantity } => {
                        let removed = sqlx::query(sql::REMOVE_PACKS)
                            .bind(account)
                            .bind(pack.0)
                            .bind(quantity)
                            .execute(&mut **tx)
                            .await?;
                        if removed.rows_affected() == 1 {
                            Ok(None)
                        } else {
                            Err(Refusal::NotEnoughPacks {
                                pack: *pack,
                                quantity: *quantity,
                            })
                        }
                    }
                    Step::OpenPack { pack } => {
                        let opened = sqlx::query(sql::OPEN_PACK)
                            .bind(account)
                            .bind(pack.0)
                            .execute(&mut **tx)
                            .await?;
                        if opened.rows_affected() == 1 {
                            Ok(None)
                        } else {
                            Err(Refusal::NoPackToOpen(*pack))
                        }
                    }
                    Step::Claim { keys } => {
                        if claim_first(tx, account, keys, now).await? {
                            Ok(None)
                        } else {
                            Err(Refusal::AlreadyClaimed)
                        }
                    }
                    Step::Limit { keys, rejection } => {
                        if claim_first(tx, account, keys, now).await? {
                            Ok(None)
                        } else {
                            Err(Refusal::Rejected(rejection.clone()))
                        }
                    }
                    Step::Reject(rejection) => Err(Refusal::Rejected(rejection.clone())),
                    Step::RequireWindow { starts, ends } => {
                        if *starts <= change.now && change.now < *ends {
                            Ok(None)
                        } else {
                            Err(Refusal::OutsideWindow {
                                starts: *starts,
                                ends: *ends,
                            })
                        }
                    }
                    Step::RequirePremium => {
                        let premium = sqlx::query_scalar::<_, bool>(sql::CHAT_PREMIUM)
                            .bind(account)
                            .fetch_optional(&mut **tx)
                            .await?;
                        match premium {
                            Some(true) => Ok(None),
                            Some(false) => Err(Refusal::NotPremium),
                            None => Err(Refusal::NoChatLink),
                        }
                    }
                    Step::RecordPurchase {
                        store,
                        transaction_id,
                        iap,
                        cost_cents,
                        subscription,
                    } => {
                        let recorded = sqlx::query(sql::INSERT_PURCHASE)
                            .bind(account)
                            .bind(store)
                            .bind(transaction_id)
                            .bind(iap.0)
                            .bind(cost_cents)
                            .bind(now)
                            .execute(&mut **tx)
                            .await?;
                        if recorded.rows_affected() == 0 {
                            Err(Refusal::ReceiptAlreadyUsed)
                        } else {
                            if let Some(expires) = subscription {
                                sqlx::query(sql::UPSERT_SUBSCRIPTION)
                                    .bind(account)
                                    .bind(iap.0)
                                    .bind(expires.map(to_micros))
                                    .execute(&mut **tx)
                                    .await?;
                            }
                            Ok(None)
                        }
                    }
                    Step::ChangeFriendCode { name, digits } => {
                        rename(tx, change, name, digits).await?
                    }
                    Step::RequireProgressVersion { version } => {
                        let moved = sqlx::query(sql::REQUIRE_PROGRESS_VERSION)
                            .bind(account)
                            .bind(version)
                            .execute(&mut **tx)
                            .await?;
                        if moved.rows_affected() == 1 {
                            Ok(None)
                        } else {
                            Err(Refusal::Stale)
                        }
                    }
                    Step::SetProgress { counter, value } => {
                        sqlx::query(sql::SET_PROGRESS)
                            .bind(account)
                            .bind(counter)
                            .bind(value)
                            .execute(&mut **tx)
                            .await?;
                        Ok(None)
                    }
                    Step::SetLevel { level } => {
                        sqlx::query(sql::SET_LEVEL)
                            .bind(account)
                            .bind(level)
                            .execute(&mut **tx)
                            .await?;
                        Ok(None)
                    }
                    Step::GrantTrackPass { track } => {
                        let inserted = sqlx::query(sql::INSERT_TRACK_PASS)
                            .bind(account)
                            .bind(track.0)
                            .bind(now)
                            .execute(&mut **tx)
                            .await?;
                        if inserted.rows_affected() == 1 {
                            Ok(None)
                        } else {
                            Err(Refusal::TrackAlreadyOwned(*track))
                        }
                    }
                };
                Ok(outcome.map(|grant| granted.extend(grant)))
            }

            /// Moves a currency by `delta` (negative: a debit) and writes its ledger row.
            async fn move_currency(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                currency: Currency,
                delta: i64,
            ) -> Result<StepResult, sqlx::Error> {
                if delta == 0 {
                    return Ok(Ok(None));
                }
                let account = change.account.0;
                let statement = match (currency, delta < 0) {
                    (Currency::Coins, true) => sql::DEBIT_COINS,
                    (Currency::Gems, true) => sql::DEBIT_GEMS,
                    (Currency::Coins, false) => sql::CREDIT_COINS,
                    (Currency::Gems, false) => sql::CREDIT_GEMS,
                };
                let balance = sqlx::query_scalar::<_, i64>(statement)
                    .bind(account)
                    .bind(delta.abs())
                    .bind(BALANCE_MAX)
                    .fetch_optional(&mut **tx)
                    .await?;
                let Some(balance) = balance else {
                    return Ok(Err(if delta < 0 {
                        let balance_statement = match currency {
                            Currency::Coins => sql::COINS,
                            Currency::Gems => sql::GEMS,
                        };
                        let balance = sqlx::query_scalar::<_, i64>(balance_statement)
                            .bind(account)
                            .fetch_one(&mut **tx)
                            .await?;
                        Refusal::InsufficientFunds {
                            currency,
                            needed: -delta,
                            balance,
                        }
                    } else {
                        Refusal::BalanceLimit { currency }
                    }));
                };
                sqlx::query(sql::INSERT_LEDGER)
                    .bind(account)
                    .bind(currency.as_str())
                    .bind(delta)
                    .bind(balance)
                    .bind(&change.reason)
                    .bind(&change.reference)
                    .bind(to_micros(change.now))
                    .execute(&mut **tx)
                    .await?;
                Ok(Ok((delta > 0).then_some(Granted::Currency {
                    currency,
                    amount: delta,
                })))
            }

            /// Gives an item unless the account owns it; answers whether it was given.
            async fn insert_license(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                item: ItemId,
            ) -> Result<bool, sqlx::Error> {
                let inserted = sqlx::query(sql::INSERT_LICENSE)
                    .bind(change.account.0)
                    .bind(item.0)
                    .bind(to_micros(change.now))
                    .execute(&mut **tx)
                    .await?;
                Ok(inserted.rows_affected() == 1)
            }

            /// Gives the coins that replace an item the account already owns.
            async fn grant_duplicate(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                item: ItemId,
                coins: i64,
            ) -> Result<StepResult, sqlx::Error> {
                if coins > 0 {
                    if let Err(refusal) = move_currency(tx, change, Currency::Coins, coins).await? {
                        return Ok(Err(refusal));
                    }
                }
                Ok(Ok(Some(Granted::DuplicateItem { item, coins })))
            }

            /// Adds unopened packs, refusing past the maximum.
            async fn grant_packs(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                pack: PackId,
                quantity: i64,
            ) -> Result<StepResult, sqlx::Error> {
                if quantity > PACKS_MAX {
                    return Ok(Err(Refusal::PackLimit(pack)));
                }
                let granted = sqlx::query(sql::GRANT_PACKS)
                    .bind(change.account.0)
                    .bind(pack.0)
                    .bind(quantity)
                    .bind(PACKS_MAX)
                    .execute(&mut **tx)
                    .await?;
                Ok(if granted.rows_affected() == 1 {
                    Ok(Some(Granted::Packs { pack, quantity }))
                } else {
                    Err(Refusal::PackLimit(pack))
                })
            }

            /// Renames the friend code with the first of `digits` that no other account uses
            /// with `name`, and appends the rename to the account log.
            async fn rename(
                tx: &mut Transaction<'_, $db>,
                change: &Change,
                name: &str,
                digits: &[u16],
            ) -> Result<StepResult, sqlx::Error> {
                let taken: HashSet<i32> = sqlx::query_scalar(sql::TAKEN_DIGITS)
                    .bind(name)
                    .bind(change.account.0)
                    .fetch_all(&mut **tx)
                    .await?
                    .into_iter()
                    .collect();
                let Some(free) = digits
                    .iter()
                    .find(|candidate| !taken.contains(&i32::from(**candidate)))
                else {
                    return Ok(Err(Refusal::FriendCodeTaken));
                };
                // Checked before anything is written: the account log must hold only codes
                // its followers can read back.
                let code = FriendCode::new(name, *free)
                    .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                let renamed = sqlx::query(sql::RENAME)
                    .bind(change.account.0)
                    .bind(name)
                    .bind(i32::from(*free))
                    .execute(&mut **tx)
                    .await?;
                if renamed.rows_affected() != 1 {
                    return Ok(Err(Refusal::SameFriendCodeName));
                }
                account_log::append(
                    tx,
                    change.account,
                    &AccountChange::Renamed(code),
                    change.now,
                )
                .await?;
                Ok(Ok(None))
            }
        }
    };
}

pub(crate) use impl_economy;
