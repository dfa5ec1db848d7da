//! `POST /internal/matches`: a game server's report of a finished match moves each player's
//! experience, level and level rewards, statistics, quests and reward tracks exactly once; a
//! repeated match id answers the first result; a bad report or a missing or wrong credential is
//! refused whole, writing nothing; banned, deleted and unknown players are skipped.

use reqwest::Method;
use safezone_core::content::{Content, RewardSpec};
use safezone_core::domain::GameMode;
use safezone_core::store::{AccountId, Currency};
use safezone_tests::community::Player;
use safezone_tests::economy::{gems, int};
use safezone_tests::progression::{
    IN_SEASON, Line, MATCH_SECS, Model, Report, Who, assert_player, reward_json, rfc3339,
    stock_track,
};
use safezone_tests::{GAME_SERVER_TOKEN, TestApp, each_combination};
use serde_json::{Value, json};
use time::Duration;

each_combination!(
    a_report_moves_every_kind_of_progress_once,
    the_account_shows_its_level_progress,
    a_tier_rewards_experience_levels_up_in_the_same_report,
    a_repeated_match_id_is_replayed_and_moves_nothing,
    bad_reports_are_refused_naming_the_field,
    wrongly_typed_fields_are_refused_naming_the_field,
    the_limits_themselves_are_accepted,
    reports_need_the_game_server_credential,
    unknown_players_are_skipped,
    a_player_may_be_named_by_user_key,
    banned_players_are_skipped,
    any_number_of_players_is_skipped_at_once,
);

/// The answer header that marks a replay.
const REPLAYED: &str = "idempotent-replayed";

/// `body` with the value at the JSON pointer `pointer` set to `value` (added when absent).
fn with(body: &Value, pointer: &str, value: Value) -> Value {
    let mut body = body.clone();
    let (parent, field) = pointer.rsplit_once('/').expect("a JSON pointer");
    match body.pointer_mut(parent) {
        Some(Value::Object(object)) => {
            object.insert(field.to_owned(), value);
        }
        Some(Value::Array(array)) => {
            array[field.parse::<usize>().expect("an index")] = value;
        }
        _ => panic!("no object or array at {parent}"),
    }
    body
}

/// `body` without the field at the JSON pointer `pointer`.
fn without(body: &Value, pointer: &str) -> Value {
    let mut body = body.clone();
    let (parent, field) = pointer.rsplit_once('/').expect("a JSON pointer");
    body.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .and_then(|object| object.remove(field))
        .unwrap_or_else(|| panic!("no field {pointer}"));
    body
}

