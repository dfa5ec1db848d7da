//! The operator API's polls, tournaments with their whitelists, and content: created, edited
//! and closed with what players see on the public API, content diffed, published (and served
//! at once), refused when bad, rolled back; a read-only token refused every write; every write
//! audited on its target.

use safezone_core::content::SHIPPED;
use safezone_core::store::{AuditEntry, AuditFilter};
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::Duration;
use time::format_description::well_known::Rfc3339;

use super::operator_api::{Operator, token};

each_combination!(
    polls_are_created_edited_counted_and_closed,
    tournaments_are_created_edited_whitelisted_and_closed,
    content_is_diffed_published_refused_and_rolled_back,
    a_read_only_token_is_refused_every_community_write,
);

/// `at` as RFC 3339.
fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&Rfc3339).expect("a time formats")
}

/// The audit rows on `target`, newest first, as `(action, reason, result)`.
async fn audit_on(app: &TestApp, target: &str) -> Vec<(String, String, String)> {
    let rows: Vec<AuditEntry> = app
        .store
        .audit(&AuditFilter {
            target: Some(target.to_owned()),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads");
    rows.into_iter()
        .map(|row| (row.entry.action, row.entry.reason, row.entry.result))
        .collect()
}

fn row(action: &str, reason: &str, result: &str) -> (String, String, String) {
    (action.to_owned(), reason.to_owned(), result.to_owned())
}

async fn polls_are_created_edited_counted_and_closed(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let now = app.now();
    let create = json!({
        "question": "Next map?",
        "options": [{"name": "Desert", "colour": "#E0C080"}, {"name": "Jungle", "colour": "#20a040"}],
        "closes": rfc3339(now + Duration::hours(1)),
        "reason": "weekly poll",
    });
    let answer = operator
        .post(&app, "/operator/api/polls", &secret, create)
        .await;
    let poll = answer.success()["poll"].clone();
    let id = poll["id"].as_i64().expect("an id");
    assert_eq!(poll["state"], "open");
    assert_eq!(poll["options"][0]["colour"], "#e0c080");
    let listed = operator.get(&app, "/operator/api/polls", &secret).await;
    assert_eq!(listed.success()["polls"][0]["id"], id);

    let path = format!("/operator/api/polls/{id}");
    let later = now + Duration::hours(3);
    let edit = json!({"question": "Which map next?", "closes": rfc3339(later), "reason": "typo"});
    let edited = operator.post(&app, &path, &secret, edit).await;
    assert_eq!(edited.success()["poll"]["question"], "Which map next?");
    assert_eq!(edited.success()["poll"]["closes"], rfc3339(later));
    let too_early = json!({"closes": rfc3339(now - Duration::hours(1)), "reason": "oops"});
    operator
        .post(&app, &path, &secret, too_early)
        .await
        .error_naming(400, "invalid_body", "closes");

    let jungle = poll["options"][1]["id"].as_i64().expect("an option id");
    for player in app.players(2).await {
        app.post(&format!(
            "/api/poll/vote/{id}?optionId={jungle}&userKey={}",
            player.key
        ))
        .await
        .success();
    }
    app.clock.advance(Duration::hours(2));
    let results = operator.get(&app, &path, &secret).await;
    assert_eq!(results.success()["poll"]["options"][1]["votes"], 2);
    assert_eq!(results.success()["poll"]["votes"], 2);

    let closed = operator
        .post(
            &app,
            &format!("{path}/close"),
            &secret,
            json!({"reason": "enough votes"}),
        )
        .await;
    assert_eq!(closed.success()["poll"]["state"], "closed");
    assert_eq!(closed.success()["closedNow"], true);
    let late = app.player().await;
    app.post(&format!(
        "/api/poll/vote/{id}?optionId={jungle}&userKey={}",
        late.key
    ))
    .await
    .error(409, "poll_closed");
    operator
        .post(
            &app,
            &path,
            &secret,
            json!({"question": "Again?", "reason": "r"}),
        )
        .await
        .error(409, "poll_closed");
    operator
        .get(&app, "/operator/api/polls/987654", &secret)
        .await
        .error(404, "unknown_poll");
    let one_option = json!({
        "question": "Q?", "options": [{"name": "A", "colour": "#000000"}],
        "closes": rfc3339(later), "reason": "r",
    });
    operator
        .post(&app, "/operator/api/polls", &secret, one_option)
        .await
        .error_naming(400, "invalid_body", "`options`");
    operator
        .post(&app, "/operator/api/polls", &secret, json!({"reason": "r"}))
        .await
        .error_naming(400, "invalid_body", "question");

    let over = format!("refused: poll {id} has ended or was closed: it no longer changes");
    let too_early = format!(
        "refused: request body field `closes` must be after {}",
        rfc3339(now)
    );
    assert_eq!(
        audit_on(&app, &format!("poll:{id}")).await,
        [
            row("poll-edit", "r", &over),
            row("poll-close", "enough votes", "done"),
            row("poll-edit", "oops", &too_early),
            row("poll-edit", "typo", "done"),
            row("poll-create", "weekly poll", "done"),
        ]
    );
}

async fn tournaments_are_created_edited_whitelisted_and_closed(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let now = app.now();
    let create = json!({
        "code": "Winter-Cup", "mode": "solo",
        "opens": rfc3339(now + Duration::hours(1)), "closes": rfc3339(now + Duration::days(2)),
        "capacity": 10, "whitelistOnly": true, "reason": "season event",
    });
    let created = operator
        .post(&app, "/operator/api/tournaments", &secret, create.clone())
        .await;
    assert_eq!(created.success()["tournament"]["code"], "winter-cup");
    assert_eq!(created.success()["tournament"]["state"], "upcoming");
    operator
        .post(&app, "/operator/api/tournaments", &secret, create.clone())
        .await
        .error(409, "tournament_code_taken");
    let mut empty = create;
    empty["code"] = json!("empty-cup");
    empty["capacity"] = json!(0);
    operator
        .post(&app, "/operator/api/tournaments", &secret, empty)
        .await
        .error_naming(400, "invalid_body", "`capacity`");
    let listed = operator
        .get(&app, "/operator/api/tournaments", &secret)
        .await;
    assert!(
        listed.success()["tournaments"]
            .as_array()
            .expect("a list")
            .iter()
            .any(|t| t["code"] == "winter-cup")
    );

    let path = "/operator/api/tournaments/winter-cup";
    let edit = json!({"mode": "duo", "capacity": 2, "reason": "duo event"});
    let edited = operator.post(&app, path, &secret, edit).await;
    assert_eq!(edited.success()["tournament"]["mode"], "duo");
    assert_eq!(edited.success()["tournament"]["capacity"], 2);

    let [ace, bee] = [app.player().await, app.player().await];
    let whitelist = json!({
        "add": [ace.friend_code.to_string(), bee.friend_code.to_string(), "Nobody#9999"],
        "reason": "invited players",
    });
    let answer = operator
        .post(&app, &format!("{path}/whitelist"), &secret, whitelist)
        .await;
    assert_eq!(
        answer.success()["whitelist"],
        json!([ace.friend_code.to_string(), bee.friend_code.to_string()])
    );
    assert_eq!(answer.success()["unknown"], json!(["Nobody#9999"]));
    let remove = json!({"remove": [bee.friend_code.to_string()], "reason": "withdrew"});
    let answer = operator
        .post(&app, &format!("{path}/whitelist"), &secret, remove)
        .await;
    assert_eq!(
        answer.success()["whitelist"],
        json!([ace.friend_code.to_string()])
    );

    app.clock.advance(Duration::hours(2));
    let join = |key: &str| format!("/api/tournament/winter-cup/join?userKey={key}");
    app.post(&join(&ace.key)).await.success();
    app.post(&join(&bee.key))
        .await
        .error(403, "not_whitelisted");
    let shown = operator.get(&app, path, &secret).await;
    let shown = shown.success();
    assert_eq!(shown["tournament"]["state"], "open");
    assert_eq!(shown["tournament"]["entrants"], 1);
    assert_eq!(shown["whitelist"], json!([ace.friend_code.to_string()]));
    assert_eq!(
        shown["entrants"][0]["friendCode"],
        ace.friend_code.to_string()
    );

    operator
        .post(&app, path, &secret, json!({"mode": "squad", "reason": "r"}))
        .await
        .error(409, "tournament_started");
    operator
        .post(&app, path, &secret, json!({"capacity": 0, "reason": "r"}))
        .await
        .error_naming(400, "invalid_body", "capacity");
    let longer = rfc3339(now + Duration::days(3));
    let answer = operator
        .post(
            &app,
            path,
            &secret,
            json!({"closes": longer, "reason": "more time"}),
        )
        .await;
    assert_eq!(answer.success()["tournament"]["closes"], longer);

    let closed = operator
        .post(
            &app,
            &format!("{path}/close"),
            &secret,
            json!({"reason": "cancelled"}),
        )
        .await;
    assert_eq!(closed.success()["tournament"]["state"], "closed");
    operator
        .post(&app, path, &secret, json!({"capacity": 5, "reason": "r"}))
        .await
        .error(409, "tournament_closed");
    operator
        .get(&app, "/operator/api/tournaments/no-such-cup", &secret)
        .await
        .error(404, "unknown_tournament");

    let actions: Vec<(String, String)> = audit_on(&app, "tournament:winter-cup")
        .await
        .into_iter()
        .rev()
        .map(|(action, _, result)| (action, result.split(':').next().unwrap_or("").to_owned()))
        .collect();
    let expected = [
        ("tournament-create", "done"),
        ("tournament-create", "refused"),
        ("tournament-edit", "done"),
        ("whitelist", "done"),
        ("whitelist", "done"),
        ("tournament-edit", "refused"),
        ("tournament-edit", "refused"),
        ("tournament-edit", "done"),
        ("tournament-close", "done"),
        ("tournament-edit", "refused"),
    ]
    .map(|(action, result)| (action.to_owned(), result.to_owned()));
    assert_eq!(actions, expected);
}

/// The content file with `maintenance` set to a string: refused at its line.
pub(super) fn bad_content() -> (String, usize) {
    let line = SHIPPED
        .lines()
        .position(|line| line.starts_with("maintenance = "))
        .expect("the shipped file sets maintenance")
        + 1;
    let text = SHIPPED.replacen("maintenance = false", "maintenance = \"maybe\"", 1);
    (text, line)
}

async fn content_is_diffed_published_refused_and_rolled_back(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let status = operator.get(&app, "/operator/api/content", &secret).await;
    assert_eq!(status.success()["running"], 0);
    assert_eq!(status.success()["versions"], json!([]));

    let on = shipped_with_maintenance(true);
    let diff = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": on}),
        )
        .await;
    let diff = diff.success();
    assert_eq!(diff["valid"], true);
    assert_eq!(diff["errors"], json!([]));
    let text = diff["diff"].as_str().expect("a diff");
    assert!(text.contains("-maintenance = false"), "{text}");
    assert!(text.contains("+maintenance = true"), "{text}");
    let same = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": SHIPPED}),
        )
        .await;
    assert_eq!(same.success()["diff"], Value::Null);
    let larger_than_a_public_body = format!("{on}\n# {}\n", "x".repeat(100 * 1024));
    let padded = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": larger_than_a_public_body}),
        )
        .await;
    assert_eq!(padded.success()["valid"], true);

    let (bad, line) = bad_content();
    let checked = operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": bad}),
        )
        .await;
    assert_eq!(checked.success()["valid"], false);
    assert_eq!(checked.success()["errors"][0]["line"], line);
    let refused = operator
        .post(
            &app,
            "/operator/api/content/publish",
            &secret,
            json!({"text": bad, "reason": "bad file"}),
        )
        .await;
    let body = refused.error(400, "invalid_content");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("line {line}")), "{message}");
    assert_eq!(app.store.content_head().await.expect("the head reads"), 0);

    let published = operator
        .post(
            &app,
            "/operator/api/content/publish",
            &secret,
            json!({"text": on, "reason": "maintenance window"}),
        )
        .await;
    assert_eq!(published.success()["version"], 1);
    assert_eq!(published.success()["running"], 1);
    let config = app.get("/api/config").await;
    assert_eq!(config.success()["config"]["maintenance"], true);
    let off = shipped_with_maintenance(false);
    operator
        .post(
            &app,
            "/operator/api/content/publish",
            &secret,
            json!({"text": off, "reason": "maintenance over"}),
        )
        .await
        .success();
    app.await_maintenance(false).await;

    let rolled = operator
        .post(
            &app,
            "/operator/api/content/rollback",
            &secret,
            json!({"reason": "back to maintenance"}),
        )
        .await;
    assert_eq!(rolled.success()["version"], 3);
    assert_eq!(rolled.success()["from"], 1);
    let config = app.get("/api/config").await;
    assert_eq!(config.success()["config"]["maintenance"], true);
    let status = operator.get(&app, "/operator/api/content", &secret).await;
    assert_eq!(status.success()["running"], 3);
    let versions: Vec<&Value> = status.success()["versions"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|version| &version["version"])
        .collect();
    assert_eq!(versions, [&json!(3), &json!(2), &json!(1)]);

    assert_eq!(
        audit_on(&app, "content:1").await,
        [row("content-publish", "maintenance window", "done")]
    );
    assert_eq!(
        audit_on(&app, "content:3").await,
        [row("content-rollback", "back to maintenance", "done")]
    );
    let refused = audit_on(&app, "content").await;
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0]
            .2
            .starts_with("refused: field `text` does not pass"),
        "{refused:?}"
    );
}

