//! `GET /api/poll/available` and `POST /api/poll/vote/{pollId}`: open polls, one vote per
//! account, windows, bad input, concurrency.

use futures_util::future::join_all;
use safezone_tests::{TestApp, each_combination};
use serde_json::json;
use time::Duration;

each_combination!(
    available_lists_open_polls_not_voted_in,
    a_vote_counts_once_per_account,
    vote_parameters_are_checked,
    votes_are_taken_only_while_the_poll_is_open,
    concurrent_double_votes_count_once,
    polls_need_a_key,
);

async fn available_lists_open_polls_not_voted_in(app: TestApp) {
    let now = app.now();
    let hour = Duration::hours(1);
    let first = app.open_poll().await;
    let second = app
        .create_poll(
            "Next map?",
            &[
                ("Desert", "#e0c080"),
                ("Jungle", "#20a040"),
                ("Snow", "#ffffff"),
            ],
            now - hour,
            now + hour,
        )
        .await;
    app.create_poll(
        "Later?",
        &[("A", "#000000"), ("B", "#111111")],
        now + hour,
        now + hour * 2,
    )
    .await;
    app.create_poll(
        "Over?",
        &[("A", "#000000"), ("B", "#111111")],
        now - hour * 2,
        now,
    )
    .await;
    let closed = app.open_poll().await;
    app.store
        .close_poll(closed.id, now, None)
        .await
        .expect("closed");
    let player = app.player().await;

    let body = app
        .get(&format!("/api/poll/available?userKey={}", player.key))
        .await
        .success()
        .clone();
    let polls = body["poll"].as_array().expect("`poll` is an array");
    let ids: Vec<i64> = polls
        .iter()
        .map(|poll| poll["id"].as_i64().unwrap_or(0))
        .collect();
    assert_eq!(ids, [first.id.0, second.id.0]);
    assert_eq!(
        polls[1]["options"],
        json!([
            {"id": second.options[0].id.0, "name": "Desert", "color_code": "#e0c080"},
            {"id": second.options[1].id.0, "name": "Jungle", "color_code": "#20a040"},
            {"id": second.options[2].id.0, "name": "Snow", "color_code": "#ffffff"},
        ])
    );
    assert_eq!(polls[1]["question"], "Next map?");
    assert_eq!(polls[1]["ends"]["timezone"], "UTC");

    app.post(&format!(
        "/api/poll/vote/{}?optionId={}&userKey={}",
        first.id.0, first.options[0].id.0, player.key
    ))
    .await
    .success();
    let body = app
        .get(&format!("/api/poll/available?userKey={}", player.key))
        .await
        .success()
        .clone();
    let ids: Vec<&serde_json::Value> = body["poll"]
        .as_array()
        .expect("array")
        .iter()
        .map(|p| &p["id"])
        .collect();
    assert_eq!(
        ids,
        [&json!(second.id.0)],
        "a poll voted in is no longer listed"
    );
}

async fn a_vote_counts_once_per_account(app: TestApp) {
    let poll = app.open_poll().await;
    let [ace, bee] = [app.player().await, app.player().await];
    let vote = |key: &str, option: i64| {
        format!(
            "/api/poll/vote/{}?optionId={option}&userKey={key}",
            poll.id.0
        )
    };
    let blue = poll.options[1].id.0;
    let answer = app.post(&vote(&ace.key, blue)).await;
    assert_eq!(answer.success(), &json!({"status": "success"}));
    let again = app.post(&vote(&ace.key, poll.options[0].id.0)).await;
    let message = again.error(409, "already_voted")["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap_or_default()
            .contains("already voted"),
        "{message}"
    );
    app.post(&vote(&bee.key, blue)).await.success();
    assert_eq!(app.votes(poll.id).await, [0, 2]);
}

