//! Concurrent shop purchases applied together: the changes whose steps are all a purchase's
//! (debits, items bought, packs given: [`Batch::purchases`](crate::match_batch::Batch::purchases))
//! join a group commit ([`group_commit`](crate::group_commit)), and each batch is one
//! transaction of a fixed number of statements whatever its size: every account's row locked in
//! id order, the rows written table by table ([`match_batch`](crate::match_batch): items, packs,
//! the accounts' balances checked by the statement, the ledger), the events, and the accounts'
//! views read back.
//!
//! A purchase's idempotency key is recorded by the round's transaction too; a key used before
//! leaves its purchase out of the round, for the one-change transaction to answer the repeat.
//! A round takes at most one change of an account, so each view it answers is the one its own
//! change left: an account's further changes in the batch make up the rounds after it. A round
//! refused anywhere (an account gone or banned, short of funds, owning the item, at its pack
//! limit, a key used before) is rolled back whole and tried again without the refused change,
//! which the caller then applies alone, as if it had never joined; after [`ATTEMPTS`] refused
//! tries, or a deadlock, every change left in the round is applied alone. So a round commits
//! only changes that each apply in full, and a refusal is always answered by the one-change
//! transaction, which knows it exactly.

use std::collections::HashMap;

use safezone_core::store::{AccountView, Change, Granted};

use crate::group_commit::GroupCommit;
use crate::match_batch::is_purchase_step;

/// What a batched purchase answers: what it granted and the account's view after it, or
/// `None` when it is to be applied alone.
pub(crate) type Batched = Option<(Vec<Granted>, Option<AccountView>)>;

/// The purchases waiting to be applied together.
pub(crate) type Purchases = GroupCommit<Change, Batched>;

/// How many times a round of purchases is tried, each time without the change refused the time
/// before; the changes of a round refused this often are applied alone.
pub(crate) const ATTEMPTS: usize = 4;

/// How one round's transaction ended.
pub(crate) enum Round {
    /// Committed: what each change granted and its account's view after it, in order.
    Applied(Vec<(Vec<Granted>, Option<AccountView>)>),
    /// Rolled back: the change of this account is refused.
    Refused(i64),
}

/// Whether `change` may join a batch of purchases: every step is a purchase's.
pub(crate) fn batchable(change: &Change) -> bool {
    change.steps.iter().all(is_purchase_step)
}

/// The rounds of `changes`, each taking at most one change of an account (its first not yet
/// taken), as indexes into `changes` in their order.
pub(crate) fn rounds(changes: &[Change]) -> Vec<Vec<usize>> {
    let mut taken: HashMap<i64, usize> = HashMap::new();
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    for (index, change) in changes.iter().enumerate() {
        let round = taken.entry(change.account.0).or_insert(0);
        if rounds.len() <= *round {
            rounds.push(Vec::new());
        }
        rounds[*round].push(index);
        *round += 1;
    }
    rounds
}