/// The names of an answer's fields, sorted.
fn fields(body: &Value) -> Vec<String> {
    let mut names: Vec<String> = body
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

/// The clock at [`IN_SEASON`] and two new players.
async fn two_players(app: &TestApp) -> [Player; 2] {
    app.clock.set(IN_SEASON);
    [app.player().await, app.player().await]
}

/// One report moves the experience, level, level rewards, statistics (per mode), match log,
/// quests and track progress of every player exactly as the content file says, answers each
/// player's summary and rewards, and a second report adds to the first without granting
/// anything twice.
async fn a_report_moves_every_kind_of_progress_once(app: TestApp) {
    let [winner, other] = two_players(&app).await;
    let mut models = [Model::new(winner.id), Model::new(other.id)];
    let report = app.finished(
        "eu-1:42",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::new(winner.id, 1, 7, 1500)
                .stat("damage", 2600)
                .stat("chests", 4),
            Line::new(other.id, 14, 0, 95),
        ],
    );
    let body = app.report(&report).await;
    assert_eq!(fields(&body), ["matchId", "players", "skipped", "status"]);
    assert_eq!(body["skipped"], json!([]));
    let players = body["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    for ((model, line), answered) in models.iter_mut().zip(&report.lines).zip(players) {
        let expected = model.play(&report, line);
        assert_player(answered, &expected);
    }
    let content = Content::shipped();
    let experience = report.lines[0].experience(&content);
    assert_eq!(int(&players[0], "experience"), experience);
    assert!(
        int(&players[0], "levelAfter") > 1,
        "the winner levels up: {body}"
    );
    // Each level reached granted its rewards, once.
    for level in 2..=int(&players[0], "levelAfter") {
        for reward in content.progression.levels.rewards_for(level) {
            let reward = reward_json(&content, &reward);
            assert!(
                players[0]["rewards"]
                    .as_array()
                    .is_some_and(|rewards| rewards.contains(&reward)),
                "level {level}'s {reward} in {body}"
            );
        }
    }
    app.assert_model(&winner.key, &models[0]).await;
    app.assert_model(&other.key, &models[1]).await;

    // Statistics, per mode, in the hour the match ended.
    for (player, line) in [&winner, &other].into_iter().zip(&report.lines) {
        assert_eq!(
            app.stats_of(player.id, GameMode::parse("squad").expect("a mode"))
                .await,
            line.stored_stats()
        );
        for mode in [
            GameMode::parse("solo").expect("a mode"),
            GameMode::parse("duo").expect("a mode"),
            GameMode::parse("limited").expect("a mode"),
        ] {
            assert!(app.stats_of(player.id, mode).await.is_empty(), "{mode:?}");
        }
        let hour_after = report.ended + Duration::hours(1);
        let later = app
            .store
            .stat_totals(
                player.id,
                GameMode::parse("squad").expect("a mode"),
                hour_after,
            )
            .await
            .expect("the statistics read");
        assert!(later.is_empty(), "{later:?}");
    }
    assert_eq!(
        app.stats_of(winner.id, GameMode::parse("squad").expect("a mode"))
            .await["wins"],
        1,
        "placement 1 is a win"
    );
    let log = app.match_log().await;
    let logged: Vec<_> = log
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
                winner.id,
                GameMode::parse("squad").expect("a mode"),
                report.ended,
                1,
                7,
                1500
            ),
            (
                other.id,
                GameMode::parse("squad").expect("a mode"),
                report.ended,
                14,
                0,
                95
            ),
        ]
    );
    assert!(log.windows(2).all(|pair| pair[0].seq < pair[1].seq));

    // A second match, in another mode, adds to the first.
    let second = app.finished(
        "eu-1:43",
        GameMode::parse("solo").expect("a mode"),
        vec![
            Line::best(other.id).stat("damage", 12_000),
            Line::new(winner.id, 3, 2, 700),
        ],
    );
    let body = app.report(&second).await;
    let players = body["players"].as_array().expect("players");
    let expected = models[1].play(&second, &second.lines[0]);
    assert_player(&players[0], &expected);
    let expected = models[0].play(&second, &second.lines[1]);
    assert_player(&players[1], &expected);
    app.assert_model(&winner.key, &models[0]).await;
    app.assert_model(&other.key, &models[1]).await;
    assert_eq!(
        app.stats_of(winner.id, GameMode::parse("solo").expect("a mode"))
            .await,
        second.lines[1].stored_stats()
    );
    assert_eq!(
        app.stats_of(winner.id, GameMode::parse("squad").expect("a mode"))
            .await,
        report.lines[0].stored_stats()
    );
    assert_eq!(app.match_log().await.len(), 4);
}

/// `GET /api/user/{key}` shows the experience and level a report gave: the progress within the
/// level, what the next level needs, the rewards of the level reached, that the stored level
/// does not lag behind the experience (`isStale` false: a report's experience rewards level up
/// in the same report), and the next level's rewards.
async fn the_account_shows_its_level_progress(app: TestApp) {
    let [player, _] = two_players(&app).await;
    let content = Content::shipped();
    let curve = &content.progression.levels;
    let mut model = Model::new(player.id);

    let user = app.user(&player.key).await;
    assert_eq!((int(&user, "experience"), int(&user, "level")), (0, 1));
    assert_eq!(
        user["progression"],
        json!({
            "currentExperience": 0,
            "requiredExperience": curve.required_for_next(1).expect("a level 2"),
            "rewards": [],
            "isStale": false,
        })
    );
    let next: Vec<Value> = curve
        .rewards_for(2)
        .iter()
        .map(|reward| reward_json(&content, reward))
        .collect();
    assert_eq!(user["nextLevelRewards"], json!(next));

    for (index, line) in [Line::best(player.id), Line::new(player.id, 30, 1, 400)]
        .into_iter()
        .enumerate()
    {
        let report = app.finished(
            &format!("eu-2:{index}"),
            GameMode::parse("squad").expect("a mode"),
            vec![line],
        );
        let body = app.report(&report).await;
        let expected = model.play(&report, &report.lines[0]);
        assert_player(&body["players"][0], &expected);
        app.assert_model(&player.key, &model).await;

        let user = app.user(&player.key).await;
        let reached = curve.level_for(model.experience);
        let rewards: Vec<Value> = curve
            .rewards_for(reached)
            .iter()
            .map(|reward| {
                let mut reward = reward_json(&content, reward);
                reward["level"] = json!(reached);
                reward
            })
            .collect();
        assert_eq!(
            user["progression"],
            json!({
                "currentExperience": model.experience - curve.total_for(reached),
                "requiredExperience": curve.required_for_next(reached).unwrap_or(0),
                "rewards": rewards,
                "isStale": false,
            }),
            "after report {index}"
        );
        let next: Vec<Value> = curve
            .rewards_for(reached + 1)
            .iter()
            .map(|reward| reward_json(&content, reward))
            .collect();
        assert_eq!(user["nextLevelRewards"], json!(next));
        assert_eq!(int(&body["players"][0], "levelAfter"), int(&user, "level"));
        assert_eq!(model.level, reached);
    }
    // The second report started from the level the first one stored.
    assert!(model.level > 1);
}

