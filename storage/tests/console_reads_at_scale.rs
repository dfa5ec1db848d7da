//! The operator console's reads at scale, on PostgreSQL (ignored by default: it fills a
//! database of 1,000,000 players, a minute or two): finding players, the lists, a player's
//! ledger of 100,000 rows, the activity series over 61 days of hourly counters, and the activity
//! rollup's follower over 100,000 events. Prints each read's median and slowest time over
//! [`RUNS`] runs (figures in BENCHMARKS.md), asserting nothing about them.
//!
//! `cargo test -p safezone-storage --test console_reads_at_scale -- --ignored --nocapture`

use std::future::Future;
use std::time::{Duration, Instant};

use safezone_core::activity::{self, Round, window};
use safezone_core::store::{
    AccountId, ActivityMetric, Bucket, Currency, LedgerCursor, LedgerFilter, PlayerCursor,
    PlayerListing, Store, StoreError,
};
use safezone_storage::test_support;
use sqlx::{Connection, PgConnection};
use time::OffsetDateTime;
use time::macros::datetime;

/// How many times each read runs.
const RUNS: usize = 20;

/// The accounts filled.
const PLAYERS: i64 = 1_000_000;

/// The events the follower counts.
const EVENTS: i64 = 100_000;

/// The measured "now": the end of the filled history.
const NOW: OffsetDateTime = datetime!(2025-11-28 12:00 UTC);

/// The statements filling the database, in order: accounts (ten names, `Sneeza12#0034`, each
/// tenth player's display name `Sneeza 123`, one in 97 banned), their last sign-ins over 60
/// days, 100,000 ledger rows of account 1 and 900,000 of others, 61 days of hourly counters
/// (purchases of 40 items, the other metrics by a few subjects) and their daily sums, 100,000
/// `signed_in` events. examples/console_seed.sql is a copy for the console's page benchmark
/// (examples/bench-console.sh), its times moved to the wall clock: a change here goes there too.
const FILL: &[&str] = &[
    "INSERT INTO accounts (provider, identifier, name, friend_name, friend_digits, level, coins, \
     gems, is_banned, created, updated) \
     SELECT 'device', 'bench-' || g, \
            (ARRAY['Sneeza','Player','Ghost','Viper','Nova','Blaze','Frost','Echo','Rogue','Zed'])[g % 10 + 1] \
              || ' ' || g, \
            (ARRAY['Sneeza','Player','Ghost','Viper','Nova','Blaze','Frost','Echo','Rogue','Zed'])[g % 10 + 1] \
              || (g / 10000), \
            g % 10000, 1 + g % 50, g % 5000, g % 300, g % 97 = 0, \
            1700000000000000 + g::bigint * 1000000, 1700000000000000 + g::bigint * 1000000 \
     FROM generate_series(1, 1000000) AS g",
    "INSERT INTO account_last_sign_in (account_id, at) \
     SELECT g, 1764331200000000 - ((g::bigint * 7919) % 5184000) * 1000000 \
     FROM generate_series(1, 1000000) AS g",
    "INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created) \
     SELECT 1, CASE WHEN g % 4 = 0 THEN 'gems' ELSE 'coins' END, 10, g, \
            (ARRAY['match','match','match','buy','claim','pack','grant','match','buy','refund'])[g % 10 + 1], \
            'ref-' || g, 1764331200000000 - (100000 - g::bigint) * 60000000 \
     FROM generate_series(1, 100000) AS g",
    "INSERT INTO ledger (account_id, currency, delta, balance_after, reason, reference, created) \
     SELECT 2 + g % 999998, CASE WHEN g % 3 = 0 THEN 'gems' ELSE 'coins' END, 10, g, 'match', \
            'ref-' || g, 1764331200000000 - (900000 - g::bigint) * 6000000 \
     FROM generate_series(1, 900000) AS g",
    "INSERT INTO activity_hours (metric, hour, subject, value) \
     SELECT 'purchases', h, 'item:' || i, (h * i) % 13 \
     FROM generate_series(488628, 490092) AS h, generate_series(1, 40) AS i",
    "INSERT INTO activity_hours (metric, hour, subject, value) \
     SELECT m, h, s, (h % 97) + 1 \
     FROM generate_series(488628, 490092) AS h, \
          unnest(ARRAY['sign_ins','new_players','coins_granted','coins_spent','gems_granted', \
                       'gems_spent','match_reports','match_players']) AS m, \
          unnest(ARRAY['device','chat','match','buy','solo','duo']) AS s",
    "INSERT INTO activity_days (metric, day, subject, value) \
     SELECT metric, hour / 24, subject, SUM(value) FROM activity_hours GROUP BY 1, 2, 3",
    "INSERT INTO events (account_id, kind, payload, created, position) \
     SELECT 1 + g % 1000000, 'signed_in', \
            '{\"kind\":\"signed_in\",\"provider\":\"device\",\"first_login\":false}', \
            1764331200000000 - (100000 - g::bigint) * 1000000, g \
     FROM generate_series(1, 100000) AS g",
    "ANALYZE",
];

