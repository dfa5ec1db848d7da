//! `GET /api/quest/available` and quest progress: the fixed quests running now and the UTC
//! day's daily quests, listed as the content file says, with the caller's progress when a key
//! comes with the request; match reports move a quest up to its `required`, and completing it
//! grants its reward once.

use reqwest::Method;
use safezone_core::content::{Content, DAILY_QUEST_ID_BASE, MAX_FIXED_QUEST_ID, Quest};
use safezone_core::domain::GameMode;
use safezone_core::progression::STANDARD_STATS;
use safezone_tests::economy::int;
use safezone_tests::progression::{
    IN_SEASON, Line, Model, Report, api_date, assert_player, reward_json,
};
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

each_combination!(
    quests_are_listed_without_and_with_a_key,
    a_quest_moves_with_matches_and_completes_once,
    a_completed_quest_rewards_once_however_much_more_is_played,
    daily_quests_change_at_utc_midnight,
);

/// A quest as `GET /api/quest/available` lists it, with this `personal`.
fn quest_json(content: &Content, quest: &Quest, personal: Value) -> Value {
    json!({
        "id": quest.id.0,
        "name": quest.name,
        "stat_key": quest.stat_key,
        "required": quest.required,
        "reward": reward_json(content, &quest.reward),
        "created": api_date(quest.starts),
        "ends": api_date(quest.ends),
        "personal": personal,
    })
}

/// The ids of listed quests, in order.
fn ids(quests: &[Value]) -> Vec<i64> {
    quests.iter().map(|quest| int(quest, "id")).collect()
}

/// The ids of the content's quests running at `at`, in order.
fn active_ids(content: &Content, at: OffsetDateTime) -> Vec<i64> {
    content
        .quests
        .active(at)
        .iter()
        .map(|quest| quest.id.0)
        .collect()
}

/// Whether a stat key is a named counter of the game (not one Safezone counts itself).
fn is_named_counter(stat_key: &str) -> bool {
    !STANDARD_STATS.contains(&stat_key) && !stat_key.starts_with("mode_")
}

