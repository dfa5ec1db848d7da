//! Several Safezone nodes on one PostgreSQL database answer the same boards: a match reported
//! to one node shows on the others within a couple of seconds, a node started later rebuilds
//! its boards from the store, renames, deletions, bans and an operator's removal of a player's
//! results reach every node (also while that player's matches are reported), and so does
//! content published without a restart, and a console session made on one node works on the
//! other, and signing out there ends it on both; the sessions a node keeps in memory show a
//! change made on another node within a second; a player is shown online to friends while a
//! realtime channel is open on either node, and a node's stop takes its players offline; a
//! change through one node reaches a player's realtime channel on the other, and the channel
//! resumes on either.
//!
//! Each test runs on nodes of both binaries (warp and rocket) sharing one database and one
//! hand-set clock.

use safezone_core::store::AccountId;
use safezone_tests::community::Player;
use safezone_tests::content::{shipped_with_maintenance, shipped_with_mode};
use safezone_tests::economy::Grant;
use safezone_tests::leaderboard::{
    CATEGORIES, DEADLINE, Played, WINDOWS, codes, lines_summing, match_id, query, within,
};
use safezone_tests::mode;
use safezone_tests::progression::{Line, Report};
use safezone_tests::{Nodes, Server, TestApp, run_nodes};
use serde_json::Value;
use time::Duration;

/// The key and id of a player, as the board helpers take a caller.
fn caller(player: &Player) -> Option<(&str, AccountId)> {
    Some((player.key.as_str(), player.id))
}

/// The friend codes of `players`, as the boards show them.
fn codes_of(players: &[&Player]) -> Vec<String> {
    players
        .iter()
        .map(|player| player.friend_code.to_string())
        .collect()
}

/// Polls the profile of `code` on `app` until `check` accepts it (at most [`DEADLINE`]).
async fn await_profile(app: &TestApp, code: &str, key: &str, check: impl Fn(&Value) -> bool) {
    let settled = within(DEADLINE, || async {
        let answer = app.profile_answer(code, key).await;
        if check(&answer.json) {
            Ok(())
        } else {
            Err(answer.text)
        }
    })
    .await;
    if let Err(last) = settled {
        panic!("the profile of {code} did not change within {DEADLINE:?}; last: {last}");
    }
}

#[tokio::test]
async fn a_player_is_online_while_a_channel_is_open_on_any_node() {
    run_nodes(&[Server::Warp, Server::Rocket], presence_spans_nodes).await;
}

#[tokio::test]
async fn a_report_to_one_node_shows_on_the_other() {
    run_nodes(&[Server::Warp, Server::Rocket], report_crosses_nodes).await;
}

#[tokio::test]
async fn a_change_through_one_node_reaches_a_channel_on_the_other() {
    run_nodes(&[Server::Warp, Server::Rocket], channel_crosses_nodes).await;
}

#[tokio::test]
async fn a_node_started_later_rebuilds_its_boards() {
    run_nodes(&[Server::Warp], later_node_rebuilds).await;
}

#[tokio::test]
async fn renames_and_deletions_reach_the_other_node() {
    run_nodes(&[Server::Warp, Server::Rocket], account_changes_cross_nodes).await;
}

#[tokio::test]
async fn a_ban_reaches_the_other_node() {
    run_nodes(&[Server::Rocket, Server::Warp], ban_crosses_nodes).await;
}

#[tokio::test]
async fn a_removal_of_results_reaches_the_other_node() {
    run_nodes(&[Server::Warp, Server::Rocket], removal_crosses_nodes).await;
}

#[tokio::test]
async fn results_removed_while_reported_agree_on_every_node() {
    run_nodes(&[Server::Rocket, Server::Warp], removal_races_reports).await;
}

#[tokio::test]
async fn changes_show_in_the_other_nodes_kept_sessions_within_a_second() {
    run_nodes(
        &[Server::Warp, Server::Rocket],
        kept_sessions_follow_changes,
    )
    .await;
}

