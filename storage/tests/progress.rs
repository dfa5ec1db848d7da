//! The store contract of progress (versions, counters, levels, once-only grants, track passes)
//! and match reports (the match log, hourly statistics, the players' changes), run against
//! SQLite and PostgreSQL, each test on its own fresh database.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::domain::{GameMode, ItemId, PackId, TrackId};
use safezone_core::store::{
    AccountId, Applied, Change, Currency, Granted, MatchApplied, MatchId, MatchLogEntry,
    MatchRecord, PlayerResult, Progress, RecordedMatch, Refusal, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    new_accounts_have_empty_progress,
    progress_tells_which_accounts_are_banned_and_leaves_out_deleted_ones,
    progress_versions_refuse_stale_plans,
    counters_levels_items_and_passes_show_in_progress,
    once_grants_once_and_skips_silently,
    a_refusal_inside_once_refuses_the_whole_change,
    track_passes_are_owned_once,
    reports_write_log_stats_and_changes,
    repeated_reports_replay_the_first_answer,
    stats_are_bucketed_by_the_hour_the_match_ended,
    old_hourly_stats_go_in_batches_and_newer_ones_stay,
    refused_reports_write_nothing,
    banned_players_are_logged_but_their_changes_refused,
    large_reports_are_written_in_batches,
    the_match_log_pages_in_order,
    concurrent_repeats_of_a_report_apply_once,
    concurrent_reports_of_the_same_players_apply_one_per_version,
    concurrent_reports_of_overlapping_players_never_apply_a_version_twice,
    a_follower_of_the_log_misses_no_concurrent_report,
    deleting_an_account_removes_its_log_and_stats,
    a_report_racing_a_players_deletion_applies_or_is_refused,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// A new account with friend code `code`.
async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

/// `count` new accounts, `Player#0000` upwards.
async fn accounts(store: &Arc<dyn Store>, count: u16) -> Vec<AccountId> {
    let mut all = Vec::new();
    for n in 0..count {
        all.push(account(store, &format!("Player#{n:04}")).await);
    }
    all
}

fn change(account: AccountId, steps: Vec<Step>) -> Change {
    Change {
        account,
        now: NOW,
        reason: "match".to_owned(),
        reference: "case".to_owned(),
        idempotency: None,
        steps,
    }
}

fn coins(amount: i64) -> Step {
    Step::Credit {
        currency: Currency::Coins,
        amount,
    }
}

fn coins_granted(amount: i64) -> Granted {
    Granted::Currency {
        currency: Currency::Coins,
        amount,
    }
}

fn version(version: i64) -> Step {
    Step::RequireProgressVersion { version }
}

async fn apply(store: &Arc<dyn Store>, change: Change) -> Applied {
    store.apply(change, None).await.expect("the change runs")
}

/// The progress of one existing account.
async fn progress(store: &Arc<dyn Store>, account: AccountId) -> Progress {
    let mut found = store.progress(&[account]).await.expect("progress reads");
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0).1
}

async fn coin_balance(store: &Arc<dyn Store>, account: AccountId) -> i64 {
    store
        .account(account)
        .await
        .expect("account lookup succeeds")
        .expect("the account exists")
        .coins
}

/// A player's result with `kills` kills and the stats `rounds: 1, kills: kills`.
fn player(account: AccountId, placement: i64, kills: i64) -> PlayerResult {
    PlayerResult {
        account,
        placement,
        kills,
        time_alive_secs: 600 - placement,
        stats: BTreeMap::from([("rounds".to_owned(), 1), ("kills".to_owned(), kills)]),
    }
}

/// A solo match `id` that ended at `ended`.
fn record(id: &str, ended: OffsetDateTime, players: Vec<PlayerResult>) -> MatchRecord {
    MatchRecord {
        id: MatchId::parse(id).expect("a match id"),
        mode: GameMode::parse("solo").expect("a mode"),
        started: ended - Duration::minutes(20),
        ended,
        reported: ended + Duration::seconds(5),
        players,
        summary: format!("summary of {id}"),
    }
}

async fn report(store: &Arc<dyn Store>, record: &MatchRecord, changes: &[Change]) -> MatchApplied {
    store
        .report_match(record, changes)
        .await
        .expect("the report runs")
}

async fn whole_log(store: &Arc<dyn Store>) -> Vec<MatchLogEntry> {
    store.match_log(0, 10_000).await.expect("the log reads")
}

async fn totals(
    store: &Arc<dyn Store>,
    account: AccountId,
    mode: GameMode,
    since: OffsetDateTime,
) -> BTreeMap<String, i64> {
    store
        .stat_totals(account, mode, since)
        .await
        .expect("totals read")
}

