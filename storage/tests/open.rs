//! Opening stores: URL schemes, the SQLite file across restarts, repeated migrations.

use safezone_core::domain::{FriendCode, UserKey};
use safezone_core::store::{KeyLookup, NewSignIn};
use safezone_storage::test_support::{
    drop_postgres_database, fresh_postgres_url, fresh_sqlite_url, signed_key,
};
use sqlx::Connection;
use time::Duration;
use time::macros::datetime;

#[tokio::test]
async fn unknown_schemes_are_refused_by_name() {
    let refused = safezone_storage::open("mysql://root:hunter2@127.0.0.1/safezone")
        .await
        .err()
        .expect("mysql is refused");
    let message = refused.to_string();
    assert!(message.contains("`mysql`"), "{message}");
    assert!(
        message.contains("sqlite://") && message.contains("postgres://"),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "no password in {message}");

    let refused = safezone_storage::open("safezone.db")
        .await
        .err()
        .expect("a bare path is refused");
    assert!(refused.to_string().contains("sqlite://"), "{refused}");
}

#[tokio::test]
async fn sqlite_file_keeps_its_data_across_restarts() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = fresh_sqlite_url(dir.path());
    let now = datetime!(2026-11-22 08:00 UTC);

    let store = safezone_storage::open(&url).await.expect("the store opens");
    let signed_in = store
        .sign_in(NewSignIn {
            provider: "device".to_owned(),
            identifier: "dev-1".to_owned(),
            name: None,
            avatar: None,
            email: None,
            friend_code_candidates: vec![FriendCode::parse("Ace#0001").expect("a friend code")],
            now,
        })
        .await
        .expect("sign-in succeeds");
    let key = signed_key(&signed_in, now + Duration::days(30));
    drop(store);

    let reopened = safezone_storage::open(&url)
        .await
        .expect("the store opens again");
    let session = reopened
        .session(&key, now)
        .await
        .expect("session lookup succeeds");
    assert_eq!(
        session.map(|session| session.account.id),
        Some(signed_in.account.id)
    );
    let account = reopened
        .account(signed_in.account.id)
        .await
        .expect("lookup succeeds");
    assert_eq!(account, Some(signed_in.account.clone()));

    let mut raw = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("the file opens");
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut raw)
        .await
        .expect("the pragma answers");
    assert_eq!(mode, "wal");

    // A key recorded by a release before signed keys keeps opening its account until revoked.
    let recorded = UserKey::generate().hash();
    sqlx::query(
        "INSERT INTO user_keys (key_hash, account_id, created, expires) VALUES (?, ?, 0, ?)",
    )
    .bind(recorded.as_str())
    .bind(signed_in.account.id.0)
    .bind((now + Duration::days(30)).unix_timestamp() * 1_000_000)
    .execute(&mut raw)
    .await
    .expect("the old key is recorded");
    let recorded = KeyLookup::Stored(recorded);
    let session = reopened
        .session(&recorded, now)
        .await
        .expect("lookup succeeds");
    assert_eq!(
        session.map(|session| session.account.id),
        Some(signed_in.account.id)
    );
    assert!(reopened.revoke_key(&recorded).await.expect("revoked"));
    assert_eq!(
        reopened
            .session(&recorded, now)
            .await
            .expect("lookup succeeds"),
        None
    );
}

#[tokio::test]
async fn sqlite_accepts_the_short_url_form() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("short.db");
    let store = safezone_storage::open(&format!("sqlite:{}", path.display()))
        .await
        .expect("the store opens");
    store.ping().await.expect("ping answers");
    assert!(path.exists(), "the file was created");
}

#[tokio::test]
async fn postgres_migrations_run_again_harmlessly() {
    let url = fresh_postgres_url().await;
    for _ in 0..2 {
        let store = safezone_storage::open(&url).await.expect("the store opens");
        store.ping().await.expect("ping answers");
    }
    let alias = url.replacen("postgres://", "postgresql://", 1);
    safezone_storage::open(&alias)
        .await
        .expect("the postgresql:// form opens");
    drop_postgres_database(&url).await;
}

#[tokio::test]
async fn postgres_failures_say_why_without_the_password() {
    let cases = [
        (
            "postgres://postgres:hunter2@127.0.0.1:5432/safezone_no_such_database",
            "does not exist",
        ),
        (
            "postgres://postgres:hunter2@127.0.0.1:1/safezone",
            "refused",
        ),
    ];
    for (url, why) in cases {
        let started = std::time::Instant::now();
        let refused = safezone_storage::open(url)
            .await
            .err()
            .expect("the database is refused");
        let message = refused.to_string();
        assert!(
            message.contains("PostgreSQL") && message.contains(why),
            "{message}"
        );
        assert!(!message.contains("hunter2"), "no password in {message}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "failed fast"
        );
    }
}

/// The settings the store's connections and the benchmarks' baselines open with
/// (`sqlite_settings`), read back from a connection.
#[tokio::test]
async fn sqlite_connections_open_with_the_stores_settings() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = fresh_sqlite_url(dir.path());
    let options: sqlx::sqlite::SqliteConnectOptions = url.parse().expect("the URL parses");
    let mut connection = sqlx::SqliteConnection::connect_with(&safezone_storage::sqlite_settings(
        options.create_if_missing(true),
    ))
    .await
    .expect("the connection opens");
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut connection)
        .await
        .expect("the pragma reads");
    assert_eq!(journal, "wal");
    for (pragma, expected) in [
        ("PRAGMA synchronous", 1),
        ("PRAGMA wal_autocheckpoint", 16_384),
        ("PRAGMA journal_size_limit", 64 * 1024 * 1024),
        ("PRAGMA temp_store", 2),
    ] {
        let value: i64 = sqlx::query_scalar(pragma)
            .fetch_one(&mut connection)
            .await
            .expect("the pragma reads");
        assert_eq!(value, expected, "{pragma}");
    }
}