/// Runs `read` [`RUNS`] times; prints its median and slowest time under `name`.
async fn measure<T, F, Fut>(name: &str, mut read: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        last = Some(read().await.unwrap_or_else(|err| panic!("{name}: {err}")));
        times.push(started.elapsed());
    }
    times.sort();
    let ms = |time: Duration| time.as_secs_f64() * 1_000.0;
    println!(
        "| {name} | {:.2} ms | {:.2} ms |",
        ms(times[RUNS / 2]),
        ms(times[RUNS - 1])
    );
    last.expect("ran")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "fills a database of 1,000,000 players: run on its own, see BENCHMARKS.md"]
async fn console_reads_at_scale() {
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url).await.expect("the store opens");
    let started = Instant::now();
    let mut raw = PgConnection::connect(&url).await.expect("connects");
    for statement in FILL {
        sqlx::raw_sql(sqlx::AssertSqlSafe(*statement))
            .execute(&mut raw)
            .await
            .unwrap_or_else(|err| panic!("filling failed: {err}\n{statement}"));
    }
    println!("filled in {:.0} s", started.elapsed().as_secs_f64());
    let store: &dyn Store = store.as_ref();
    println!("| read | median | slowest |\n|---|---:|---:|");

    let snee = PlayerListing::FriendCode("snee".to_owned());
    let one_code = PlayerListing::FriendCode("Sneeza12#00".to_owned());
    let no_code = PlayerListing::FriendCode("zzz".to_owned());
    let sneeza_12 = PlayerListing::Name("sneeza 12".to_owned());
    let sneeza = PlayerListing::Name("sneeza".to_owned());
    let page = measure("friend code `snee`, first page", || {
        store.players(&snee, None, 100)
    })
    .await;
    assert_eq!(page.players.len(), 100);
    let deep = PlayerCursor::FriendCode {
        name: "sneeza70".to_owned(),
        digits: 5_000,
    };
    measure("friend code `snee`, a page 70,000 rows in", || {
        store.players(&snee, Some(&deep), 100)
    })
    .await;
    measure("friend code `Sneeza12#00`", || {
        store.players(&one_code, None, 100)
    })
    .await;
    measure("friend code `zzz` (none)", || {
        store.players(&no_code, None, 100)
    })
    .await;
    let page = measure("display name `sneeza 12`, first page", || {
        store.players(&sneeza_12, None, 100)
    })
    .await;
    assert_eq!(page.players.len(), 100);
    let deep = PlayerCursor::Name {
        name: "sneeza 5".to_owned(),
        account: AccountId(0),
    };
    measure("display name `sneeza`, a page 50,000 rows in", || {
        store.players(&sneeza, Some(&deep), 100)
    })
    .await;
    let middle = PlayerCursor::Id(AccountId(PLAYERS / 2));
    for (label, listing) in [
        ("newest", PlayerListing::Newest),
        ("banned", PlayerListing::Banned),
    ] {
        measure(&format!("{label}, first page"), || {
            store.players(&listing, None, 100)
        })
        .await;
        measure(&format!("{label}, a page from id 500,000"), || {
            store.players(&listing, Some(&middle), 100)
        })
        .await;
    }
    measure("last sign-in, first page", || {
        store.players(&PlayerListing::LastSignIn, None, 100)
    })
    .await;
    let month_ago = PlayerCursor::SignIn {
        at_micros: 1_764_331_200_000_000 - 30 * 86_400_000_000,
        account: AccountId(PLAYERS),
    };
    measure("last sign-in, a page 30 days back", || {
        store.players(&PlayerListing::LastSignIn, Some(&month_ago), 100)
    })
    .await;

    let player = AccountId(1);
    let all = LedgerFilter::default();
    let page = measure("ledger of 100,000 rows, first page", || {
        store.ledger_page(player, &all, None, 100)
    })
    .await;
    assert_eq!(page.entries.len(), 100);
    let deep = LedgerCursor {
        created_micros: 1_764_331_200_000_000 - 50_000 * 60_000_000,
        id: i64::MAX,
    };
    measure("ledger, a page 50,000 rows in", || {
        store.ledger_page(player, &all, Some(deep), 100)
    })
    .await;
    let filters = [
        (
            "ledger, gems",
            LedgerFilter {
                currency: Some(Currency::Gems),
                ..LedgerFilter::default()
            },
        ),
        (
            "ledger, reason `refund` (1 row in 10)",
            LedgerFilter {
                reason: Some("refund".to_owned()),
                ..LedgerFilter::default()
            },
        ),
        (
            "ledger, a day 40 days back",
            LedgerFilter {
                from: Some(NOW - time::Duration::days(41)),
                until: Some(NOW - time::Duration::days(40)),
                ..LedgerFilter::default()
            },
        ),
        (
            "ledger, gems of reason `buy` 20 to 30 days back",
            LedgerFilter {
                currency: Some(Currency::Gems),
                reason: Some("buy".to_owned()),
                from: Some(NOW - time::Duration::days(30)),
                until: Some(NOW - time::Duration::days(20)),
            },
        ),
        (
            "ledger, reason `none` (no row)",
            LedgerFilter {
                reason: Some("none".to_owned()),
                ..LedgerFilter::default()
            },
        ),
    ];
    for (label, filter) in &filters {
        measure(label, || store.ledger_page(player, filter, None, 100)).await;
    }

    for (label, bucket, count) in [("48 hours", Bucket::Hour, 48), ("60 days", Bucket::Day, 60)] {
        let (from, until) = window(bucket, count, NOW);
        for metric in [ActivityMetric::SignIns, ActivityMetric::Purchases] {
            let points = measure(&format!("{}, {label}", metric.as_str()), || {
                store.activity(metric, bucket, from, until)
            })
            .await;
            assert!(!points.is_empty());
        }
    }

    let (hours_from, hours_until) = window(Bucket::Hour, 48, NOW);
    let (days_from, days_until) = window(Bucket::Day, 60, NOW);
    measure(
        "every metric, 48 hours and 60 days, one after another",
        || async {
            let mut points = 0;
            for metric in ActivityMetric::ALL {
                points += store
                    .activity(metric, Bucket::Hour, hours_from, hours_until)
                    .await?
                    .len();
                points += store
                    .activity(metric, Bucket::Day, days_from, days_until)
                    .await?
                    .len();
            }
            Ok(points)
        },
    )
    .await;

    let started = Instant::now();
    let mut rounds = 0;
    loop {
        match activity::follow_once(store, 2_000).await.expect("a round") {
            Round::Idle => break,
            _ => rounds += 1,
        }
    }
    println!(
        "the follower: {EVENTS} events in {rounds} rounds of 2,000, {:.0} ms",
        started.elapsed().as_secs_f64() * 1_000.0
    );
    test_support::drop_postgres_database(&url).await;
}