fn stats(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), *value))
        .collect()
}

/// Asserts that nothing of any report is stored for `accounts`: no log, no stats, no coins,
/// progress version 0.
async fn assert_untouched(store: &Arc<dyn Store>, accounts: &[AccountId]) {
    assert_eq!(whole_log(store).await, Vec::new());
    for &account in accounts {
        let since = NOW - Duration::days(365);
        assert_eq!(
            totals(
                store,
                account,
                GameMode::parse("solo").expect("a mode"),
                since
            )
            .await,
            stats(&[])
        );
        assert_eq!(coin_balance(store, account).await, 0);
        assert_eq!(store.ledger(account).await.expect("ledger").len(), 0);
        assert_eq!(progress(store, account).await.version, 0);
    }
}

async fn new_accounts_have_empty_progress(store: Arc<dyn Store>) {
    let first = account(&store, "Fresh#0001").await;
    let second = account(&store, "Fresh#0002").await;
    let fresh = Progress {
        version: 0,
        experience: 0,
        level: 1,
        ..Progress::default()
    };
    let found = store
        .progress(&[second, AccountId(first.0 + second.0 + 100), first])
        .await
        .expect("progress reads");
    assert_eq!(found, vec![(second, fresh.clone()), (first, fresh.clone())]);
    assert_eq!(fresh.counter("quest/1"), 0);
    assert_eq!(store.progress(&[]).await.expect("progress reads"), vec![]);
}

/// One progress read of many accounts tells which exist (deleted ones are left out) and which
/// are banned, whatever their number: what a match report is planned from.
async fn progress_tells_which_accounts_are_banned_and_leaves_out_deleted_ones(
    store: Arc<dyn Store>,
) {
    let players = accounts(&store, 40).await;
    let (banned, rest) = players.split_at(30);
    let (deleted, clean) = rest.split_at(4);
    for &account in banned {
        assert!(store.set_banned(account, true, None).await.expect("ban"));
    }
    for &account in deleted {
        assert!(store.delete_account(account, None).await.expect("deletion"));
    }
    let found = store.progress(&players).await.expect("progress reads");
    let expected: Vec<(AccountId, bool)> = banned
        .iter()
        .map(|&account| (account, true))
        .chain(clean.iter().map(|&account| (account, false)))
        .collect();
    assert_eq!(
        found
            .iter()
            .map(|(account, progress)| (*account, progress.banned))
            .collect::<Vec<_>>(),
        expected
    );
    assert!(
        store
            .set_banned(banned[0], false, None)
            .await
            .expect("unban")
    );
    assert!(!progress(&store, banned[0]).await.banned);
}

async fn progress_versions_refuse_stale_plans(store: Arc<dyn Store>) {
    let id = account(&store, "Planner#0001").await;
    let plan = |value| {
        change(
            id,
            vec![
                version(0),
                Step::SetProgress {
                    counter: "quest/1".to_owned(),
                    value,
                },
                coins(10),
            ],
        )
    };
    assert_eq!(
        apply(&store, plan(3)).await,
        Applied::Done(vec![coins_granted(10)])
    );
    assert_eq!(
        apply(&store, plan(5)).await,
        Applied::Refused(Refusal::Stale)
    );
    let now = progress(&store, id).await;
    assert_eq!((now.version, now.counter("quest/1")), (1, 3));
    assert_eq!(coin_balance(&store, id).await, 10);
    assert_eq!(store.ledger(id).await.expect("ledger").len(), 1);
    let replanned = change(id, vec![version(1), coins(1)]);
    assert_eq!(
        apply(&store, replanned).await,
        Applied::Done(vec![coins_granted(1)])
    );
    assert_eq!(progress(&store, id).await.version, 2);
}

async fn counters_levels_items_and_passes_show_in_progress(store: Arc<dyn Store>) {
    let id = account(&store, "Climber#0001").await;
    let other = account(&store, "Climber#0002").await;
    let set = |counter: &str, value| Step::SetProgress {
        counter: counter.to_owned(),
        value,
    };
    let done = apply(
        &store,
        change(
            id,
            vec![
                set("quest/12", 4),
                set("track/1/stars", 9),
                set("quest/12", 7),
                Step::SetLevel { level: 6 },
                Step::AddExperience { amount: 1_250 },
                Step::AddItem { item: ItemId(31) },
                Step::GrantTrackPass { track: TrackId(2) },
            ],
        ),
    )
    .await;
    assert!(matches!(done, Applied::Done(_)), "{done:?}");
    let found = progress(&store, id).await;
    assert_eq!(
        found,
        Progress {
            version: 0,
            experience: 1_250,
            level: 6,
            counters: stats(&[("quest/12", 7), ("track/1/stars", 9)]),
            track_passes: [TrackId(2)].into(),
            items: [ItemId(31)].into(),
            banned: false,
        }
    );
    let both = store.progress(&[id, other]).await.expect("progress reads");
    assert_eq!(both.len(), 2);
    assert_eq!(both[0], (id, found));
    assert_eq!(both[1].1.level, 1);
    assert!(both[1].1.counters.is_empty() && both[1].1.items.is_empty());
}

