//! The operator's admin commands, run as the binaries run them (on the test's store), and their
//! effect seen over HTTP: roles, bans, polls, tournaments and whitelists.

use safezone_core::cli::{AdminCommand, Failure, Outcome};
use safezone_tests::{TestApp, each_combination};
use time::Duration;
use time::format_description::well_known::Rfc3339;

each_combination!(
    make_admin_opens_the_whitelist_endpoints,
    ban_and_unban_change_what_an_account_may_do,
    poll_commands_create_close_and_count,
    tournament_and_whitelist_commands,
    bad_input_and_unknown_targets,
);

/// Parses `args` as the binary's command line (after the program name) and runs the admin
/// command on the test's store.
async fn admin(app: &TestApp, args: &[&str]) -> Outcome {
    let command = AdminCommand::from_args(args.iter().copied())
        .unwrap_or_else(|error| panic!("{args:?} parses: {error}"));
    command.execute(app.store.as_ref(), app.now()).await
}

fn rfc3339(app: &TestApp, offset: Duration) -> String {
    (app.now() + offset).format(&Rfc3339).expect("formats")
}

async fn make_admin_opens_the_whitelist_endpoints(app: TestApp) {
    app.create_tournament("cup", 10, true).await;
    let player = app.player().await;
    let code = player.friend_code.to_string();
    let path = format!("/api/tournament/cup/whitelist?userKey={}", player.key);
    app.get(&path).await.error(403, "admin_only");
    let line = admin(&app, &["make-admin", "--to", &code]).await;
    assert_eq!(line, Ok(format!("{code} is an admin now")));
    app.get(&path).await.success();
    let line = admin(&app, &["make-admin", "--to", &code, "--revoke"]).await;
    assert_eq!(line, Ok(format!("{code} is a player now")));
    app.get(&path).await.error(403, "admin_only");
}

async fn ban_and_unban_change_what_an_account_may_do(app: TestApp) {
    app.create_tournament("cup", 10, false).await;
    let player = app.player().await;
    let code = player.friend_code.to_string();
    let line = admin(&app, &["ban", "--to", &code]).await;
    assert_eq!(line, Ok(format!("{code} is banned now")));
    let user = app.get(&format!("/api/user/{}", player.key)).await;
    assert_eq!(user.success()["is_banned"], true);
    app.post(&format!("/api/tournament/cup/join?userKey={}", player.key))
        .await
        .error(403, "account_banned");
    let line = admin(&app, &["unban", "--to", &code.to_lowercase()]).await;
    assert_eq!(line, Ok(format!("{code} is not banned now")));
    app.post(&format!("/api/tournament/cup/join?userKey={}", player.key))
        .await
        .success();
}

async fn poll_commands_create_close_and_count(app: TestApp) {
    let ends = rfc3339(&app, Duration::hours(1));
    let created = admin(
        &app,
        &[
            "poll",
            "create",
            "--question",
            "Next map?",
            "--option",
            "Desert:#E0C080",
            "--option",
            "Jungle:#20a040",
            "--ends",
            &ends,
        ],
    )
    .await
    .expect("created");
    assert!(created.starts_with("created poll "), "{created}");
    let player = app.player().await;
    let available = app
        .get(&format!("/api/poll/available?userKey={}", player.key))
        .await;
    let poll = available.success()["poll"][0].clone();
    assert_eq!(poll["question"], "Next map?");
    assert_eq!(poll["options"][0]["color_code"], "#e0c080");
    let id = poll["id"].as_i64().expect("an id");
    let jungle = poll["options"][1]["id"].as_i64().expect("an id");
    assert!(created.contains(&format!("poll {id} ")), "{created}");
    app.post(&format!(
        "/api/poll/vote/{id}?optionId={jungle}&userKey={}",
        player.key
    ))
    .await
    .success();

    let id_text = id.to_string();
    let results = admin(&app, &["poll", "results", "--id", &id_text])
        .await
        .expect("results");
    assert!(
        results.contains("Desert 0, ") && results.contains("Jungle 1; 1 votes"),
        "{results}"
    );
    assert_eq!(
        admin(&app, &["poll", "close", "--id", &id_text]).await,
        Ok(format!("closed poll {id}"))
    );
    assert_eq!(
        admin(&app, &["poll", "close", "--id", &id_text]).await,
        Ok(format!("poll {id} was closed already"))
    );
    let other = app.player().await;
    app.post(&format!(
        "/api/poll/vote/{id}?optionId={jungle}&userKey={}",
        other.key
    ))
    .await
    .error(409, "poll_closed");
    let results = admin(&app, &["poll", "results", "--id", &id_text])
        .await
        .expect("results");
    assert!(results.contains("closed at"), "{results}");
}

