//! The store contract of the operator tokens and their audit, run against SQLite and
//! PostgreSQL, each test on its own fresh database.

use std::sync::Arc;

use safezone_core::domain::GameMode;
use safezone_core::events::EventPayload;
use safezone_core::store::{
    AccountId, Applied, AuditFilter, Change, Closing, Currency, NewAuditEntry, NewOperatorToken,
    NewPoll, NewPollOption, NewTournament, OperatorRole, PollEdit, Publication, Step, Store,
    TournamentCode, TournamentEdit, WhitelistEdit,
};
use safezone_storage::test_support;
use sqlx::Connection;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    tokens_are_created_found_and_revoked,
    the_audit_is_filtered_newest_first,
    every_operator_change_appends_its_audit_row_in_its_transaction,
    a_change_whose_audit_row_fails_is_not_made,
    deletion_erases_the_friend_codes_of_the_accounts_events,
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

/// A full token named `alice`.
async fn operator(store: &Arc<dyn Store>) -> i64 {
    store
        .create_operator_token(new_token("alice", OperatorRole::Full, "aa"))
        .await
        .expect("the store answers")
        .expect("a new name")
        .id
}

/// An audit row of `token` for `action` on `target`, done.
fn done(token: i64, action: &str, target: &str) -> NewAuditEntry {
    NewAuditEntry {
        token,
        at: NOW,
        action: action.to_owned(),
        target: target.to_owned(),
        reason: format!("ticket for {action}"),
        result: "done".to_owned(),
    }
}

/// An operator's change of `account`'s currencies.
fn change(account: AccountId, steps: Vec<Step>) -> Change {
    Change {
        account,
        now: NOW,
        reason: "ticket".to_owned(),
        reference: "operator:alice:grant".to_owned(),
        idempotency: None,
        steps,
    }
}

fn credit(amount: i64) -> Vec<Step> {
    vec![Step::Credit {
        currency: Currency::Coins,
        amount,
    }]
}

fn poll() -> NewPoll {
    let option = |name: &str| NewPollOption {
        name: name.to_owned(),
        color_code: "#ff0000".to_owned(),
    };
    NewPoll {
        question: "Which map?".to_owned(),
        options: vec![option("Harbour"), option("Canyon")],
        opens: NOW - Duration::hours(1),
        closes: NOW + Duration::hours(1),
        now: NOW,
    }
}

fn code(text: &str) -> TournamentCode {
    TournamentCode::parse(text).expect("a valid tournament code")
}

fn tournament(text: &str) -> NewTournament {
    NewTournament {
        code: code(text),
        mode: GameMode::parse("squad").expect("a mode"),
        opens: NOW + Duration::hours(1),
        closes: NOW + Duration::hours(3),
        capacity: 10,
        whitelist_only: false,
        now: NOW,
    }
}

/// The audit, oldest first, as `(action, target)`.
async fn audit_rows(store: &Arc<dyn Store>) -> Vec<(String, String)> {
    let mut rows = store
        .audit(&AuditFilter {
            limit: 1000,
            ..AuditFilter::default()
        })
        .await
        .expect("the store answers");
    rows.reverse();
    rows.into_iter()
        .map(|row| (row.entry.action, row.entry.target))
        .collect()
}

/// The `operator_action` events, oldest first, as `(action, target)`.
async fn operator_events(store: &Arc<dyn Store>) -> Vec<(String, String)> {
    store
        .events(0, 10_000)
        .await
        .expect("the store answers")
        .into_iter()
        .filter_map(|(event, _)| match event.payload {
            EventPayload::OperatorAction { action, target, .. } => Some((action, target)),
            _ => None,
        })
        .collect()
}

