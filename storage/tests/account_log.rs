//! The store contract of the account log (renames, bans and deletions, which leaderboards
//! follow next to the match log) and of the players the boards show (friend code, ban state),
//! run against SQLite and PostgreSQL, each test on its own fresh database.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::store::{
    AccountChange, AccountId, AccountLogEntry, Applied, Change, Currency, MatchApplied, MatchId,
    MatchRecord, PlayerResult, Refusal, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    the_log_starts_empty,
    renames_are_logged,
    refused_renames_log_nothing,
    renames_in_match_reports_are_logged,
    bans_and_unbans_are_logged,
    deletions_are_logged_and_stay,
    removed_results_leave_the_match_log_and_are_logged,
    the_log_pages_in_order,
    board_players_carry_the_current_code_and_ban,
    a_follower_misses_no_concurrent_change,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// A new account with friend code `code`.
async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

fn code(text: &str) -> FriendCode {
    FriendCode::parse(text).expect("a friend code")
}

fn change(account: AccountId, steps: Vec<Step>) -> Change {
    Change {
        account,
        now: NOW,
        reason: "test".to_owned(),
        reference: "case".to_owned(),
        idempotency: None,
        steps,
    }
}

fn rename_step(name: &str, digits: &[u16]) -> Step {
    Step::ChangeFriendCode {
        name: name.to_owned(),
        digits: digits.to_vec(),
    }
}

/// A change of `account`'s friend code to `name` with the first free of `digits`.
fn rename(account: AccountId, name: &str, digits: &[u16]) -> Change {
    change(account, vec![rename_step(name, digits)])
}

async fn apply(store: &Arc<dyn Store>, change: Change) -> Applied {
    store.apply(change, None).await.expect("the change runs")
}

async fn whole_log(store: &Arc<dyn Store>) -> Vec<AccountLogEntry> {
    store
        .account_log(0, 10_000)
        .await
        .expect("the account log reads")
}

/// The whole log without positions, `(account, change)` in order.
async fn changes(store: &Arc<dyn Store>) -> Vec<(AccountId, AccountChange)> {
    whole_log(store)
        .await
        .into_iter()
        .map(|entry| (entry.account, entry.change))
        .collect()
}

async fn head(store: &Arc<dyn Store>) -> i64 {
    store
        .account_log_head()
        .await
        .expect("the account log head reads")
}

/// A solo match `id` of `players` (placement by order, 3 kills each).
fn record(id: &str, players: &[AccountId]) -> MatchRecord {
    let ended = datetime!(2026-11-22 08:30 UTC);
    MatchRecord {
        id: MatchId::parse(id).expect("a match id"),
        mode: GameMode::parse("solo").expect("a mode"),
        started: ended - Duration::minutes(20),
        ended,
        reported: ended + Duration::seconds(5),
        players: (1..)
            .zip(players)
            .map(|(placement, &account)| PlayerResult {
                account,
                placement,
                kills: 3,
                time_alive_secs: 600,
                stats: BTreeMap::from([("rounds".to_owned(), 1)]),
            })
            .collect(),
        summary: format!("summary of {id}"),
    }
}

async fn report(store: &Arc<dyn Store>, record: &MatchRecord, changes: &[Change]) -> MatchApplied {
    store
        .report_match(record, changes)
        .await
        .expect("the report runs")
}

async fn the_log_starts_empty(store: Arc<dyn Store>) {
    assert_eq!(head(&store).await, 0);
    assert_eq!(whole_log(&store).await, vec![]);
    // Signing up is no change the log records: the match log carries the first friend code.
    account(&store, "Fresh#0001").await;
    assert_eq!(head(&store).await, 0);
    assert_eq!(whole_log(&store).await, vec![]);
}

async fn renames_are_logged(store: Arc<dyn Store>) {
    let id = account(&store, "Old#0042").await;
    account(&store, "Taken#0042").await;
    assert_eq!(
        apply(&store, rename(id, "Fresh", &[42, 7])).await,
        Applied::Done(Vec::new())
    );
    assert_eq!(
        apply(&store, rename(id, "taken", &[42, 7])).await,
        Applied::Done(Vec::new())
    );
    let log = whole_log(&store).await;
    assert_eq!(
        log.iter()
            .map(|entry| (entry.account, entry.change.clone()))
            .collect::<Vec<_>>(),
        [
            (id, AccountChange::Renamed(code("Fresh#0042"))),
            (id, AccountChange::Renamed(code("taken#0007"))),
        ]
    );
    assert!(log[0].seq < log[1].seq);
    assert_eq!(head(&store).await, log[1].seq);
}

