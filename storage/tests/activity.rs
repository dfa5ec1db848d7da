//! The activity rollup (`ActivityStore` and its follower `activity::follow_once`), written once
//! and run against SQLite and PostgreSQL, each test on its own fresh database: a batch's counts
//! and last sign-ins, a batch applied once however often it is offered and however many
//! followers race for it, the series by hour and by day, and the counters' retention.

use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::activity::{self, Round, Series, window};
use safezone_core::store::{
    AccountId, ActivityBatch, ActivityCount, ActivityMetric, Applied, Bucket, Change, Currency,
    PlayerListing, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    the_follower_counts_the_relayed_events,
    a_batch_is_applied_once_however_often_it_is_offered,
    racing_followers_count_each_event_once,
    series_sum_hours_and_days,
    old_hours_are_deleted_in_batches,
    the_events_wait_for_the_rollup_unless_it_stopped_moving,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:30 UTC);

/// The hour holding `time`, as counters keep it.
fn hour(time: OffsetDateTime) -> i64 {
    time.unix_timestamp().div_euclid(3600)
}

/// Sequences every committed event, so that the follower reads them.
async fn sequence(store: &Arc<dyn Store>) {
    store.sequence_events(10_000).await.expect("sequenced");
}

/// Runs the follower until it has counted everything, `batch` events a round.
async fn follow_to_the_end(store: &Arc<dyn Store>, batch: u32) {
    for _ in 0..1_000 {
        match activity::follow_once(store.as_ref(), batch).await {
            Ok(Round::Idle) => return,
            Ok(_) => {}
            Err(error) => panic!("the round failed: {error}"),
        }
    }
    panic!("the follower does not catch up");
}

/// The sums of `metric` per subject in the hour holding `at`.
async fn in_hour(
    store: &Arc<dyn Store>,
    metric: ActivityMetric,
    at: OffsetDateTime,
) -> Vec<(String, i64)> {
    let start = at
        .replace_minute(0)
        .expect("an hour")
        .replace_second(0)
        .expect("an hour");
    store
        .activity(metric, Bucket::Hour, start, start + Duration::HOUR)
        .await
        .expect("the series is read")
        .into_iter()
        .map(|point| (point.subject, point.value))
        .collect()
}

/// A purchase of item 7 for 30 gems by `account` at `at`, after a credit of the gems.
async fn buy_item(store: &Arc<dyn Store>, account: AccountId, at: OffsetDateTime) {
    for (reason, reference, step) in [
        (
            "grant",
            "gift",
            Step::Credit {
                currency: Currency::Gems,
                amount: 30,
            },
        ),
        (
            "buy",
            "item:7",
            Step::Debit {
                currency: Currency::Gems,
                amount: 30,
            },
        ),
    ] {
        let change = Change {
            account,
            now: at,
            reason: reason.to_owned(),
            reference: reference.to_owned(),
            idempotency: None,
            steps: vec![step],
        };
        let applied = store.apply(change, None).await.expect("applied");
        assert!(matches!(applied, Applied::Done(_)), "{applied:?}");
    }
}

async fn the_follower_counts_the_relayed_events(store: Arc<dyn Store>) {
    let first = test_support::new_account(store.as_ref(), "Count#0001", NOW)
        .await
        .id;
    let second = test_support::new_account(store.as_ref(), "Count#0002", NOW)
        .await
        .id;
    let later = NOW + Duration::hours(2);
    assert!(
        store
            .sign_in_account(first, "device", later)
            .await
            .expect("signed in")
            .is_some()
    );
    buy_item(&store, second, later).await;
    sequence(&store).await;
    follow_to_the_end(&store, 2).await;
    let device = |count| vec![("device".to_owned(), count)];
    assert_eq!(
        in_hour(&store, ActivityMetric::NewPlayers, NOW).await,
        device(2)
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::SignIns, NOW).await,
        device(2)
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::SignIns, later).await,
        device(1)
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::Purchases, later).await,
        [("item:7".to_owned(), 1)]
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::GemsGranted, later).await,
        [("grant".to_owned(), 30)]
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::GemsSpent, later).await,
        [("buy".to_owned(), 30)]
    );
    let listed = store
        .players(&PlayerListing::LastSignIn, None, 10)
        .await
        .expect("listed");
    let seen: Vec<_> = listed
        .players
        .iter()
        .map(|player| (player.id, player.last_sign_in))
        .collect();
    assert_eq!(seen, [(first, Some(later)), (second, Some(NOW))]);
    // A deletion read by the follower forgets the account's last sign-in.
    assert!(store.delete_account(first, None).await.expect("deleted"));
    sequence(&store).await;
    follow_to_the_end(&store, 100).await;
    let listed = store
        .players(&PlayerListing::LastSignIn, None, 10)
        .await
        .expect("listed");
    assert_eq!(listed.players.len(), 1);
    // Nothing new: nothing more is counted.
    assert_eq!(
        activity::follow_once(store.as_ref(), 100)
            .await
            .expect("a round"),
        Round::Idle
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::SignIns, NOW).await,
        device(2)
    );
}

