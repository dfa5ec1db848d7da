//! `GET /api/profile/{friendCode}?userKey=...`: an account's public fields (never its key,
//! email or provider identity) and its statistics per window and mode, live like the boards;
//! the friend code percent-encoded; unknown and deleted accounts 404, malformed codes 400, no
//! key 401.

use safezone_tests::leaderboard::{CATEGORIES, Played, WINDOWS, encoded, lines_summing, query};
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::Duration;

each_combination!(
    a_profile_shows_public_fields_only,
    profile_stats_follow_windows_and_modes,
    the_friend_code_arrives_percent_encoded,
    a_rename_shows_the_new_name_everywhere_at_once,
    unknown_friend_codes_are_404,
    malformed_friend_codes_are_400_naming_the_parameter,
    a_profile_needs_a_user_key,
    a_deleted_account_has_no_profile,
);

/// The public fields of a profile's `user`, sorted.
const PUBLIC_FIELDS: [&str; 9] = [
    "avatar",
    "clans",
    "created",
    "experience",
    "friend_code",
    "id",
    "level",
    "name",
    "status",
];

/// The names of an object's fields, sorted.
fn fields(body: &Value) -> Vec<String> {
    let mut names: Vec<String> = body
        .as_object()
        .unwrap_or_else(|| panic!("an object: {body}"))
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

/// The profile `{status, user, stats}`: the public fields of the ApiUser, never its key,
/// email, identifier or provider; stats for all 5 windows and 4 modes, zeros without games.
async fn a_profile_shows_public_fields_only(app: TestApp) {
    let mut played = Played::new();
    let shown = app.joined(&mut played).await;
    let viewer = app.joined(&mut played).await;
    app.post(&format!(
        "/api/clan/create?tag=Abc&name=Alpha&userKey={}",
        shown.key
    ))
    .await
    .success();
    let code = shown.friend_code.to_string();

    // Before any game: every statistic is zero.
    let answer = app.profile_answer(&code, &viewer.key).await;
    let body = answer.success().clone();
    assert_eq!(fields(&body), ["friend", "stats", "status", "user"]);
    assert_eq!(
        body["friend"], false,
        "the viewer and the player are not friends"
    );
    let zeros = json!({
        "rounds": 0, "wins": 0, "top10": 0, "winrate": 0.0, "kills": 0,
        "kills_per_round": 0.0, "time_alive": 0,
    });
    let body = app.profile(&code, &viewer.key).await;
    assert_eq!(fields(&body["stats"]), ["1m", "1y", "24h", "7d", "all"]);
    for window in WINDOWS {
        assert_eq!(
            fields(&body["stats"][window]),
            ["duo", "limited", "solo", "squad"]
        );
        for mode in ["solo", "duo", "squad", "limited"] {
            assert_eq!(body["stats"][window][mode], zeros, "{window} {mode}");
        }
    }

    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(shown.id, 1, 6, 1300)],
    )
    .await;
    let answer = app.profile_answer(&code, &viewer.key).await;
    let body = answer.success().clone();
    let user = &body["user"];
    assert_eq!(fields(user), PUBLIC_FIELDS);
    for private in ["key", "email", "identifier", "provider", "coins", "gems"] {
        assert!(user.get(private).is_none(), "`{private}` is shown: {user}");
    }
    assert!(
        !answer.text.contains(&shown.key),
        "the key shows somewhere: {}",
        answer.text
    );
    let own = app.user(&shown.key).await;
    assert!(
        own["experience"].as_i64() > Some(0),
        "the match gave experience"
    );
    for field in PUBLIC_FIELDS {
        assert_eq!(user[field], own[field], "`{field}` as the ApiUser has it");
    }
    assert_eq!(user["id"], shown.id.0);
    assert_eq!(user["friend_code"], code.as_str());
    assert_eq!(user["clans"].as_array().map(Vec::len), Some(1));
    let body = app.profile(&code, &viewer.key).await;
    assert_eq!(body["stats"], played.stats(shown.id, app.now()));
    assert_eq!(
        body["stats"]["24h"]["solo"],
        json!({
            "rounds": 1, "wins": 1, "top10": 1, "winrate": 1.0, "kills": 6,
            "kills_per_round": 6.0, "time_alive": 1300,
        })
    );
    assert_eq!(body["stats"]["all"]["squad"], zeros);

    // One's own profile too.
    let own_profile = app.profile(&code, &shown.key).await;
    assert_eq!(own_profile, body);
}