/// The quest step of `quest` in a player's entry of a report's answer, if the match moved it.
fn step(player: &Value, quest: i64) -> Option<Value> {
    player["quests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|step| step["id"] == quest)
        .cloned()
}

/// Without a key the running quests are listed with `personal: null`; with a key (query or
/// bearer) each has the caller's progress; a bad key is 401; fixed quests are listed from their
/// start (included) to their end (excluded).
async fn quests_are_listed_without_and_with_a_key(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let active = content.quests.active(IN_SEASON);
    assert!(
        active.iter().any(|quest| quest.id.0 <= MAX_FIXED_QUEST_ID)
            && active.iter().any(|quest| quest.id.0 > MAX_FIXED_QUEST_ID),
        "fixed and daily quests run in the season"
    );
    let anonymous: Vec<Value> = active
        .iter()
        .map(|quest| quest_json(&content, quest, Value::Null))
        .collect();
    assert_eq!(app.quests(None).await, anonymous);
    assert_eq!(
        app.quests(Some("")).await,
        anonymous,
        "an empty key is none"
    );

    let player = app.player().await;
    let personal: Vec<Value> = active
        .iter()
        .map(|quest| {
            let personal = json!({
                "id": quest.id.0,
                "user_id": player.id.0,
                "quest_id": quest.id.0,
                "value": 0,
                "is_completed": false,
            });
            quest_json(&content, quest, personal)
        })
        .collect();
    assert_eq!(app.quests(Some(&player.key)).await, personal);
    let bearer = format!("Bearer {}", player.key);
    let answer = app
        .send(
            Method::GET,
            "/api/quest/available",
            &[("authorization", bearer.as_str())],
            None,
        )
        .await;
    assert_eq!(answer.success()["quests"], json!(personal));
    for key in ["short", &"0".repeat(48)] {
        app.get(&format!("/api/quest/available?userKey={key}"))
            .await
            .error(401, "invalid_user_key");
    }

    // Fixed quests run from their start, included, to their end, excluded.
    for quest in &content.quests.fixed {
        for (at, listed) in [
            (quest.starts - Duration::seconds(1), false),
            (quest.starts, true),
            (quest.ends - Duration::seconds(1), true),
            (quest.ends, false),
        ] {
            app.clock.set(at);
            let listed_ids = ids(&app.quests(None).await);
            assert_eq!(listed_ids, active_ids(&content, at), "at {at}");
            assert_eq!(
                listed_ids.contains(&quest.id.0),
                listed,
                "quest {} at {at}",
                quest.id.0
            );
        }
    }
}

/// A quest counting a named counter of the game moves by each match's amount, is completed by
/// the match that reaches `required` (whose answer grants the reward), and stays at `required`
/// after that; the list shows the same progress.
async fn a_quest_moves_with_matches_and_completes_once(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let quest = content
        .quests
        .active(IN_SEASON)
        .into_iter()
        .find(|quest| is_named_counter(&quest.stat_key) && quest.required >= 3)
        .expect("a running quest counting a named counter");
    // Two fifths of the quest each match: completed by the third, over by the fourth.
    let gain = (quest.required * 2 + 4) / 5;
    let player = app.player().await;
    let mut model = Model::new(player.id);
    let mut completions = 0;
    for round in 1..=4 {
        let report = app.finished(
            &format!("quest:{round}"),
            GameMode::parse("squad").expect("a mode"),
            vec![Line::new(player.id, 20, 0, 60).stat(&quest.stat_key, gain)],
        );
        let body = app.report(&report).await;
        let answered = &body["players"][0];
        assert_player(answered, &model.play(&report, &report.lines[0]));
        let value = (gain * round).min(quest.required);
        let completed = value >= quest.required && gain * (round - 1) < quest.required;
        assert_eq!(
            step(answered, quest.id.0),
            Some(json!({
                "id": quest.id.0,
                "value": value,
                "required": quest.required,
                "completed": completed,
            })),
            "after match {round}"
        );
        let reward = reward_json(&content, &quest.reward);
        let granted = answered["rewards"]
            .as_array()
            .is_some_and(|rewards| rewards.contains(&reward));
        assert!(
            !completed || granted,
            "the completing match grants {reward}"
        );
        completions += i32::from(completed);

        let listed = app.quests(Some(&player.key)).await;
        let listed = listed
            .iter()
            .find(|listed| listed["id"] == quest.id.0)
            .expect("the quest is listed");
        assert_eq!(
            listed["personal"],
            json!({
                "id": quest.id.0,
                "user_id": player.id.0,
                "quest_id": quest.id.0,
                "value": value,
                "is_completed": value >= quest.required,
            })
        );
    }
    assert_eq!(completions, 1);
    app.assert_model(&player.key, &model).await;
}

/// A quest counting wins of one mode ignores wins in other modes, completes with the
/// `required`-th win in its mode, and grants its reward that once: later wins leave it at
/// `required` and grant nothing more for it.
async fn a_completed_quest_rewards_once_however_much_more_is_played(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let quest = content
        .quests
        .active(IN_SEASON)
        .into_iter()
        .find(|quest| quest.stat_key.starts_with("mode_wins_"))
        .expect("a running quest counting wins of a mode");
    let mode = GameMode::parse(&quest.stat_key["mode_wins_".len()..]).expect("a mode");
    let other_mode = safezone_tests::shipped_modes()
        .into_iter()
        .find(|other| *other != mode)
        .expect("another mode");
    let player = app.player().await;
    let mut model = Model::new(player.id);
    let mut play = |id: String, mode: GameMode| {
        let report = app.finished(&id, mode, vec![Line::new(player.id, 1, 0, 60)]);
        let expected = model.play(&report, &report.lines[0]);
        let app = app.clone();
        async move {
            let body = app.report(&report).await;
            assert_player(&body["players"][0], &expected);
            body["players"][0].clone()
        }
    };

    let answered = play("elsewhere:1".to_owned(), other_mode).await;
    assert_eq!(step(&answered, quest.id.0), None, "{answered}");
    let mut completions = 0;
    for win in 1..=quest.required + 2 {
        let answered = play(format!("win:{win}"), mode).await;
        let value = win.min(quest.required);
        let completed = win == quest.required;
        assert_eq!(
            step(&answered, quest.id.0),
            Some(json!({
                "id": quest.id.0,
                "value": value,
                "required": quest.required,
                "completed": completed,
            }))
        );
        completions += i32::from(completed);
    }
    assert_eq!(completions, 1);
    let answered = play("elsewhere:2".to_owned(), other_mode).await;
    assert_eq!(step(&answered, quest.id.0), None);
    app.assert_model(&player.key, &model).await;
    let claimed = app
        .store
        .claimed(player.id, &[format!("quest/{}", quest.id.0)])
        .await
        .expect("the claims read");
    assert_eq!(claimed.len(), 1);
}

/// The daily quests are the content's draw for the UTC day, created at midnight and ending at the
/// next; at midnight they change (new ids, no progress), the fixed quests stay; a match counts
/// for the quests of the day it ended, even when reported after midnight.
async fn daily_quests_change_at_utc_midnight(app: TestApp) {
    let content = Content::shipped();
    let daily = content
        .quests
        .daily
        .as_ref()
        .expect("the shipped content has daily quests");
    let evening = datetime!(2026-11-22 23:59:59 UTC);
    let midnight = datetime!(2026-11-23 00:00 UTC);
    app.clock.set(evening);
    let player = app.player().await;
    let mut model = Model::new(player.id);

    let days = [
        (evening, datetime!(2026-11-22 00:00 UTC)),
        (midnight, midnight),
    ];
    let mut lists = Vec::new();
    for (at, day_start) in days {
        app.clock.set(at);
        let listed = app.quests(None).await;
        assert_eq!(ids(&listed), active_ids(&content, at));
        let dailies: Vec<&Value> = listed
            .iter()
            .filter(|quest| int(quest, "id") > MAX_FIXED_QUEST_ID)
            .collect();
        assert_eq!(dailies.len(), daily.count);
        let day = day_start.unix_timestamp() / 86_400;
        for quest in &dailies {
            let id = int(quest, "id");
            assert_eq!(id / DAILY_QUEST_ID_BASE, day, "{quest}");
            assert!(
                daily
                    .templates
                    .iter()
                    .any(|template| template.id == id % DAILY_QUEST_ID_BASE),
                "{quest}"
            );
            assert_eq!(quest["created"], api_date(day_start));
            assert_eq!(quest["ends"], api_date(day_start + Duration::days(1)));
        }
        lists.push(listed);
    }
    let (today, tomorrow) = (&lists[0], &lists[1]);
    let fixed = |quests: &[Value]| -> Vec<i64> {
        ids(quests)
            .into_iter()
            .filter(|id| *id <= MAX_FIXED_QUEST_ID)
            .collect()
    };
    assert_eq!(fixed(today), fixed(tomorrow));
    assert!(
        ids(tomorrow)
            .iter()
            .filter(|id| **id > MAX_FIXED_QUEST_ID)
            .all(|id| !ids(today).contains(id))
    );

    // A match late in the evening that moves every daily template's stat.
    let mode = daily
        .templates
        .iter()
        .find_map(|template| {
            safezone_tests::shipped_modes().into_iter().find(|mode| {
                template.stat_key.starts_with("mode_")
                    && template.stat_key.ends_with(&format!("_{}", mode.as_str()))
            })
        })
        .unwrap_or(GameMode::parse("squad").expect("a mode"));
    let line = |placement| {
        daily
            .templates
            .iter()
            .filter(|template| is_named_counter(&template.stat_key))
            .fold(
                Line::new(player.id, placement, 9, 1200),
                |line, template| line.stat(&template.stat_key, 1),
            )
    };
    app.clock.set(evening);
    let reports = [
        Report::new(
            "night:1",
            mode,
            evening - Duration::minutes(1),
            vec![line(1)],
        ),
        Report::new(
            "night:2",
            mode,
            evening - Duration::seconds(30),
            vec![line(5)],
        ),
        Report::new("night:3", mode, midnight, vec![line(2)]),
    ];
    let body = app.report(&reports[0]).await;
    assert_player(
        &body["players"][0],
        &model.play(&reports[0], &reports[0].lines[0]),
    );
    let moved = ids(body["players"][0]["quests"].as_array().expect("quests"));
    assert!(
        ids(today)
            .iter()
            .filter(|id| **id > MAX_FIXED_QUEST_ID)
            .all(|id| moved.contains(id)),
        "every daily quest of the day moved: {moved:?}"
    );
    app.assert_model(&player.key, &model).await;

    // After midnight: the new daily quests start from nothing.
    app.clock.set(midnight);
    for quest in app.quests(Some(&player.key)).await {
        if int(&quest, "id") > MAX_FIXED_QUEST_ID {
            assert_eq!(quest["personal"]["value"], 0, "{quest}");
            assert_eq!(quest["personal"]["is_completed"], false, "{quest}");
        }
    }
    // Reported after midnight, a match that ended before it counts for the day it ended.
    app.clock.set(midnight + Duration::minutes(1));
    for report in &reports[1..] {
        let body = app.report(report).await;
        assert_player(&body["players"][0], &model.play(report, &report.lines[0]));
        let moved = ids(body["players"][0]["quests"].as_array().expect("quests"));
        let day_ids = active_ids(&content, report.ended);
        assert!(
            moved.iter().all(|id| day_ids.contains(id)),
            "{moved:?} are quests of {}",
            report.ended
        );
    }
    app.assert_model(&player.key, &model).await;
}