async fn once_grants_once_and_skips_silently(store: Arc<dyn Store>) {
    let id = account(&store, "Leveler#0001").await;
    let level_up = || {
        change(
            id,
            vec![
                Step::SetLevel { level: 2 },
                Step::Once {
                    key: "level/2".to_owned(),
                    steps: vec![
                        coins(50),
                        Step::GrantPacks {
                            pack: PackId(3),
                            quantity: 1,
                        },
                        Step::Once {
                            key: "level/2/bonus".to_owned(),
                            steps: vec![coins(5)],
                        },
                    ],
                },
                coins(1),
            ],
        )
    };
    assert_eq!(
        apply(&store, level_up()).await,
        Applied::Done(vec![
            coins_granted(50),
            Granted::Packs {
                pack: PackId(3),
                quantity: 1
            },
            coins_granted(5),
            coins_granted(1),
        ])
    );
    assert_eq!(
        apply(&store, level_up()).await,
        Applied::Done(vec![coins_granted(1)]),
        "the second time the once-only steps are skipped without a refusal"
    );
    assert_eq!(coin_balance(&store, id).await, 57);
    let keys = ["level/2".to_owned(), "level/2/bonus".to_owned()];
    assert_eq!(
        store.claimed(id, &keys).await.expect("claims read").len(),
        2
    );
}

async fn a_refusal_inside_once_refuses_the_whole_change(store: Arc<dyn Store>) {
    let id = account(&store, "Leveler#0002").await;
    let refused = apply(
        &store,
        change(
            id,
            vec![
                coins(10),
                Step::Once {
                    key: "quest/9".to_owned(),
                    steps: vec![
                        coins(20),
                        Step::Debit {
                            currency: Currency::Gems,
                            amount: 5,
                        },
                    ],
                },
            ],
        ),
    )
    .await;
    assert_eq!(
        refused,
        Applied::Refused(Refusal::InsufficientFunds {
            currency: Currency::Gems,
            needed: 5,
            balance: 0
        })
    );
    assert_eq!(coin_balance(&store, id).await, 0);
    let keys = ["quest/9".to_owned()];
    assert_eq!(
        store.claimed(id, &keys).await.expect("claims read"),
        Vec::<String>::new(),
        "the once key is not recorded either"
    );
}

async fn track_passes_are_owned_once(store: Arc<dyn Store>) {
    let id = account(&store, "Pass#0001").await;
    let other = account(&store, "Pass#0002").await;
    let buy = |account| change(account, vec![Step::GrantTrackPass { track: TrackId(1) }]);
    assert_eq!(apply(&store, buy(id)).await, Applied::Done(vec![]));
    assert_eq!(
        apply(&store, buy(id)).await,
        Applied::Refused(Refusal::TrackAlreadyOwned(TrackId(1)))
    );
    assert_eq!(apply(&store, buy(other)).await, Applied::Done(vec![]));
    assert_eq!(progress(&store, id).await.track_passes, [TrackId(1)].into());
}

