//! A recorded match's summary and grants are kept deflated, and a match recorded before they
//! were (its texts in the row, no packed values, as the schema before migration
//! `packed_matches` wrote it) still replays its first answer: on SQLite and PostgreSQL, read
//! back through the store and checked in the rows themselves.

use std::collections::BTreeMap;
use std::sync::Arc;

use safezone_core::domain::GameMode;
use safezone_core::store::{
    AccountId, Change, Currency, Granted, MatchApplied, MatchId, MatchRecord, PlayerResult,
    RecordedMatch, Step, Store,
};
use safezone_storage::test_support;
use sqlx::Connection;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const ENDED: OffsetDateTime = datetime!(2026-11-22 08:30 UTC);

/// A 100-player summary's size and repetition, as the game's answers have them.
fn summary() -> String {
    let player = r#"{"accountId":1,"experience":500,"coins":320,"levelBefore":1,"levelAfter":2}"#;
    format!("{{\"players\":[{}]}}", vec![player; 100].join(","))
}

fn record(id: &str, account: AccountId, summary: String) -> MatchRecord {
    MatchRecord {
        id: MatchId::parse(id).expect("a match id"),
        mode: GameMode::parse("solo").expect("a mode"),
        started: ENDED - Duration::minutes(20),
        ended: ENDED,
        reported: ENDED + Duration::seconds(5),
        players: vec![PlayerResult {
            account,
            placement: 1,
            kills: 3,
            time_alive_secs: 600,
            stats: BTreeMap::from([("kills".to_owned(), 3)]),
        }],
        summary,
    }
}

fn coins(account: AccountId, amount: i64) -> Change {
    Change {
        account,
        now: ENDED,
        reason: "match".to_owned(),
        reference: "packed".to_owned(),
        idempotency: None,
        steps: vec![
            Step::RequireProgressVersion { version: 0 },
            Step::Credit {
                currency: Currency::Coins,
                amount,
            },
        ],
    }
}

/// What `SELECT length(summary), length(packed_summary), packed_granted IS NULL` reads.
const SIZES: &str = "SELECT CAST(LENGTH(summary) AS BIGINT), CAST(LENGTH(packed_summary) AS BIGINT), \
    packed_granted IS NULL FROM matches WHERE id = 'm-new'";

/// A match row as today's schema had it before the packed columns: texts only.
const OLD_STYLE_MATCH: &str = "INSERT INTO matches (id, mode, started, ended, reported, summary, granted) \
    VALUES ('m-old', 'solo', 0, 0, 0, 'the old summary', \
    '[[{\"granted\":\"currency\",\"currency\":\"coins\",\"amount\":7}]]')";

/// Reports a match and reads its row's sizes, then writes an old-style row and replays both.
async fn kept_deflated_and_old_rows_replay(store: Arc<dyn Store>, raw: &RawSql) {
    let account = test_support::new_account(&*store, "Packed#0001", ENDED)
        .await
        .id;
    let summary = summary();
    let done = store
        .report_match(
            &record("m-new", account, summary.clone()),
            &[coins(account, 25)],
        )
        .await
        .expect("the report runs");
    let granted = vec![vec![Granted::Currency {
        currency: Currency::Coins,
        amount: 25,
    }]];
    assert_eq!(done, MatchApplied::Done(granted.clone()));

    let (text, packed, granted_unpacked) = raw.sizes().await;
    assert_eq!(text, 0, "the text column is left empty");
    assert!(
        packed * 10 < i64::try_from(summary.len()).expect("a length"),
        "{packed} bytes packed of {}",
        summary.len()
    );
    assert!(!granted_unpacked, "the grants are packed too");
    let new = MatchId::parse("m-new").expect("a match id");
    assert_eq!(
        store.recorded_match(&new).await.expect("the lookup runs"),
        Some(RecordedMatch {
            summary: summary.clone(),
            granted: granted.clone(),
        })
    );
    let repeat = store
        .report_match(&record("m-new", account, "other".to_owned()), &[])
        .await
        .expect("the repeat runs");
    assert_eq!(repeat, MatchApplied::Replayed { summary, granted });

    raw.execute(OLD_STYLE_MATCH).await;
    let old = MatchId::parse("m-old").expect("a match id");
    let old_granted = vec![vec![Granted::Currency {
        currency: Currency::Coins,
        amount: 7,
    }]];
    assert_eq!(
        store.recorded_match(&old).await.expect("the lookup runs"),
        Some(RecordedMatch {
            summary: "the old summary".to_owned(),
            granted: old_granted.clone(),
        })
    );
    let repeat = store
        .report_match(&record("m-old", account, "other".to_owned()), &[])
        .await
        .expect("the repeat runs");
    assert_eq!(
        repeat,
        MatchApplied::Replayed {
            summary: "the old summary".to_owned(),
            granted: old_granted,
        }
    );
}

/// Raw statements on the store's own database.
struct RawSql {
    url: String,
    postgres: bool,
}

impl RawSql {
    async fn sizes(&self) -> (i64, i64, bool) {
        if self.postgres {
            let mut raw = sqlx::PgConnection::connect(&self.url)
                .await
                .expect("connects");
            sqlx::query_as(SIZES)
                .fetch_one(&mut raw)
                .await
                .expect("reads")
        } else {
            let mut raw = sqlx::SqliteConnection::connect(&self.url)
                .await
                .expect("opens");
            sqlx::query_as(SIZES)
                .fetch_one(&mut raw)
                .await
                .expect("reads")
        }
    }

    async fn execute(&self, statement: &'static str) {
        if self.postgres {
            let mut raw = sqlx::PgConnection::connect(&self.url)
                .await
                .expect("connects");
            sqlx::query(statement)
                .execute(&mut raw)
                .await
                .expect("runs");
        } else {
            let mut raw = sqlx::SqliteConnection::connect(&self.url)
                .await
                .expect("opens");
            sqlx::query(statement)
                .execute(&mut raw)
                .await
                .expect("runs");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    let store = safezone_storage::open(&url).await.expect("the store opens");
    let raw = RawSql {
        url: url.clone(),
        postgres: false,
    };
    kept_deflated_and_old_rows_replay(store, &raw).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres() {
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url).await.expect("the store opens");
    let raw = RawSql {
        url: url.clone(),
        postgres: true,
    };
    kept_deflated_and_old_rows_replay(store, &raw).await;
    test_support::drop_postgres_database(&url).await;
}
