//! The activity rollup: hourly counters (and their daily sums) of what the domain events tell
//! (sign-ins, new players, purchases by item, currency granted and spent, match reports), and
//! each account's last sign-in, kept by a follower of the events' outbox
//! ([`activity`](crate::activity)) for the operator console's charts and lists, long after the
//! events themselves are deleted.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, StoreError};

/// What an hourly counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActivityMetric {
    /// Sign-ins (`signed_in` events); subject: how (`device`, `chat`, a provider).
    SignIns,
    /// Accounts created (`account_created` events); subject: how they signed in.
    NewPlayers,
    /// Purchases; subject: what was bought (`item:7`, `pack:3`, `deal:2`, `iap`, `track:1`,
    /// `track_tiers:1`).
    Purchases,
    /// Coins given to accounts (duplicate items' coins too); subject: why, as the ledger names
    /// it (`match`, `claim`, `pack`, `buy`, `grant`, `refund`, ...).
    CoinsGranted,
    /// Coins taken from accounts; subject: why (`buy`, `track`, `remove`, ...).
    CoinsSpent,
    /// Gems given to accounts; subject: why.
    GemsGranted,
    /// Gems taken from accounts; subject: why. A rename's gems are not counted: its event does
    /// not tell them.
    GemsSpent,
    /// Match reports recorded; subject: the game mode.
    MatchReports,
    /// Player results in those reports; subject: the game mode.
    MatchPlayers,
}

impl ActivityMetric {
    /// Every metric.
    pub const ALL: [Self; 9] = [
        Self::SignIns,
        Self::NewPlayers,
        Self::Purchases,
        Self::CoinsGranted,
        Self::CoinsSpent,
        Self::GemsGranted,
        Self::GemsSpent,
        Self::MatchReports,
        Self::MatchPlayers,
    ];

    /// Its name, as stored and in URLs (`sign_ins`, `coins_granted`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SignIns => "sign_ins",
            Self::NewPlayers => "new_players",
            Self::Purchases => "purchases",
            Self::CoinsGranted => "coins_granted",
            Self::CoinsSpent => "coins_spent",
            Self::GemsGranted => "gems_granted",
            Self::GemsSpent => "gems_spent",
            Self::MatchReports => "match_reports",
            Self::MatchPlayers => "match_players",
        }
    }

    /// Reads a metric's name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|metric| metric.as_str() == name)
    }
}

/// One hourly counter's increment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityCount {
    /// The hour, in whole hours since the unix epoch (UTC).
    pub hour: i64,
    /// What it counts.
    pub metric: ActivityMetric,
    /// Of what (an item, a mode, a provider); empty when the metric has none.
    pub subject: String,
    /// By how much.
    pub value: i64,
}

/// What one batch of relayed events adds to the rollup, applied with the cursor's move in one
/// transaction ([`ActivityStore::apply_activity`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityBatch {
    /// The counters' increments, one per hour, metric and subject.
    pub counts: Vec<ActivityCount>,
    /// Each account's latest sign-in in the batch (kept when later than the stored one).
    pub sign_ins: Vec<(AccountId, OffsetDateTime)>,
    /// The accounts deleted in the batch: their last sign-in is forgotten.
    pub deleted: Vec<AccountId>,
}

/// How wide a point of a series is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// An hour.
    Hour,
    /// A day, midnight to midnight UTC.
    Day,
}

impl Bucket {
    /// Its length.
    pub fn length(self) -> time::Duration {
        match self {
            Self::Hour => time::Duration::HOUR,
            Self::Day => time::Duration::DAY,
        }
    }
}

/// One stored value of a series: a bucket's start, a subject and its sum over the bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityPoint {
    /// The bucket's start (a whole hour or midnight UTC).
    pub start: OffsetDateTime,
    /// Of what; empty when the metric has none.
    pub subject: String,
    /// The sum over the bucket.
    pub value: i64,
}

/// The activity rollup's store: its counters, its accounts' last sign-ins and its cursor over
/// the relayed events (a row among the sinks' cursors, so that the events' retention waits for
/// it as for a sink, and stops waiting once it has not moved for the retention window).
#[async_trait]
pub trait ActivityStore: Send + Sync {
    /// The relay position the rollup `name` has counted up to, its cursor created at 0 at
    /// `now` the first time (so that it counts every event the outbox still holds).
    async fn activity_cursor(&self, name: &str, now: OffsetDateTime) -> Result<i64, StoreError>;

    /// Adds `batch` to the rollup and moves the cursor `name` from `from` to `to`, in one
    /// transaction, if the cursor is still at `from`; answers whether it was (when not,
    /// another node counted these events, and nothing is written).
    async fn apply_activity(
        &self,
        name: &str,
        from: i64,
        to: i64,
        batch: &ActivityBatch,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// The sums of `metric` per `bucket` and subject over the buckets from the one holding
    /// `from` up to (excluded) the one holding `until`, by bucket then subject; a bucket and
    /// subject with nothing counted has no point.
    async fn activity(
        &self,
        metric: ActivityMetric,
        bucket: Bucket,
        from: OffsetDateTime,
        until: OffsetDateTime,
    ) -> Result<Vec<ActivityPoint>, StoreError>;

    /// Deletes, oldest first, at most `limit` hourly counters of the hours before the one
    /// holding `before`, and at most `limit` daily counters of the days before the one holding
    /// `before`; answers how many went.
    async fn delete_activity_counters(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;
}

#[cfg(test)]
#[async_trait]
impl ActivityStore for super::UnavailableStore {
    async fn activity_cursor(&self, _: &str, _: OffsetDateTime) -> Result<i64, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn apply_activity(
        &self,
        _: &str,
        _: i64,
        _: i64,
        _: &ActivityBatch,
        _: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn activity(
        &self,
        _: ActivityMetric,
        _: Bucket,
        _: OffsetDateTime,
        _: OffsetDateTime,
    ) -> Result<Vec<ActivityPoint>, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
    async fn delete_activity_counters(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        Err(StoreError::Unavailable("no store in this test".to_owned()))
    }
}