async fn reports_write_log_stats_and_changes(store: Arc<dyn Store>) {
    let players = accounts(&store, 3).await;
    let (a, b, c) = (players[0], players[1], players[2]);
    let ended = datetime!(2026-11-22 08:30 UTC);
    let mut winner = player(b, 1, 4);
    winner.stats.insert("wins".to_owned(), 1);
    winner.stats.insert("damage".to_owned(), 730);
    let match_record = record("m-1", ended, vec![player(a, 2, 1), winner, player(c, 3, 0)]);
    // Changes in descending account order: they are applied in ascending order, but answered
    // in the order given.
    let changes = [
        change(c, vec![version(0), coins(5)]),
        change(b, vec![version(0), coins(40), Step::SetLevel { level: 2 }]),
        change(a, vec![version(0), coins(10)]),
    ];
    assert_eq!(
        report(&store, &match_record, &changes).await,
        MatchApplied::Done(vec![
            vec![coins_granted(5)],
            vec![coins_granted(40)],
            vec![coins_granted(10)],
        ])
    );
    let log = whole_log(&store).await;
    let logged: Vec<(AccountId, GameMode, OffsetDateTime, i64, i64, i64)> = log
        .iter()
        .map(|entry| {
            (
                entry.account,
                entry.mode,
                entry.ended,
                entry.placement,
                entry.kills,
                entry.time_alive_secs,
            )
        })
        .collect();
    assert_eq!(
        logged,
        [
            (
                a,
                GameMode::parse("solo").expect("a mode"),
                ended,
                2,
                1,
                598
            ),
            (
                b,
                GameMode::parse("solo").expect("a mode"),
                ended,
                1,
                4,
                599
            ),
            (
                c,
                GameMode::parse("solo").expect("a mode"),
                ended,
                3,
                0,
                597
            ),
        ]
    );
    assert!(log.windows(2).all(|pair| pair[0].seq < pair[1].seq));
    assert_eq!(
        totals(&store, b, GameMode::parse("solo").expect("a mode"), ended).await,
        stats(&[("damage", 730), ("kills", 4), ("rounds", 1), ("wins", 1)])
    );
    assert_eq!(
        totals(&store, c, GameMode::parse("solo").expect("a mode"), ended).await,
        stats(&[("rounds", 1)]),
        "stats that did not move are absent"
    );
    assert_eq!(
        totals(&store, b, GameMode::parse("duo").expect("a mode"), ended).await,
        stats(&[])
    );
    assert_eq!(
        [
            coin_balance(&store, a).await,
            coin_balance(&store, b).await,
            coin_balance(&store, c).await
        ],
        [10, 40, 5]
    );
    let ledger = store.ledger(b).await.expect("ledger");
    assert_eq!(ledger.len(), 1);
    assert_eq!((ledger[0].delta, ledger[0].balance_after), (40, 40));
    assert_eq!(ledger[0].reason, "match");
    let found = progress(&store, b).await;
    assert_eq!((found.version, found.level), (1, 2));
}

async fn repeated_reports_replay_the_first_answer(store: Arc<dyn Store>) {
    let players = accounts(&store, 2).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    let first = record(
        "m-repeat",
        ended,
        vec![player(players[0], 1, 3), player(players[1], 2, 0)],
    );
    let changes = [
        change(players[0], vec![version(0), coins(25)]),
        change(players[1], vec![version(0)]),
    ];
    let id = MatchId::parse("m-repeat").expect("a match id");
    assert_eq!(store.recorded_match(&id).await.expect("lookup"), None);
    let done = report(&store, &first, &changes).await;
    let granted = vec![vec![coins_granted(25)], vec![]];
    assert_eq!(done, MatchApplied::Done(granted.clone()));
    assert_eq!(
        store.recorded_match(&id).await.expect("lookup"),
        Some(RecordedMatch {
            summary: "summary of m-repeat".to_owned(),
            granted: granted.clone(),
        })
    );
    // The repeat carries other results and a plan from the moved version: none of it counts.
    let mut repeat = record("m-repeat", ended, vec![player(players[0], 1, 9)]);
    repeat.summary = "another summary".to_owned();
    let repeat_changes = [change(players[0], vec![version(1), coins(999)])];
    assert_eq!(
        report(&store, &repeat, &repeat_changes).await,
        MatchApplied::Replayed {
            summary: "summary of m-repeat".to_owned(),
            granted,
        }
    );
    assert_eq!(whole_log(&store).await.len(), 2);
    assert_eq!(
        totals(
            &store,
            players[0],
            GameMode::parse("solo").expect("a mode"),
            ended
        )
        .await,
        stats(&[("kills", 3), ("rounds", 1)])
    );
    assert_eq!(coin_balance(&store, players[0]).await, 25);
    assert_eq!(store.ledger(players[0]).await.expect("ledger").len(), 1);
    assert_eq!(progress(&store, players[0]).await.version, 1);
}

async fn stats_are_bucketed_by_the_hour_the_match_ended(store: Arc<dyn Store>) {
    let id = account(&store, "Hourly#0001").await;
    let late = datetime!(2026-11-22 08:59:59.999 UTC);
    let next_hour = datetime!(2026-11-22 09:00 UTC);
    for (match_id, ended, kills) in [("m-a", late, 2), ("m-b", next_hour, 5)] {
        let done = report(
            &store,
            &record(match_id, ended, vec![player(id, 1, kills)]),
            &[],
        )
        .await;
        assert_eq!(done, MatchApplied::Done(vec![]));
    }
    let mut duo = record("m-c", next_hour, vec![player(id, 1, 100)]);
    duo.mode = GameMode::parse("duo").expect("a mode");
    report(&store, &duo, &[]).await;
    let at = |time| totals(&store, id, GameMode::parse("solo").expect("a mode"), time);
    let both = stats(&[("kills", 7), ("rounds", 2)]);
    let second = stats(&[("kills", 5), ("rounds", 1)]);
    assert_eq!(at(datetime!(2026-11-22 08:00 UTC)).await, both);
    assert_eq!(
        at(datetime!(2026-11-22 08:59:59.999 UTC) + Duration::milliseconds(1)).await,
        second
    );
    assert_eq!(
        at(datetime!(2026-11-22 08:30 UTC)).await,
        both,
        "the cut is by the hour: the whole hour of `since` counts"
    );
    assert_eq!(at(datetime!(2026-11-22 09:59 UTC)).await, second);
    assert_eq!(at(datetime!(2026-11-22 10:00 UTC)).await, stats(&[]));
    assert_eq!(
        totals(&store, id, GameMode::parse("duo").expect("a mode"), NOW).await,
        stats(&[("kills", 100), ("rounds", 1)])
    );
    assert_eq!(
        totals(&store, id, GameMode::parse("squad").expect("a mode"), NOW).await,
        stats(&[])
    );
}

