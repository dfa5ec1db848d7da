//! The store contract, written once and run against SQLite and PostgreSQL, each test on its own
//! fresh database.

use std::collections::HashSet;
use std::sync::Arc;

use safezone_core::domain::FriendCode;
use safezone_core::events::EventPayload;
use safezone_core::store::{AccountId, KeyLookup, NewSignIn, Role, SignedIn, Store, StoreError};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    ping_answers,
    first_sign_in_creates_and_the_next_signs_in,
    friend_codes_follow_candidate_order,
    friend_codes_ignore_letter_case,
    exhausted_candidates_write_nothing,
    existing_account_needs_no_free_code,
    expired_keys_do_not_resolve,
    revoke_key_revokes_one_key,
    revoke_all_keys_revokes_every_key,
    delete_account_removes_account_and_keys,
    concurrent_first_sign_ins_create_one_account,
    concurrent_new_accounts_get_distinct_codes,
    concurrent_sign_ins_of_an_existing_account,
    concurrent_sign_ins_of_many_accounts_each_answer_their_own,
    concurrent_first_sign_ins_of_many_identities_each_create_theirs,
    a_sign_in_racing_the_accounts_deletion_signs_in_or_starts_afresh,
    each_sign_in_appends_exactly_its_events,
    a_returning_identity_signs_in_while_new_devices_lead,
    the_stored_key_secret_is_the_first_one_offered,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00:00.123456 UTC);

fn days(n: i64) -> Duration {
    Duration::days(n)
}

/// A device sign-in of `identifier` at `now`, offering `codes`.
fn device(identifier: &str, codes: &[&str], now: OffsetDateTime) -> NewSignIn {
    NewSignIn {
        provider: "device".to_owned(),
        identifier: identifier.to_owned(),
        name: Some(format!("Player {identifier}")),
        avatar: None,
        email: Some(format!("{identifier}@example.invalid")),
        friend_code_candidates: codes
            .iter()
            .map(|code| FriendCode::parse(code).expect("a valid friend code"))
            .collect(),
        now,
    }
}

/// Signs in and returns the result with a new signed key valid 30 days.
async fn sign_in(
    store: &Arc<dyn Store>,
    identifier: &str,
    codes: &[&str],
    now: OffsetDateTime,
) -> (SignedIn, KeyLookup) {
    let signed_in = store
        .sign_in(device(identifier, codes, now))
        .await
        .expect("sign-in succeeds");
    let key = test_support::signed_key(&signed_in, now + days(30));
    (signed_in, key)
}

async fn resolves_to(
    store: &Arc<dyn Store>,
    key: &KeyLookup,
    now: OffsetDateTime,
) -> Option<AccountId> {
    store
        .session(key, now)
        .await
        .expect("session lookup succeeds")
        .map(|session| session.account.id)
}

/// Runs the sign-ins `requests` at once, each in a task of its own; their answers in order.
async fn signed_in_together(
    store: &Arc<dyn Store>,
    requests: impl IntoIterator<Item = NewSignIn>,
) -> Vec<SignedIn> {
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|request| {
            let store = Arc::clone(store);
            tokio::spawn(async move { store.sign_in(request).await })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        let signed_in = task
            .await
            .expect("the task completes")
            .expect("every sign-in succeeds");
        answers.push(signed_in);
    }
    answers
}

async fn ping_answers(store: Arc<dyn Store>) {
    store.ping().await.expect("ping answers");
}

async fn first_sign_in_creates_and_the_next_signs_in(store: Arc<dyn Store>) {
    let (first, first_key) = sign_in(&store, "dev-1", &["Ace#0007"], NOW).await;
    assert!(first.first_login);
    let account = &first.account;
    assert_eq!(account.provider, "device");
    assert_eq!(account.identifier, "dev-1");
    assert_eq!(account.name.as_deref(), Some("Player dev-1"));
    assert_eq!(account.avatar, None);
    assert_eq!(account.email.as_deref(), Some("dev-1@example.invalid"));
    assert_eq!(account.friend_code.to_string(), "Ace#0007");
    assert_eq!(account.status, "offline");
    assert_eq!((account.experience, account.level), (0, 1));
    assert_eq!((account.coins, account.gems), (0, 0));
    assert_eq!(account.role, Role::Player);
    assert!(!account.is_banned);
    assert_eq!((account.created, account.updated), (NOW, NOW));

    let later = NOW + days(1);
    let (second, second_key) = sign_in(&store, "dev-1", &["Ace#0008"], later).await;
    assert!(!second.first_login);
    assert_eq!(
        second.account, first.account,
        "same account, `updated` untouched"
    );

    let stored = store
        .account(account.id)
        .await
        .expect("account lookup succeeds");
    assert_eq!(stored.as_ref(), Some(account));
    let session = store
        .session(&first_key, later)
        .await
        .expect("session lookup succeeds")
        .expect("the first key resolves");
    assert_eq!(
        (session.account.id, session.expires),
        (account.id, NOW + days(30))
    );
    assert_eq!(
        resolves_to(&store, &second_key, later).await,
        Some(account.id)
    );
}