#[tokio::test]
async fn published_content_reaches_every_node() {
    run_nodes(&[Server::Warp, Server::Rocket], content_crosses_nodes).await;
}

/// How long after a change was answered every node's kept sessions show it: the bound the
/// session cache promises by construction (a node serves a kept session only while its
/// follower has seen every change committed up to 0.8 s ago), whatever the load.
const SEEN_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// `GET /api/user/{key}` on B, twice (the second from the session B keeps), as it answers on A.
async fn kept_on(b: &TestApp, key: &str) {
    b.user(key).await;
    b.user(key).await;
}

/// What `GET /api/user/{key}` answers on `app`: the status and the user, or the error code.
async fn account_answer(app: &TestApp, key: &str) -> (u16, Value) {
    let answer = app.get(&format!("/api/user/{key}")).await;
    let shown = match answer.status {
        200 => answer.json["user"].clone(),
        _ => answer.json["code"].clone(),
    };
    (answer.status, shown)
}

/// One second after A answered `what`, B answers `GET /api/user/{key}` as A does.
async fn b_agrees_after(a: &TestApp, b: &TestApp, key: &str, what: &str) {
    tokio::time::sleep(SEEN_WITHIN).await;
    let on_b = account_answer(b, key).await;
    let on_a = account_answer(a, key).await;
    assert_eq!(on_b, on_a, "B shows the {what} made on A a second later");
}

/// A purchase, a grant, a rename, a ban, a revocation of every key and a deletion, each made
/// on A after B kept the player's session, show on B one second later, and so does a grant in
/// a sign-in B answers from memory.
async fn kept_sessions_follow_changes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let key = a.funded_key(100_000, 1_000).await;

    kept_on(b, &key).await;
    a.buy(&key, "packId=1&quantity=1").await.success();
    b_agrees_after(a, b, &key, "purchase").await;

    kept_on(b, &key).await;
    a.grant_to(
        &key,
        Grant {
            coins: 5,
            ..Grant::default()
        },
    )
    .await;
    b_agrees_after(a, b, &key, "grant").await;

    kept_on(b, &key).await;
    a.rename_to(&key, "Kept").await;
    b_agrees_after(a, b, &key, "rename").await;

    kept_on(b, &key).await;
    let id = a.account_id(&key).await;
    assert!(a.store.set_banned(id, true, None).await.expect("banned"));
    b_agrees_after(a, b, &key, "ban").await;
    assert!(a.store.set_banned(id, false, None).await.expect("unbanned"));
    b_agrees_after(a, b, &key, "unban").await;

    kept_on(b, &key).await;
    a.post(&format!("/api/user/{key}/clear-sessions"))
        .await
        .success();
    b_agrees_after(a, b, &key, "revocation of every key").await;
    assert_eq!(account_answer(b, &key).await.0, 401);

    // A sign-in on B of an identity whose view B keeps answers from memory: a grant on A
    // shows in it a second later.
    let (device, _) = a.new_device().await;
    let key = b.key_of_device(&device).await;
    kept_on(b, &key).await;
    b.key_of_device(&device).await;
    let coins = a.user(&key).await["coins"].as_i64().expect("coins");
    a.grant_to(
        &key,
        Grant {
            coins: 7,
            ..Grant::default()
        },
    )
    .await;
    tokio::time::sleep(SEEN_WITHIN).await;
    let signed_in = b
        .post(&format!("/api/validate/device/{device}"))
        .await
        .success()["user"]
        .clone();
    assert_eq!(signed_in["coins"], a.user(&key).await["coins"]);
    assert_eq!(
        signed_in["coins"],
        coins + 7,
        "the grant shows in B's sign-in"
    );

    let (deleted, confirmation) = a.deletable_player().await;
    kept_on(b, &deleted.key).await;
    a.delete_account(&deleted, &confirmation).await;
    b_agrees_after(a, b, &deleted.key, "deletion").await;
    assert_eq!(account_answer(b, &deleted.key).await.0, 401);
}