/// The retention sweep's delete: whole hours that ended at or before the cut, oldest first,
/// in batches; the hour the cut falls in, and later ones, stay (and their totals with them).
async fn old_hourly_stats_go_in_batches_and_newer_ones_stay(store: Arc<dyn Store>) {
    let ann = account(&store, "Aging#0001").await;
    let bob = account(&store, "Aging#0002").await;
    let hours = [
        datetime!(2025-01-05 10:10 UTC),
        datetime!(2026-11-22 06:59 UTC),
        datetime!(2026-11-22 07:30 UTC),
    ];
    for (index, ended) in hours.into_iter().enumerate() {
        let players = vec![player(ann, 1, 1), player(bob, 2, 1)];
        report(
            &store,
            &record(&format!("age-{index}"), ended, players),
            &[],
        )
        .await;
    }
    let since_ever = OffsetDateTime::UNIX_EPOCH;
    assert_eq!(
        totals(
            &store,
            ann,
            GameMode::parse("solo").expect("a mode"),
            since_ever
        )
        .await,
        stats(&[("kills", 3), ("rounds", 3)])
    );
    let cut = datetime!(2026-11-22 07:20 UTC);
    let sweep = |limit| {
        let store = Arc::clone(&store);
        async move {
            store
                .delete_stat_hours(cut, limit)
                .await
                .expect("the sweep runs")
        }
    };
    // Two hours of two players with two stats each go, 3 rows at a time.
    assert_eq!(sweep(3).await, 3);
    assert_eq!(sweep(100).await, 5);
    assert_eq!(sweep(100).await, 0);
    for player in [ann, bob] {
        assert_eq!(
            totals(
                &store,
                player,
                GameMode::parse("solo").expect("a mode"),
                since_ever
            )
            .await,
            stats(&[("kills", 1), ("rounds", 1)]),
            "the 07:00 hour, which the cut falls in, stays"
        );
    }
    assert_eq!(
        whole_log(&store).await.len(),
        6,
        "the match log is not touched"
    );
}

async fn refused_reports_write_nothing(store: Arc<dyn Store>) {
    let players = accounts(&store, 2).await;
    let (a, b) = (players[0], players[1]);
    let ended = datetime!(2026-11-22 08:30 UTC);
    let match_record = record("m-stale", ended, vec![player(a, 1, 3), player(b, 2, 1)]);
    let stale = [
        change(a, vec![version(0), coins(30)]),
        change(b, vec![version(4), coins(30)]),
    ];
    assert_eq!(
        report(&store, &match_record, &stale).await,
        MatchApplied::Refused {
            account: b,
            refusal: Refusal::Stale
        }
    );
    assert_untouched(&store, &players).await;

    let missing = AccountId(a.0 + b.0 + 100);
    let mut with_missing = match_record.clone();
    with_missing.players.push(player(missing, 3, 0));
    assert_eq!(
        report(&store, &with_missing, &[]).await,
        MatchApplied::Refused {
            account: missing,
            refusal: Refusal::NoAccount
        }
    );
    let missing_change = [change(missing, vec![coins(1)])];
    assert_eq!(
        report(&store, &match_record, &missing_change).await,
        MatchApplied::Refused {
            account: missing,
            refusal: Refusal::NoAccount
        }
    );
    assert_untouched(&store, &players).await;

    // The match id was not recorded: a correct report of it now goes through.
    let fixed = [
        change(a, vec![version(0), coins(30)]),
        change(b, vec![version(0), coins(30)]),
    ];
    assert!(matches!(
        report(&store, &match_record, &fixed).await,
        MatchApplied::Done(_)
    ));
    assert_eq!(whole_log(&store).await.len(), 2);
}