/// A match whose free-track tier reward of experience takes the player over a level boundary
/// that the match's own experience does not reach: the same report answers the new level, the
/// account shows it (`isStale` false) and the level's rewards are granted by that report (its
/// coins in the ledger under the match, its claim recorded), not by the next match.
async fn a_tier_rewards_experience_levels_up_in_the_same_report(app: TestApp) {
    let [player, _] = two_players(&app).await;
    let content = Content::shipped();
    let curve = &content.progression.levels;
    let stock = stock_track(&content, IN_SEASON);
    let mut model = Model::new(player.id);
    // Two tiers bought ahead: the next tier (3, 500 experience) is one damage challenge away.
    app.grant_to(&player.key, gems(2 * stock.cost_gems_per_tier))
        .await;
    model.fund(0, 2 * stock.cost_gems_per_tier);
    app.skip_track(&player.key, stock.id, 2).await.success();
    model.skip(stock.id, 2);
    let tier_experience = experience_in(stock.tier_rewards(3));
    assert!(
        tier_experience > 0,
        "tier 3 of the free track gives experience"
    );

    let line = Line::new(player.id, 20, 4, 4200).stat("damage", 10_000);
    let report = app.finished(
        "eu-5:1",
        GameMode::parse("squad").expect("a mode"),
        vec![line],
    );
    let match_experience = report.lines[0].experience(&content);
    let own_level = curve.level_for(model.experience + match_experience);
    let body = app.report(&report).await;
    let expected = model.play(&report, &report.lines[0]);
    assert_player(&body["players"][0], &expected);
    assert_eq!(int(&expected["tracks"][0], "tierAfter"), 3, "{expected}");
    assert!(
        model.level > own_level,
        "the tier's experience reached level {} beyond the match's own {own_level}",
        model.level
    );
    assert_eq!(model.level, curve.level_for(model.experience));
    assert_eq!(int(&body["players"][0], "levelAfter"), model.level);
    app.assert_model(&player.key, &model).await;

    let user = app.user(&player.key).await;
    assert_eq!(int(&user, "level"), model.level);
    assert_eq!(user["progression"]["isStale"], false);
    // The match's own coins, then every level's, were credited by the report itself.
    let level_coins: Vec<i64> = std::iter::once(report.lines[0].coins(&content))
        .chain((2..=model.level).map(|level| coins_in(&curve.rewards_for(level))))
        .collect();
    let ledger = app.ledger_of(&player.key).await;
    let match_coins: Vec<i64> = ledger
        .iter()
        .filter(|entry| entry.reason == "match" && entry.reference == "eu-5:1")
        .filter(|entry| entry.currency == Currency::Coins)
        .map(|entry| entry.delta)
        .collect();
    assert_eq!(match_coins, level_coins);
    assert!(model.claims.contains(&format!("level/{}", model.level)));
}

/// The experience among `rewards`.
fn experience_in(rewards: &[RewardSpec]) -> i64 {
    rewards
        .iter()
        .map(|reward| match reward {
            RewardSpec::Experience(quantity) => *quantity,
            _ => 0,
        })
        .sum()
}

/// The coins among `rewards`.
fn coins_in(rewards: &[RewardSpec]) -> i64 {
    rewards
        .iter()
        .map(|reward| match reward {
            RewardSpec::Coins(quantity) => *quantity,
            _ => 0,
        })
        .sum()
}

/// A match id reported again (with the same or other lines, an hour or a month later)
/// answers the first result with `Idempotent-Replayed: true` and changes nothing.
async fn a_repeated_match_id_is_replayed_and_moves_nothing(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let report = app.finished(
        "eu-1:7",
        GameMode::parse("duo").expect("a mode"),
        vec![
            Line::best(a.id).stat("damage", 3000),
            Line::new(b.id, 2, 3, 900),
        ],
    );
    let first = app.send_report(&report.body()).await;
    first.success();
    assert!(first.header_values(REPLAYED).is_empty());
    let mut model = Model::new(a.id);
    assert_player(
        &first.json["players"][0],
        &model.play(&report, &report.lines[0]),
    );
    let before = [app.standing(&a.key).await, app.standing(&b.key).await];
    let log = app.match_log().await;

    let other_lines = Report {
        lines: vec![Line::new(b.id, 1, 40, 5000).stat("damage", 9000)],
        ..report.clone()
    };
    for body in [report.body(), report.body(), other_lines.body()] {
        let again = app.send_report(&body).await;
        again.success();
        assert_eq!(again.header_values(REPLAYED), ["true"]);
        assert_eq!(again.json, first.json);
    }
    // A retry long after the match (past the age a new report may have) still replays.
    for later in [Duration::hours(1), Duration::days(30)] {
        app.clock.advance(later);
        let again = app.send_report(&report.body()).await;
        assert_eq!(again.header_values(REPLAYED), ["true"]);
        assert_eq!(again.json, first.json);
        app.clock.advance(-later);
    }

    assert_eq!(
        [app.standing(&a.key).await, app.standing(&b.key).await],
        before
    );
    assert_eq!(app.match_log().await, log);
    app.assert_model(&a.key, &model).await;
}