async fn every_operator_change_appends_its_audit_row_in_its_transaction(store: Arc<dyn Store>) {
    let token = operator(&store).await;
    let ann = test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    let bee = test_support::new_account(store.as_ref(), "Bee#0001", NOW).await;
    let target = format!("account:{}", ann.id.0);
    let row = |action: &str, target: &str| done(token, action, target);
    let missing = AccountId(ann.id.0 + 1000);

    let grant = row("grant", &target);
    let granted = store.apply(change(ann.id, credit(50)), Some(&grant)).await;
    assert!(matches!(granted, Ok(Applied::Done(_))), "{granted:?}");
    let overdraw = vec![Step::Debit {
        currency: Currency::Coins,
        amount: 1_000_000,
    }];
    let remove = row("remove", &target);
    let (refused, view) = store
        .apply_viewed(change(ann.id, overdraw), Some(&remove))
        .await
        .expect("the store answers");
    assert!(matches!(refused, Applied::Refused(_)) && view.is_none());
    let ban = row("ban", &target);
    assert!(
        store
            .set_banned(ann.id, true, Some(&ban))
            .await
            .expect("ban")
    );
    let nobody = row("ban", "account:0");
    assert!(
        !store
            .set_banned(missing, true, Some(&nobody))
            .await
            .expect("ban")
    );
    let unban = row("unban", &target);
    assert!(
        store
            .set_banned(ann.id, false, Some(&unban))
            .await
            .expect("unban")
    );
    let revoke = row("revoke-keys", &target);
    assert!(
        store
            .revoke_all_keys(ann.id, Some(&revoke))
            .await
            .expect("revoke")
    );
    let results = row("remove-results", &target);
    let removed = store
        .remove_results(ann.id, NOW, Some(&results))
        .await
        .expect("remove");
    assert_eq!(removed.map(|removed| removed.removed), Some(0));
    let nobody_results = row("remove-results", "account:0");
    assert!(
        store
            .remove_results(missing, NOW, Some(&nobody_results))
            .await
            .expect("remove")
            .is_none()
    );

    let created = store
        .create_poll(poll(), Some(&row("poll-create", "poll")))
        .await
        .expect("create");
    let poll_target = format!("poll:{}", created.id.0);
    let edit = PollEdit {
        poll: created.id,
        question: Some("Which map next?".to_owned()),
        closes: None,
        now: NOW,
    };
    let edited = store
        .edit_poll(edit, Some(&row("poll-edit", &poll_target)))
        .await
        .expect("edit");
    assert!(edited.is_ok());
    let close = row("poll-close", &poll_target);
    assert_eq!(
        store
            .close_poll(created.id, NOW, Some(&close))
            .await
            .expect("close"),
        Closing::Closed
    );
    assert_eq!(
        store
            .close_poll(created.id, NOW, Some(&close))
            .await
            .expect("close"),
        Closing::AlreadyClosed
    );
    let unknown_poll = safezone_core::store::PollId(created.id.0 + 100);
    let no_poll = row("poll-close", "poll:0");
    assert_eq!(
        store
            .close_poll(unknown_poll, NOW, Some(&no_poll))
            .await
            .expect("close"),
        Closing::Unknown
    );

    let cup = row("tournament-create", "tournament:cup");
    assert!(
        store
            .create_tournament(tournament("cup"), Some(&cup))
            .await
            .expect("create")
    );
    assert!(
        !store
            .create_tournament(tournament("cup"), Some(&cup))
            .await
            .expect("create")
    );
    let edit = TournamentEdit {
        code: code("cup"),
        mode: None,
        opens: None,
        closes: None,
        capacity: Some(20),
        whitelist_only: None,
        now: NOW,
    };
    let edit_cup = row("tournament-edit", "tournament:cup");
    assert!(
        store
            .edit_tournament(edit, Some(&edit_cup))
            .await
            .expect("edit")
            .is_ok()
    );
    let whitelist = |text: &str| WhitelistEdit {
        code: code(text),
        replace: false,
        add: vec![bee.friend_code.clone()],
        remove: Vec::new(),
        now: NOW,
    };
    let listed = row("whitelist", "tournament:cup");
    assert!(
        store
            .edit_whitelist(whitelist("cup"), Some(&listed))
            .await
            .expect("edit")
            .is_some()
    );
    let unlisted = row("whitelist", "tournament:none");
    assert!(
        store
            .edit_whitelist(whitelist("none"), Some(&unlisted))
            .await
            .expect("edit")
            .is_none()
    );
    let close_cup = row("tournament-close", "tournament:cup");
    assert_eq!(
        store
            .close_tournament(&code("cup"), NOW, Some(&close_cup))
            .await
            .expect("close"),
        Closing::Closed
    );
    let close_none = row("tournament-close", "tournament:none");
    assert_eq!(
        store
            .close_tournament(&code("none"), NOW, Some(&close_none))
            .await
            .expect("close"),
        Closing::Unknown
    );

    let publish = row("content-publish", "content");
    let version = store
        .publish_content("# content", &Publication::default(), NOW, Some(&publish))
        .await
        .expect("publish");
    let delete = row("delete", &target);
    assert!(
        store
            .delete_account(ann.id, Some(&delete))
            .await
            .expect("delete")
    );
    assert!(
        !store
            .delete_account(ann.id, Some(&delete))
            .await
            .expect("delete")
    );

    let pair = |action: &str, target: &str| (action.to_owned(), target.to_owned());
    let expected = vec![
        pair("grant", &target),
        pair("ban", &target),
        pair("unban", &target),
        pair("revoke-keys", &target),
        pair("remove-results", &target),
        pair("poll-create", &poll_target),
        pair("poll-edit", &poll_target),
        pair("poll-close", &poll_target),
        pair("poll-close", &poll_target),
        pair("tournament-create", "tournament:cup"),
        pair("tournament-edit", "tournament:cup"),
        pair("whitelist", "tournament:cup"),
        pair("tournament-close", "tournament:cup"),
        pair("content-publish", &format!("content:{version}")),
        pair("delete", &target),
    ];
    assert_eq!(
        audit_rows(&store).await,
        expected,
        "one row per change made, none for a refusal"
    );
    assert_eq!(operator_events(&store).await, expected, "one event per row");
}