async fn banned_players_are_logged_but_their_changes_refused(store: Arc<dyn Store>) {
    let players = accounts(&store, 2).await;
    let (clean, banned) = (players[0], players[1]);
    assert!(store.set_banned(banned, true, None).await.expect("ban"));
    let ended = datetime!(2026-11-22 08:30 UTC);
    let match_record = record(
        "m-ban",
        ended,
        vec![player(clean, 1, 2), player(banned, 2, 0)],
    );
    let changes = [
        change(clean, vec![coins(10)]),
        change(banned, vec![coins(10)]),
    ];
    assert_eq!(
        report(&store, &match_record, &changes).await,
        MatchApplied::Refused {
            account: banned,
            refusal: Refusal::Banned
        }
    );
    assert_untouched(&store, &players).await;
    assert_eq!(
        report(&store, &match_record, &changes[..1]).await,
        MatchApplied::Done(vec![vec![coins_granted(10)]])
    );
    assert_eq!(whole_log(&store).await.len(), 2);
}

async fn large_reports_are_written_in_batches(store: Arc<dyn Store>) {
    let players = accounts(&store, 100).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    // 100 players with 12 stats each: more rows than one batched statement takes.
    let results: Vec<PlayerResult> = (1..)
        .zip(&players)
        .map(|(placement, &account)| {
            let mut result = player(account, placement, placement % 7);
            for n in 0..10 {
                result.stats.insert(format!("stat/{n}"), placement + n);
            }
            result
        })
        .collect();
    let changes: Vec<Change> = players
        .iter()
        .rev()
        .map(|&account| change(account, vec![version(0), coins(account.0)]))
        .collect();
    let done = report(&store, &record("m-big", ended, results), &changes).await;
    let MatchApplied::Done(granted) = done else {
        panic!("the report is refused: {done:?}");
    };
    let expected: Vec<Vec<Granted>> = players
        .iter()
        .rev()
        .map(|account| vec![coins_granted(account.0)])
        .collect();
    assert_eq!(granted, expected);
    assert_eq!(whole_log(&store).await.len(), 100);
    let last = players[99];
    let last_totals = totals(
        &store,
        last,
        GameMode::parse("solo").expect("a mode"),
        ended,
    )
    .await;
    assert_eq!(last_totals.get("stat/9"), Some(&109));
    assert_eq!(last_totals.get("kills"), Some(&(100 % 7)));
    assert_eq!(coin_balance(&store, last).await, last.0);
}

