//! A crash in the middle of the boards' snapshot and of the retention sweep: the binary is
//! killed with SIGKILL while its first sweep deletes old hourly statistics (batch after batch)
//! and, on another start, while it stores a snapshot of its boards; then, from the database and
//! the API: every batch went whole or not at all and nothing recent went, the sweep finishes
//! at the next start, the boards a node serves after the crash (from the newest complete
//! snapshot and the log's tail) equal the boards rebuilt from the whole log, and a graceful
//! stop (SIGTERM) leaves a complete snapshot covering the whole log. The snapshot killed
//! half-way follows a complete one and a tail of results: the node after the crash starts from
//! the complete one and reads the tail.
//!
//! The database is seeded directly: [`PLAYERS`] accounts, [`MATCHES`] matches of 100 players
//! spread over a year and a half (never within 90 minutes of a window's edge, so that the
//! boards read a minute apart agree), and two hours of statistics per player, one past the
//! retention and one recent.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::watch;

use super::database::Database;
use super::server::{Address, Server};

/// The seeded players.
const PLAYERS: i64 = 20_000;

/// The seeded matches, 100 players each.
const MATCHES: i64 = 1_000;

/// The matches appended after the first complete snapshot: the tail a node reads after it.
const TAIL: i64 = 50;

/// How many old statistics rows there are: one per player, all deleted by one sweep round (20
/// batches of 1,000, each its own transaction).
const OLD_STATS: i64 = PLAYERS;

/// The retention sweep's batch.
const SWEEP_BATCH: i64 = 1_000;

/// Tries at landing a kill inside the work, each on a fresh start.
const TRIES: usize = 6;

/// Old statistics rows (hours more than a year and a half ago).
const OLD_STATS_COUNT: &str = "SELECT COUNT(*) FROM stat_hours WHERE stat_key = 'old'";

/// Recent statistics rows.
const RECENT_STATS_COUNT: &str = "SELECT COUNT(*) FROM stat_hours WHERE stat_key = 'recent'";

/// The newest snapshot begun and not complete (0: none).
const NEWEST_INCOMPLETE: &str =
    "SELECT COALESCE(MAX(id), 0) FROM board_snapshots WHERE parts IS NULL";

/// The match log position the newest complete snapshot covers (-1: none).
const NEWEST_COMPLETE_SEQ: &str = "SELECT COALESCE((SELECT match_seq FROM board_snapshots \
     WHERE parts IS NOT NULL ORDER BY id DESC LIMIT 1), -1)";

/// The match log's last position.
const LOG_HEAD: &str = "SELECT COALESCE(MAX(seq), 0) FROM match_log";

