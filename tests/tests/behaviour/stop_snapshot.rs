//! The boards' snapshot at a graceful stop (`SafezoneService::snapshot_boards_at_stop`, which
//! the binaries call on SIGTERM and Ctrl-C): it covers every result reported before the stop,
//! is not written again when nothing moved, and a stop never waits past its bound (a bound too
//! short leaves no complete snapshot behind, and the one before stays the newest).

use std::time::{Duration, Instant};

use safezone_core::Settings;
use safezone_tests::leaderboard::Played;
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination, test_settings};

each_combination!(a_stop_writes_a_snapshot_covering_every_result,);

each_combination!(
    settings = with_no_time_to_write;
    a_stop_never_waits_past_its_bound,
);

/// The test settings, with a stop given a nanosecond to write its snapshot.
fn with_no_time_to_write() -> Settings {
    let mut settings = test_settings();
    settings.stop_snapshot_within = Duration::from_nanos(1);
    settings
}

/// Two players' match reported after the snapshot a node offers once its boards are loaded;
/// answers the match's last log position once the node has read it (its boards show it).
async fn a_match(app: &TestApp) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    while app
        .store
        .newest_board_snapshot()
        .await
        .expect("reads")
        .is_none()
    {
        assert!(
            Instant::now() < deadline,
            "the snapshot offered at the load"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let lines = vec![
        Line::new(players[0].id, 1, 7, 1800),
        Line::new(players[1].id, 2, 3, 1700),
    ];
    app.report_now(&mut played, mode("solo"), lines).await;
    app.assert_every_board(&played, None).await;
    let log = app.store.match_log(0, 100).await.expect("the log reads");
    log.last().expect("the match is logged").seq
}

async fn a_stop_writes_a_snapshot_covering_every_result(app: TestApp) {
    let seq = a_match(&app).await;
    let id = app
        .service
        .snapshot_boards_at_stop()
        .await
        .expect("a snapshot is written at the stop");
    let newest = app
        .store
        .newest_board_snapshot()
        .await
        .expect("reads")
        .expect("a complete snapshot");
    assert_eq!(newest.id, id);
    assert_eq!(newest.match_seq, seq, "it covers the last result");
    assert!(newest.parts >= 1);
    // Nothing moved since: a second stop writes none.
    assert_eq!(app.service.snapshot_boards_at_stop().await, None);
    let same = app.store.newest_board_snapshot().await.expect("reads");
    assert_eq!(same.map(|info| info.id), Some(id));
}

async fn a_stop_never_waits_past_its_bound(app: TestApp) {
    a_match(&app).await;
    let before = app.store.newest_board_snapshot().await.expect("reads");
    let started = Instant::now();
    assert_eq!(app.service.snapshot_boards_at_stop().await, None);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let after = app.store.newest_board_snapshot().await.expect("reads");
    assert_eq!(after, before, "no snapshot was completed");
}