/// The stats follow each window and mode as results are reported and the clock moves on; ratios
/// are rounded to 4 decimals with no minimum of rounds.
async fn profile_stats_follow_windows_and_modes(app: TestApp) {
    let mut played = Played::new();
    let shown = app.joined(&mut played).await;
    let other = app.joined(&mut played).await;
    let start = app.now();
    for (mode, age, line) in [
        (
            mode("solo"),
            Duration::days(5),
            Line::new(shown.id, 1, 5, 1000),
        ),
        (
            mode("solo"),
            Duration::hours(2),
            Line::new(shown.id, 8, 2, 700),
        ),
        (
            mode("squad"),
            Duration::days(2),
            Line::new(shown.id, 20, 0, 90),
        ),
        (
            mode("duo"),
            Duration::minutes(1),
            Line::new(shown.id, 1, 1, 400),
        ),
        (
            mode("duo"),
            Duration::minutes(3),
            Line::new(shown.id, 4, 1, 300),
        ),
        (
            mode("duo"),
            Duration::days(6),
            Line::new(shown.id, 40, 0, 30),
        ),
    ] {
        app.report_at(
            &mut played,
            mode,
            start - age,
            vec![line, Line::new(other.id, 2, 3, 500)],
        )
        .await;
    }
    let code = shown.friend_code.to_string();
    let body = app.profile(&code, &other.key).await;
    assert_eq!(body["stats"], played.stats(shown.id, start));
    // Written out: duo over 7 days is 3 rounds, 1 win, 2 kills.
    assert_eq!(
        body["stats"]["7d"]["duo"],
        json!({
            "rounds": 3, "wins": 1, "top10": 2, "winrate": 0.3333, "kills": 2,
            "kills_per_round": 0.6667, "time_alive": 730,
        })
    );
    assert_eq!(body["stats"]["24h"]["duo"]["rounds"], 2);
    assert_eq!(body["stats"]["24h"]["solo"]["rounds"], 1);
    assert_eq!(body["stats"]["24h"]["squad"]["rounds"], 0);
    assert_eq!(body["stats"]["all"]["solo"]["winrate"], json!(0.5));
    assert_eq!(body["stats"]["all"]["limited"]["rounds"], 0);

    // Live: a new result shows on the next request.
    app.report_now(
        &mut played,
        mode("limited"),
        vec![Line::new(shown.id, 3, 4, 800)],
    )
    .await;
    let body = app.profile(&code, &other.key).await;
    assert_eq!(body["stats"]["24h"]["limited"]["kills"], 4);
    assert_eq!(body["stats"], played.stats(shown.id, app.now()));

    // As the clock moves on (a fresh viewer each time: keys expire after 30 days).
    for after in [
        Duration::hours(22),
        Duration::days(1) + Duration::hours(1),
        Duration::days(3),
        Duration::days(8),
        Duration::days(40),
        Duration::days(366),
    ] {
        app.clock.set(start + after);
        let viewer = app.player().await;
        let body = app.profile(&code, &viewer.key).await;
        assert_eq!(
            body["stats"],
            played.stats(shown.id, app.now()),
            "at start + {after}"
        );
    }
    let body = app.profile(&code, &app.player().await.key).await;
    assert_eq!(body["stats"]["1y"]["duo"]["rounds"], 0);
    assert_eq!(body["stats"]["all"]["duo"]["rounds"], 3);
    assert_eq!(body["stats"]["all"]["limited"]["rounds"], 1);

    // The profile agrees with the boards.
    let viewer = app.player().await;
    for window in WINDOWS {
        for category in CATEGORIES {
            app.assert_board(&played, mode("solo"), window, category, None)
                .await;
        }
    }
    let body = app.profile(&code, &viewer.key).await;
    assert_eq!(body["stats"], played.stats(shown.id, app.now()));
}

/// The `#` of the friend code arrives as `%23`; a leading-zero number is kept; after a rename
/// the new code answers and the old one is unknown.
async fn the_friend_code_arrives_percent_encoded(app: TestApp) {
    let mut played = Played::new();
    let viewer = app.joined(&mut played).await;
    let zero = app.player_with_code("Sneeza#0001").await;
    played.join(&zero);
    let lines = lines_summing(zero.id, 3, 1, 2, 7, 1500);
    for line in lines {
        app.report_now(&mut played, mode("squad"), vec![line]).await;
    }
    let path = format!("/api/profile/Sneeza%230001?userKey={}", viewer.key);
    let body = app.get(&path).await.success().clone();
    assert_eq!(body["user"]["friend_code"], "Sneeza#0001");
    assert_eq!(body["user"]["id"], zero.id.0);
    assert_eq!(body["stats"]["all"]["squad"]["rounds"], 3);
    assert_eq!(
        body["stats"]["all"]["squad"]["kills_per_round"],
        json!(2.3333)
    );
    assert_eq!(
        app.profile("Sneeza#0001", &viewer.key).await["stats"],
        played.stats(zero.id, app.now())
    );

    let renamed = app.rename_to(&zero.key, "Renamed").await;
    assert_eq!(renamed, "Renamed#0001");
    let body = app.profile(&renamed, &viewer.key).await;
    assert_eq!(body["user"]["friend_code"], "Renamed#0001");
    assert_eq!(body["user"]["id"], zero.id.0);
    assert_eq!(body["stats"], played.stats(zero.id, app.now()));
    app.get(&path).await.error(404, "profile_not_found");
}