/// Report to A: A shows it on the next request, B within the deadline; then report to B and
/// read from A.
async fn report_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let mut played = Played::new();
    let first = a.joined(&mut played).await;
    let second = b.joined(&mut played).await;
    a.assert_every_board(&played, caller(&first)).await;
    b.assert_every_board(&played, caller(&first)).await;

    a.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(first.id, 1, 8, 1500),
            Line::new(second.id, 2, 3, 1400),
        ],
    )
    .await;
    a.assert_board(&played, mode("solo"), "24h", "wins", caller(&second))
        .await;
    b.await_board(&played, mode("solo"), "24h", "wins", caller(&second))
        .await;
    let body = b
        .board(&query(mode("solo"), "24h", "wins", Some(&second.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[&first, &second]));
    assert_eq!(body["user"]["rank"], 2);
    b.assert_every_board(&played, caller(&second)).await;
    let profile = b.profile(&first.friend_code.to_string(), &second.key).await;
    assert_eq!(profile["stats"], played.stats(first.id, b.now()));

    // The other way: report to B, read from A.
    let lines = [
        lines_summing(second.id, 10, 4, 6, 30, 9000),
        lines_summing(first.id, 10, 0, 3, 5, 2000),
    ];
    for (round, lines) in safezone_tests::leaderboard::into_matches(&lines)
        .into_iter()
        .enumerate()
    {
        let mode = if round % 2 == 0 {
            mode("squad")
        } else {
            mode("duo")
        };
        b.report_now(&mut played, mode, lines).await;
    }
    b.assert_every_board(&played, caller(&first)).await;
    a.await_every_board(&played, caller(&first)).await;
    let body = a
        .board(&query(mode("squad"), "all", "wins", Some(&first.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[&second, &first]));
    let profile = a.profile(&second.friend_code.to_string(), &first.key).await;
    assert_eq!(profile["stats"], played.stats(second.id, a.now()));
}

/// Matches reported before a node starts are on its boards from its first answers, and both
/// nodes drop them from the windows alike as the shared clock moves on.
async fn later_node_rebuilds(nodes: Nodes, apps: Vec<TestApp>) {
    let a = &apps[0];
    let mut played = Played::new();
    let players = a.joined_all(&mut played, 4).await;
    let start = a.now();
    for (index, player) in players.iter().enumerate() {
        let lines = lines_summing(player.id, 10 + index as i64, 2, 4, 12 * index as i64, 3000);
        for (round, line) in lines.into_iter().enumerate() {
            let (mode, age) = match round % 4 {
                0 => (mode("solo"), Duration::days(6)),
                1 => (mode("solo"), Duration::hours(3)),
                2 => (mode("squad"), Duration::days(2)),
                _ => (mode("limited"), Duration::minutes(1)),
            };
            a.report_at(&mut played, mode, start - age, vec![line])
                .await;
        }
    }

    let b = nodes.start(Server::Rocket).await;
    assert_eq!(b.server, Server::Rocket);
    b.assert_every_board(&played, caller(&players[1])).await;
    a.assert_every_board(&played, caller(&players[1])).await;
    let third = nodes.start(Server::Warp).await;
    third.assert_every_board(&played, caller(&players[2])).await;

    // Both nodes drop the results leaving a window as the shared clock moves on.
    nodes.clock().advance(Duration::days(3));
    for node in [a, &b, &third] {
        for window in WINDOWS {
            for category in CATEGORIES {
                for mode in [mode("solo"), mode("squad"), mode("limited")] {
                    node.assert_board(&played, mode, window, category, None)
                        .await;
                }
            }
        }
    }
}

/// A rename and then a deletion on A show on B within the deadline.
async fn account_changes_cross_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let mut played = Played::new();
    let (deleted, confirmation) = a.deletable_player().await;
    played.join(&deleted);
    let renamed = a.joined(&mut played).await;
    let watcher = a.joined(&mut played).await;
    a.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(deleted.id, 1, 10, 2000),
            Line::new(renamed.id, 2, 5, 1900),
            Line::new(watcher.id, 3, 1, 1800),
        ],
    )
    .await;
    a.report_now(
        &mut played,
        mode("duo"),
        vec![Line::new(deleted.id, 1, 2, 100)],
    )
    .await;
    b.await_every_board(&played, caller(&watcher)).await;

    let code = a.rename_to(&renamed.key, "Moved").await;
    played.rename(renamed.id, &code);
    a.assert_board(&played, mode("solo"), "all", "kills", caller(&renamed))
        .await;
    b.await_board(&played, mode("solo"), "all", "kills", caller(&renamed))
        .await;
    let body = b.board(&query(mode("solo"), "all", "kills", None)).await;
    assert_eq!(body["players"][1]["name"], "Moved");
    assert_eq!(body["players"][1]["friend_code"], code.as_str());
    b.await_every_board(&played, caller(&renamed)).await;
    await_profile(b, &code, &watcher.key, |body| {
        body["user"]["friend_code"] == code.as_str()
    })
    .await;

    a.delete_account(&deleted, &confirmation).await;
    played.hide(deleted.id);
    a.assert_every_board(&played, caller(&watcher)).await;
    b.await_every_board(&played, caller(&watcher)).await;
    let body = b
        .board(&query(mode("solo"), "all", "kills", Some(&watcher.key)))
        .await;
    assert_eq!(
        codes(&body),
        [code.clone(), watcher.friend_code.to_string()]
    );
    assert_eq!(body["user"]["rank"], 2);
    let deleted_code = deleted.friend_code.to_string();
    await_profile(b, &deleted_code, &watcher.key, |body| {
        body["code"] == "profile_not_found"
    })
    .await;
    b.profile_answer(&deleted_code, &watcher.key)
        .await
        .error(404, "profile_not_found");
}