async fn refused_renames_log_nothing(store: Arc<dyn Store>) {
    let id = account(&store, "Mine#0001").await;
    account(&store, "Full#0001").await;
    account(&store, "Full#0002").await;
    assert_eq!(
        apply(&store, rename(id, "Full", &[1, 2])).await,
        Applied::Refused(Refusal::FriendCodeTaken)
    );
    assert_eq!(
        apply(&store, rename(id, "Mine", &[5])).await,
        Applied::Refused(Refusal::SameFriendCodeName)
    );
    // A rename that worked but whose change a later step refused is rolled back with it.
    let broke = change(
        id,
        vec![
            rename_step("Other", &[1]),
            Step::Debit {
                currency: Currency::Gems,
                amount: 5,
            },
        ],
    );
    assert!(matches!(
        apply(&store, broke).await,
        Applied::Refused(Refusal::InsufficientFunds { .. })
    ));
    // So is one of a banned account (refused before any step).
    assert!(store.set_banned(id, true, None).await.expect("ban"));
    let banned_head = head(&store).await;
    assert_eq!(
        apply(&store, rename(id, "Other", &[1])).await,
        Applied::Refused(Refusal::Banned)
    );
    assert_eq!(head(&store).await, banned_head);
    assert_eq!(changes(&store).await, [(id, AccountChange::Banned(true))]);
    let account = store
        .account(id)
        .await
        .expect("account lookup succeeds")
        .expect("the account exists");
    assert_eq!(account.friend_code, code("Mine#0001"));
}

async fn renames_in_match_reports_are_logged(store: Arc<dyn Store>) {
    let first = account(&store, "First#0001").await;
    let second = account(&store, "Second#0001").await;
    let renamed = [rename(first, "Winner", &[9])];
    assert!(matches!(
        report(&store, &record("m-1", &[first, second]), &renamed).await,
        MatchApplied::Done(_)
    ));
    // A refused report writes nothing, its renames included.
    let refused = [
        rename(first, "Again", &[9]),
        change(
            second,
            vec![Step::Debit {
                currency: Currency::Coins,
                amount: 1,
            }],
        ),
    ];
    assert!(matches!(
        report(&store, &record("m-2", &[first, second]), &refused).await,
        MatchApplied::Refused { .. }
    ));
    assert_eq!(
        changes(&store).await,
        [(first, AccountChange::Renamed(code("Winner#0009")))]
    );
    let mut players = store
        .board_players_of(&[second, first])
        .await
        .expect("the players read");
    players.sort_by_key(|player| player.account);
    let codes: Vec<FriendCode> = players
        .into_iter()
        .map(|player| player.friend_code)
        .collect();
    assert_eq!(codes, [code("Winner#0009"), code("Second#0001")]);
}

async fn bans_and_unbans_are_logged(store: Arc<dyn Store>) {
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    assert!(store.set_banned(ace, true, None).await.expect("ban"));
    assert!(store.set_banned(bee, true, None).await.expect("ban"));
    assert!(store.set_banned(ace, false, None).await.expect("unban"));
    let nobody = AccountId(ace.0 + bee.0 + 100);
    let before = head(&store).await;
    assert!(!store.set_banned(nobody, true, None).await.expect("ban"));
    assert!(!store.set_banned(nobody, false, None).await.expect("unban"));
    assert_eq!(head(&store).await, before);
    assert_eq!(
        changes(&store).await,
        [
            (ace, AccountChange::Banned(true)),
            (bee, AccountChange::Banned(true)),
            (ace, AccountChange::Banned(false)),
        ]
    );
    let banned = |id| {
        let store = Arc::clone(&store);
        async move {
            store
                .account(id)
                .await
                .expect("account lookup succeeds")
                .expect("the account exists")
                .is_banned
        }
    };
    assert!(!banned(ace).await);
    assert!(banned(bee).await);
}