/// A player's name is its friend code's name in every view: after a rename, the profile, the
/// clan lists (the player's own, another's invitation, the largest clans), the player's own
/// user and the leaderboard rows all show the new name on the next request.
async fn a_rename_shows_the_new_name_everywhere_at_once(app: TestApp) {
    let mut played = Played::new();
    let renamed = app.joined(&mut played).await;
    let invited = app.joined(&mut played).await;
    let clan = app
        .post(&format!(
            "/api/clan/create?tag=Nym&name=Names&userKey={}",
            renamed.key
        ))
        .await
        .success()["clan"]["id"]
        .clone();
    app.post(&format!(
        "/api/clan/{clan}/invite?userId={}&userKey={}",
        invited.id.0, renamed.key
    ))
    .await
    .success();
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(renamed.id, 1, 3, 600)],
    )
    .await;
    let old_name = renamed.friend_code.name().to_owned();
    assert_eq!(app.user(&renamed.key).await["name"], old_name.as_str());

    for name in ["Frosty", "Snowy2"] {
        let code = app.rename_to(&renamed.key, name).await;
        let profile = app.profile(&code, &invited.key).await;
        assert_eq!(profile["user"]["name"], name, "the profile");
        assert_eq!(
            profile["user"]["clans"][0]["members"][0]["name"], name,
            "the profile's clan"
        );
        assert_eq!(app.user(&renamed.key).await["name"], name, "the own user");
        let lists = [
            format!("/api/clan/available?userKey={}", renamed.key),
            format!("/api/clan/available?userKey={}", invited.key),
            "/api/clan/available".to_owned(),
        ];
        for list in lists {
            let body = app.get(&list).await.success().clone();
            let member = &body["clans"][0]["members"][0];
            assert_eq!(member["friend_code"], code.as_str(), "{list}");
            assert_eq!(member["name"], name, "{list}");
        }
        let board = app
            .board(&query(mode("solo"), "all", "wins", Some(&renamed.key)))
            .await;
        assert_eq!(board["players"][0]["name"], name, "the board");
        assert_eq!(board["user"]["name"], name, "the caller's row");
    }
}

/// A well-formed code that no account has is 404 with the JSON envelope.
async fn unknown_friend_codes_are_404(app: TestApp) {
    let viewer = app.player().await;
    let existing = viewer.friend_code.to_string();
    let (name, digits) = existing.rsplit_once('#').expect("Name#dddd");
    let other_digits = if digits == "9999" { "9998" } else { "9999" };
    for code in [
        "Nobody#0000".to_owned(),
        "Sneeza#0001".to_owned(),
        format!("{name}#{other_digits}"),
        format!("Zz{}#{digits}", &name[..name.len().min(14)]),
    ] {
        let answer = app.profile_answer(&code, &viewer.key).await;
        answer.error(404, "profile_not_found");
    }
    app.profile(&existing, &viewer.key).await;
}

/// A friend code that is not `Name#dddd` is 400 `invalid_parameter` naming `friendCode`.
async fn malformed_friend_codes_are_400_naming_the_parameter(app: TestApp) {
    let viewer = app.player().await;
    let seventeen = format!("{}%231234", "a".repeat(17));
    for segment in [
        "NoHash",
        "Sneeza0001",
        "ab%230001",
        "Sneeza%23001",
        "Sneeza%2300001",
        "Sneeza%23abcd",
        "Sne-eza%230001",
        "Sne%20eza%230001",
        "%230001",
        "Sneeza%23",
        seventeen.as_str(),
    ] {
        app.get(&format!("/api/profile/{segment}?userKey={}", viewer.key))
            .await
            .error_naming(400, "invalid_parameter", "`friendCode`");
    }
}

/// The key is required: none is 401 `missing_user_key`, a bad one 401 `invalid_user_key`.
async fn a_profile_needs_a_user_key(app: TestApp) {
    let player = app.player().await;
    let path = format!("/api/profile/{}", encoded(&player.friend_code.to_string()));
    app.get(&path).await.error(401, "missing_user_key");
    for key in ["short".to_owned(), "0".repeat(48)] {
        app.get(&format!("{path}?userKey={key}"))
            .await
            .error(401, "invalid_user_key");
    }
    let body = app
        .get(&format!("{path}?userKey={}", player.key))
        .await
        .success()
        .clone();
    assert_eq!(body["user"]["id"], player.id.0);
}

/// A deleted account's profile is 404 from the next request on.
async fn a_deleted_account_has_no_profile(app: TestApp) {
    let mut played = Played::new();
    let viewer = app.joined(&mut played).await;
    let (deleted, confirmation) = app.deletable_player().await;
    played.join(&deleted);
    app.report_now(
        &mut played,
        mode("duo"),
        vec![Line::new(deleted.id, 2, 3, 600)],
    )
    .await;
    let code = deleted.friend_code.to_string();
    let body = app.profile(&code, &viewer.key).await;
    assert_eq!(body["stats"]["all"]["duo"]["kills"], 3);
    app.delete_account(&deleted, &confirmation).await;
    app.profile_answer(&code, &viewer.key)
        .await
        .error(404, "profile_not_found");
    // Its key is gone with it.
    app.profile_answer(&viewer.friend_code.to_string(), &deleted.key)
        .await
        .error(401, "invalid_user_key");
}