/// Every kind of bad report is 400 `invalid_body` naming the field, and writes nothing: no
/// experience, statistics, quest or track progress, no match log entry, and the match id stays
/// free for a good report.
async fn bad_reports_are_refused_naming_the_field(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let report = app.finished(
        "eu-1:42",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::new(a.id, 1, 3, 600).stat("damage", 900),
            Line::new(b.id, 2, 0, 300),
        ],
    );
    let body = report.body();
    let (started, ended, now) = (report.started(), report.ended, app.now());
    let time = |at| json!(rfc3339(at));
    let hour = Duration::hours(1);
    let many: Vec<Value> = (1..=101)
        .map(|id| json!({"accountId": id, "placement": 1, "kills": 0, "timeAlive": 1}))
        .collect();
    let stats = |count: usize| -> Value {
        (0..count)
            .map(|index| (format!("counter_{index}"), json!(1)))
            .collect::<serde_json::Map<String, Value>>()
            .into()
    };
    let by_key = |mut line: Value, key: &str| {
        line.as_object_mut().map(|line| line.remove("accountId"));
        line["userKey"] = json!(key);
        line
    };
    let mut cases: Vec<(Value, String)> = vec![
        (with(&body, "/matchId", json!("")), "matchId".into()),
        (
            with(&body, "/matchId", json!("has space")),
            "matchId".into(),
        ),
        (
            with(&body, "/matchId", json!("m".repeat(65))),
            "matchId".into(),
        ),
        (with(&body, "/matchId", json!("eu/1")), "matchId".into()),
        (with(&body, "/mode", json!("trios")), "mode".into()),
        (with(&body, "/mode", json!("Squad")), "mode".into()),
        (with(&body, "/mode", json!("")), "mode".into()),
        (
            with(&body, "/startedAt", json!("yesterday")),
            "startedAt".into(),
        ),
        (
            with(&body, "/startedAt", json!("2026-11-22 06:00:00")),
            "startedAt".into(),
        ),
        (
            with(&body, "/endedAt", json!("2026-11-22")),
            "endedAt".into(),
        ),
        (with(&body, "/endedAt", time(started)), "endedAt".into()),
        (
            with(&body, "/endedAt", time(started - Duration::minutes(1))),
            "endedAt".into(),
        ),
        (
            with(
                &body,
                "/startedAt",
                time(ended - Duration::seconds(MATCH_SECS + 1)),
            ),
            "endedAt".into(),
        ),
        (
            with(
                &with(&body, "/startedAt", time(now - hour)),
                "/endedAt",
                time(now + Duration::minutes(5) + Duration::seconds(1)),
            ),
            "endedAt".into(),
        ),
        (
            with(
                &with(&body, "/startedAt", time(now - Duration::days(7) - hour)),
                "/endedAt",
                time(now - Duration::days(7) - Duration::seconds(1)),
            ),
            "endedAt".into(),
        ),
        (with(&body, "/players", json!([])), "players".into()),
        (with(&body, "/players", json!(many)), "players".into()),
        (without(&body, "/players/0/accountId"), "players[0]".into()),
        (
            with(&body, "/players/0/userKey", json!(a.key)),
            "players[0]".into(),
        ),
        (
            with(
                &body,
                "/players/1",
                by_key(body["players"][1].clone(), "short"),
            ),
            "players[1].userKey".into(),
        ),
        (
            with(
                &body,
                "/players/1",
                by_key(body["players"][1].clone(), &"AB".repeat(24)),
            ),
            "players[1].userKey".into(),
        ),
        (
            with(&body, "/players/1/accountId", json!(a.id.0)),
            "players[1]".into(),
        ),
        (
            with(
                &body,
                "/players/1",
                by_key(body["players"][1].clone(), &a.key),
            ),
            "players[1]".into(),
        ),
        (
            with(&body, "/players/0/stats", stats(33)),
            "players[0].stats".into(),
        ),
        (
            with(&body, "/players/0/stats/damage", json!(-1)),
            "players[0].stats.damage".into(),
        ),
        (
            with(&body, "/players/0/stats/damage", json!(1_000_000_001)),
            "players[0].stats.damage".into(),
        ),
        (without(&body, "/players/0/kills"), "kills".into()),
        (without(&body, "/players/1/placement"), "placement".into()),
        (without(&body, "/players/0/timeAlive"), "timeAlive".into()),
        (without(&body, "/matchId"), "matchId".into()),
        (without(&body, "/mode"), "mode".into()),
        (without(&body, "/startedAt"), "startedAt".into()),
        (without(&body, "/endedAt"), "endedAt".into()),
        (without(&body, "/players"), "players".into()),
        (
            with(&body, "/players/0/assists", json!(2)),
            "assists".into(),
        ),
        (with(&body, "/region", json!("eu")), "region".into()),
    ];
    for id in [0, -7] {
        cases.push((
            with(&body, "/players/0/accountId", json!(id)),
            "players[0].accountId".into(),
        ));
    }
    for (field, values) in [
        ("placement", [0, 101, -1]),
        ("kills", [-1, 100, 1000]),
        ("timeAlive", [-1, MATCH_SECS + 1, i64::MAX]),
    ] {
        for (index, value) in values.into_iter().enumerate() {
            cases.push((
                with(
                    &body,
                    &format!("/players/{}/{field}", index % 2),
                    json!(value),
                ),
                format!("players[{}].{field}", index % 2),
            ));
        }
    }
    let long_key = "a".repeat(65);
    for key in [
        "Damage",
        "dmg-total",
        "",
        long_key.as_str(),
        "kills",
        "rounds",
        "wins",
        "top10",
        "time_alive",
        "mode_wins_squad",
        "mode_",
    ] {
        cases.push((
            with(&body, &format!("/players/0/stats/{key}"), json!(1)),
            "players[0].stats".into(),
        ));
    }

    let before = [app.standing(&a.key).await, app.standing(&b.key).await];
    for (bad, field) in &cases {
        app.send_report(bad)
            .await
            .error_naming(400, "invalid_body", &format!("`{field}`"));
    }
    // The messages say what is wrong.
    let answer = app
        .send_report(&with(&body, "/players/0/kills", json!(-1)))
        .await;
    answer.error_naming(
        400,
        "invalid_body",
        "`players[0].kills` must be 0 to 99; it is -1",
    );
    let answer = app
        .send_report(&with(&body, "/endedAt", time(started)))
        .await;
    answer.error_naming(400, "invalid_body", "`endedAt` must be after `startedAt`");
    let answer = app
        .send_report(&with(&body, "/players/1/accountId", json!(a.id.0)))
        .await;
    answer.error_naming(400, "invalid_body", "`players[0]`");
    let credential = format!("Bearer {GAME_SERVER_TOKEN}");
    for raw in ["", "not json", "[]", "null", "{\"matchId\": "] {
        app.send(
            Method::POST,
            "/internal/matches",
            &[("authorization", credential.as_str())],
            Some(raw.as_bytes().to_vec()),
        )
        .await
        .error(400, "invalid_body");
    }

    assert_eq!(
        [app.standing(&a.key).await, app.standing(&b.key).await],
        before
    );
    assert!(app.match_log().await.is_empty());
    // The refused reports did not take the match id.
    let mut model = Model::new(a.id);
    let body = app.report(&report).await;
    assert_player(&body["players"][0], &model.play(&report, &report.lines[0]));
    app.assert_model(&a.key, &model).await;
}

