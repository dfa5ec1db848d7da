//! The store contract of the operator tokens and their audit, run against SQLite and
//! PostgreSQL, each test on its own fresh database.

use std::sync::Arc;

use safezone_core::store::{AuditFilter, NewAuditEntry, NewOperatorToken, OperatorRole, Store};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    tokens_are_created_found_and_revoked,
    the_audit_is_filtered_newest_first,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

fn new_token(name: &str, role: OperatorRole, hash: &str) -> NewOperatorToken {
    NewOperatorToken {
        name: name.to_owned(),
        role,
        secret_hash: hash.to_owned(),
        now: NOW,
    }
}

async fn tokens_are_created_found_and_revoked(store: Arc<dyn Store>) {
    let alice = store
        .create_operator_token(new_token("alice", OperatorRole::Full, "aa"))
        .await
        .expect("the store answers")
        .expect("a new name");
    assert_eq!(alice.role, OperatorRole::Full);
    let taken = store
        .create_operator_token(new_token("alice", OperatorRole::Read, "bb"))
        .await
        .expect("the store answers");
    assert_eq!(taken, None, "a name is unique");
    let same_hash = store
        .create_operator_token(new_token("bob", OperatorRole::Read, "aa"))
        .await
        .expect("the store answers");
    assert_eq!(same_hash, None, "a secret hash is unique");
    store
        .create_operator_token(new_token("bob", OperatorRole::Read, "bb"))
        .await
        .expect("the store answers")
        .expect("a new name");

    assert_eq!(
        store
            .operator_token_by_hash("aa")
            .await
            .expect("the store answers"),
        Some(alice)
    );
    assert_eq!(
        store
            .operator_token_by_hash("cc")
            .await
            .expect("the store answers"),
        None
    );

    let later = NOW + Duration::hours(1);
    assert!(
        store
            .revoke_operator_token("alice", later)
            .await
            .expect("the store answers")
    );
    assert!(
        !store
            .revoke_operator_token("alice", later)
            .await
            .expect("the store answers")
    );
    assert!(
        !store
            .revoke_operator_token("carol", later)
            .await
            .expect("the store answers")
    );
    assert_eq!(
        store
            .operator_token_by_hash("aa")
            .await
            .expect("the store answers"),
        None
    );

    let tokens = store.operator_tokens().await.expect("the store answers");
    let names: Vec<_> = tokens.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(tokens[0].revoked_at, Some(later));
    assert_eq!(tokens[1].revoked_at, None);
}

async fn the_audit_is_filtered_newest_first(store: Arc<dyn Store>) {
    let alice = store
        .create_operator_token(new_token("alice", OperatorRole::Full, "aa"))
        .await
        .expect("the store answers")
        .expect("the store answers");
    let bob = store
        .create_operator_token(new_token("bob", OperatorRole::Read, "bb"))
        .await
        .expect("the store answers")
        .expect("the store answers");
    let row = |token: i64, minute: i64, action: &str, target: &str| NewAuditEntry {
        token,
        at: NOW + Duration::minutes(minute),
        action: action.to_owned(),
        target: target.to_owned(),
        reason: format!("reason {minute}"),
        result: "done".to_owned(),
    };
    for entry in [
        row(alice.id, 1, "grant", "account:1"),
        row(bob.id, 2, "grant", "account:2"),
        row(alice.id, 3, "ban", "account:1"),
    ] {
        store.append_audit(entry).await.expect("the store answers");
    }
    let all = store
        .audit(&AuditFilter {
            limit: 10,
            ..AuditFilter::default()
        })
        .await
        .expect("the store answers");
    let minutes: Vec<_> = all.iter().map(|a| a.entry.reason.as_str()).collect();
    assert_eq!(minutes, ["reason 3", "reason 2", "reason 1"]);
    assert_eq!(all[1].token_name, "bob");
    assert_eq!(all[0].entry, row(alice.id, 3, "ban", "account:1"));

    let of =
        |token_name: Option<&str>, action: Option<&str>, target: Option<&str>, limit| AuditFilter {
            token_name: token_name.map(str::to_owned),
            action: action.map(str::to_owned),
            target: target.map(str::to_owned),
            limit,
        };
    let count = |filter| {
        let store = Arc::clone(&store);
        async move { store.audit(&filter).await.expect("the store answers").len() }
    };
    assert_eq!(count(of(Some("alice"), None, None, 10)).await, 2);
    assert_eq!(count(of(None, Some("grant"), None, 10)).await, 2);
    assert_eq!(count(of(None, None, Some("account:1"), 10)).await, 2);
    assert_eq!(count(of(Some("alice"), Some("grant"), None, 10)).await, 1);
    assert_eq!(count(of(None, None, None, 1)).await, 1);
    assert_eq!(count(of(Some("carol"), None, None, 10)).await, 0);
}