async fn a_read_only_token_is_refused_every_community_write(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "bob", "read").await;
    let poll = app.open_poll().await;
    app.create_tournament("spring", 10, false).await;
    let player = app.player().await;
    let closes = rfc3339(app.now() + Duration::hours(1));
    let writes = [
        (
            "/operator/api/polls".to_owned(),
            json!({"question": "Q?", "options": [], "closes": closes, "reason": "r"}),
            "poll-create",
        ),
        (
            format!("/operator/api/polls/{}", poll.id.0),
            json!({"question": "Q?", "reason": "r"}),
            "poll-edit",
        ),
        (
            format!("/operator/api/polls/{}/close", poll.id.0),
            json!({"reason": "r"}),
            "poll-close",
        ),
        (
            "/operator/api/tournaments".to_owned(),
            json!({"code": "x", "mode": "solo", "closes": closes, "capacity": 1, "reason": "r"}),
            "tournament-create",
        ),
        (
            "/operator/api/tournaments/spring".to_owned(),
            json!({"capacity": 5, "reason": "r"}),
            "tournament-edit",
        ),
        (
            "/operator/api/tournaments/spring/close".to_owned(),
            json!({"reason": "r"}),
            "tournament-close",
        ),
        (
            "/operator/api/tournaments/spring/whitelist".to_owned(),
            json!({"add": [player.friend_code.to_string()], "reason": "r"}),
            "whitelist",
        ),
        (
            "/operator/api/content/publish".to_owned(),
            json!({"text": SHIPPED, "reason": "r"}),
            "content-publish",
        ),
        (
            "/operator/api/content/rollback".to_owned(),
            json!({"reason": "r"}),
            "content-rollback",
        ),
    ];
    for (path, body, _) in &writes {
        operator
            .post(&app, path, &secret, body.clone())
            .await
            .error(403, "operator_read_only");
    }
    let results = app
        .store
        .poll_results(poll.id)
        .await
        .expect("the poll reads")
        .expect("the poll exists");
    assert_eq!(results.poll, poll, "the poll is unchanged");
    let spring = app
        .store
        .tournament(&safezone_tests::community::code("spring"))
        .await
        .expect("the tournament reads")
        .expect("the tournament exists");
    assert_eq!((spring.capacity, spring.window.closed_at), (10, None));
    assert_eq!(app.store.content_head().await.expect("the head reads"), 0);
    operator
        .get(&app, "/operator/api/polls", &secret)
        .await
        .success();
    operator
        .get(&app, "/operator/api/tournaments/spring", &secret)
        .await
        .success();
    operator
        .post(
            &app,
            "/operator/api/content/diff",
            &secret,
            json!({"text": SHIPPED}),
        )
        .await
        .success();

    let audit: Vec<AuditEntry> = app
        .store
        .audit(&AuditFilter {
            token_name: Some("bob".to_owned()),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads");
    let actions: Vec<&str> = audit
        .iter()
        .rev()
        .map(|row| row.entry.action.as_str())
        .collect();
    let expected: Vec<&str> = writes.iter().map(|(_, _, action)| *action).collect();
    assert_eq!(actions, expected);
    assert!(audit.iter().all(|row| {
        row.entry.reason == "r"
            && row.entry.result
                == "refused: the operator token bob is read-only; a change needs a full token"
    }));
}