async fn the_match_log_pages_in_order(store: Arc<dyn Store>) {
    let players = accounts(&store, 3).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    for n in 0..4 {
        let results = players
            .iter()
            .map(|&account| player(account, 1 + account.0, n))
            .collect();
        report(&store, &record(&format!("m-{n}"), ended, results), &[]).await;
    }
    let all = whole_log(&store).await;
    assert_eq!(all.len(), 12);
    let mut paged = Vec::new();
    let mut after = 0;
    loop {
        let page = store.match_log(after, 5).await.expect("the log reads");
        let Some(last) = page.last() else { break };
        assert!(page.len() <= 5);
        after = last.seq;
        paged.extend(page);
    }
    assert_eq!(paged, all);
    let kills: Vec<i64> = all.iter().map(|entry| entry.kills).collect();
    assert_eq!(kills, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
    assert_eq!(
        store
            .match_log(all[11].seq, 5)
            .await
            .expect("the log reads"),
        vec![]
    );
}

async fn concurrent_repeats_of_a_report_apply_once(store: Arc<dyn Store>) {
    let players = accounts(&store, 4).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    let results: Vec<PlayerResult> = players
        .iter()
        .map(|&account| player(account, account.0, 1))
        .collect();
    let match_record = record("m-dup", ended, results);
    let changes: Vec<Change> = players
        .iter()
        .map(|&account| change(account, vec![coins(15)]))
        .collect();
    let reports = (0..10).map(|_| {
        let store = Arc::clone(&store);
        let match_record = match_record.clone();
        let changes = changes.clone();
        tokio::spawn(async move {
            store
                .report_match(&match_record, &changes)
                .await
                .expect("the report runs")
        })
    });
    let outcomes: Vec<MatchApplied> = join_all(reports)
        .await
        .into_iter()
        .map(|joined| joined.expect("the task ends"))
        .collect();
    let granted = vec![vec![coins_granted(15)]; 4];
    let done = outcomes
        .iter()
        .filter(|outcome| **outcome == MatchApplied::Done(granted.clone()))
        .count();
    let replayed = outcomes
        .iter()
        .filter(|outcome| {
            **outcome
                == MatchApplied::Replayed {
                    summary: "summary of m-dup".to_owned(),
                    granted: granted.clone(),
                }
        })
        .count();
    assert_eq!((done, replayed), (1, 9), "{outcomes:?}");
    assert_eq!(whole_log(&store).await.len(), 4);
    for account in players {
        assert_eq!(coin_balance(&store, account).await, 15);
        assert_eq!(
            totals(
                &store,
                account,
                GameMode::parse("solo").expect("a mode"),
                ended
            )
            .await,
            stats(&[("kills", 1), ("rounds", 1)])
        );
    }
}

/// Runs every report at once; answers the outcomes in the order of `reports`.
async fn report_concurrently(
    store: &Arc<dyn Store>,
    reports: Vec<(MatchRecord, Vec<Change>)>,
) -> Vec<MatchApplied> {
    let tasks = reports.into_iter().map(|(match_record, changes)| {
        let store = Arc::clone(store);
        tokio::spawn(async move {
            store
                .report_match(&match_record, &changes)
                .await
                .expect("the report runs")
        })
    });
    join_all(tasks)
        .await
        .into_iter()
        .map(|joined| joined.expect("the task ends"))
        .collect()
}

async fn concurrent_reports_of_the_same_players_apply_one_per_version(store: Arc<dyn Store>) {
    let players = accounts(&store, 3).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    for round in 0..3 {
        let versions: Vec<i64> = store
            .progress(&players)
            .await
            .expect("progress reads")
            .iter()
            .map(|(_, found)| found.version)
            .collect();
        assert_eq!(versions, [round; 3]);
        // Eight reports of different matches, each planned from the same versions, with the
        // players (and their changes) in a different order each.
        let reports = (0..8)
            .map(|n| {
                let mut order = players.clone();
                order.rotate_left(n % 3);
                if n % 2 == 1 {
                    order.reverse();
                }
                let results = order.iter().map(|&account| player(account, 1, 1)).collect();
                let changes = order
                    .iter()
                    .map(|&account| change(account, vec![version(round), coins(1)]))
                    .collect();
                (record(&format!("m-{round}-{n}"), ended, results), changes)
            })
            .collect();
        let outcomes = report_concurrently(&store, reports).await;
        let done = outcomes
            .iter()
            .filter(|outcome| matches!(outcome, MatchApplied::Done(_)))
            .count();
        let stale = outcomes
            .iter()
            .filter(|outcome| {
                matches!(
                    outcome,
                    MatchApplied::Refused {
                        refusal: Refusal::Stale,
                        ..
                    }
                )
            })
            .count();
        assert_eq!((done, stale), (1, 7), "{outcomes:?}");
    }
    assert_eq!(whole_log(&store).await.len(), 9, "three matches of three");
    for account in players {
        assert_eq!(coin_balance(&store, account).await, 3);
        assert_eq!(progress(&store, account).await.version, 3);
        assert_eq!(
            totals(
                &store,
                account,
                GameMode::parse("solo").expect("a mode"),
                ended
            )
            .await,
            stats(&[("kills", 3), ("rounds", 3)])
        );
    }
}

async fn concurrent_reports_of_overlapping_players_never_apply_a_version_twice(
    store: Arc<dyn Store>,
) {
    let players = accounts(&store, 6).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    // Match n has players n, n+1 and n+3 (around the ring), each planned from version 0.
    let members = |n: usize| [n, (n + 1) % 6, (n + 3) % 6].map(|at| players[at]);
    let reports = (0..6)
        .map(|n| {
            let results = members(n)
                .iter()
                .map(|&account| player(account, 1, 1))
                .collect();
            let changes = members(n)
                .iter()
                .rev()
                .map(|&account| change(account, vec![version(0), coins(1)]))
                .collect();
            (record(&format!("m-ring-{n}"), ended, results), changes)
        })
        .collect();
    let outcomes = report_concurrently(&store, reports).await;
    let done: Vec<usize> = (0..6)
        .filter(|&n| matches!(outcomes[n], MatchApplied::Done(_)))
        .collect();
    assert!(!done.is_empty(), "{outcomes:?}");
    assert!(
        outcomes.iter().all(|outcome| matches!(
            outcome,
            MatchApplied::Done(_)
                | MatchApplied::Refused {
                    refusal: Refusal::Stale,
                    ..
                }
        )),
        "{outcomes:?}"
    );
    for (at, &account) in players.iter().enumerate() {
        let applied = done
            .iter()
            .filter(|&&n| members(n).contains(&account))
            .count();
        assert!(applied <= 1, "player {at} moved twice: {outcomes:?}");
        let applied = i64::try_from(applied).expect("a small count");
        assert_eq!(progress(&store, account).await.version, applied);
        assert_eq!(coin_balance(&store, account).await, applied);
        let expected = if applied == 0 {
            stats(&[])
        } else {
            stats(&[("kills", 1), ("rounds", 1)])
        };
        assert_eq!(
            totals(
                &store,
                account,
                GameMode::parse("solo").expect("a mode"),
                ended
            )
            .await,
            expected
        );
    }
    assert_eq!(whole_log(&store).await.len(), 3 * done.len());
}

async fn a_follower_of_the_log_misses_no_concurrent_report(store: Arc<dyn Store>) {
    let players = accounts(&store, 40).await;
    let ended = datetime!(2026-11-22 08:30 UTC);
    // Twenty matches of two players each, none sharing a player, reported at once while a
    // follower reads the log from where it stopped, as a leaderboard node does.
    let reports = players
        .chunks(2)
        .enumerate()
        .map(|(n, pair)| {
            let results = pair.iter().map(|&account| player(account, 1, 1)).collect();
            (record(&format!("m-follow-{n}"), ended, results), Vec::new())
        })
        .collect();
    let follower = {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let mut seen = Vec::new();
            let mut after = 0;
            while seen.len() < 40 {
                let page = store.match_log(after, 7).await.expect("the log reads");
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
    let outcomes = report_concurrently(&store, reports).await;
    assert!(
        outcomes
            .iter()
            .all(|outcome| matches!(outcome, MatchApplied::Done(_))),
        "{outcomes:?}"
    );
    let seen = tokio::time::timeout(std::time::Duration::from_secs(30), follower)
        .await
        .expect("the follower saw every entry")
        .expect("the follower ends");
    assert_eq!(seen, whole_log(&store).await);
}

async fn deleting_an_account_removes_its_log_and_stats(store: Arc<dyn Store>) {
    let players = accounts(&store, 2).await;
    let (kept, deleted) = (players[0], players[1]);
    let ended = datetime!(2026-11-22 08:30 UTC);
    let match_record = record(
        "m-del",
        ended,
        vec![player(kept, 1, 2), player(deleted, 2, 1)],
    );
    let changes = [
        change(
            kept,
            vec![version(0), Step::GrantTrackPass { track: TrackId(1) }],
        ),
        change(
            deleted,
            vec![version(0), Step::GrantTrackPass { track: TrackId(1) }],
        ),
    ];
    report(&store, &match_record, &changes).await;
    assert!(
        store
            .delete_account(deleted, None)
            .await
            .expect("delete runs")
    );
    let log = whole_log(&store).await;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].account, kept);
    assert_eq!(
        totals(
            &store,
            deleted,
            GameMode::parse("solo").expect("a mode"),
            ended
        )
        .await,
        stats(&[])
    );
    assert_eq!(
        totals(
            &store,
            kept,
            GameMode::parse("solo").expect("a mode"),
            ended
        )
        .await,
        stats(&[("kills", 2), ("rounds", 1)])
    );
    assert_eq!(
        store
            .progress(&[deleted, kept])
            .await
            .expect("progress reads")
            .len(),
        1
    );
    // The match stays recorded: a repeat still answers the first report.
    assert!(matches!(
        report(&store, &match_record, &changes).await,
        MatchApplied::Replayed { .. }
    ));
}

/// A match is reported while one of its two players deletes the account: the report is
/// applied (and the deleted player's share goes with the account) or refused as naming a
/// missing account, never a store error; the other player's share is then there once or not
/// at all.
async fn a_report_racing_a_players_deletion_applies_or_is_refused(store: Arc<dyn Store>) {
    let kept = account(&store, "Kept#0001").await;
    let mut reported = 0;
    for n in 0..16 {
        let gone = account(&store, &format!("Gone#{n:04}")).await;
        let match_record = record(
            &format!("m-race-{n}"),
            NOW,
            vec![player(kept, 1, 1), player(gone, 2, 0)],
        );
        let changes = vec![change(gone, vec![coins(5)])];
        let reporting = {
            let store = Arc::clone(&store);
            let match_record = match_record.clone();
            tokio::spawn(async move { store.report_match(&match_record, &changes).await })
        };
        let deleting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.delete_account(gone, None).await })
        };
        let applied = reporting.await.expect("task").expect("the report runs");
        assert!(deleting.await.expect("task").expect("delete runs"));
        match applied {
            MatchApplied::Done(_) => reported += 1,
            MatchApplied::Refused {
                account,
                refusal: Refusal::NoAccount,
            } => assert_eq!(account, gone),
            other => panic!("unexpected report answer {other:?}"),
        }
        let log = whole_log(&store).await;
        assert!(log.iter().all(|entry| entry.account == kept), "{log:?}");
        assert_eq!(log.len(), reported);
        assert!(store.ledger(gone).await.expect("ledger").is_empty());
    }
}