async fn a_change_whose_audit_row_fails_is_not_made(store: Arc<dyn Store>) {
    operator(&store).await;
    let ann = test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    // No token has this id: the audit row's foreign key refuses it, and the change with it.
    let orphan = done(9_999, "grant", &format!("account:{}", ann.id.0));
    let audit = Some(&orphan);

    assert!(
        store
            .apply(change(ann.id, credit(50)), audit)
            .await
            .is_err()
    );
    assert!(store.ledger(ann.id).await.expect("ledger").is_empty());
    assert_eq!(
        store.account(ann.id).await.expect("read").map(|a| a.coins),
        Some(ann.coins)
    );
    assert!(store.set_banned(ann.id, true, audit).await.is_err());
    assert_eq!(
        store
            .account(ann.id)
            .await
            .expect("read")
            .map(|a| a.is_banned),
        Some(false)
    );
    assert!(store.create_poll(poll(), audit).await.is_err());
    assert!(store.polls(10).await.expect("polls").is_empty());
    assert!(
        store
            .create_tournament(tournament("cup"), audit)
            .await
            .is_err()
    );
    assert!(
        store
            .tournament(&code("cup"))
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .publish_content("# content", &Publication::default(), NOW, audit)
            .await
            .is_err()
    );
    assert_eq!(store.content_head().await.expect("head"), 0);
    assert!(store.revoke_all_keys(ann.id, audit).await.is_err());
    assert_eq!(
        store.key_generation(ann.id).await.expect("keys"),
        Some(0),
        "no key was revoked"
    );
    assert!(store.delete_account(ann.id, audit).await.is_err());
    assert!(store.account(ann.id).await.expect("read").is_some());

    assert!(audit_rows(&store).await.is_empty());
    assert!(operator_events(&store).await.is_empty());
}

/// The events of `account` as `(id, kind, payload)`.
async fn events_of(store: &Arc<dyn Store>, account: AccountId) -> Vec<(i64, String, String)> {
    store
        .events(0, 10_000)
        .await
        .expect("the store answers")
        .into_iter()
        .filter(|(event, _)| event.account == Some(account))
        .map(|(event, _)| {
            let json = event.payload.to_json().expect("serializes");
            (event.id, event.payload.kind().to_owned(), json)
        })
        .collect()
}

