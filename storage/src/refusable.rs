//! What the polls', tournaments' and clans' changes share: each may be refused, so it is
//! settled (committed with its operator's audit row, or rolled back), and each locks the acting
//! accounts' rows first.
//!
//! Each change is one transaction that checks its preconditions in order and answers the first
//! that fails as a refusal, changing nothing. The clan transactions, whitelist edits, votes,
//! tournament joins and account deletion lock account rows first, in id order, and only then a
//! clan or tournament row (see [`LOCK_ACCOUNT`](crate::statements::refusable::LOCK_ACCOUNT)):
//! so they never deadlock, and a deletion racing them either ends first (the account is
//! missing) or waits and takes the vote, entry, membership or invitation with it. The deletion
//! frees its entries' places under their tournaments' row locks, after its clan's, and takes
//! its votes off their options' counts.

/// The helpers of [`impl_polls`](crate::polls::impl_polls),
/// [`impl_tournaments`](crate::tournaments::impl_tournaments) and
/// [`impl_clans`](crate::clans::impl_clans) over the sqlx database `$db` (see
/// [`impl_store`](crate::impl_store)), in a child module `refusable` of the calling one, which
/// also needs the `operator` module of [`impl_operator`](crate::operator::impl_operator).
macro_rules! impl_refusable {
    ($db:ty) => {
        mod refusable {
            use safezone_core::store::{AccountId, Closing, NewAuditEntry};
            use sqlx::Transaction;

            use super::operator;
            use crate::statements::refusable as sql;

            /// A closing as [`settle`] takes it: closing what is closed already is done too,
            /// closing what does not exist is refused.
            pub(super) fn closed_or_unknown(closing: Closing) -> Result<Closing, Closing> {
                match closing {
                    Closing::Unknown => Err(closing),
                    done => Ok(done),
                }
            }

            /// Commits when the operation succeeded, with the operator's `audit` row when it is
            /// an operator's, and rolls back when it was refused.
            pub(super) async fn settle<T, R>(
                mut tx: Transaction<'_, $db>,
                outcome: Result<T, R>,
                audit: Option<&NewAuditEntry>,
            ) -> Result<Result<T, R>, sqlx::Error> {
                if outcome.is_ok() {
                    operator::audited(&mut tx, audit).await?;
                    tx.commit().await?;
                } else {
                    tx.rollback().await?;
                }
                Ok(outcome)
            }

            /// Locks the account's row for the rest of the transaction (see
            /// [`sql::LOCK_ACCOUNT`] for the order of locks); whether it is banned, `None` when
            /// it does not exist.
            pub(super) async fn lock_account(
                tx: &mut Transaction<'_, $db>,
                account: AccountId,
            ) -> Result<Option<bool>, sqlx::Error> {
                sqlx::query_scalar::<_, bool>(sql::LOCK_ACCOUNT)
                    .bind(account.0)
                    .fetch_optional(&mut **tx)
                    .await
            }
        }
    };
}

pub(crate) use impl_refusable;