/// A ban made through the store (as the operator's `ban` does) takes the player off both nodes'
/// boards; the unban brings them back.
async fn ban_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let mut played = Played::new();
    let players = a.joined_all(&mut played, 2).await;
    let (banned, other) = (&players[0], &players[1]);
    a.report_now(
        &mut played,
        mode("squad"),
        vec![
            Line::new(banned.id, 1, 7, 900),
            Line::new(other.id, 2, 2, 800),
        ],
    )
    .await;
    b.await_every_board(&played, caller(other)).await;

    a.set_banned(banned, true).await;
    played.hide(banned.id);
    a.await_every_board(&played, caller(other)).await;
    b.await_every_board(&played, caller(other)).await;
    let body = b.board(&query(mode("squad"), "all", "kills", None)).await;
    assert_eq!(codes(&body), codes_of(&[other]));

    a.set_banned(banned, false).await;
    played.show(banned.id);
    a.await_every_board(&played, caller(other)).await;
    b.await_every_board(&played, caller(other)).await;
    let body = b.board(&query(mode("squad"), "all", "kills", None)).await;
    assert_eq!(codes(&body), codes_of(&[banned, other]));
}

/// A removal of a player's results made through A's store (as the operator's
/// `remove-results` does) takes them off both nodes' boards; the player's later results, reported
/// to B, count on both.
async fn removal_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let mut played = Played::new();
    let players = a.joined_all(&mut played, 2).await;
    let (cheater, other) = (&players[0], &players[1]);
    a.report_now(
        &mut played,
        mode("squad"),
        vec![
            Line::new(cheater.id, 1, 25, 900),
            Line::new(other.id, 2, 2, 800),
        ],
    )
    .await;
    b.await_every_board(&played, caller(other)).await;

    let removed = a
        .store
        .remove_results(cheater.id, a.now(), None)
        .await
        .expect("the store removes")
        .expect("the account exists");
    assert_eq!(removed.removed, 1);
    played.forget_results(cheater.id);
    a.await_every_board(&played, caller(other)).await;
    b.await_every_board(&played, caller(other)).await;
    let body = b.board(&query(mode("squad"), "all", "kills", None)).await;
    assert_eq!(codes(&body), codes_of(&[other]));

    b.report_now(
        &mut played,
        mode("squad"),
        vec![Line::new(cheater.id, 4, 1, 300)],
    )
    .await;
    a.await_every_board(&played, caller(cheater)).await;
    b.await_every_board(&played, caller(cheater)).await;
}