async fn friend_codes_follow_candidate_order(store: Arc<dyn Store>) {
    let (a, _) = sign_in(&store, "a", &["Ace#0001", "Ace#0002", "Ace#0003"], NOW).await;
    let (b, _) = sign_in(&store, "b", &["Ace#0001", "Ace#0002", "Ace#0003"], NOW).await;
    let (c, _) = sign_in(&store, "c", &["Ace#0002", "Bee#0001", "Ace#0003"], NOW).await;
    let codes = [a, b, c].map(|signed_in| signed_in.account.friend_code.to_string());
    assert_eq!(codes, ["Ace#0001", "Ace#0002", "Bee#0001"]);
}

async fn friend_codes_ignore_letter_case(store: Arc<dyn Store>) {
    sign_in(&store, "a", &["Ace#0001"], NOW).await;
    let (b, _) = sign_in(&store, "b", &["ACE#0001", "aCe#0002"], NOW).await;
    assert_eq!(b.account.friend_code.to_string(), "aCe#0002");
}

async fn exhausted_candidates_write_nothing(store: Arc<dyn Store>) {
    sign_in(&store, "a", &["Ace#0001", "Ace#0002"], NOW).await;
    sign_in(&store, "b", &["Ace#0002"], NOW).await;

    for codes in [&["Ace#0001", "Ace#0002"][..], &[]] {
        let refused = store.sign_in(device("c", codes, NOW)).await;
        assert!(
            matches!(refused, Err(StoreError::FriendCodesExhausted)),
            "{codes:?} gave {refused:?}"
        );
        assert_eq!(
            store
                .account_by_identity("device", "c")
                .await
                .expect("read"),
            None,
            "no account was stored"
        );
    }

    let (c, _) = sign_in(&store, "c", &["Ace#0003"], NOW).await;
    assert!(c.first_login, "no account was stored");
}

async fn existing_account_needs_no_free_code(store: Arc<dyn Store>) {
    let (a, _) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    sign_in(&store, "b", &["Ace#0002"], NOW).await;
    for codes in [&["Ace#0001", "Ace#0002"][..], &[]] {
        let (again, key) = sign_in(&store, "a", codes, NOW).await;
        assert!(!again.first_login);
        assert_eq!(again.account, a.account);
        assert_eq!(resolves_to(&store, &key, NOW).await, Some(a.account.id));
    }
}

async fn expired_keys_do_not_resolve(store: Arc<dyn Store>) {
    let (signed_in, key) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    let expires = NOW + days(30);
    let id = signed_in.account.id;
    assert_eq!(
        resolves_to(&store, &key, expires - Duration::microseconds(1)).await,
        Some(id)
    );
    assert_eq!(resolves_to(&store, &key, expires).await, None);
    assert_eq!(resolves_to(&store, &key, expires + days(1)).await, None);
}

async fn revoke_key_revokes_one_key(store: Arc<dyn Store>) {
    let (a, first) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    let (_, second) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    assert!(store.revoke_key(&first).await.expect("revoke succeeds"));
    assert_eq!(resolves_to(&store, &first, NOW).await, None);
    assert_eq!(resolves_to(&store, &second, NOW).await, Some(a.account.id));
    assert!(!store.revoke_key(&first).await.expect("revoke succeeds"));
}