/// A field of the wrong JSON type (text for a number, a fraction, a number beyond 64 bits, an
/// object for a list) is 400 `invalid_body` naming the field, and writes nothing.
async fn wrongly_typed_fields_are_refused_naming_the_field(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let report = app.finished(
        "eu-1:42",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::new(a.id, 1, 3, 600).stat("damage", 900),
            Line::new(b.id, 2, 0, 300),
        ],
    );
    let body = report.body();
    let huge: Value = serde_json::from_str("99999999999999999999").expect("a JSON number");
    let cases = [
        (with(&body, "/matchId", json!(42)), "matchId"),
        (with(&body, "/mode", json!(2)), "mode"),
        (with(&body, "/players/0/kills", json!("3")), "kills"),
        (with(&body, "/players/0/placement", json!(1.5)), "placement"),
        (with(&body, "/players/1/timeAlive", huge), "timeAlive"),
        (
            with(&body, "/players/0/accountId", json!("12")),
            "accountId",
        ),
        (with(&body, "/players/0/stats/damage", json!("x")), "damage"),
        (with(&body, "/players/0/stats", json!([1, 2])), "stats"),
        (with(&body, "/players", json!({"0": 1})), "players"),
    ];
    let before = [app.standing(&a.key).await, app.standing(&b.key).await];
    let mut unnamed = Vec::new();
    for (bad, field) in &cases {
        let answer = app.send_report(bad).await;
        let message = answer.error(400, "invalid_body")["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !message.contains(field) {
            unnamed.push(format!("{field}: {message}"));
        }
    }
    assert!(unnamed.is_empty(), "messages naming no field: {unnamed:#?}");
    assert_eq!(
        [app.standing(&a.key).await, app.standing(&b.key).await],
        before
    );
    assert!(app.match_log().await.is_empty());
}