/// Implements applying batches of purchases for `$store` over the sqlx database `$db` (see
/// [`impl_store`](crate::impl_store)), in a child module `purchases` of the calling one: the
/// store's `purchase_together`. `$store` has a `purchases` field ([`Purchases`]); the calling
/// module also needs the `accounts`, `events` and `matches` modules.
macro_rules! impl_purchases {
    ($store:ident, $db:ty) => {
        mod purchases {
            use std::collections::HashSet;

            use safezone_core::store::{Change, Granted, Idempotency, StoreError};
            use sqlx::Transaction;

            use super::{accounts, events, matches, $store};
            use crate::bulk::Rows;
            use crate::error::{is_retryable_conflict, store_error};
            use crate::match_batch::Batch;
            use crate::micros::to_micros;
            use crate::purchases::{ATTEMPTS, Batched, Round, rounds};
            use crate::statements::purchases as sql;

            impl $store {
                /// Applies `change` (see [`batchable`](crate::purchases::batchable)) with the
                /// purchases that arrive while a batch is written: what it granted and the
                /// account's view after it, or `None` when the caller is to apply it alone.
                pub(crate) async fn purchase_together(
                    &self,
                    change: Change,
                ) -> Result<Batched, StoreError> {
                    let store = self.clone();
                    self.purchases
                        .submit(change, move |batch| {
                            let store = store.clone();
                            async move { store.apply_purchases(batch).await }
                        })
                        .await
                }

                /// Applies a batch of purchases round by round ([`rounds`]), a transaction
                /// each. A round refused for one account is tried again without that account's
                /// change (left to be applied alone), up to [`ATTEMPTS`] times.
                async fn apply_purchases(
                    &self,
                    changes: Vec<Change>,
                ) -> Vec<Result<Batched, StoreError>> {
                    let mut answers: Vec<Result<Batched, StoreError>> =
                        changes.iter().map(|_| Ok(None)).collect();
                    for mut round in rounds(&changes) {
                        for _ in 0..ATTEMPTS {
                            let taken: Vec<Change> =
                                round.iter().map(|index| changes[*index].clone()).collect();
                            let Some(batch) = Batch::purchases(&taken) else {
                                break;
                            };
                            let applied: Vec<Result<Batched, StoreError>> =
                                match self.apply_round(&taken, &batch).await {
                                    Ok(Round::Applied(applied)) => {
                                        applied.into_iter().map(|one| Ok(Some(one))).collect()
                                    }
                                    Ok(Round::Refused(account)) => {
                                        round.retain(|index| changes[*index].account.0 != account);
                                        continue;
                                    }
                                    Err(err) if is_retryable_conflict(&err) => break,
                                    Err(err) => vec![Err(store_error(err)); taken.len()],
                                };
                            for (index, answer) in round.iter().zip(applied) {
                                answers[*index] = answer;
                            }
                            break;
                        }
                    }
                    answers
                }

                /// One transaction applying `changes` (of distinct accounts, as `batch`): what
                /// each granted and its account's view after it, or (nothing written) the
                /// account of the first change refused.
                async fn apply_round(
                    &self,
                    changes: &[Change],
                    batch: &Batch<'_>,
                ) -> Result<Round, sqlx::Error> {
                    let mut tx = self.begin().await?;
                    let granted = match apply_all(&mut tx, changes, batch).await? {
                        Ok(granted) => granted,
                        Err(account) => {
                            tx.rollback().await?;
                            return Ok(Round::Refused(account));
                        }
                    };
                    let happened: Vec<_> = changes
                        .iter()
                        .zip(&granted)
                        .map(|(change, granted)| {
                            let events = safezone_core::events::change_events(change, granted);
                            (change, events)
                        })
                        .collect();
                    let timed: Vec<_> = happened
                        .iter()
                        .flat_map(|(change, events)| {
                            events
                                .iter()
                                .map(|event| (Some(change.account), change.now, event))
                        })
                        .collect();
                    let appended = events::append_timed(&mut tx, &timed).await?;
                    let ids: Vec<i64> = changes.iter().map(|change| change.account.0).collect();
                    let mut views = accounts::read_views(&mut tx, &ids).await?;
                    tx.commit().await?;
                    for change in changes {
                        self.changes.changed(change.account);
                    }
                    self.changes.told_here(appended.told_by_own_accounts());
                    Ok(Round::Applied(
                        granted
                            .into_iter()
                            .zip(&ids)
                            .map(|(granted, id)| (granted, views.remove(id)))
                            .collect(),
                    ))
                }
            }

            /// Locks the accounts and applies every change's steps table by table: what each
            /// change granted, or the account of the first refused (gone, banned, or a step
            /// refused).
            async fn apply_all(
                tx: &mut Transaction<'_, $db>,
                changes: &[Change],
                batch: &Batch<'_>,
            ) -> Result<Result<Vec<Vec<Granted>>, i64>, sqlx::Error> {
                let none = std::iter::empty;
                if let Some((account, _)) = matches::lock_accounts(tx, none(), changes).await? {
                    return Ok(Err(account));
                }
                if let Some(account) = record_keys(tx, changes).await? {
                    return Ok(Err(account));
                }
                let touched = changes
                    .iter()
                    .map(|change| to_micros(change.now))
                    .max()
                    .unwrap_or_default();
                let granted =
                    match matches::apply_batch(tx, none(), touched, changes, batch).await? {
                        Ok(granted) => granted,
                        Err((account, _)) => return Ok(Err(account)),
                    };
                save_granted(tx, changes, &granted).await?;
                Ok(Ok(granted))
            }

            /// Records the idempotency keys of the changes that carry one; answers the account
            /// of a change whose key was used before, if any.
            async fn record_keys(
                tx: &mut Transaction<'_, $db>,
                changes: &[Change],
            ) -> Result<Option<i64>, sqlx::Error> {
                let keyed: Vec<(&Change, &Idempotency)> = changes
                    .iter()
                    .filter_map(|change| Some((change, change.idempotency.as_ref()?)))
                    .collect();
                if keyed.is_empty() {
                    return Ok(None);
                }
                let rows = Rows::new()
                    .int(
                        "account",
                        keyed.iter().map(|(change, _)| change.account.0).collect(),
                    )
                    .text(
                        "idem_key",
                        keyed.iter().map(|(_, key)| key.key.as_str()).collect(),
                    )
                    .text(
                        "fingerprint",
                        keyed
                            .iter()
                            .map(|(_, key)| key.fingerprint.as_str())
                            .collect(),
                    )
                    .int(
                        "created",
                        keyed
                            .iter()
                            .map(|(change, _)| to_micros(change.now))
                            .collect(),
                    );
                let recorded: HashSet<i64> = matches::fetch_rows::<(i64,)>(
                    &mut **tx,
                    sql::RECORD_KEYS,
                    &rows,
                    sql::RECORD_KEYS_END,
                )
                .await?
                .into_iter()
                .map(|(account,)| account)
                .collect();
                Ok(keyed
                    .iter()
                    .map(|(change, _)| change.account.0)
                    .find(|account| !recorded.contains(account)))
            }

            /// Saves what each change with an idempotency key granted, for its repeats.
            async fn save_granted(
                tx: &mut Transaction<'_, $db>,
                changes: &[Change],
                granted: &[Vec<Granted>],
            ) -> Result<(), sqlx::Error> {
                let mut keyed = Vec::new();
                for (change, granted) in changes.iter().zip(granted) {
                    if let Some(key) = &change.idempotency {
                        let stored = serde_json::to_string(granted)
                            .map_err(|err| sqlx::Error::Encode(Box::new(err)))?;
                        keyed.push((change.account.0, key.key.as_str(), stored));
                    }
                }
                let rows = Rows::new()
                    .int("account", keyed.iter().map(|row| row.0).collect())
                    .text("idem_key", keyed.iter().map(|row| row.1).collect())
                    .text("granted", keyed.iter().map(|row| row.2.as_str()).collect());
                matches::execute_rows(&mut **tx, sql::SAVE_GRANTED, &rows, sql::SAVE_GRANTED_END)
                    .await
            }
        }
    };
}

pub(crate) use impl_purchases;

#[cfg(test)]
mod tests {
    use safezone_core::store::{AccountId, Change, Currency, Step};
    use time::OffsetDateTime;

    use super::rounds;

    fn change(account: i64) -> Change {
        Change {
            account: AccountId(account),
            now: OffsetDateTime::UNIX_EPOCH,
            reason: "buy".to_owned(),
            reference: "item:1".to_owned(),
            idempotency: None,
            steps: vec![Step::Debit {
                currency: Currency::Coins,
                amount: 10,
            }],
        }
    }

    #[test]
    fn a_round_takes_one_change_of_each_account_in_order() {
        let changes: Vec<Change> = [1, 2, 1, 3, 1, 2].into_iter().map(change).collect();
        assert_eq!(rounds(&changes), vec![vec![0, 1, 3], vec![2, 5], vec![4]]);
    }

    #[test]
    fn changes_of_distinct_accounts_make_one_round() {
        let changes: Vec<Change> = [4, 2, 9].into_iter().map(change).collect();
        assert_eq!(rounds(&changes), vec![vec![0, 1, 2]]);
    }
}