/// Rounds of a report naming a player raced against the removal of that player's results,
/// through different nodes: whichever commits first, both running nodes and a node started
/// afterwards (which loads from the store) show exactly the results the match log kept.
async fn removal_races_reports(nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let mut played = Played::new();
    let players = a.joined_all(&mut played, 4).await;
    let honest = &players[0];
    for round in 0..12 {
        let cheater = &players[1 + round % 3];
        let report = Report::new(
            &match_id(),
            mode("squad"),
            a.now() - Duration::minutes(1),
            vec![
                Line::new(cheater.id, 1, 9, 900),
                Line::new(honest.id, 2, 1, 700),
            ],
        );
        let (_, removed) = tokio::join!(a.report(&report), async {
            b.store
                .remove_results(cheater.id, b.now(), None)
                .await
                .expect("the store removes")
        });
        assert!(removed.is_some());
        played.record(&report);
        let kept = b
            .store
            .recent_results(cheater.id, 10)
            .await
            .expect("the match log reads");
        played.forget_results(cheater.id);
        if !kept.is_empty() {
            assert_eq!(kept.len(), 1, "round {round}: {kept:?}");
            let alone = Report {
                lines: vec![report.lines[0].clone()],
                ..report.clone()
            };
            played.record(&alone);
        }
        a.await_every_board(&played, caller(honest)).await;
        b.await_every_board(&played, caller(honest)).await;
    }
    let later = nodes.start(Server::Warp).await;
    later.assert_every_board(&played, caller(honest)).await;
}

/// Publish, through node A's store, the shipped content with `maintenance` on: both nodes show
/// it within the deadline; a second publication turning it off reaches both as well.
async fn content_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    for (version, on) in [(1, true), (2, false)] {
        let published = apps[0]
            .store
            .publish_content(
                &shipped_with_maintenance(on),
                &safezone_core::store::Publication::default(),
                apps[0].now(),
                None,
            )
            .await
            .expect("published");
        assert_eq!(published, version);
        for app in &apps {
            app.await_maintenance(on).await;
        }
    }
}

#[tokio::test]
async fn a_mode_published_through_one_node_opens_its_boards_on_the_other() {
    run_nodes(
        &[Server::Warp, Server::Rocket],
        published_mode_crosses_nodes,
    )
    .await;
}

/// A file adding `trios` published through A's operator API: B serves the mode's boards
/// without a restart, empty at first, then with a match in `trios` reported to A.
async fn published_mode_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let trios = mode("trios");
    let mut played = Played::new();
    let players = a.joined_all(&mut played, 3).await;
    b.board_answer(&query(trios, "all", "kills", None))
        .await
        .error_naming(400, "invalid_parameter", "mode");

    let listener = a.operator_listener().await;
    let secret = a.operator_token("designer", "full").await;
    let published = a
        .client
        .post(format!(
            "http://{}/operator/api/content/publish",
            listener.local_addr()
        ))
        .bearer_auth(&secret)
        .json(&serde_json::json!({"text": shipped_with_mode("trios", 3), "reason": "trios"}))
        .send()
        .await
        .expect("the operator API answers");
    assert!(published.status().is_success(), "{published:?}");

    let entry = b.await_mode("trios", true).await;
    assert_eq!(entry.map(|mode| mode["team_size"].clone()), Some(3.into()));
    let empty = b.board(&query(trios, "all", "kills", None)).await;
    assert_eq!(empty["players"], serde_json::json!([]));
    a.await_mode("trios", true).await;
    let lines = players
        .iter()
        .enumerate()
        .map(|(place, player)| Line::new(player.id, place as i64 + 1, 5 - place as i64, 600))
        .collect();
    a.report_now(&mut played, trios, lines).await;
    for category in ["kills", "wins"] {
        b.await_board(&played, trios, "all", category, caller(&players[2]))
            .await;
    }
}

