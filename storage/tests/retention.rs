//! The retention sweep's store methods (`Store::delete_expired_keys`,
//! `Store::forget_idempotency_keys`), written once and run against SQLite and PostgreSQL: what
//! goes, what stays (every live key, every idempotency key inside the retention), the batch
//! bound, and sweeps racing each other and the replays they race.

use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::domain::FriendCode;
use safezone_core::store::{
    AccountId, Applied, Change, Currency, Granted, Idempotency, KeyLookup, NewSignIn, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    expired_keys_go_and_live_keys_stay,
    idempotency_keys_are_forgotten_only_past_the_retention,
    concurrent_sweeps_delete_each_row_once,
    replays_racing_the_sweep_never_fail,
);

/// The sweep's "now" in these tests.
const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// A retention of 7 days: idempotency keys recorded before this are forgotten.
const CUTOFF: OffsetDateTime = datetime!(2026-11-15 08:00 UTC);

/// A signed key of the identity's account (signed in long before) expiring at `expires`,
/// revoked on its own: its revocation is kept until `expires`.
async fn revoked_key_expiring(
    store: &Arc<dyn Store>,
    identifier: &str,
    expires: OffsetDateTime,
) -> KeyLookup {
    let code = FriendCode::new(identifier, 1).expect("a friend code");
    let signed_in = store
        .sign_in(NewSignIn {
            provider: "device".to_owned(),
            identifier: identifier.to_owned(),
            name: None,
            avatar: None,
            email: None,
            friend_code_candidates: vec![code],
            now: NOW - Duration::days(60),
        })
        .await
        .expect("the sign-in is stored");
    let key = test_support::signed_key(&signed_in, expires);
    assert!(store.revoke_key(&key).await.expect("revoked"));
    key
}

/// Whether the key's revocation is still kept: as of long before any expiry, the key opens
/// no session while it is.
async fn revocation_kept(store: &Arc<dyn Store>, key: &KeyLookup) -> bool {
    store
        .session(key, NOW - Duration::days(365))
        .await
        .expect("the session query runs")
        .is_none()
}

/// A coin credit of 10 under the idempotency key `key`, applied at `at`.
fn keyed_credit(account: AccountId, key: &str, at: OffsetDateTime) -> Change {
    Change {
        account,
        now: at,
        reason: "test".to_owned(),
        reference: key.to_owned(),
        idempotency: Some(Idempotency {
            key: key.to_owned(),
            fingerprint: format!("test:{key}"),
        }),
        steps: vec![Step::Credit {
            currency: Currency::Coins,
            amount: 10,
        }],
    }
}

/// What a credit of 10 coins grants.
fn ten_coins() -> Vec<Granted> {
    vec![Granted::Currency {
        currency: Currency::Coins,
        amount: 10,
    }]
}

async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, CUTOFF - Duration::days(30))
        .await
        .id
}

/// Revocations of keys that expired at or before now go, in batches no larger than asked;
/// every revocation of a key still valid (by as little as a microsecond) stays, and the key
/// still opens no session.
async fn expired_keys_go_and_live_keys_stay(store: Arc<dyn Store>) {
    let mut expired = Vec::new();
    for (identifier, expires) in [
        ("Gone", NOW - Duration::days(3)),
        ("Gone", NOW - Duration::seconds(1)),
        ("Exact", NOW),
        ("Other", NOW - Duration::days(40)),
        ("Other", NOW - Duration::microseconds(1)),
    ] {
        expired.push(revoked_key_expiring(&store, identifier, expires).await);
    }
    let mut live = Vec::new();
    for (identifier, expires) in [
        ("Gone", NOW + Duration::microseconds(1)),
        ("Exact", NOW + Duration::days(30)),
        ("Other", NOW + Duration::hours(1)),
    ] {
        live.push(revoked_key_expiring(&store, identifier, expires).await);
    }

    let delete = || store.delete_expired_keys(NOW, 2);
    assert_eq!(delete().await.expect("a batch"), 2, "a batch holds 2");
    assert_eq!(delete().await.expect("a batch"), 2);
    assert_eq!(delete().await.expect("a batch"), 1);
    assert_eq!(
        delete().await.expect("a batch"),
        0,
        "nothing left to delete"
    );
    for key in &expired {
        assert!(!revocation_kept(&store, key).await, "an expired key stayed");
    }
    for key in &live {
        assert!(revocation_kept(&store, key).await, "a live key went");
        assert!(
            store.session(key, NOW).await.expect("a session").is_none(),
            "a revoked live key opens its session again"
        );
    }
}