async fn tournament_and_whitelist_commands(app: TestApp) {
    let opens = rfc3339(&app, -Duration::minutes(5));
    let closes = rfc3339(&app, Duration::hours(2));
    let created = admin(
        &app,
        &[
            "tournament",
            "create",
            "--code",
            "Winter-Cup",
            "--mode",
            "duo",
            "--opens",
            &opens,
            "--closes",
            &closes,
            "--capacity",
            "8",
            "--whitelist-only",
        ],
    )
    .await
    .expect("created");
    assert!(created.starts_with("created tournament winter-cup (duo, 8 places, whitelist only)"));
    let again = admin(
        &app,
        &[
            "tournament",
            "create",
            "--code",
            "winter-cup",
            "--mode",
            "solo",
            "--closes",
            &closes,
            "--capacity",
            "8",
        ],
    )
    .await;
    assert!(
        matches!(again, Err(Failure::Refused(ref why)) if why.contains("taken")),
        "{again:?}"
    );
    let body = app.get("/api/winter-cup/join").await.success().clone();
    assert_eq!(body["mode"], "duo");

    let [ace, bee] = [app.player().await, app.player().await];
    let (ace_code, bee_code) = (ace.friend_code.to_string(), bee.friend_code.to_string());
    let added = admin(
        &app,
        &[
            "whitelist",
            "add",
            "--code",
            "winter-cup",
            "--to",
            &ace_code,
            "--to",
            &bee_code,
        ],
    )
    .await;
    assert_eq!(
        added,
        Ok(format!(
            "tournament winter-cup whitelist (2): {ace_code}, {bee_code}"
        ))
    );
    let removed = admin(
        &app,
        &[
            "whitelist",
            "remove",
            "--code",
            "winter-cup",
            "--to",
            &bee_code,
            "--to",
            "Ghost#0001",
        ],
    )
    .await;
    assert!(
        matches!(removed, Err(Failure::Refused(ref why))
            if why.contains("Ghost#0001") && why.ends_with(&format!("(1): {ace_code}"))),
        "{removed:?}"
    );
    let shown = admin(&app, &["whitelist", "show", "--code", "winter-cup"]).await;
    assert_eq!(
        shown,
        Ok(format!("tournament winter-cup whitelist (1): {ace_code}"))
    );
    app.post(&format!(
        "/api/tournament/winter-cup/join?userKey={}",
        bee.key
    ))
    .await
    .error(403, "not_whitelisted");
    app.post(&format!(
        "/api/tournament/winter-cup/join?userKey={}",
        ace.key
    ))
    .await
    .success();

    assert_eq!(
        admin(&app, &["tournament", "close", "--code", "winter-cup"]).await,
        Ok("closed tournament winter-cup".to_owned())
    );
    app.get("/api/tournament/winter-cup/join")
        .await
        .error(409, "tournament_closed");
}

async fn bad_input_and_unknown_targets(app: TestApp) {
    let refused = |outcome: Outcome| matches!(outcome, Err(Failure::Refused(_)));
    let bad = |outcome: Outcome| matches!(outcome, Err(Failure::BadInput(_)));
    assert!(refused(
        admin(&app, &["make-admin", "--to", "Nobody#0001"]).await
    ));
    assert!(refused(admin(&app, &["ban", "--to", "Nobody#0001"]).await));
    assert!(refused(
        admin(&app, &["poll", "close", "--id", "999"]).await
    ));
    assert!(refused(
        admin(&app, &["poll", "results", "--id", "999"]).await
    ));
    assert!(refused(
        admin(&app, &["tournament", "close", "--code", "nope"]).await
    ));
    assert!(refused(
        admin(&app, &["whitelist", "show", "--code", "nope"]).await
    ));
    let past = rfc3339(&app, -Duration::hours(1));
    let future = rfc3339(&app, Duration::hours(1));
    let backwards = admin(
        &app,
        &[
            "poll",
            "create",
            "--question",
            "Q?",
            "--option",
            "A:#000000",
            "--option",
            "B:#ffffff",
            "--starts",
            &future,
            "--ends",
            &past,
        ],
    )
    .await;
    assert!(bad(backwards));
    let one_option = admin(
        &app,
        &[
            "poll",
            "create",
            "--question",
            "Q?",
            "--option",
            "A:#000000",
            "--ends",
            &future,
        ],
    )
    .await;
    assert!(bad(one_option));
    let backwards = admin(
        &app,
        &[
            "tournament",
            "create",
            "--code",
            "cup",
            "--mode",
            "solo",
            "--opens",
            &future,
            "--closes",
            &past,
            "--capacity",
            "2",
        ],
    )
    .await;
    assert!(bad(backwards));
    for args in [
        &["make-admin", "--to", "not-a-code"][..],
        &[
            "poll",
            "create",
            "--question",
            "Q?",
            "--option",
            "A:red",
            "--ends",
            &future,
        ],
        &[
            "poll",
            "create",
            "--question",
            "Q?",
            "--option",
            "A:#000000",
            "--ends",
            "tomorrow",
        ],
        &[
            "tournament",
            "create",
            "--code",
            "user",
            "--mode",
            "solo",
            "--closes",
            &future,
            "--capacity",
            "2",
        ],
        &[
            "tournament",
            "create",
            "--code",
            "cup",
            "--mode",
            "trio-2",
            "--closes",
            &future,
            "--capacity",
            "2",
        ],
        &[
            "tournament",
            "create",
            "--code",
            "cup",
            "--mode",
            "solo",
            "--closes",
            &future,
            "--capacity",
            "0",
        ],
    ] {
        let parsed = AdminCommand::from_args(args.iter().copied());
        let error = parsed
            .err()
            .unwrap_or_else(|| panic!("{args:?} must not parse"));
        assert_eq!(error.exit_code(), 2, "{args:?}");
    }
    // A mode's name the content does not name is refused when the command runs.
    let unknown_mode = [
        "tournament",
        "create",
        "--code",
        "cup",
        "--mode",
        "trio",
        "--closes",
        &future,
        "--capacity",
        "2",
    ];
    let refused = AdminCommand::from_args(unknown_mode)
        .expect("a mode's name parses")
        .execute(app.store.as_ref(), app.now())
        .await;
    assert_eq!(
        refused,
        Err(Failure::BadInput(
            "the mode `trio` must be one of solo, duo, squad, limited".to_owned()
        ))
    );
    assert!(
        app.store
            .tournament(&safezone_tests::community::code("cup"))
            .await
            .expect("read")
            .is_none()
    );
}