#[tokio::test]
async fn events_are_sequenced_once_and_reach_every_nodes_subscribers() {
    run_nodes(&[Server::Warp, Server::Rocket], events_reach_every_node).await;
}

/// Sign-ups through both nodes; one node at a time sequences the events, once each, and every
/// node's subscribers receive every event once, in relay order.
async fn events_reach_every_node(_nodes: Nodes, apps: Vec<TestApp>) {
    let mut subscriptions: Vec<_> = apps
        .iter()
        .map(|app| app.service.subscribe_events())
        .collect();
    for round in 0..10 {
        apps[round % apps.len()].new_device().await;
    }
    let store = &apps[0].store;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    let stored: Vec<i64> = loop {
        let events = store.events(0, 1_000).await.expect("the events read");
        if events.len() == 20 && events.iter().all(|(_, position)| position.is_some()) {
            break events.into_iter().map(|(event, _)| event.id).collect();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not sequenced: {events:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let relayed = apps[0]
        .service
        .events_after(0, 1_000)
        .await
        .expect("the outbox reads");
    let positions: Vec<i64> = relayed.iter().map(|relayed| relayed.position).collect();
    assert_eq!(
        positions,
        (1..=20).collect::<Vec<_>>(),
        "each sequenced once"
    );
    for subscription in &mut subscriptions {
        let mut received = Vec::new();
        while received.len() < stored.len() {
            let event = tokio::time::timeout_at(deadline, subscription.recv())
                .await
                .unwrap_or_else(|_| panic!("only {received:?} of {stored:?}"))
                .expect("the node lives");
            received.push(event.id);
        }
        received.sort_unstable();
        assert_eq!(received, stored, "every event, once, on every node");
    }
}

#[tokio::test]
async fn a_console_session_works_on_and_is_ended_from_another_node() {
    run_nodes(
        &[Server::Warp, Server::Rocket],
        console_session_crosses_nodes,
    )
    .await;
}

/// A node's operator listener, spoken to as a browser on its console's pages would.
struct ConsoleOf {
    origin: String,
    client: reqwest::Client,
}

impl ConsoleOf {
    async fn serve(app: &TestApp) -> (Self, safezone_core::operator_listener::OperatorServer) {
        let listener = app.operator_listener().await;
        let console = Self {
            origin: format!("http://{}", listener.local_addr()),
            client: app.client.clone(),
        };
        (console, listener)
    }

    /// `GET path` (under `/operator/console`) with the session `cookie`.
    async fn get(&self, path: &str, cookie: &str) -> reqwest::Response {
        self.client
            .get(format!("{}/operator/console{path}", self.origin))
            .header("cookie", cookie)
            .send()
            .await
            .expect("the console answers")
    }

    /// `POST path` with the form `fields` and `cookie` (if any), from the console's origin.
    async fn post(&self, path: &str, cookie: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}/operator/console{path}", self.origin))
            .header("origin", &self.origin)
            .header("cookie", cookie)
            .form(fields)
            .send()
            .await
            .expect("the console answers")
    }
}

/// Whether `answer` sends the browser to the sign-in page.
fn to_sign_in(answer: &reqwest::Response) -> bool {
    answer.status() == 303
        && answer
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
            == Some("/operator/console/sign-in")
}

/// Signed in on A's console, the session's cookie works on B's; signed out on B, it stops
/// working on A at once (the sessions are in the database, not in a node).
async fn console_session_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let secret = apps[0].operator_token("alice", "full").await;
    let (a, _a_listener) = ConsoleOf::serve(&apps[0]).await;
    let (b, _b_listener) = ConsoleOf::serve(&apps[1]).await;

    let signed_in = a.post("/sign-in", "", &[("secret", &secret)]).await;
    assert_eq!(signed_in.status(), 303);
    let cookie = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok()?.split(';').next())
        .find(|pair| pair.starts_with("safezone_console=session_"))
        .expect("a session cookie")
        .to_owned();
    assert_eq!(a.get("/", &cookie).await.status(), 200);
    let home = b.get("/", &cookie).await;
    assert_eq!(home.status(), 200, "A's session works on B");
    let page = home.text().await.expect("a page");
    let marker = "name=\"csrf\" value=\"";
    let at = page.find(marker).expect("a form token") + marker.len();
    let csrf = page[at..].split('"').next().expect("a value");

    let out = b.post("/sign-out", &cookie, &[("csrf", csrf)]).await;
    assert!(to_sign_in(&out), "signed out on B: {}", out.status());
    assert!(to_sign_in(&a.get("/", &cookie).await), "ended on A too");
    assert!(to_sign_in(&b.get("/", &cookie).await));
}