async fn deletion_erases_the_friend_codes_of_the_accounts_events(store: Arc<dyn Store>) {
    let token = operator(&store).await;
    let zed = test_support::new_account(store.as_ref(), "Zed#0001", NOW).await;
    let mut deleted = Vec::new();
    for (code, by_operator) in [("Ann#0001", false), ("Bee#0001", true)] {
        let account = test_support::new_account(store.as_ref(), code, NOW).await;
        let rename = Change {
            reason: "rename".to_owned(),
            reference: "name".to_owned(),
            ..change(
                account.id,
                vec![Step::ChangeFriendCode {
                    name: format!("{}Renamed", &code[..3]),
                    digits: vec![7],
                }],
            )
        };
        assert!(matches!(
            store.apply(rename, None).await,
            Ok(Applied::Done(_))
        ));
        let buy = Change {
            reason: "buy".to_owned(),
            reference: "item:7".to_owned(),
            ..change(account.id, credit(40))
        };
        assert!(matches!(store.apply(buy, None).await, Ok(Applied::Done(_))));
        let before = events_of(&store, account.id).await;
        assert!(before.iter().any(|(_, _, json)| json.contains(&code[..3])));
        let entry = done(token, "delete", &format!("account:{}", account.id.0));
        let audit = by_operator.then_some(&entry);
        assert!(
            store
                .delete_account(account.id, audit)
                .await
                .expect("delete")
        );
        deleted.push((account, before, by_operator));
    }
    for (account, before, by_operator) in deleted {
        let after = events_of(&store, account.id).await;
        let name = account.friend_code.name().to_owned();
        for (_, kind, json) in &after {
            assert!(!json.contains(&name), "{kind} still tells {name}: {json}");
            assert!(
                !json.contains("Renamed"),
                "{kind} still tells the new name: {json}"
            );
        }
        let kept: Vec<_> = after
            .iter()
            .map(|(id, kind, _)| (*id, kind.clone()))
            .collect();
        let was: Vec<_> = before
            .iter()
            .map(|(id, kind, _)| (*id, kind.clone()))
            .collect();
        assert_eq!(kept[..was.len()], was[..], "ids and kinds stay");
        let then: Vec<_> = kept[was.len()..]
            .iter()
            .map(|(_, kind)| kind.as_str())
            .collect();
        let expected = if by_operator {
            vec!["deleted", "operator_action"]
        } else {
            vec!["deleted"]
        };
        assert_eq!(then, expected);
        let purchase = |events: &[(i64, String, String)]| {
            events
                .iter()
                .find(|(_, kind, _)| kind == "purchase")
                .map(|(_, _, json)| json.clone())
        };
        assert_eq!(purchase(&after), purchase(&before), "amounts stay");
    }
    let untouched = events_of(&store, zed.id).await;
    assert!(
        untouched.iter().any(|(_, _, json)| json.contains("Zed")),
        "others keep theirs"
    );
}

/// A database of each kind with one audit row, read and written through raw SQL: `INSERT OR
/// REPLACE` (SQLite) and `TRUNCATE` (PostgreSQL) are refused as UPDATE and DELETE are.
async fn with_one_audit_row(store: &Arc<dyn Store>) {
    let token = operator(store).await;
    store
        .append_audit(done(token, "grant", "account:1"))
        .await
        .expect("the store answers");
}

/// The one row's reason, read through raw SQL.
const REASON: &str = "SELECT reason FROM operator_audit WHERE id = 1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_refuses_replacing_an_audit_row() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    let store = safezone_storage::open(&url)
        .await
        .expect("the SQLite store opens");
    with_one_audit_row(&store).await;
    let mut raw = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("connects");
    for statement in [
        "INSERT OR REPLACE INTO operator_audit (id, token_id, at, action, target, reason, result) \
         VALUES (1, 1, 0, 'grant', 'account:1', 'rewritten', 'done')",
        "REPLACE INTO operator_audit (id, token_id, at, action, target, reason, result) \
         VALUES (1, 1, 0, 'grant', 'account:1', 'rewritten', 'done')",
        "UPDATE operator_audit SET reason = 'rewritten'",
        "DELETE FROM operator_audit",
    ] {
        let refused = sqlx::query(statement).execute(&mut raw).await;
        assert!(refused.is_err(), "{statement} was accepted");
    }
    let reason: String = sqlx::query_scalar(REASON)
        .fetch_one(&mut raw)
        .await
        .expect("reads");
    assert_eq!(reason, "ticket for grant");
    let appended = sqlx::query(
        "INSERT INTO operator_audit (token_id, at, action, target, reason, result) \
         VALUES (1, 0, 'ban', 'account:1', 'new', 'done')",
    )
    .execute(&mut raw)
    .await;
    assert!(appended.is_ok(), "appending still works: {appended:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_refuses_truncating_the_audit() {
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url)
        .await
        .expect("the PostgreSQL store opens");
    with_one_audit_row(&store).await;
    let mut raw = sqlx::PgConnection::connect(&url).await.expect("connects");
    for statement in [
        "TRUNCATE operator_audit",
        "TRUNCATE operator_tokens CASCADE",
        "INSERT INTO operator_audit (id, token_id, at, action, target, reason, result) \
         VALUES (1, 1, 0, 'grant', 'account:1', 'rewritten', 'done') \
         ON CONFLICT (id) DO UPDATE SET reason = excluded.reason",
        "UPDATE operator_audit SET reason = 'rewritten'",
        "DELETE FROM operator_audit",
    ] {
        let refused = sqlx::query(statement).execute(&mut raw).await;
        assert!(refused.is_err(), "{statement} was accepted");
    }
    let reason: String = sqlx::query_scalar(REASON)
        .fetch_one(&mut raw)
        .await
        .expect("reads");
    assert_eq!(reason, "ticket for grant");
    raw.close().await.expect("closes");
    drop(store);
    test_support::drop_postgres_database(&url).await;
}
