//! The boards' snapshots, against SQLite and PostgreSQL, each test on its own fresh database:
//! the store's contract (one writer's turn, parts, completion, pruning, a writer stopped midway)
//! and the leaderboards started from a snapshot and the logs' tail, agreeing exactly with boards
//! that read the whole log.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration as StdDuration;

use futures_util::future::join_all;
use safezone_core::clock::{Clock, ManualClock};
use safezone_core::content::Content;
use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::leaderboard::{BoardId, Category, Leaderboards, TimeWindow};
use safezone_core::store::{AccountId, Change, MatchId, MatchRecord, PlayerResult, Step, Store};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_snapshot_is_read_back_in_its_parts,
    one_node_of_many_takes_the_turn,
    a_writer_stopped_midway_leaves_the_previous_snapshot,
    boards_from_a_snapshot_agree_with_boards_from_the_log,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

async fn begin(store: &Arc<dyn Store>, match_seq: i64, now: OffsetDateTime) -> Option<i64> {
    store
        .begin_board_snapshot(match_seq, 1, now, now - Duration::minutes(15))
        .await
        .expect("a snapshot begins")
}

async fn write_parts(store: &Arc<dyn Store>, id: i64, parts: &[&[u8]]) {
    for (part, bytes) in (0..).zip(parts) {
        store
            .write_board_snapshot_part(id, part, bytes)
            .await
            .expect("a part is stored");
    }
}

async fn read_back(store: &Arc<dyn Store>, id: i64, parts: u32) -> Vec<Option<Vec<u8>>> {
    let mut read = Vec::new();
    for part in 0..parts {
        read.push(
            store
                .board_snapshot_part(id, part)
                .await
                .expect("a part reads"),
        );
    }
    read
}

async fn a_snapshot_is_read_back_in_its_parts(store: Arc<dyn Store>) {
    assert_eq!(store.newest_board_snapshot().await.expect("reads"), None);
    let id = begin(&store, 42, NOW).await.expect("the turn is free");
    let big = vec![7u8; 3 << 20];
    write_parts(&store, id, &[&big, b"tail", b""]).await;
    // Not complete: nobody reads it yet.
    assert_eq!(store.newest_board_snapshot().await.expect("reads"), None);
    assert!(
        store
            .finish_board_snapshot(id, 3, 2)
            .await
            .expect("finishes")
    );
    let newest = store
        .newest_board_snapshot()
        .await
        .expect("reads")
        .expect("a snapshot");
    assert_eq!(
        (
            newest.id,
            newest.match_seq,
            newest.account_seq,
            newest.parts
        ),
        (id, 42, 1, 3)
    );
    assert_eq!(newest.taken_at, NOW);
    assert_eq!(
        read_back(&store, id, 3).await,
        vec![Some(big), Some(b"tail".to_vec()), Some(Vec::new())]
    );
    assert_eq!(store.board_snapshot_part(id, 3).await.expect("reads"), None);
}

async fn one_node_of_many_takes_the_turn(store: Arc<dyn Store>) {
    let begun = join_all((0..6).map(|node| {
        let store = Arc::clone(&store);
        async move { begin(&store, node, NOW).await }
    }))
    .await;
    assert_eq!(begun.iter().flatten().count(), 1, "{begun:?}");
    // Within the period nobody takes it again; after it, one does.
    assert_eq!(begin(&store, 9, NOW + Duration::minutes(14)).await, None);
    assert!(
        begin(&store, 9, NOW + Duration::minutes(16))
            .await
            .is_some()
    );
}