async fn vote_parameters_are_checked(app: TestApp) {
    let poll = app.open_poll().await;
    let other = app.open_poll().await;
    let player = app.player().await;
    let key = &player.key;
    let id = poll.id.0;
    app.post(&format!("/api/poll/vote/{id}?userKey={key}"))
        .await
        .error_naming(400, "missing_parameter", "optionId");
    for bad in ["abc", "0", "-1", "1.5", "99999999999999999999"] {
        app.post(&format!("/api/poll/vote/{id}?optionId={bad}&userKey={key}"))
            .await
            .error_naming(400, "invalid_parameter", "optionId");
    }
    for bad in ["abc", "0", "-3"] {
        app.post(&format!("/api/poll/vote/{bad}?optionId=1&userKey={key}"))
            .await
            .error_naming(400, "invalid_parameter", "pollId");
    }
    app.post(&format!(
        "/api/poll/vote/{}?optionId=1&userKey={key}",
        other.id.0 + 100
    ))
    .await
    .error(404, "unknown_poll");
    let foreign = other.options[0].id.0;
    app.post(&format!(
        "/api/poll/vote/{id}?optionId={foreign}&userKey={key}"
    ))
    .await
    .error(404, "unknown_option");
    app.get(&format!(
        "/api/poll/vote/{id}?optionId={foreign}&userKey={key}"
    ))
    .await
    .error(405, "method_not_allowed");
    assert_eq!(app.votes(poll.id).await, [0, 0]);
    assert_eq!(app.votes(other.id).await, [0, 0]);
}

async fn votes_are_taken_only_while_the_poll_is_open(app: TestApp) {
    let now = app.now();
    let hour = Duration::hours(1);
    let options = [("Yes", "#00ff00"), ("No", "#ff0000")];
    let upcoming = app
        .create_poll("Soon?", &options, now + hour, now + hour * 2)
        .await;
    let closing = app
        .create_poll("Closing?", &options, now - hour, now + hour)
        .await;
    let player = app.player().await;
    let vote = |poll: &safezone_core::store::Poll| {
        format!(
            "/api/poll/vote/{}?optionId={}&userKey={}",
            poll.id.0, poll.options[0].id.0, player.key
        )
    };
    let refused = app.post(&vote(&upcoming)).await;
    let body = refused.error(409, "poll_not_open");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("opens at"),
        "{body}"
    );

    app.store
        .close_poll(closing.id, now, None)
        .await
        .expect("closed");
    let refused = app.post(&vote(&closing)).await;
    let body = refused.error(409, "poll_closed");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("closed by the operator"),
        "{body}"
    );

    app.clock.advance(hour * 2);
    let refused = app.post(&vote(&upcoming)).await;
    let body = refused.error(409, "poll_closed");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("ended"),
        "{body}"
    );
    assert_eq!(app.votes(upcoming.id).await, [0, 0]);

    app.clock.advance(-hour);
    app.post(&vote(&upcoming)).await.success();
}

async fn concurrent_double_votes_count_once(app: TestApp) {
    let poll = app.open_poll().await;
    let player = app.player().await;
    let votes = (0..12).map(|n| {
        let app = app.clone();
        let path = format!(
            "/api/poll/vote/{}?optionId={}&userKey={}",
            poll.id.0,
            poll.options[n % 2].id.0,
            player.key
        );
        async move { app.post(&path).await }
    });
    let answers = join_all(votes).await;
    let succeeded = answers.iter().filter(|answer| answer.status == 200).count();
    assert_eq!(succeeded, 1, "{answers:?}");
    for answer in answers.iter().filter(|answer| answer.status != 200) {
        answer.error(409, "already_voted");
    }
    assert_eq!(app.votes(poll.id).await.iter().sum::<i64>(), 1);
}

async fn polls_need_a_key(app: TestApp) {
    let poll = app.open_poll().await;
    app.get("/api/poll/available")
        .await
        .error(401, "missing_user_key");
    app.get(&format!("/api/poll/available?userKey={}", "0".repeat(48)))
        .await
        .error(401, "invalid_user_key");
    app.post(&format!(
        "/api/poll/vote/{}?optionId={}",
        poll.id.0, poll.options[0].id.0
    ))
    .await
    .error(401, "missing_user_key");
}