/// The limits themselves are accepted: placement 100, 99 kills, alive for the whole match, a
/// match of exactly 6 hours, 32 named counters of 1 000 000 000, a match ending 5 minutes ahead
/// of the server clock, and one that ended exactly 7 days ago.
async fn the_limits_themselves_are_accepted(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let mut models = [Model::new(a.id), Model::new(b.id)];
    let mut line = Line::new(a.id, 100, 99, MATCH_SECS);
    for index in 0..31 {
        line = line.stat(&format!("counter_{index}"), 1_000_000_000);
    }
    line = line.stat("damage", 1_000_000_000);
    let now = app.now();
    let reports = [
        Report::new(
            "edge:ahead",
            GameMode::parse("limited").expect("a mode"),
            now + Duration::minutes(5),
            vec![line, Line::new(b.id, 1, 0, 0)],
        ),
        Report::new(
            "edge:old",
            GameMode::parse("solo").expect("a mode"),
            now - Duration::days(7),
            vec![Line::new(b.id, 1, 0, 1), Line::new(a.id, 2, 1, 2)],
        ),
    ];
    for report in &reports {
        let body = app.report(report).await;
        for (line, answered) in report
            .lines
            .iter()
            .zip(body["players"].as_array().expect("players"))
        {
            let model = models
                .iter_mut()
                .find(|model| line.who == Who::Account(model.account))
                .expect("a model");
            assert_player(answered, &model.play(report, line));
        }
    }
    app.assert_model(&a.key, &models[0]).await;
    app.assert_model(&b.key, &models[1]).await;
    assert_eq!(
        app.stats_of(a.id, GameMode::parse("limited").expect("a mode"))
            .await,
        reports[0].lines[0].stored_stats()
    );
    assert_eq!(
        app.stats_of(a.id, GameMode::parse("limited").expect("a mode"))
            .await["damage"],
        1_000_000_000
    );
    assert_eq!(
        app.stats_of(b.id, GameMode::parse("solo").expect("a mode"))
            .await,
        reports[1].lines[0].stored_stats()
    );
}

/// Without `Authorization: Bearer <credential>`, or with another credential (a user key among
/// them), a report is 401 and writes nothing, even when its body is bad as well.
async fn reports_need_the_game_server_credential(app: TestApp) {
    let [a, _] = two_players(&app).await;
    let report = app.finished(
        "eu-1:1",
        GameMode::parse("solo").expect("a mode"),
        vec![Line::best(a.id)],
    );
    let body = report.body().to_string().into_bytes();
    let before = app.standing(&a.key).await;
    let post = |headers: Vec<(&'static str, String)>, body: Vec<u8>| {
        let app = app.clone();
        async move {
            let headers: Vec<(&str, &str)> = headers
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            app.send(Method::POST, "/internal/matches", &headers, Some(body))
                .await
        }
    };
    for headers in [
        vec![],
        vec![("authorization", "Basic dGVzdDp0ZXN0".to_owned())],
        vec![("x-game-server-token", GAME_SERVER_TOKEN.to_owned())],
    ] {
        post(headers, body.clone())
            .await
            .error(401, "missing_server_credential");
    }
    for credential in [
        "Bearer wrong-credential".to_owned(),
        format!("Bearer {GAME_SERVER_TOKEN}x"),
        format!("Bearer {}", &GAME_SERVER_TOKEN[1..]),
        format!("Bearer {}", a.key),
    ] {
        post(vec![("authorization", credential)], body.clone())
            .await
            .error(401, "invalid_server_credential");
    }
    // The credential is checked before the body.
    post(vec![], b"not json".to_vec())
        .await
        .error(401, "missing_server_credential");
    post(
        vec![("authorization", "Bearer wrong".to_owned())],
        b"{}".to_vec(),
    )
    .await
    .error(401, "invalid_server_credential");
    let query = app
        .send(
            Method::POST,
            &format!("/internal/matches?token={GAME_SERVER_TOKEN}"),
            &[],
            Some(body.clone()),
        )
        .await;
    query.error(401, "missing_server_credential");

    assert_eq!(app.standing(&a.key).await, before);
    assert!(app.match_log().await.is_empty());
    let mut model = Model::new(a.id);
    let answered = app.report(&report).await;
    assert_player(
        &answered["players"][0],
        &model.play(&report, &report.lines[0]),
    );
}