async fn revoke_all_keys_revokes_every_key(store: Arc<dyn Store>) {
    let mut keys = Vec::new();
    let mut id = None;
    for _ in 0..3 {
        let (a, key) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
        id = Some(a.account.id);
        keys.push(key);
    }
    let (b, b_key) = sign_in(&store, "b", &["Bee#0001"], NOW).await;
    let id = id.expect("a signed in");

    assert!(
        store
            .revoke_all_keys(id, None)
            .await
            .expect("revoke succeeds")
    );
    assert_eq!(store.key_generation(id).await.expect("read"), Some(1));
    for key in &keys {
        assert_eq!(resolves_to(&store, key, NOW).await, None);
    }
    assert_eq!(resolves_to(&store, &b_key, NOW).await, Some(b.account.id));
    assert!(store.account(id).await.expect("lookup succeeds").is_some());
    assert!(
        store
            .revoke_all_keys(id, None)
            .await
            .expect("revoke succeeds")
    );
    let (again, key) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    assert_eq!(
        again.key_generation, 2,
        "a new key carries the new generation"
    );
    assert_eq!(resolves_to(&store, &key, NOW).await, Some(id));
    assert!(
        !store
            .revoke_all_keys(AccountId(id.0 + 1_000), None)
            .await
            .expect("revoke succeeds"),
        "no such account"
    );
}

async fn delete_account_removes_account_and_keys(store: Arc<dyn Store>) {
    let (a, a_key) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    let (b, b_key) = sign_in(&store, "b", &["Bee#0001"], NOW).await;
    let id = a.account.id;

    assert!(
        store
            .delete_account(id, None)
            .await
            .expect("delete succeeds")
    );
    assert_eq!(store.account(id).await.expect("lookup succeeds"), None);
    assert_eq!(resolves_to(&store, &a_key, NOW).await, None);
    assert!(
        !store.revoke_key(&a_key).await.expect("revoke succeeds"),
        "the key row is gone"
    );
    assert!(
        !store
            .delete_account(id, None)
            .await
            .expect("delete succeeds")
    );
    assert_eq!(resolves_to(&store, &b_key, NOW).await, Some(b.account.id));

    let (again, _) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    assert!(again.first_login, "the identity starts over");
    assert_ne!(again.account.id, id, "ids are not reused");
}

async fn concurrent_first_sign_ins_create_one_account(store: Arc<dyn Store>) {
    let requests = (0..20).map(|_| device("shared", &["Ace#0001", "Ace#0002"], NOW));
    let mut ids = HashSet::new();
    let mut first_logins = 0;
    for signed_in in signed_in_together(&store, requests).await {
        let key = test_support::signed_key(&signed_in, NOW + days(30));
        first_logins += usize::from(signed_in.first_login);
        ids.insert(signed_in.account.id);
        assert_eq!(
            resolves_to(&store, &key, NOW).await,
            Some(signed_in.account.id)
        );
    }
    assert_eq!(ids.len(), 1, "one account");
    assert_eq!(first_logins, 1, "one first login");
}

async fn concurrent_new_accounts_get_distinct_codes(store: Arc<dyn Store>) {
    let codes: Vec<String> = (0..10).map(|digits| format!("Ace#{digits:04}")).collect();
    let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
    let requests = (0..10).map(|n| device(&format!("dev-{n}"), &codes, NOW));
    let mut taken = HashSet::new();
    for signed_in in signed_in_together(&store, requests).await {
        assert!(signed_in.first_login);
        taken.insert(signed_in.account.friend_code.to_string());
    }
    assert_eq!(taken.len(), 10, "every account has its own code");
}

async fn concurrent_sign_ins_of_an_existing_account(store: Arc<dyn Store>) {
    let (a, _) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    // Offering no code, each sign-in finds the account.
    let requests = (0..20).map(|_| device("a", &[], NOW));
    for signed_in in signed_in_together(&store, requests).await {
        let key = test_support::signed_key(&signed_in, NOW + days(30));
        assert!(!signed_in.first_login);
        assert_eq!(resolves_to(&store, &key, NOW).await, Some(a.account.id));
    }
}

