//! The activity rollup: a follower of the domain events' outbox that each node runs, adding
//! every relayed event to hourly counters (sign-ins, new players, purchases by item, currency
//! granted and spent, match reports and their players) and keeping each account's last sign-in,
//! so that the operator console charts the last 48 hours and 60 days and lists players by their
//! last sign-in long after the events are deleted, without a write on the sign-in path.
//!
//! `rollup.rs` turns a batch of events into what it adds ([`ActivityBatch`]); `follower.rs` is
//! the task (one batch applied with its cursor's move in one store transaction, so a crash or
//! two nodes never count an event twice); `series.rs` lays the stored sums out bucket by
//! bucket, zeros included, for the charts ([`chart`](crate::chart)).
//!
//! [`ActivityBatch`]: crate::store::ActivityBatch

mod follower;
mod rollup;
mod series;

pub(crate) use follower::start;
pub use follower::{CURSOR, Round, follow_once};
pub use rollup::purchase_subject;
pub use series::{Series, window};

/// How long the hourly counters and their daily sums are kept: the 60 days the daily charts show
/// and the day in progress; the retention sweep deletes older ones.
pub const RETENTION: time::Duration = time::Duration::days(61);