/// Player lines naming no account are skipped, not refused: an id no account has (never
/// created, or deleted) is `account_unknown` with its `accountId`; a well-formed user key that
/// opens no account (never issued, or revoked) is `user_key_unknown` with its line's index as
/// `player`. They get nothing and are not logged; the known players get their match.
async fn unknown_players_are_skipped(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let revoked = app.player().await;
    let deleted = app.player().await;
    app.store
        .revoke_all_keys(revoked.id, None)
        .await
        .expect("keys revoked");
    assert!(
        app.store
            .delete_account(deleted.id, None)
            .await
            .expect("account deleted")
    );
    let before = app.standing(&b.key).await;
    let never_issued = "0123456789abcdef".repeat(3);
    let mut model = Model::new(a.id);
    let report = app.finished(
        "eu-1:9",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::by_key(&never_issued, 1, 0, 10),
            Line::new(AccountId(987_654_321), 2, 0, 10),
            Line::new(a.id, 3, 2, 600),
            Line::new(deleted.id, 4, 0, 10),
            Line::by_key(&revoked.key, 5, 0, 10),
        ],
    );
    let body = app.report(&report).await;
    assert_eq!(
        body["skipped"],
        json!([
            {"player": 0, "reason": "user_key_unknown"},
            {"accountId": 987_654_321, "reason": "account_unknown"},
            {"accountId": deleted.id.0, "reason": "account_unknown"},
            {"player": 4, "reason": "user_key_unknown"},
        ])
    );
    let players = body["players"].as_array().expect("players");
    assert_eq!(players.len(), 1, "{body}");
    assert_player(&players[0], &model.play(&report, &report.lines[2]));
    app.assert_model(&a.key, &model).await;
    assert_eq!(app.standing(&b.key).await, before);
    let log = app.match_log().await;
    assert_eq!(
        log.iter().map(|entry| entry.account).collect::<Vec<_>>(),
        [a.id]
    );
    // A replay answers the same skips.
    let again = app.send_report(&report.body()).await;
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again.json, body);
}

/// However many of a report's players are banned, deleted or unknown, the report is recorded
/// on its first sending with all of them in `skipped` (in report order) and the others get
/// their match: one planning read tells who exists and who is banned.
async fn any_number_of_players_is_skipped_at_once(app: TestApp) {
    app.clock.set(IN_SEASON);
    let playing = app.players(3).await;
    let banned = app.players(30).await;
    for player in &banned {
        app.set_banned(player, true).await;
    }
    let deleted = app.players(3).await;
    for player in &deleted {
        assert!(
            app.store
                .delete_account(player.id, None)
                .await
                .expect("account deleted")
        );
    }
    let unknown_key = "abcdef0123456789".repeat(3);
    let mut lines = Vec::new();
    let mut expected_skips = Vec::new();
    for (index, player) in banned.iter().enumerate() {
        // Every third banned player is named by key.
        lines.push(if index % 3 == 0 {
            Line::by_key(&player.key, 1, 0, 10)
        } else {
            Line::new(player.id, 1, 0, 10)
        });
        expected_skips.push(json!({"accountId": player.id.0, "reason": "account_banned"}));
    }
    for player in &deleted {
        lines.push(Line::new(player.id, 1, 0, 10));
        expected_skips.push(json!({"accountId": player.id.0, "reason": "account_unknown"}));
    }
    for unknown in [AccountId(987_654_321), AccountId(987_654_322)] {
        lines.push(Line::new(unknown, 1, 0, 10));
        expected_skips.push(json!({"accountId": unknown.0, "reason": "account_unknown"}));
    }
    expected_skips.push(json!({"player": lines.len(), "reason": "user_key_unknown"}));
    lines.push(Line::by_key(&unknown_key, 1, 0, 10));
    let first_playing = lines.len();
    for player in &playing {
        lines.push(Line::new(player.id, 2, 3, 900));
    }
    // Placements must be each player's own: number them in line order.
    for (placement, line) in (1..).zip(lines.iter_mut()) {
        line.placement = placement;
    }
    let report = app.finished("eu-9:1", GameMode::parse("solo").expect("a mode"), lines);
    let body = app.report(&report).await;
    assert_eq!(body["skipped"], json!(expected_skips));
    let answered = body["players"].as_array().expect("players");
    assert_eq!(answered.len(), playing.len(), "{body}");
    for ((player, line), answered) in playing
        .iter()
        .zip(&report.lines[first_playing..])
        .zip(answered)
    {
        let mut model = Model::new(player.id);
        assert_player(answered, &model.play(&report, line));
        app.assert_model(&player.key, &model).await;
    }
    let mut logged: Vec<AccountId> = app
        .match_log()
        .await
        .iter()
        .map(|entry| entry.account)
        .collect();
    logged.sort_by_key(|account| account.0);
    assert_eq!(
        logged,
        playing.iter().map(|player| player.id).collect::<Vec<_>>()
    );
    for player in &banned {
        assert!(app.match_log_of(player.id).await.is_empty());
    }
}