async fn a_batch_is_applied_once_however_often_it_is_offered(store: Arc<dyn Store>) {
    let cursor = "test rollup";
    let from = store.activity_cursor(cursor, NOW).await.expect("a cursor");
    assert_eq!(from, 0, "a new rollup counts the whole outbox");
    let batch = ActivityBatch {
        counts: vec![ActivityCount {
            hour: hour(NOW),
            metric: ActivityMetric::MatchReports,
            subject: "solo".to_owned(),
            value: 3,
        }],
        ..ActivityBatch::default()
    };
    assert!(
        store
            .apply_activity(cursor, from, 10, &batch, NOW)
            .await
            .expect("applied")
    );
    for _ in 0..3 {
        // The same batch again (a node that read it before the move, a retry after a crash
        // that did commit): the cursor moved, nothing is written.
        assert!(
            !store
                .apply_activity(cursor, from, 10, &batch, NOW)
                .await
                .expect("answered")
        );
    }
    assert_eq!(store.activity_cursor(cursor, NOW).await.expect("read"), 10);
    assert_eq!(
        in_hour(&store, ActivityMetric::MatchReports, NOW).await,
        [("solo".to_owned(), 3)]
    );
    // The next batch adds to the same hour's counter.
    assert!(
        store
            .apply_activity(cursor, 10, 12, &batch, NOW)
            .await
            .expect("applied")
    );
    assert_eq!(
        in_hour(&store, ActivityMetric::MatchReports, NOW).await,
        [("solo".to_owned(), 6)]
    );
}

async fn racing_followers_count_each_event_once(store: Arc<dyn Store>) {
    let accounts = 12;
    for number in 0..accounts {
        test_support::new_account(store.as_ref(), &format!("Race#{number:04}"), NOW).await;
    }
    sequence(&store).await;
    // Four followers (as four nodes) racing over small batches until all is counted.
    let followers = (0..4).map(|_| {
        let store = Arc::clone(&store);
        async move {
            let mut counted = 0;
            for _ in 0..200 {
                match activity::follow_once(store.as_ref(), 3).await {
                    Ok(Round::Idle) => return counted,
                    Ok(Round::Counted(events)) => counted += events,
                    Ok(Round::Lost) => {}
                    Err(error) => panic!("a round failed: {error}"),
                }
            }
            panic!("the followers do not catch up");
        }
    });
    let counted: usize = join_all(followers).await.into_iter().sum();
    // Each sign-up wrote `account_created` and `signed_in`.
    assert_eq!(counted, accounts * 2, "each event counted by one follower");
    let all = vec![("device".to_owned(), i64::try_from(accounts).unwrap_or(0))];
    assert_eq!(in_hour(&store, ActivityMetric::SignIns, NOW).await, all);
    assert_eq!(in_hour(&store, ActivityMetric::NewPlayers, NOW).await, all);
    let head = store.relay_head().await.expect("the head");
    assert_eq!(
        store
            .activity_cursor(activity::CURSOR, NOW)
            .await
            .expect("read"),
        head
    );
}