async fn deletions_are_logged_and_stay(store: Arc<dyn Store>) {
    let gone = account(&store, "Gone#0001").await;
    let kept = account(&store, "Kept#0001").await;
    assert_eq!(
        apply(&store, rename(gone, "Leaving", &[3])).await,
        Applied::Done(Vec::new())
    );
    assert!(store.delete_account(gone, None).await.expect("delete runs"));
    let before = head(&store).await;
    assert!(!store.delete_account(gone, None).await.expect("delete runs"));
    let nobody = AccountId(gone.0 + kept.0 + 100);
    assert!(
        !store
            .delete_account(nobody, None)
            .await
            .expect("delete runs")
    );
    assert_eq!(head(&store).await, before);
    // The deleted account's entries stay, the deletion last.
    assert_eq!(
        changes(&store).await,
        [
            (gone, AccountChange::Renamed(code("Leaving#0003"))),
            (gone, AccountChange::Deleted),
        ]
    );
    assert_eq!(store.account(gone).await.expect("lookup runs"), None);
}

async fn removed_results_leave_the_match_log_and_are_logged(store: Arc<dyn Store>) {
    let cheater = account(&store, "Cheat#0001").await;
    let honest = account(&store, "Fair#0001").await;
    for id in ["m-1", "m-2"] {
        assert!(matches!(
            report(&store, &record(id, &[cheater, honest]), &[]).await,
            MatchApplied::Done(_)
        ));
    }
    let log = store.match_log(0, 10).await.expect("the match log reads");
    let last_of_cheater = log
        .iter()
        .filter(|entry| entry.account == cheater)
        .map(|entry| entry.seq)
        .max()
        .expect("the cheater has results");

    let removed = store
        .remove_results(cheater, NOW, None)
        .await
        .expect("the removal runs")
        .expect("the account exists");
    assert_eq!((removed.removed, removed.through), (2, last_of_cheater));
    let log = store.match_log(0, 10).await.expect("the match log reads");
    assert!(log.iter().all(|entry| entry.account == honest), "{log:?}");
    assert_eq!(log.len(), 2);
    assert_eq!(
        changes(&store).await,
        [(
            cheater,
            AccountChange::ResultsRemoved {
                through: last_of_cheater
            }
        )]
    );

    // Nothing left to remove appends nothing; no account is `None`.
    let before = head(&store).await;
    let again = store
        .remove_results(cheater, NOW, None)
        .await
        .expect("runs");
    assert_eq!(again.map(|r| r.removed), Some(0));
    let nobody = AccountId(cheater.0 + honest.0 + 100);
    assert_eq!(
        store.remove_results(nobody, NOW, None).await.expect("runs"),
        None
    );
    assert_eq!(head(&store).await, before);

    // Later results are logged and read back from after the removal.
    assert!(matches!(
        report(&store, &record("m-3", &[cheater]), &[]).await,
        MatchApplied::Done(_)
    ));
    let later = store
        .results_of(cheater, last_of_cheater, i64::MAX)
        .await
        .expect("the results read");
    assert_eq!(later.len(), 1);
    let recent = store.recent_results(cheater, 5).await.expect("reads");
    assert_eq!(recent, later);
}

async fn the_log_pages_in_order(store: Arc<dyn Store>) {
    let ids = [
        account(&store, "Page#0001").await,
        account(&store, "Page#0002").await,
        account(&store, "Page#0003").await,
    ];
    let mut expected = Vec::new();
    for round in 0..4_u16 {
        for &id in &ids {
            for banned in [true, false] {
                assert!(store.set_banned(id, banned, None).await.expect("ban runs"));
                expected.push((id, AccountChange::Banned(banned)));
            }
            let name = format!("Round{round}");
            let digits = u16::try_from(id.0).expect("a small id");
            assert_eq!(
                apply(&store, rename(id, &name, &[digits])).await,
                Applied::Done(Vec::new())
            );
            let renamed = FriendCode::new(&name, digits).expect("a friend code");
            expected.push((id, AccountChange::Renamed(renamed)));
        }
    }
    let all = whole_log(&store).await;
    assert_eq!(all.len(), 36);
    assert_eq!(
        all.iter()
            .map(|entry| (entry.account, entry.change.clone()))
            .collect::<Vec<_>>(),
        expected
    );
    assert!(all.windows(2).all(|pair| pair[0].seq < pair[1].seq));
    let mut paged = Vec::new();
    let mut after = 0;
    loop {
        let page = store
            .account_log(after, 5)
            .await
            .expect("the account log reads");
        let Some(last) = page.last() else { break };
        assert!(page.len() <= 5);
        after = last.seq;
        paged.extend(page);
    }
    assert_eq!(paged, all);
    assert_eq!(head(&store).await, all[35].seq);
    assert_eq!(
        store
            .account_log(all[35].seq, 5)
            .await
            .expect("the account log reads"),
        vec![]
    );
    assert_eq!(
        store
            .account_log(all[9].seq, 2)
            .await
            .expect("the account log reads"),
        all[10..12]
    );
}