/// The run on the database at `url` (a fresh one).
pub(super) async fn run(binary: &str, url: &str) {
    let started = Instant::now();
    // The first start migrates the database; its boards are empty.
    let (mut server, addresses) = Server::launch(binary, url);
    server.kill();
    let database = Database::connect(url).await;
    let now = unix_now();
    seed(&database, now).await;

    let swept = kill_while_sweeping(binary, url, &database).await;
    // A complete snapshot of the whole log (the one a node offers once loaded), then a tail.
    server.start();
    boards(&addresses).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while database.number(NEWEST_COMPLETE_SEQ).await != database.number(LOG_HEAD).await {
        assert!(Instant::now() < deadline, "a snapshot of the loaded boards");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.kill();
    let covered = database.number(NEWEST_COMPLETE_SEQ).await;
    append_matches(&database, now, MATCHES + 1, TAIL).await;
    let snapshot = kill_while_snapshotting(binary, url, &database, now).await;
    assert_eq!(
        database.number(NEWEST_COMPLETE_SEQ).await,
        covered,
        "the snapshot killed half-way is not the newest complete one"
    );

    // After the crashes: the node serves boards from the newest complete snapshot and the
    // tail; the sweep finishes what the crash interrupted.
    server.start();
    let after_crash = boards(&addresses).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while database.number(OLD_STATS_COUNT).await > 0 {
        assert!(
            Instant::now() < deadline,
            "the sweep finished after the crash"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(database.number(RECENT_STATS_COUNT).await, PLAYERS);

    // A graceful stop leaves a complete snapshot covering the whole log.
    assert!(server.terminate(), "SIGTERM stops the server with 0");
    assert_eq!(
        database.number(NEWEST_COMPLETE_SEQ).await,
        database.number(LOG_HEAD).await,
        "the stop's snapshot covers the whole log"
    );

    // Without any snapshot, a node rebuilds its boards from the whole log: the same boards.
    database
        .execute("DELETE FROM board_snapshot_parts; DELETE FROM board_snapshots;".to_owned())
        .await;
    server.start();
    let rebuilt = boards(&addresses).await;
    server.kill();
    database.close().await;
    assert_eq!(after_crash.len(), rebuilt.len());
    for ((query, served), (_, expected)) in after_crash.iter().zip(&rebuilt) {
        assert_eq!(
            served, expected,
            "{query}: after the crash, as rebuilt from the log"
        );
    }
    let players: usize = rebuilt
        .iter()
        .map(|(_, body)| body["players"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(players > 1_000, "the boards are full: {players} rows");
    eprintln!(
        "{binary}: killed while the sweep had deleted {swept} of {OLD_STATS} old statistics rows \
         and while snapshot {snapshot} was being stored; boards after the crash equal the \
         boards rebuilt from the log ({} boards, {players} rows); took {:?}",
        rebuilt.len(),
        started.elapsed()
    );
}

/// The Unix time now, in seconds.
fn unix_now() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    i64::try_from(since.as_secs()).expect("a time in range")
}

/// Writes the players, their matches and their statistics, straight into the database.
async fn seed(database: &Database, now: i64) {
    let accounts = format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {PLAYERS}) \
         INSERT INTO accounts (provider, identifier, friend_name, friend_digits, created, \
         updated) SELECT 'seed', 'seed-' || i, 'Seeded' || (i / 10000), i % 10000, 0, 0 FROM n"
    );
    database.execute(accounts).await;
    append_matches(database, now, 1, MATCHES).await;
    let hour = now / 3_600;
    for (key, hour) in [("old", hour - 24 * 550), ("recent", hour - 2)] {
        database.execute(stats(key, hour)).await;
    }
}

/// One statistics row of `key` in `hour` per player.
fn stats(key: &str, hour: i64) -> String {
    format!(
        "INSERT INTO stat_hours (account_id, mode, hour, stat_key, value) \
         SELECT id, 'solo', {hour}, '{key}', 1 FROM accounts WHERE provider = 'seed'"
    )
}

/// Appends matches `first` to `first + count - 1` (`seed-<n>`) of 100 players each to the
/// match log, as reports would: match `n` ended `3n + 1.5` hours before `now` (Unix seconds).
async fn append_matches(database: &Database, now: i64, first: i64, count: i64) {
    let now_us = now * 1_000_000;
    let last = first + count - 1;
    let ended = format!("({now_us} - (i * 10800 + 5400) * CAST(1000000 AS BIGINT))");
    let mode = "CASE i % 4 WHEN 0 THEN 'solo' WHEN 1 THEN 'duo' WHEN 2 THEN 'squad' \
                ELSE 'limited' END";
    let matches = format!(
        "WITH RECURSIVE m(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM m WHERE i < {last}) \
         INSERT INTO matches (id, mode, started, ended, reported, summary, granted) \
         SELECT 'seed-' || i, {mode}, {ended} - 600000000, {ended}, {ended}, '{{}}', '[]' FROM m"
    );
    database.execute(matches).await;
    let log = format!(
        "WITH RECURSIVE m(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM m WHERE i < {last}), \
         p(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM p WHERE k < 99) \
         INSERT INTO match_log (match_id, account_id, mode, ended, placement, kills, time_alive) \
         SELECT 'seed-' || i, (i * 37 + k * 211) % {PLAYERS} + 1, {mode}, {ended}, k + 1, \
         (i + k) % 7, 600 - k FROM m, p ORDER BY i, k"
    );
    database.execute(log).await;
    database
        .execute(
            "UPDATE match_log_appender SET appended = (SELECT COUNT(*) FROM match_log)".to_owned(),
        )
        .await;
}

/// The binary on `url` with no address anyone reads: what is killed in the middle.
fn spawn(binary: &str, url: &str) -> Child {
    Command::new(binary)
        .args(["--listen", "127.0.0.1:0", "--database-url", url])
        .env("SAFEZONE_RATE_LIMITS", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts")
}

fn kill(mut child: Child) {
    child.kill().expect("SIGKILL is sent");
    child.wait().expect("the killed server is reaped");
}

/// Starts the binary and kills it once its first sweep round has deleted some of the old
/// statistics and not all; then every batch went whole (a multiple of the batch is gone) and
/// no recent row went. Answers how many old rows had gone.
async fn kill_while_sweeping(binary: &str, url: &str, database: &Database) -> i64 {
    for _ in 0..TRIES {
        let child = spawn(binary, url);
        let deadline = Instant::now() + Duration::from_secs(60);
        let left = loop {
            let left = database.number(OLD_STATS_COUNT).await;
            if left < OLD_STATS || Instant::now() > deadline {
                break left;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        kill(child);
        let after = database.number(OLD_STATS_COUNT).await;
        assert_eq!((OLD_STATS - after) % SWEEP_BATCH, 0, "whole batches only");
        assert!(after <= left);
        assert_eq!(database.number(RECENT_STATS_COUNT).await, PLAYERS);
        if left > 0 && after > 0 {
            return OLD_STATS - after;
        }
        // The round finished before the kill: the old rows again, and another try.
        database
            .execute(
                "DELETE FROM stat_hours WHERE stat_key = 'old'".to_owned()
                    + ";"
                    + &stats("old", unix_now() / 3_600 - 24 * 550),
            )
            .await;
    }
    panic!("no kill landed inside the sweep in {TRIES} tries");
}

/// Starts the binary and kills it while it stores a snapshot of its boards (begun, not
/// complete), again with more results when a try came too late. Answers the snapshot's id.
async fn kill_while_snapshotting(binary: &str, url: &str, database: &Database, now: i64) -> i64 {
    let mut next_match = MATCHES + TAIL + 1;
    for _ in 0..TRIES {
        // As if the 15 minutes between two nodes' periodic snapshots had passed.
        database
            .execute("UPDATE board_snapshot_claim SET claimed_at = 0".to_owned())
            .await;
        let before = database.number(NEWEST_INCOMPLETE).await;
        let complete_before = database.number(NEWEST_COMPLETE_SEQ).await;
        let child = spawn(binary, url);
        let deadline = Instant::now() + Duration::from_secs(300);
        let begun = loop {
            let begun = database.number(NEWEST_INCOMPLETE).await;
            let completed = database.number(NEWEST_COMPLETE_SEQ).await != complete_before;
            if begun > before || completed || Instant::now() > deadline {
                break begun;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        kill(child);
        if begun > before && database.number(NEWEST_INCOMPLETE).await == begun {
            return begun;
        }
        // Too late (or too early): more results, so that the next start offers a snapshot.
        append_matches(database, now, next_match, 10).await;
        next_match += 10;
    }
    panic!("no kill landed inside a snapshot in {TRIES} tries");
}

/// Every board of the node at `addresses` once it has loaded them: `(query, body)`.
async fn boards(addresses: &watch::Receiver<Address>) -> Vec<(String, Value)> {
    let address = addresses
        .borrow()
        .address
        .clone()
        .expect("the server is up");
    let client = reqwest::Client::new();
    let mut boards = Vec::new();
    for mode in ["solo", "duo", "squad", "limited"] {
        for window in ["24h", "7d", "1m", "1y", "all"] {
            for category in [
                "wins",
                "kills",
                "kills_per_round",
                "winrate",
                "time_alive",
                "rounds",
                "top10",
            ] {
                let query = format!("mode={mode}&time={window}&category={category}");
                let url = format!("http://{address}/api/leaderboard/live?{query}");
                boards.push((query, loaded_board(&client, &url).await));
            }
        }
    }
    boards
}

/// The board at `url`, asked again while the node is still loading.
async fn loaded_board(client: &reqwest::Client, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let answer = client.get(url).send().await.expect("the server answers");
        let status = answer.status();
        let body: Value = answer.json().await.expect("a JSON body");
        if status.is_success() {
            return body;
        }
        assert_eq!(status.as_u16(), 503, "{body}");
        assert!(Instant::now() < deadline, "the boards load in time");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