/// Keys recorded before the cutoff are forgotten (used again, they apply afresh); every key
/// recorded at or after it still replays its first grants and changes nothing.
async fn idempotency_keys_are_forgotten_only_past_the_retention(store: Arc<dyn Store>) {
    let id = account(&store, "Keeper#0001").await;
    let old = [
        ("old-1", CUTOFF - Duration::days(20)),
        ("old-2", CUTOFF - Duration::hours(1)),
        ("old-3", CUTOFF - Duration::microseconds(1)),
    ];
    let kept = [
        ("edge", CUTOFF),
        ("recent", CUTOFF + Duration::microseconds(1)),
        ("today", NOW - Duration::minutes(5)),
    ];
    for (key, at) in old.iter().chain(&kept) {
        let applied = store.apply(keyed_credit(id, key, *at), None).await;
        assert_eq!(applied.expect("applied"), Applied::Done(ten_coins()));
    }

    assert_eq!(store.forget_idempotency_keys(CUTOFF, 2).await.ok(), Some(2));
    assert_eq!(store.forget_idempotency_keys(CUTOFF, 2).await.ok(), Some(1));
    assert_eq!(store.forget_idempotency_keys(CUTOFF, 2).await.ok(), Some(0));

    for (key, _) in kept {
        let again = store.apply(keyed_credit(id, key, NOW), None).await;
        assert_eq!(
            again.expect("replayed"),
            Applied::Replayed(ten_coins()),
            "{key} was kept"
        );
    }
    let ledger = store.ledger(id).await.expect("the ledger");
    assert_eq!(ledger.len(), 6, "the replays changed nothing");
    for (key, _) in old {
        let again = store.apply(keyed_credit(id, key, NOW), None).await;
        assert_eq!(
            again.expect("applied"),
            Applied::Done(ten_coins()),
            "{key} was forgotten"
        );
    }
    let ledger = store.ledger(id).await.expect("the ledger");
    assert_eq!(ledger.len(), 9, "forgotten keys applied afresh");
    let account = store.account(id).await.expect("read").expect("the account");
    assert_eq!(account.coins, 90, "the balance is the ledger's sum");
}

/// Several sweeps at once (several nodes) delete every old row exactly once between them, never
/// fail, and leave every row inside the retention.
async fn concurrent_sweeps_delete_each_row_once(store: Arc<dyn Store>) {
    const OLD: u64 = 60;
    let id = account(&store, "Crowd#0001").await;
    for n in 0..OLD {
        let at = CUTOFF - Duration::minutes(i64::try_from(n).expect("small") + 1);
        let applied = store
            .apply(keyed_credit(id, &format!("old-{n}"), at), None)
            .await;
        assert!(matches!(applied, Ok(Applied::Done(_))));
        let applied = store
            .apply(keyed_credit(id, &format!("new-{n}"), NOW), None)
            .await;
        assert!(matches!(applied, Ok(Applied::Done(_))));
    }
    let mut expired = 0;
    for n in 0..OLD {
        revoked_key_expiring(&store, &format!("Key{n}"), NOW - Duration::seconds(1)).await;
        expired += 1;
    }
    let live = revoked_key_expiring(&store, "Live", NOW + Duration::days(1)).await;

    let sweeps = (0..6).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let mut forgotten = 0;
            let mut deleted = 0;
            loop {
                let keys = store.delete_expired_keys(NOW, 7).await.expect("a batch");
                let idempotency = store
                    .forget_idempotency_keys(CUTOFF, 7)
                    .await
                    .expect("a batch");
                deleted += keys;
                forgotten += idempotency;
                if keys == 0 && idempotency == 0 {
                    return (deleted, forgotten);
                }
            }
        })
    });
    let counts: Vec<(u64, u64)> = join_all(sweeps)
        .await
        .into_iter()
        .map(|swept| swept.expect("the sweep task ends"))
        .collect();
    assert_eq!(counts.iter().map(|c| c.0).sum::<u64>(), expired);
    assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), OLD);
    assert!(revocation_kept(&store, &live).await);
    for n in 0..OLD {
        let again = store
            .apply(keyed_credit(id, &format!("new-{n}"), NOW), None)
            .await;
        assert_eq!(again.expect("replayed"), Applied::Replayed(ten_coins()));
    }
}

/// A repeat of a key that the sweep forgets at the same moment answers either the replay (it
/// came first) or a fresh application (the sweep came first), never an error; the ledger still
/// sums to the balance.
async fn replays_racing_the_sweep_never_fail(store: Arc<dyn Store>) {
    let id = account(&store, "Racer#0001").await;
    let mut credits = 0;
    for round in 0..40 {
        let keys: Vec<String> = (0..4).map(|n| format!("race-{round}-{n}")).collect();
        for key in &keys {
            let applied = store
                .apply(keyed_credit(id, key, CUTOFF - Duration::hours(1)), None)
                .await;
            assert!(matches!(applied, Ok(Applied::Done(_))));
            credits += 1;
        }
        let sweep = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.forget_idempotency_keys(CUTOFF, 1_000).await })
        };
        let repeats = keys.iter().map(|key| {
            let store = Arc::clone(&store);
            let change = keyed_credit(id, key, NOW);
            tokio::spawn(async move { store.apply(change, None).await })
        });
        for repeated in join_all(repeats).await {
            match repeated.expect("the task ends") {
                Ok(Applied::Replayed(_)) => {}
                Ok(Applied::Done(_)) => credits += 1,
                other => panic!("a repeat racing the sweep answered {other:?}"),
            }
        }
        sweep.await.expect("the task ends").expect("the sweep runs");
    }
    let ledger = store.ledger(id).await.expect("the ledger");
    assert_eq!(ledger.len(), credits);
    let account = store.account(id).await.expect("read").expect("the account");
    assert_eq!(account.coins, 10 * i64::try_from(credits).expect("small"));
}