async fn a_writer_stopped_midway_leaves_the_previous_snapshot(store: Arc<dyn Store>) {
    let first = begin(&store, 10, NOW).await.expect("the turn");
    write_parts(&store, first, &[b"first"]).await;
    assert!(
        store
            .finish_board_snapshot(first, 1, 2)
            .await
            .expect("finishes")
    );
    // The next writer stops after one part of two: its snapshot stays incomplete.
    let later = NOW + Duration::hours(1);
    let stopped = begin(&store, 20, later).await.expect("the turn");
    write_parts(&store, stopped, &[b"half"]).await;
    let newest = store
        .newest_board_snapshot()
        .await
        .expect("reads")
        .expect("one");
    assert_eq!((newest.id, newest.match_seq), (first, 10));
    assert_eq!(
        read_back(&store, first, 1).await,
        vec![Some(b"first".to_vec())]
    );
    // The next complete one prunes the stopped one and keeps the one before it.
    let third = begin(&store, 30, later + Duration::hours(1))
        .await
        .expect("the turn");
    write_parts(&store, third, &[b"third"]).await;
    assert!(
        store
            .finish_board_snapshot(third, 1, 2)
            .await
            .expect("finishes")
    );
    assert_eq!(read_back(&store, stopped, 1).await, vec![None]);
    assert_eq!(
        read_back(&store, first, 1).await,
        vec![Some(b"first".to_vec())]
    );
    // A stopped writer that comes back finds its snapshot gone: nothing changes.
    assert!(
        !store
            .finish_board_snapshot(stopped, 2, 2)
            .await
            .expect("runs")
    );
    // One more: the first goes, two are kept.
    let fourth = begin(&store, 40, later + Duration::hours(2))
        .await
        .expect("the turn");
    write_parts(&store, fourth, &[b"fourth"]).await;
    assert!(
        store
            .finish_board_snapshot(fourth, 1, 2)
            .await
            .expect("finishes")
    );
    assert_eq!(read_back(&store, first, 1).await, vec![None]);
    assert_eq!(
        read_back(&store, third, 1).await,
        vec![Some(b"third".to_vec())]
    );
    let newest = store
        .newest_board_snapshot()
        .await
        .expect("reads")
        .expect("one");
    assert_eq!(newest.id, fourth);
}

/// Reports a solo match of `players` (placements in their order) that ended at `ended`.
async fn report(store: &Arc<dyn Store>, id: &str, players: &[AccountId], ended: OffsetDateTime) {
    let record = MatchRecord {
        id: MatchId::parse(id).expect("a match id"),
        mode: if id.len().is_multiple_of(2) {
            GameMode::parse("solo").expect("a mode")
        } else {
            GameMode::parse("duo").expect("a mode")
        },
        started: ended - Duration::minutes(20),
        ended,
        reported: ended + Duration::seconds(5),
        players: (1..)
            .zip(players)
            .map(|(placement, &account)| PlayerResult {
                account,
                placement,
                kills: (placement * 7) % 5,
                time_alive_secs: 1_200 - placement * 30,
                stats: BTreeMap::new(),
            })
            .collect(),
        summary: format!("summary of {id}"),
    };
    store
        .report_match(&record, &[])
        .await
        .expect("the report runs");
}

async fn rename(store: &Arc<dyn Store>, account: AccountId, name: &str, now: OffsetDateTime) {
    store
        .apply(
            Change {
                account,
                now,
                reason: "test".to_owned(),
                reference: "rename".to_owned(),
                idempotency: None,
                steps: vec![Step::ChangeFriendCode {
                    name: name.to_owned(),
                    digits: vec![77],
                }],
            },
            None,
        )
        .await
        .expect("the rename runs");
}

/// Every board (its rows, and each account's own row) and every account's totals.
async fn everything(boards: &Arc<Leaderboards>, accounts: &[AccountId]) -> Vec<String> {
    let mut seen = Vec::new();
    let modes: Vec<GameMode> = (Content::shipped().modes.modes().iter())
        .map(|rule| rule.mode)
        .collect();
    for mode in modes.iter().copied() {
        for window in TimeWindow::ALL {
            for category in Category::ALL {
                let id = BoardId {
                    mode,
                    window,
                    category,
                };
                for caller in accounts {
                    let answer = loop {
                        match boards.view(id, Some(*caller)).await {
                            Ok(answer) => break answer,
                            Err(_) => tokio::time::sleep(StdDuration::from_millis(50)).await,
                        }
                    };
                    seen.push(format!(
                        "{id:?} {:?} {:?}",
                        answer.top.standings, answer.user
                    ));
                }
            }
        }
    }
    for account in accounts {
        let totals = boards.totals_of(*account, &modes).await.expect("totals");
        seen.push(format!("{account:?} {totals:?}"));
    }
    seen
}