/// Waits until `viewer`'s first friend is shown `online` (as read from `node`), with
/// `last_seen` when given.
async fn await_presence(node: &TestApp, viewer: &Player, online: bool, last_seen: Option<Value>) {
    let shown = within(DEADLINE, || async {
        let lists = node
            .get(&format!("/api/friends?userKey={}", viewer.key))
            .await;
        let friend = lists.success()["friends"][0].clone();
        let matches = friend["online"] == online
            && last_seen
                .as_ref()
                .is_none_or(|seen| &friend["last_seen"] == seen);
        matches.then_some(()).ok_or(friend.to_string())
    })
    .await;
    assert!(shown.is_ok(), "not shown online: {online}: {shown:?}");
}

async fn presence_spans_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let [ace, bee] = [a.player().await, a.player().await];
    let code = |player: &Player| player.friend_code.to_string().replace('#', "%23");
    a.post(&format!(
        "/api/friends/{}/request?userKey={}",
        code(&bee),
        ace.key
    ))
    .await
    .success();
    b.post(&format!(
        "/api/friends/{}/accept?userKey={}",
        code(&ace),
        bee.key
    ))
    .await
    .success();

    let on_a = a.open_channel(&bee.key, None).await;
    let on_b = b.open_channel(&bee.key, None).await;
    await_presence(b, &ace, true, None).await;
    on_a.close().await;
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    await_presence(a, &ace, true, None).await;
    on_b.close().await;
    let closed = serde_json::to_value(safezone_core::domain::ApiDate(a.now())).expect("a date");
    await_presence(a, &ace, false, Some(closed)).await;

    let _on_b = b.open_channel(&bee.key, None).await;
    await_presence(a, &ace, true, None).await;
    b.service.close_realtime_channels().await;
    await_presence(a, &ace, false, None).await;
}

/// A purchase through A reaches the player's realtime channel on B; closed there, the channel
/// resumes on A after the last position seen on B with a change committed meanwhile, nothing
/// lost or repeated.
async fn channel_crosses_nodes(_nodes: Nodes, apps: Vec<TestApp>) {
    let (a, b) = (&apps[0], &apps[1]);
    let player = a.relayed_player().await;
    let mut on_b = b.open_channel(&player.key, None).await;
    a.grant_to(&player.key, safezone_tests::economy::coins(100_000))
        .await;
    a.buy(&player.key, "packId=1&quantity=1").await.success();
    let events = on_b.events_until("purchase").await;
    assert_eq!(
        events.last().expect("the purchase").1["reference"],
        "pack:1x1"
    );
    let last = events.last().expect("the purchase").0;
    on_b.close().await;

    a.open_pack(&player.key, 1).await.success();
    let mut on_a = a.open_channel(&player.key, Some(last)).await;
    let (position, event) = on_a.next_event().await;
    assert!(position > last);
    assert_eq!(event["kind"], "pack_opened");
    on_a.assert_quiet_for(std::time::Duration::from_millis(500))
        .await;
    on_a.close().await;
}
