//! The match browser (`MatchBrowser`), written once and run against SQLite and PostgreSQL, each
//! test on its own fresh database: the recorded matches newest reported first, every match
//! exactly once across pages; one match's results best placement first; and one player's
//! result removed from one match with one account log entry and one audit row, or, when there
//! is no such result, nothing changed but its audit row.

use std::collections::BTreeMap;
use std::sync::Arc;

use safezone_core::domain::GameMode;
use safezone_core::store::{
    AccountChange, AccountId, AuditFilter, MatchApplied, MatchCursor, MatchId, MatchRecord,
    NewAuditEntry, NewOperatorToken, OperatorRole, PlayerResult, ResultRemoval, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    pages_visit_every_match_newest_reported_first_exactly_once,
    a_match_shows_every_players_result_best_placement_first,
    removing_one_result_leaves_the_others_with_one_log_entry_and_one_audit_row,
    removing_a_result_that_is_not_there_changes_nothing_but_its_audit_row,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// A new account with friend code `code`.
async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

fn match_id(text: &str) -> MatchId {
    MatchId::parse(text).expect("a match id")
}

/// Records the solo match `id`, reported `reported` minutes after [`NOW`], of `players` (each
/// account with its placement; kills and seconds alive follow from it).
async fn report(store: &Arc<dyn Store>, id: &str, reported: i64, players: &[(AccountId, i64)]) {
    let reported = NOW + Duration::minutes(reported);
    let record = MatchRecord {
        id: match_id(id),
        mode: GameMode::parse("solo").expect("a mode"),
        started: reported - Duration::minutes(25),
        ended: reported - Duration::seconds(5),
        reported,
        players: players
            .iter()
            .map(|&(account, placement)| PlayerResult {
                account,
                placement,
                kills: 10 - placement,
                time_alive_secs: 1_000 - placement,
                stats: BTreeMap::from([("rounds".to_owned(), 1)]),
            })
            .collect(),
        summary: format!("summary of {id}"),
    };
    let applied = store.report_match(&record, &[]).await.expect("reported");
    assert!(matches!(applied, MatchApplied::Done(_)), "{applied:?}");
}

/// The ids of every page of matches, `limit` a page, following the cursors (through their text
/// form) to the end.
async fn every_page(store: &Arc<dyn Store>, limit: u32) -> Vec<String> {
    let mut ids = Vec::new();
    let mut after = None;
    for _ in 0..100 {
        let page = store
            .recent_matches(after.as_ref(), limit)
            .await
            .expect("a page is read");
        assert!(page.matches.len() <= limit as usize);
        assert!(page.next.is_none() || page.matches.len() == limit as usize);
        ids.extend(
            page.matches
                .iter()
                .map(|found| found.id.as_str().to_owned()),
        );
        let Some(next) = page.next else {
            return ids;
        };
        after = Some(MatchCursor::parse(&next.to_string()).expect("the cursor reads back"));
    }
    panic!("the pages do not end");
}

async fn pages_visit_every_match_newest_reported_first_exactly_once(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    assert!(every_page(&store, 10).await.is_empty(), "no match yet");
    // Reported in another order than their ids; three at the same time (ordered by id, the
    // greatest first), one with dots in its id (the cursor's separator).
    let reports = [
        ("m-3", 5),
        ("m-1", 9),
        ("m-2", 1),
        ("eu.7:b", 7),
        ("eu.7:a", 7),
        ("eu.7:c", 7),
        ("m-0", 3),
    ];
    for (id, reported) in reports {
        report(&store, id, reported, &[(ann, 1), (bob, 2)]).await;
    }
    let expected = ["m-1", "eu.7:c", "eu.7:b", "eu.7:a", "m-3", "m-0", "m-2"];
    for limit in [1, 2, 3, 7, 100] {
        assert_eq!(
            every_page(&store, limit).await,
            expected,
            "pages of {limit}"
        );
    }
    let first = store
        .recent_matches(None, 1_000)
        .await
        .expect("a page is read");
    assert_eq!(first.matches.len(), expected.len(), "at most 100, here all");
    assert!(first.next.is_none());
    let newest = &first.matches[0];
    assert_eq!(newest.mode, GameMode::parse("solo").expect("a mode"));
    assert_eq!(newest.reported, NOW + Duration::minutes(9));
    assert_eq!(newest.ended, newest.reported - Duration::seconds(5));
    assert_eq!(newest.started, newest.reported - Duration::minutes(25));
    assert_eq!(newest.players, 2);
}

async fn a_match_shows_every_players_result_best_placement_first(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0002").await;
    let bob = account(&store, "Bob#0002").await;
    let cid = account(&store, "Cid#0002").await;
    report(&store, "m-1", 1, &[(ann, 3), (bob, 1), (cid, 2)]).await;
    report(&store, "m-2", 2, &[(ann, 1)]).await;
    let found = store
        .match_results(&match_id("m-1"))
        .await
        .expect("the match is read")
        .expect("the match is found");
    assert_eq!(found.summary.id, match_id("m-1"));
    assert_eq!(found.summary.players, 3);
    let shown: Vec<(AccountId, String, i64, i64, i64)> = found
        .results
        .iter()
        .map(|result| {
            (
                result.account,
                result.friend_code.to_string(),
                result.placement,
                result.kills,
                result.time_alive_secs,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (bob, "Bob#0002".to_owned(), 1, 9, 999),
            (cid, "Cid#0002".to_owned(), 2, 8, 998),
            (ann, "Ann#0002".to_owned(), 3, 7, 997),
        ]
    );
    assert_eq!(
        store
            .match_results(&match_id("m-9"))
            .await
            .expect("the match is read"),
        None
    );
}

/// An audit row of `token` for removing `account`'s result from the match `id`.
fn audit_row(token: i64, id: &str, account: AccountId) -> NewAuditEntry {
    NewAuditEntry {
        token,
        at: NOW,
        action: "remove-result".to_owned(),
        target: format!("account:{}", account.0),
        reason: format!("match {id}: aimbot"),
        result: "done".to_owned(),
    }
}

/// A full operator token's id.
async fn operator(store: &Arc<dyn Store>) -> i64 {
    store
        .create_operator_token(NewOperatorToken {
            name: "alice".to_owned(),
            role: OperatorRole::Full,
            secret_hash: "aa".to_owned(),
            now: NOW,
        })
        .await
        .expect("the store answers")
        .expect("a new name")
        .id
}

/// What a removal may change: the whole match log (account, match-independent fields), the
/// account log, and the audit rows of `remove-result`.
async fn state(
    store: &Arc<dyn Store>,
) -> (
    Vec<(AccountId, i64)>,
    Vec<(AccountId, AccountChange)>,
    Vec<(String, String)>,
) {
    let log = store
        .match_log(0, 1_000)
        .await
        .expect("the match log reads")
        .into_iter()
        .map(|entry| (entry.account, entry.placement))
        .collect();
    let changes = store
        .account_log(0, 1_000)
        .await
        .expect("the account log reads")
        .into_iter()
        .map(|entry| (entry.account, entry.change))
        .collect();
    let audit = store
        .audit(&AuditFilter {
            action: Some("remove-result".to_owned()),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads")
        .into_iter()
        .map(|row| (row.entry.target, row.entry.reason))
        .collect();
    (log, changes, audit)
}

/// The accounts with a result in the match `id`, best first.
async fn players_of(store: &Arc<dyn Store>, id: &str) -> Vec<AccountId> {
    store
        .match_results(&match_id(id))
        .await
        .expect("the match is read")
        .expect("the match is found")
        .results
        .iter()
        .map(|result| result.account)
        .collect()
}

async fn removing_one_result_leaves_the_others_with_one_log_entry_and_one_audit_row(
    store: Arc<dyn Store>,
) {
    let token = operator(&store).await;
    let cheater = account(&store, "Cheat#0003").await;
    let honest = account(&store, "Fair#0003").await;
    report(&store, "m-1", 1, &[(cheater, 1), (honest, 2)]).await;
    report(&store, "m-2", 2, &[(honest, 1), (cheater, 2)]).await;
    let (log_before, changes_before, audit_before) = state(&store).await;
    assert!(changes_before.is_empty() && audit_before.is_empty());

    let audit = audit_row(token, "m-1", cheater);
    let removed = store
        .remove_result(&match_id("m-1"), cheater, NOW, Some(&audit))
        .await
        .expect("the removal runs");
    assert_eq!(removed, Some(ResultRemoval::Removed));

    assert_eq!(players_of(&store, "m-1").await, [honest]);
    assert_eq!(players_of(&store, "m-2").await, [honest, cheater]);
    let (log, changes, audit_rows) = state(&store).await;
    let mut expected_log = log_before;
    expected_log.retain(|entry| *entry != (cheater, 1));
    assert_eq!(log, expected_log, "only that result left the match log");
    assert_eq!(
        changes,
        [(cheater, AccountChange::ResultsRemoved { through: 0 })],
        "one account log entry: every board counts again what is left"
    );
    assert_eq!(
        audit_rows,
        [(
            format!("account:{}", cheater.0),
            "match m-1: aimbot".to_owned()
        )]
    );
    let page = store.recent_matches(None, 10).await.expect("a page");
    let counts: Vec<u32> = page.matches.iter().map(|found| found.players).collect();
    assert_eq!(counts, [2, 1], "m-2, then m-1 with one player left");
    // The board follower counts again the player's results left: all of them from 0.
    let left = store
        .results_of(cheater, 0, i64::MAX)
        .await
        .expect("the results read");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].placement, 2);
}

async fn removing_a_result_that_is_not_there_changes_nothing_but_its_audit_row(
    store: Arc<dyn Store>,
) {
    let token = operator(&store).await;
    let ann = account(&store, "Ann#0004").await;
    let bob = account(&store, "Bob#0004").await;
    let absent = account(&store, "Cid#0004").await;
    report(&store, "m-1", 1, &[(ann, 1), (bob, 2)]).await;
    let audit = audit_row(token, "m-1", ann);
    assert_eq!(
        store
            .remove_result(&match_id("m-1"), ann, NOW, Some(&audit))
            .await
            .expect("the removal runs"),
        Some(ResultRemoval::Removed)
    );
    let (log, changes, audit_rows) = state(&store).await;

    // Removed before, a player who did not play, a match that does not exist.
    let cases = [("m-1", ann), ("m-1", absent), ("m-9", bob)];
    for (number, (id, who)) in cases.into_iter().enumerate() {
        let audit = audit_row(token, id, who);
        let removed = store
            .remove_result(&match_id(id), who, NOW, Some(&audit))
            .await
            .expect("the removal runs");
        assert_eq!(removed, Some(ResultRemoval::NoSuchResult), "{id} {who:?}");
        let (log_now, changes_now, audit_now) = state(&store).await;
        assert_eq!(log_now, log, "the match log is unchanged");
        assert_eq!(changes_now, changes, "the account log is unchanged");
        assert_eq!(
            audit_now.len(),
            audit_rows.len() + number + 1,
            "its audit row"
        );
        assert_eq!(audit_now[0].0, format!("account:{}", who.0));
    }
    assert_eq!(players_of(&store, "m-1").await, [bob]);

    // No such account: nothing written, not even the audit row (its caller appends the
    // refusal's).
    let nobody = AccountId(ann.0 + bob.0 + absent.0 + 100);
    let before = state(&store).await;
    let audit = audit_row(token, "m-1", nobody);
    assert_eq!(
        store
            .remove_result(&match_id("m-1"), nobody, NOW, Some(&audit))
            .await
            .expect("the removal runs"),
        None
    );
    assert_eq!(state(&store).await, before);
    // Without an audit row (not an operator's), nothing at all is written.
    assert_eq!(
        store
            .remove_result(&match_id("m-1"), absent, NOW, None)
            .await
            .expect("the removal runs"),
        Some(ResultRemoval::NoSuchResult)
    );
    assert_eq!(state(&store).await, before);
}