/// Sign-ins of many existing accounts at once (written together in batches): each answers its
/// own account and that account's key generation, and each appends one event.
async fn concurrent_sign_ins_of_many_accounts_each_answer_their_own(store: Arc<dyn Store>) {
    let mut accounts = Vec::new();
    for n in 0..24 {
        let (signed_in, _) = sign_in(
            &store,
            &format!("many-{n}"),
            &[&format!("Many#{n:04}")],
            NOW,
        )
        .await;
        if n % 2 == 1 {
            assert!(
                store
                    .revoke_all_keys(signed_in.account.id, None)
                    .await
                    .expect("revoked")
            );
        }
        accounts.push(signed_in.account.id);
    }
    let before = store.events(0, 1_000).await.expect("read").len();
    let tasks: Vec<_> = (0..72)
        .map(|at| {
            let store = Arc::clone(&store);
            let identifier = format!("many-{}", at % 24);
            tokio::spawn(
                async move { (at % 24, store.sign_in(device(&identifier, &[], NOW)).await) },
            )
        })
        .collect();
    for task in tasks {
        let (n, signed_in) = task.await.expect("the task completes");
        let signed_in = signed_in.expect("every sign-in succeeds");
        assert_eq!(signed_in.account.id, accounts[n]);
        assert_eq!(signed_in.key_generation, u32::from(n % 2 == 1));
        let key = test_support::signed_key(&signed_in, NOW + days(30));
        assert_eq!(resolves_to(&store, &key, NOW).await, Some(accounts[n]));
    }
    let events = store.events(0, 1_000).await.expect("read");
    assert_eq!(events.len(), before + 72);
    for (n, account) in accounts.iter().enumerate() {
        let signed_in = events[before..]
            .iter()
            .filter(|(event, _)| event.account == Some(*account))
            .count();
        assert_eq!(signed_in, 3, "account {n} signed in three times");
    }
}

/// First sign-ins of many identities at once (written together in batches where the store
/// can), two of each offering the same friend code first: each identity gets one account, the
/// code goes to one of the two and the other gets its next candidate, and each account has its
/// two events, `account_created` before `signed_in`.
async fn concurrent_first_sign_ins_of_many_identities_each_create_theirs(store: Arc<dyn Store>) {
    let tasks: Vec<_> = (0..48)
        .map(|n| {
            let store = Arc::clone(&store);
            let shared = format!("Pair#{:04}", n / 2);
            let own = format!("Own#{n:04}");
            tokio::spawn(async move {
                store
                    .sign_in(device(&format!("first-{n}"), &[&shared, &own], NOW))
                    .await
            })
        })
        .collect();
    let mut codes = std::collections::HashSet::new();
    let mut accounts = Vec::new();
    for (n, task) in tasks.into_iter().enumerate() {
        let signed_in = task
            .await
            .expect("the task completes")
            .expect("every sign-in succeeds");
        assert!(signed_in.first_login, "sign-in {n} created its account");
        let code = signed_in.account.friend_code.to_string();
        assert!(
            code == format!("Pair#{:04}", n / 2) || code == format!("Own#{n:04}"),
            "{code}"
        );
        assert!(codes.insert(code), "every account has a code of its own");
        accounts.push(signed_in.account.id);
    }
    for pair in 0..24 {
        assert!(
            codes.contains(&format!("Pair#{pair:04}")),
            "pair {pair}'s code was taken"
        );
    }
    let events = store.events(0, 1_000).await.expect("read");
    for account in accounts {
        let kinds: Vec<&str> = events
            .iter()
            .filter(|(event, _)| event.account == Some(account))
            .map(|(event, _)| event.payload.kind())
            .collect();
        assert_eq!(kinds, ["account_created", "signed_in"]);
    }
}

