//! Migration `activity_days` sums the activity rollup's hourly counters per day: the hours
//! counted before it (no daily sums, as the schema before it left them) are summed by the
//! migration's own statement, and each batch then adds to both; on SQLite and PostgreSQL.

use std::sync::Arc;

use safezone_core::activity::window;
use safezone_core::store::{ActivityBatch, ActivityCount, ActivityMetric, Bucket, Store};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const NOW: OffsetDateTime = datetime!(2026-11-22 08:30 UTC);

const POSTGRES_MIGRATION: &str = include_str!("../migrations/postgres/0025_activity_days.sql");
const SQLITE_MIGRATION: &str = include_str!("../migrations/sqlite/0024_activity_days.sql");

/// The migration's statement summing the hours already counted.
fn summing_statement(migration: &str) -> &str {
    let start = migration
        .find("INSERT INTO activity_days")
        .expect("the migration sums the hours");
    &migration[start..]
}

/// The purchases of the last three days, by day.
async fn days(store: &Arc<dyn Store>) -> Vec<(OffsetDateTime, String, i64)> {
    let (from, until) = window(Bucket::Day, 3, NOW);
    store
        .activity(ActivityMetric::Purchases, Bucket::Day, from, until)
        .await
        .expect("the series is read")
        .into_iter()
        .map(|point| (point.start, point.subject, point.value))
        .collect()
}

async fn hours_counted_before_the_migration_are_summed(
    store: Arc<dyn Store>,
    url: &str,
    migration: &str,
) {
    let counts = (0..48)
        .map(|hours_ago| ActivityCount {
            hour: (NOW - Duration::hours(hours_ago)).unix_timestamp() / 3600,
            metric: ActivityMetric::Purchases,
            subject: format!("item:{}", hours_ago % 2),
            value: 1,
        })
        .collect();
    let batch = ActivityBatch {
        counts,
        ..ActivityBatch::default()
    };
    let from = store.activity_cursor("test", NOW).await.expect("a cursor");
    assert!(
        store
            .apply_activity("test", from, from + 1, &batch, NOW)
            .await
            .expect("applied")
    );
    // 09:00 two days ago to 08:00 today: 15 hours, 24 and 9, each item one hour in two.
    let item = |day: OffsetDateTime, subject: &str, value| (day, subject.to_owned(), value);
    let expected = vec![
        item(datetime!(2026-11-20 00:00 UTC), "item:0", 7),
        item(datetime!(2026-11-20 00:00 UTC), "item:1", 8),
        item(datetime!(2026-11-21 00:00 UTC), "item:0", 12),
        item(datetime!(2026-11-21 00:00 UTC), "item:1", 12),
        item(datetime!(2026-11-22 00:00 UTC), "item:0", 5),
        item(datetime!(2026-11-22 00:00 UTC), "item:1", 4),
    ];
    assert_eq!(days(&store).await, expected);
    // The rows as the schema before the migration left them, then the migration's sums.
    test_support::execute_sql(url, "DELETE FROM activity_days").await;
    assert!(days(&store).await.is_empty());
    test_support::execute_sql(url, summing_statement(migration)).await;
    assert_eq!(days(&store).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    let store = safezone_storage::open(&url).await.expect("the store opens");
    hours_counted_before_the_migration_are_summed(store, &url, SQLITE_MIGRATION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres() {
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url).await.expect("the store opens");
    hours_counted_before_the_migration_are_summed(store, &url, POSTGRES_MIGRATION).await;
    test_support::drop_postgres_database(&url).await;
}