async fn series_sum_hours_and_days(store: Arc<dyn Store>) {
    let now = datetime!(2026-11-22 08:30 UTC);
    let counts: Vec<ActivityCount> = [
        (datetime!(2026-11-22 08:00 UTC), "item:7", 1),
        (datetime!(2026-11-22 07:00 UTC), "item:7", 2),
        (datetime!(2026-11-22 07:00 UTC), "pack:3", 4),
        (datetime!(2026-11-21 23:00 UTC), "item:7", 8),
        (datetime!(2026-11-20 01:00 UTC), "pack:3", 16),
        // Outside both windows: before the 60 days, and the next hour.
        (datetime!(2026-09-22 23:00 UTC), "item:7", 32),
        (datetime!(2026-11-22 09:00 UTC), "item:7", 64),
    ]
    .into_iter()
    .map(|(at, subject, value)| ActivityCount {
        hour: hour(at),
        metric: ActivityMetric::Purchases,
        subject: subject.to_owned(),
        value,
    })
    .collect();
    let other = ActivityCount {
        hour: hour(now),
        metric: ActivityMetric::SignIns,
        subject: String::new(),
        value: 128,
    };
    let batch = ActivityBatch {
        counts: counts.into_iter().chain([other]).collect(),
        ..ActivityBatch::default()
    };
    let from = store.activity_cursor("test", now).await.expect("a cursor");
    assert!(
        store
            .apply_activity("test", from, from + 1, &batch, now)
            .await
            .expect("applied")
    );
    let (from, until) = window(Bucket::Hour, 48, now - Duration::HOUR);
    let hours = store
        .activity(ActivityMetric::Purchases, Bucket::Hour, from, until)
        .await
        .expect("read");
    let series = Series::zero_filled(&hours, Bucket::Hour, from, 48);
    assert_eq!(series.subjects.len(), 2);
    assert_eq!(
        series.totals().iter().sum::<i64>(),
        2 + 4 + 8,
        "not 2 days and 7 hours ago"
    );
    assert_eq!(
        *series.totals().last().expect("48 hours"),
        6,
        "07:00, the last hour"
    );
    let (from, until) = window(Bucket::Day, 60, now);
    let days = store
        .activity(ActivityMetric::Purchases, Bucket::Day, from, until)
        .await
        .expect("read");
    let series = Series::zero_filled(&days, Bucket::Day, from, 60);
    let totals = series.totals();
    assert_eq!(totals[59], 1 + 2 + 4 + 64, "today");
    assert_eq!(totals[58], 8, "yesterday");
    assert_eq!(totals[57], 16);
    assert_eq!(totals.iter().sum::<i64>(), 1 + 2 + 4 + 8 + 16 + 64);
    assert!(days.iter().all(|point| point.start.hour() == 0));
}

async fn old_hours_are_deleted_in_batches(store: Arc<dyn Store>) {
    let now = datetime!(2026-11-22 08:30 UTC);
    let counts = (0..70)
        .map(|days_ago| ActivityCount {
            hour: hour(now - Duration::days(days_ago)),
            metric: ActivityMetric::SignIns,
            subject: String::new(),
            value: 1,
        })
        .collect();
    let batch = ActivityBatch {
        counts,
        ..ActivityBatch::default()
    };
    let from = store.activity_cursor("test", now).await.expect("a cursor");
    assert!(
        store
            .apply_activity("test", from, from + 1, &batch, now)
            .await
            .expect("applied")
    );
    let before = now - activity::RETENTION;
    // Days 62 to 69 ago are older than the 61 days kept (day 61 ago is in the hour held): 8
    // hourly counters and their 8 daily sums, at most 5 of each a batch.
    for expected in [10, 6, 0] {
        let deleted = store
            .delete_activity_counters(before, 5)
            .await
            .expect("deleted");
        assert_eq!(deleted, expected);
    }
    let (from, until) = window(Bucket::Hour, 24 * 100, now);
    let hours = store
        .activity(ActivityMetric::SignIns, Bucket::Hour, from, until)
        .await
        .expect("read");
    assert_eq!(hours.len(), 62);
    let (from, until) = window(Bucket::Day, 100, now);
    let kept = store
        .activity(ActivityMetric::SignIns, Bucket::Day, from, until)
        .await
        .expect("read");
    assert_eq!(kept.len(), 62);
    assert_eq!(kept[0].start, datetime!(2026-09-22 00:00 UTC));
}

async fn the_events_wait_for_the_rollup_unless_it_stopped_moving(store: Arc<dyn Store>) {
    let long_ago = NOW - Duration::days(8);
    for number in 0..3 {
        test_support::new_account(store.as_ref(), &format!("Kept#{number:04}"), long_ago).await;
    }
    sequence(&store).await;
    // The rollup's cursor, new at `NOW`, has counted nothing: the events past the retention
    // (7 days) wait for it.
    assert_eq!(
        store
            .activity_cursor(activity::CURSOR, NOW)
            .await
            .expect("a cursor"),
        0
    );
    let retention_start = NOW - Duration::days(7);
    let deleted = store
        .delete_delivered_events(retention_start, 100)
        .await
        .expect("swept");
    assert_eq!(deleted, 0);
    // A rollup that has not moved for the retention window (gone from every node, or stuck)
    // holds nothing back.
    let much_later = NOW + Duration::days(30);
    let deleted = store
        .delete_delivered_events(much_later - Duration::days(7), 100)
        .await
        .expect("swept");
    assert_eq!(deleted, 5, "all but the relay head's event");
    // It then goes on from the events left.
    test_support::new_account(store.as_ref(), "Kept#0009", NOW).await;
    sequence(&store).await;
    follow_to_the_end(&store, 100).await;
    assert_eq!(
        in_hour(&store, ActivityMetric::NewPlayers, NOW).await,
        [("device".to_owned(), 1)]
    );
}