/// A player named by a user key instead of an account id gets the match like any other, and the
/// answer names the account.
async fn a_player_may_be_named_by_user_key(app: TestApp) {
    let [a, b] = two_players(&app).await;
    let mut models = [Model::new(a.id), Model::new(b.id)];
    let report = app.finished(
        "eu-3:1",
        GameMode::parse("duo").expect("a mode"),
        vec![
            Line::by_key(&a.key, 1, 12, 1800).stat("damage", 1600),
            Line::new(b.id, 2, 4, 1700),
        ],
    );
    let body = app.report(&report).await;
    assert_eq!(int(&body["players"][0], "accountId"), a.id.0);
    for ((model, line), answered) in models
        .iter_mut()
        .zip(&report.lines)
        .zip(body["players"].as_array().expect("players"))
    {
        assert_player(answered, &model.play(&report, line));
    }
    app.assert_model(&a.key, &models[0]).await;
    app.assert_model(&b.key, &models[1]).await;
    assert_eq!(
        app.stats_of(a.id, GameMode::parse("duo").expect("a mode"))
            .await,
        report.lines[0].stored_stats()
    );
    assert_eq!(app.match_log_of(a.id).await.len(), 1);
}

/// Banned players, named by id or by key, are listed in `skipped` with `account_banned` and get
/// nothing (no experience, statistics, progress or match log entry); the other players get their
/// match; a report of banned players only is recorded with nobody in it; a replay answers the
/// same skips even after an unban.
async fn banned_players_are_skipped(app: TestApp) {
    let [banned, player] = two_players(&app).await;
    let by_key = app.player().await;
    app.set_banned(&banned, true).await;
    app.set_banned(&by_key, true).await;
    let before = [
        app.standing(&banned.key).await,
        app.standing(&by_key.key).await,
    ];
    let mut model = Model::new(player.id);
    let report = app.finished(
        "eu-4:1",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::best(banned.id).stat("damage", 5000),
            Line::new(player.id, 2, 5, 2000).stat("damage", 5000),
            Line::by_key(&by_key.key, 3, 1, 100),
        ],
    );
    let first = app.send_report(&report.body()).await;
    let body = first.success().clone();
    let mut skipped: Vec<Value> = body["skipped"].as_array().cloned().expect("skipped");
    skipped.sort_by_key(|entry| int(entry, "accountId"));
    let mut expected = vec![
        json!({"accountId": banned.id.0, "reason": "account_banned"}),
        json!({"accountId": by_key.id.0, "reason": "account_banned"}),
    ];
    expected.sort_by_key(|entry| int(entry, "accountId"));
    assert_eq!(skipped, expected);
    let players = body["players"].as_array().expect("players");
    assert_eq!(players.len(), 1, "{body}");
    assert_player(&players[0], &model.play(&report, &report.lines[1]));
    app.assert_model(&player.key, &model).await;
    assert_eq!(
        [
            app.standing(&banned.key).await,
            app.standing(&by_key.key).await
        ],
        before
    );
    let log = app.match_log().await;
    assert_eq!(
        log.iter().map(|entry| entry.account).collect::<Vec<_>>(),
        [player.id]
    );

    // Unbanned, a replay still answers the first result and gives nothing.
    app.set_banned(&banned, false).await;
    let again = app.send_report(&report.body()).await;
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again.json, body);
    assert_eq!(app.standing(&banned.key).await, before[0]);

    // Banned players only: recorded, nobody moved.
    let lonely = app.finished(
        "eu-4:2",
        GameMode::parse("solo").expect("a mode"),
        vec![Line::best(by_key.id)],
    );
    let body = app.report(&lonely).await;
    assert_eq!(body["players"], json!([]));
    assert_eq!(
        body["skipped"],
        json!([{"accountId": by_key.id.0, "reason": "account_banned"}])
    );
    assert_eq!(app.standing(&by_key.key).await, before[1]);
    assert_eq!(app.match_log().await, log);
}