async fn board_players_carry_the_current_code_and_ban(store: Arc<dyn Store>) {
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    let idle = account(&store, "Idle#0001").await;
    report(&store, &record("m-1", &[ace, bee]), &[]).await;
    let seen = |store: Arc<dyn Store>| async move {
        let mut named: Vec<_> = store
            .board_players_of(&[bee, idle, ace, AccountId(idle.0 + 1_000)])
            .await
            .expect("the players read")
            .into_iter()
            .map(|player| (player.account, player.friend_code, player.is_banned))
            .collect();
        named.sort_by_key(|(account, ..)| *account);
        named
    };
    // Asking by id lists every account that exists, with or without results.
    assert_eq!(
        seen(Arc::clone(&store)).await,
        [
            (ace, code("Ace#0001"), false),
            (bee, code("Bee#0001"), false),
            (idle, code("Idle#0001"), false)
        ]
    );
    assert_eq!(
        apply(&store, rename(ace, "Champion", &[7])).await,
        Applied::Done(Vec::new())
    );
    assert!(store.set_banned(bee, true, None).await.expect("ban"));
    assert_eq!(
        seen(Arc::clone(&store)).await[..2],
        [
            (ace, code("Champion#0007"), false),
            (bee, code("Bee#0001"), true)
        ]
    );
    // The match log itself carries the results.
    let log = store.match_log(0, 100).await.expect("the match log reads");
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].kills, 3);
    assert_eq!(log[1].placement, 2);
}

async fn a_follower_misses_no_concurrent_change(store: Arc<dyn Store>) {
    const TASKS: u16 = 8;
    const CHANGES: u16 = 20;
    let total = usize::from(TASKS * CHANGES);
    let mut ids = Vec::new();
    for task in 0..TASKS {
        ids.push(account(&store, &format!("Runner#{task:04}")).await);
    }
    // Each task renames, bans and unbans its own account in turns while a follower reads
    // the log from where it stopped, as a leaderboard node does.
    let follower = {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let mut seen: Vec<AccountLogEntry> = Vec::new();
            let mut after = 0;
            while seen.len() < total {
                let page = store
                    .account_log(after, 7)
                    .await
                    .expect("the account log reads");
                if let Some(last) = page.last() {
                    after = last.seq;
                } else {
                    tokio::task::yield_now().await;
                }
                seen.extend(page);
            }
            seen
        })
    };
    let writers = ids.iter().enumerate().map(|(task, &id)| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            for n in 0..CHANGES {
                if n % 3 == 0 {
                    let applied = store
                        .apply(rename(id, &format!("T{task}N{n}"), &[1]), None)
                        .await
                        .expect("the rename runs");
                    assert_eq!(applied, Applied::Done(Vec::new()));
                } else {
                    let ban = n % 3 == 1;
                    assert!(store.set_banned(id, ban, None).await.expect("the ban runs"));
                }
            }
        })
    });
    for writer in join_all(writers).await {
        writer.expect("the writer ends");
    }
    let seen = tokio::time::timeout(std::time::Duration::from_secs(30), follower)
        .await
        .expect("the follower saw every entry")
        .expect("the follower ends");
    assert!(
        seen.windows(2).all(|pair| pair[0].seq < pair[1].seq),
        "positions increase"
    );
    let all = whole_log(&store).await;
    assert_eq!(all.len(), total);
    assert_eq!(seen, all);
    assert_eq!(head(&store).await, all[total - 1].seq);
    // Each account's entries are in the order its task made them.
    for (task, &id) in ids.iter().enumerate() {
        let mine: Vec<AccountChange> = all
            .iter()
            .filter(|entry| entry.account == id)
            .map(|entry| entry.change.clone())
            .collect();
        let expected: Vec<AccountChange> = (0..CHANGES)
            .map(|n| {
                if n % 3 == 0 {
                    AccountChange::Renamed(code(&format!("T{task}N{n}#0001")))
                } else {
                    AccountChange::Banned(n % 3 == 1)
                }
            })
            .collect();
        assert_eq!(mine, expected);
    }
}