async fn boards_from_a_snapshot_agree_with_boards_from_the_log(store: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(NOW));
    let clock_dyn: Arc<dyn Clock> = clock.clone();
    let mut accounts = Vec::new();
    for n in 0..24 {
        let code = format!("Snap{n}#00{:02}", n);
        FriendCode::parse(&code).expect("a friend code");
        accounts.push(
            test_support::new_account(store.as_ref(), &code, NOW)
                .await
                .id,
        );
    }
    // Results over the last year, some leaving the windows while the test runs.
    for round in 0..30_i64 {
        let ended = NOW - Duration::hours(round * round * 9) - Duration::minutes(1);
        let players: Vec<AccountId> = (0..12)
            .map(|i| accounts[((round * 5 + i * 7) % 24) as usize])
            .collect();
        report(&store, &format!("m{round}"), &players, ended).await;
    }
    rename(&store, accounts[3], "Renamed", NOW).await;
    store
        .set_banned(accounts[4], true, None)
        .await
        .expect("ban");
    store
        .remove_results(accounts[5], NOW, None)
        .await
        .expect("removal");
    store
        .delete_account(accounts[6], None)
        .await
        .expect("deletion");
    // A node that reads the whole log, and its snapshot.
    let from_log = Leaderboards::new(Arc::clone(&store), Arc::clone(&clock_dyn));
    from_log.start();
    let before = everything(&from_log, &accounts).await;
    let snapshot = from_log
        .write_snapshot_now()
        .await
        .expect("the snapshot is written")
        .expect("the turn was free");
    // The logs' tail: reports (one of a removed player, one of an account renamed), a rename,
    // a ban lifted, removals and deletions after the snapshot; and time passes.
    clock.advance(Duration::hours(30));
    let now = clock.now();
    report(
        &store,
        "tail1",
        &accounts[2..14],
        now - Duration::minutes(3),
    )
    .await;
    report(
        &store,
        "tail22",
        &accounts[5..9],
        now - Duration::minutes(2),
    )
    .await;
    rename(&store, accounts[7], "Later", now).await;
    store
        .set_banned(accounts[4], false, None)
        .await
        .expect("unban");
    store
        .remove_results(accounts[8], now, None)
        .await
        .expect("removal");
    report(
        &store,
        "tail333",
        &accounts[8..20],
        now - Duration::minutes(1),
    )
    .await;
    store
        .delete_account(accounts[9], None)
        .await
        .expect("deletion");
    // A node started now reads the snapshot and the tail.
    let from_snapshot = Leaderboards::new(Arc::clone(&store), Arc::clone(&clock_dyn));
    from_snapshot.start();
    let after = everything(&from_snapshot, &accounts).await;
    assert!(from_snapshot.status().started_from >= Some(snapshot));
    from_log.changed_here();
    assert_eq!(after, everything(&from_log, &accounts).await);
    assert_ne!(after, before, "the tail changed the boards");
    // Once more in a day: the windows move alike.
    clock.advance(Duration::hours(25));
    from_log.changed_here();
    from_snapshot.changed_here();
    assert_eq!(
        everything(&from_snapshot, &accounts).await,
        everything(&from_log, &accounts).await
    );
    // Two months on, the oldest results leave the year window, read back from the log by both
    // nodes: they agree with each other and with a node started then.
    let year = TimeWindow::ALL
        .iter()
        .position(|window| *window == TimeWindow::Year)
        .expect("a window");
    let in_year = |boards: &Leaderboards| boards.status().results[year];
    let year_before = in_year(&from_log);
    clock.advance(Duration::days(60));
    from_log.changed_here();
    from_snapshot.changed_here();
    let later = everything(&from_snapshot, &accounts).await;
    assert_eq!(later, everything(&from_log, &accounts).await);
    assert!(
        in_year(&from_log) < year_before,
        "results left the year window"
    );
    assert_eq!(in_year(&from_snapshot), in_year(&from_log));
    let started_then = Leaderboards::new(Arc::clone(&store), Arc::clone(&clock_dyn));
    started_then.start();
    assert_eq!(everything(&started_then, &accounts).await, later);
}
