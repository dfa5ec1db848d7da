//! The store contract of the console's sessions, run against SQLite and PostgreSQL, each test
//! on its own fresh database: a session works until it is ended, expires or its token is
//! revoked; only a live token's session opens; the retention sweep deletes exactly the
//! sessions that no longer work, in bounded batches.

use std::sync::Arc;

use safezone_core::store::{NewOperatorSession, NewOperatorToken, OperatorRole, Store};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_session_works_until_ended_expired_or_revoked,
    the_sweep_deletes_only_sessions_that_no_longer_work,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// Creates the token `name` with the secret hash `name`; answers its id.
async fn token(store: &Arc<dyn Store>, name: &str) -> i64 {
    store
        .create_operator_token(NewOperatorToken {
            name: name.to_owned(),
            role: OperatorRole::Full,
            secret_hash: name.to_owned(),
            now: NOW,
        })
        .await
        .expect("the store answers")
        .expect("a new name")
        .id
}

/// Opens the session `hash` of `token`, working for `hours` from [`NOW`].
async fn open(store: &Arc<dyn Store>, hash: &str, token: i64, hours: i64) -> bool {
    store
        .open_operator_session(NewOperatorSession {
            id_hash: hash.to_owned(),
            token,
            created_at: NOW,
            expires_at: NOW + Duration::hours(hours),
        })
        .await
        .expect("the store answers")
}

/// The name of the token of session `hash` at `at`, if it works.
async fn holder(store: &Arc<dyn Store>, hash: &str, at: OffsetDateTime) -> Option<String> {
    store
        .operator_session_token(hash, at)
        .await
        .expect("the store answers")
        .map(|token| token.name)
}

async fn a_session_works_until_ended_expired_or_revoked(store: Arc<dyn Store>) {
    let alice = token(&store, "alice").await;
    let bob = token(&store, "bob").await;
    assert!(open(&store, "s1", alice, 12).await);
    assert!(!open(&store, "s1", bob, 12).await, "a hash is unique");
    assert!(!open(&store, "s2", 999, 12).await, "no such token");
    assert!(open(&store, "s2", alice, 12).await);
    assert!(open(&store, "s3", bob, 12).await);

    assert_eq!(holder(&store, "s1", NOW).await.as_deref(), Some("alice"));
    assert_eq!(holder(&store, "s3", NOW).await.as_deref(), Some("bob"));
    assert_eq!(holder(&store, "nope", NOW).await, None);
    let last = NOW + Duration::hours(12) - Duration::microseconds(1);
    assert!(holder(&store, "s1", last).await.is_some());
    assert_eq!(holder(&store, "s1", NOW + Duration::hours(12)).await, None);
    assert!(
        !store
            .end_operator_session("s1", NOW + Duration::hours(12))
            .await
            .expect("the store answers"),
        "an expired session is not ended again"
    );

    let later = NOW + Duration::hours(1);
    assert!(
        store
            .end_operator_session("s1", later)
            .await
            .expect("the store answers")
    );
    assert!(
        !store
            .end_operator_session("s1", later)
            .await
            .expect("the store answers"),
        "ended once"
    );
    assert_eq!(holder(&store, "s1", later).await, None);
    assert_eq!(holder(&store, "s2", later).await.as_deref(), Some("alice"));

    assert!(
        store
            .revoke_operator_token("alice", later)
            .await
            .expect("the store answers")
    );
    assert_eq!(holder(&store, "s2", later).await, None, "revoked token");
    assert!(
        !open(&store, "s4", alice, 12).await,
        "a revoked token opens none"
    );
    assert_eq!(holder(&store, "s3", later).await.as_deref(), Some("bob"));
}

async fn the_sweep_deletes_only_sessions_that_no_longer_work(store: Arc<dyn Store>) {
    let alice = token(&store, "alice").await;
    let bob = token(&store, "bob").await;
    for at in 0..5 {
        assert!(open(&store, &format!("expired-{at}"), alice, 1).await);
    }
    assert!(open(&store, "ended", bob, 12).await);
    assert!(open(&store, "revoked", alice, 12).await);
    assert!(open(&store, "live", bob, 12).await);
    let now = NOW + Duration::hours(2);
    assert!(
        store
            .end_operator_session("ended", now)
            .await
            .expect("the store answers")
    );
    assert!(
        store
            .revoke_operator_token("alice", now)
            .await
            .expect("the store answers")
    );

    let sweep = |limit| {
        let store = Arc::clone(&store);
        async move {
            store
                .delete_finished_operator_sessions(now, limit)
                .await
                .expect("the store answers")
        }
    };
    assert_eq!(sweep(4).await, 4, "a batch is bounded");
    assert_eq!(sweep(100).await, 3);
    assert_eq!(sweep(100).await, 0);
    assert_eq!(holder(&store, "live", now).await.as_deref(), Some("bob"));
    assert!(
        store
            .end_operator_session("live", now)
            .await
            .expect("the store answers"),
        "the live session is still there"
    );
}
