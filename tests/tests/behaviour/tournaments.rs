//! The tournament join check (`GET /api/{code}/join`, `GET /api/tournament/{code}/join`) and
//! joining (`POST /api/tournament/{code}/join`): open, not yet open, ended, closed, full, not
//! whitelisted, once per account, and capacity under concurrency.

use futures_util::future::join_all;
use safezone_tests::community::code;
use safezone_tests::{TestApp, each_combination};
use time::Duration;

each_combination!(
    an_open_tournament_answers_success_with_its_mode,
    the_check_says_why_a_tournament_is_not_open,
    a_full_tournament_is_refused,
    joining_registers_once,
    only_whitelisted_players_join_a_whitelist_tournament,
    concurrent_joins_never_pass_capacity,
    joining_needs_a_key,
);

/// Both paths of the join check.
fn check_paths(code: &str) -> [String; 2] {
    [
        format!("/api/{code}/join"),
        format!("/api/tournament/{code}/join"),
    ]
}

fn message(answer: &safezone_tests::Answer) -> String {
    answer.json["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn an_open_tournament_answers_success_with_its_mode(app: TestApp) {
    app.create_tournament("Spring-Cup", 10, false).await;
    for path in check_paths("spring-cup")
        .into_iter()
        .chain(check_paths("SPRING-CUP"))
    {
        let answer = app.get(&path).await;
        let body = answer.success();
        assert_eq!(body["mode"], "squad", "{path}");
        assert_eq!(body["code"], "spring-cup");
        assert_eq!(body["joined"], false);
        assert_eq!(
            (body["capacity"].as_i64(), body["entrants"].as_i64()),
            (Some(10), Some(0))
        );
    }
    let player = app.player().await;
    for path in check_paths("spring-cup") {
        let body = app
            .get(&format!("{path}?userKey={}", player.key))
            .await
            .success()
            .clone();
        assert_eq!(body["joined"], false);
    }
}

async fn the_check_says_why_a_tournament_is_not_open(app: TestApp) {
    let now = app.now();
    let hour = Duration::hours(1);
    app.create_tournament_at("later", 10, false, now + hour, now + hour * 2)
        .await;
    app.create_tournament_at("over", 10, false, now - hour * 2, now - hour)
        .await;
    app.create_tournament("stopped", 10, false).await;
    app.store
        .close_tournament(&code("stopped"), now, None)
        .await
        .expect("closed");
    let player = app.player().await;
    for path in check_paths("nope") {
        let answer = app.get(&path).await;
        answer.error(404, "unknown_tournament");
        assert!(message(&answer).contains("nope"));
    }
    for (text, status, error, why) in [
        ("later", 409, "tournament_not_open", "opens at"),
        ("over", 409, "tournament_ended", "ended"),
        (
            "stopped",
            409,
            "tournament_closed",
            "closed by the operator",
        ),
    ] {
        for path in check_paths(text) {
            for query in [String::new(), format!("?userKey={}", player.key)] {
                let answer = app.get(&format!("{path}{query}")).await;
                answer.error(status, error);
                assert!(message(&answer).contains(why), "{}", answer.text);
            }
        }
        let join = app
            .post(&format!(
                "/api/tournament/{text}/join?userKey={}",
                player.key
            ))
            .await;
        join.error(status, error);
    }
    app.get("/api/tournament/bad%20code/join")
        .await
        .error_naming(400, "invalid_parameter", "tournamentCode");
    app.get(&format!("/api/tournament/{}/join", "x".repeat(33)))
        .await
        .error_naming(400, "invalid_parameter", "tournamentCode");

    app.clock.advance(hour);
    app.get("/api/later/join").await.success();
}

async fn a_full_tournament_is_refused(app: TestApp) {
    app.create_tournament("duel", 1, false).await;
    let [first, second] = [app.player().await, app.player().await];
    app.post(&format!("/api/tournament/duel/join?userKey={}", first.key))
        .await
        .success();
    for path in check_paths("duel") {
        let answer = app.get(&path).await;
        answer.error(409, "tournament_full");
        assert!(message(&answer).contains("full"));
        app.get(&format!("{path}?userKey={}", second.key))
            .await
            .error(409, "tournament_full");
        let mine = app.get(&format!("{path}?userKey={}", first.key)).await;
        assert_eq!(mine.success()["joined"], true, "an entrant sees its place");
    }
    app.post(&format!("/api/tournament/duel/join?userKey={}", second.key))
        .await
        .error(409, "tournament_full");
}

async fn joining_registers_once(app: TestApp) {
    app.create_tournament("weekly", 10, false).await;
    let player = app.player().await;
    let path = format!("/api/tournament/weekly/join?userKey={}", player.key);
    let joined = app.post(&path).await.success().clone();
    assert_eq!(joined["joined"], true);
    assert_eq!(joined["entrants"], 1);
    assert_eq!(joined["mode"], "squad");
    app.post(&path).await.error(409, "already_joined");
    let bearer = format!("Bearer {}", player.key);
    let again = app
        .send(
            reqwest::Method::POST,
            "/api/tournament/weekly/join",
            &[("authorization", &bearer)],
            None,
        )
        .await;
    again.error(409, "already_joined");
    for check in check_paths("weekly") {
        let body = app
            .get(&format!("{check}?userKey={}", player.key))
            .await
            .success()
            .clone();
        assert_eq!(body["joined"], true);
        assert_eq!(body["entrants"], 1);
    }
    let stored = app.store.tournament(&code("weekly")).await.expect("read");
    assert_eq!(stored.map(|t| t.entrants), Some(1));
}

async fn only_whitelisted_players_join_a_whitelist_tournament(app: TestApp) {
    app.create_tournament("invitational", 10, true).await;
    let [listed, other] = [app.player().await, app.player().await];
    app.whitelist("invitational", &[&listed]).await;
    app.get("/api/invitational/join").await.success();
    for path in check_paths("invitational") {
        let answer = app.get(&format!("{path}?userKey={}", other.key)).await;
        answer.error(403, "not_whitelisted");
        assert!(message(&answer).contains("whitelist"));
        app.get(&format!("{path}?userKey={}", listed.key))
            .await
            .success();
    }
    app.post(&format!(
        "/api/tournament/invitational/join?userKey={}",
        other.key
    ))
    .await
    .error(403, "not_whitelisted");
    app.post(&format!(
        "/api/tournament/invitational/join?userKey={}",
        listed.key
    ))
    .await
    .success();
}

async fn concurrent_joins_never_pass_capacity(app: TestApp) {
    app.create_tournament("rush", 10, false).await;
    let players = app.players(30).await;
    let joins = players.iter().map(|player| {
        let app = app.clone();
        let path = format!("/api/tournament/rush/join?userKey={}", player.key);
        async move { app.post(&path).await }
    });
    let answers = join_all(joins).await;
    let joined = answers.iter().filter(|answer| answer.status == 200).count();
    assert_eq!(joined, 10);
    for answer in answers.iter().filter(|answer| answer.status != 200) {
        answer.error(409, "tournament_full");
    }
    let stored = app.store.tournament(&code("rush")).await.expect("read");
    assert_eq!(stored.map(|t| t.entrants), Some(10));
}

async fn joining_needs_a_key(app: TestApp) {
    app.create_tournament("weekly", 10, false).await;
    app.post("/api/tournament/weekly/join")
        .await
        .error(401, "missing_user_key");
    app.get(&format!("/api/weekly/join?userKey={}", "0".repeat(48)))
        .await
        .error(401, "invalid_user_key");
    app.post("/api/weekly/join")
        .await
        .error(405, "method_not_allowed");
}