/// An identity signs in several times at once while its account is deleted: each sign-in
/// answers the old account, whose deletion then takes the key, or the deletion wins and the
/// sign-in finds or creates one fresh account whose key works; never a store error.
async fn a_sign_in_racing_the_accounts_deletion_signs_in_or_starts_afresh(store: Arc<dyn Store>) {
    for n in 0..16 {
        let identifier = format!("racer-{n}");
        let code = format!("Racer#{n:04}");
        let (before, _) = sign_in(&store, &identifier, &[&code], NOW).await;
        let signing_in: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                let request = device(&identifier, &[&code], NOW);
                tokio::spawn(async move { store.sign_in(request).await })
            })
            .collect();
        let deleting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.delete_account(before.account.id, None).await })
        };
        let mut answers = Vec::new();
        for task in signing_in {
            let signed_in = task
                .await
                .expect("the task completes")
                .expect("the sign-in succeeds");
            let key = test_support::signed_key(&signed_in, NOW + days(30));
            answers.push((signed_in, key));
        }
        assert!(
            deleting
                .await
                .expect("the task completes")
                .expect("deletes")
        );
        let mut fresh = HashSet::new();
        let mut first_logins = 0;
        for (signed_in, key) in answers {
            let account = signed_in.account.id;
            first_logins += usize::from(signed_in.first_login);
            let resolved = resolves_to(&store, &key, NOW).await;
            if account == before.account.id {
                assert!(!signed_in.first_login);
                assert_eq!(resolved, None, "the key went with the account");
            } else {
                fresh.insert(account);
                assert_eq!(resolved, Some(account), "the fresh account's key works");
            }
        }
        assert!(fresh.len() <= 1, "one fresh account at most: {fresh:?}");
        assert_eq!(first_logins, fresh.len(), "the fresh account is new once");
    }
}

/// A first sign-in appends `account_created` and `signed_in`; each later one (concurrent ones
/// too) appends one `signed_in`, and nothing else.
async fn each_sign_in_appends_exactly_its_events(store: Arc<dyn Store>) {
    let (first, _) = sign_in(&store, "a", &["Ace#0001"], NOW).await;
    let requests = (0..12).map(|_| device("a", &[], NOW));
    for signed_in in signed_in_together(&store, requests).await {
        assert_eq!(signed_in.account.id, first.account.id);
    }
    let events = store.events(0, 100).await.expect("read");
    let kinds: Vec<(&str, bool)> = events
        .iter()
        .map(|(event, _)| {
            let first_login = matches!(
                event.payload,
                EventPayload::SignedIn {
                    first_login: true,
                    ..
                }
            );
            (event.payload.kind(), first_login)
        })
        .collect();
    let mut wanted = vec![("account_created", false), ("signed_in", true)];
    wanted.extend(std::iter::repeat_n(("signed_in", false), 12));
    assert_eq!(kinds, wanted);
    assert!(
        events
            .iter()
            .all(|(event, _)| event.account == Some(first.account.id))
    );
}

/// After a run of new devices (the store then tries creating an account before reading one),
/// a returning identity's sign-ins, concurrent and offering a free code, each answer its own
/// account and write nothing else: no account, no `account_created`, the code left free.
async fn a_returning_identity_signs_in_while_new_devices_lead(store: Arc<dyn Store>) {
    let (returning, _) = sign_in(&store, "returning", &["Back#0001"], NOW).await;
    for n in 0..10 {
        let (new, _) = sign_in(&store, &format!("new-{n}"), &[&format!("New#{n:04}")], NOW).await;
        assert!(new.first_login);
    }
    let requests = (0..8).map(|_| device("returning", &["Free#0001"], NOW));
    for signed_in in signed_in_together(&store, requests).await {
        assert!(!signed_in.first_login);
        assert_eq!(signed_in.account, returning.account);
    }
    let events = store.events(0, 100).await.expect("read");
    let created = events
        .iter()
        .filter(|(event, _)| event.payload.kind() == "account_created")
        .count();
    assert_eq!(created, 11, "one account per identity");
    let returned = events
        .iter()
        .filter(|(event, _)| event.account == Some(returning.account.id))
        .count();
    assert_eq!(
        returned,
        2 + 8,
        "its first sign-in's two events, then one per sign-in"
    );
    let (free, _) = sign_in(&store, "later", &["Free#0001"], NOW).await;
    assert_eq!(free.account.friend_code.to_string(), "Free#0001");
}

/// Nodes without a configured secret share the first one stored.
async fn the_stored_key_secret_is_the_first_one_offered(store: Arc<dyn Store>) {
    let offers: Vec<_> = (0..8)
        .map(|n| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.stored_key_secret(&format!("{n:064}")).await })
        })
        .collect();
    let mut answers = HashSet::new();
    for offer in offers {
        answers.insert(
            offer
                .await
                .expect("the task completes")
                .expect("the secret is stored"),
        );
    }
    assert_eq!(answers.len(), 1, "one secret: {answers:?}");
    let kept = answers.into_iter().next().expect("one");
    assert_eq!(
        store
            .stored_key_secret(&"f".repeat(64))
            .await
            .expect("read"),
        kept
    );
}
