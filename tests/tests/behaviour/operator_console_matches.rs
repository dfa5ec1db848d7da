//! The console's match browser over HTTP without a browser, through the operator API reads it
//! renders (which the tests also call directly): the recorded matches newest reported first, a
//! page at a time; one match with every player's result, each player linking to their page;
//! and one player's result removed from one match through the console's form: gone from the
//! store with the other players' results kept, off the public leaderboards (which count the
//! player's other results again), and audited once. A read-only token sees no removal form and
//! is refused by the API.

use safezone_core::store::{AuditEntry, AuditFilter, MatchId, MatchResults};
use safezone_tests::leaderboard::Played;
use safezone_tests::mode;
use safezone_tests::progression::{Line, Report};
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::Duration;

use super::operator_api::Operator;
use super::operator_console::Console;

each_combination!(
    matches_are_listed_opened_and_one_result_removed_through_the_console,
    a_read_only_token_sees_no_removal_form_and_is_refused,
);

/// The ids of a page of matches.
fn ids(page: &Value) -> Vec<String> {
    page["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|found| found["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// The match of `report` with its results, from the store.
async fn stored(app: &TestApp, report: &Report) -> MatchResults {
    let id = MatchId::parse(&report.id).expect("a match id");
    app.store
        .match_results(&id)
        .await
        .expect("the store answers")
        .expect("the match is recorded")
}

/// The audit rows of `remove-result`, newest first, from the store.
async fn removal_audit(app: &TestApp) -> Vec<AuditEntry> {
    app.store
        .audit(&AuditFilter {
            action: Some("remove-result".to_owned()),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads")
}

/// The console's path of the removal of the result of `account` in `report`.
fn removal(report: &Report, account: i64) -> String {
    format!("/matches/{}/players/{account}/remove-result", report.id)
}

async fn matches_are_listed_opened_and_one_result_removed_through_the_console(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 3).await;
    let (cheater, second, third) = (&players[0], &players[1], &players[2]);
    let first = app
        .report_now(
            &mut played,
            mode("solo"),
            vec![
                Line::new(second.id, 2, 5, 800),
                Line::new(cheater.id, 1, 20, 900),
                Line::new(third.id, 3, 1, 700),
            ],
        )
        .await;
    app.clock.advance(Duration::minutes(1));
    let later = app
        .report_now(
            &mut played,
            mode("solo"),
            vec![
                Line::new(cheater.id, 2, 3, 600),
                Line::new(second.id, 1, 4, 650),
            ],
        )
        .await;
    let caller = Some((second.key.as_str(), second.id));
    app.await_every_board(&played, caller).await;

    // The API: the newest reported first, a page at a time; one match, best placement first.
    let page = operator
        .get(&app, "/operator/api/matches?limit=1", &secret)
        .await;
    assert_eq!(ids(page.success()), [later.id.as_str()], "{}", page.text);
    assert_eq!(page.json["matches"][0]["players"], 2, "{}", page.text);
    assert_eq!(page.json["matches"][0]["mode"], "solo", "{}", page.text);
    let next = page.json["next"].as_str().expect("a next page");
    let page = operator
        .get(
            &app,
            &format!("/operator/api/matches?limit=1&after={next}"),
            &secret,
        )
        .await;
    assert_eq!(ids(page.success()), [first.id.as_str()], "{}", page.text);
    assert!(page.json["next"].is_null(), "{}", page.text);
    let shown = operator
        .get(
            &app,
            &format!("/operator/api/matches/{}", first.id),
            &secret,
        )
        .await;
    let results = shown.success()["results"].as_array().expect("results");
    let order: Vec<(i64, Value)> = results
        .iter()
        .map(|result| {
            (
                result["placement"].as_i64().expect("a placement"),
                result["friendCode"].clone(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            (1, json!(cheater.friend_code.to_string())),
            (2, json!(second.friend_code.to_string())),
            (3, json!(third.friend_code.to_string())),
        ]
    );
    assert_eq!(results[0]["accountId"], cheater.id.0);
    assert_eq!(results[0]["kills"], 20);
    assert_eq!(results[0]["timeAlive"], 900);
    assert_eq!(shown.json["match"]["players"], 3, "{}", shown.text);
    operator
        .get(&app, "/operator/api/matches/no-such-match", &secret)
        .await
        .error(404, "unknown_match");
    operator
        .get(&app, "/operator/api/matches/not%20an%20id", &secret)
        .await
        .error(400, "invalid_parameter");

    // The console: the list with its next page, the match with its players.
    let cookie = console.sign_in(&secret).await;
    let list = console.page("/matches", &cookie).await;
    for report in [&first, &later] {
        assert!(
            list.text.contains(&format!(
                "<a href=\"/operator/console/matches/{0}\">{0}</a>",
                report.id
            )),
            "{}",
            list.text
        );
    }
    let paged = console.page("/matches?limit=1", &cookie).await;
    assert!(paged.text.contains("id=\"next-page\""), "{}", paged.text);
    let menu = console.page("/", &cookie).await;
    assert!(
        menu.text
            .contains("<a href=\"/operator/console/matches\">Matches</a>"),
        "{}",
        menu.text
    );
    let page = console
        .page(&format!("/matches/{}", first.id), &cookie)
        .await;
    assert_eq!(
        page.text.matches("data-account-id=").count(),
        3,
        "{}",
        page.text
    );
    for player in &players {
        assert!(
            page.text.contains(&format!(
                "<a href=\"/operator/console/players?accountId={}\">{}</a>",
                player.id.0, player.friend_code
            )),
            "{}",
            page.text
        );
        assert!(
            page.text
                .contains(&format!("id=\"remove-result-{}\"", player.id.0)),
            "{}",
            page.text
        );
    }

    // One result removed through the console's form.
    let shown = console
        .submit(
            &cookie,
            &page,
            &removal(&first, cheater.id.0),
            &[("reason", "aimbot, report 12")],
        )
        .await;
    assert!(
        shown.text.contains(&format!(
            "Removal of a result: done (matchId: {}, removed: true).",
            first.id
        )),
        "{}",
        shown.text
    );
    assert_eq!(
        shown.text.matches("data-account-id=").count(),
        2,
        "{}",
        shown.text
    );

    // Gone from the store, the other players' results kept, and the cheater's other match too.
    let left: Vec<_> = stored(&app, &first)
        .await
        .results
        .iter()
        .map(|result| result.account)
        .collect();
    assert_eq!(left, [second.id, third.id]);
    let other: Vec<_> = stored(&app, &later)
        .await
        .results
        .iter()
        .map(|result| result.account)
        .collect();
    assert_eq!(other, [second.id, cheater.id]);
    // Off every public board: the cheater's other result still counts, the removed one not.
    played.forget_result(cheater.id, &first);
    app.assert_every_board(&played, caller).await;
    let board = operator
        .get(
            &app,
            &format!(
                "/operator/api/leaderboards?mode=solo&window=all&category=kills&friendCode={}",
                cheater.friend_code.to_string().replace('#', "%23")
            ),
            &secret,
        )
        .await;
    let own = board.success()["around"]
        .as_array()
        .expect("the cheater is ranked")
        .iter()
        .find(|row| row["friendCode"] == json!(cheater.friend_code.to_string()))
        .cloned()
        .expect("the cheater's row");
    assert_eq!(
        (own["rounds"].clone(), own["kills"].clone()),
        (json!(1), json!(3))
    );

    // One audit row, on the account.
    let rows = removal_audit(&app).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].entry.target, format!("account:{}", cheater.id.0));
    assert_eq!(rows[0].entry.reason, "aimbot, report 12");
    assert_eq!(rows[0].entry.result, "done");

    // Once more through the API: nothing to remove, still audited; no such match is a 404.
    let again = operator
        .post(
            &app,
            &format!("/operator/api{}", removal(&first, cheater.id.0)),
            &secret,
            json!({ "reason": "twice" }),
        )
        .await;
    assert_eq!(again.success()["removed"], false, "{}", again.text);
    operator
        .post(
            &app,
            &format!(
                "/operator/api/matches/lb:0/players/{}/remove-result",
                cheater.id.0
            ),
            &secret,
            json!({ "reason": "no such match" }),
        )
        .await
        .error(404, "unknown_match");
    let results: Vec<String> = removal_audit(&app)
        .await
        .into_iter()
        .map(|row| row.entry.result)
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(results[1], "done");
    assert!(results[0].starts_with("refused: "), "{results:?}");
    assert_eq!(stored(&app, &first).await.results.len(), 2);
}

async fn a_read_only_token_sees_no_removal_form_and_is_refused(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let console = Console::serve(&app).await;
    let secret = app.operator_token("reader", "read").await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let report = app
        .report_now(
            &mut played,
            mode("solo"),
            vec![
                Line::new(players[0].id, 1, 7, 900),
                Line::new(players[1].id, 2, 1, 500),
            ],
        )
        .await;
    let cookie = console.sign_in(&secret).await;
    let page = console
        .page(&format!("/matches/{}", report.id), &cookie)
        .await;
    assert_eq!(
        page.text.matches("data-account-id=").count(),
        2,
        "{}",
        page.text
    );
    assert!(!page.text.contains("remove-result"), "{}", page.text);
    assert!(page.text.contains("id=\"read-only-note\""), "{}", page.text);
    operator
        .post(
            &app,
            &format!("/operator/api{}", removal(&report, players[0].id.0)),
            &secret,
            json!({ "reason": "not mine to do" }),
        )
        .await
        .error(403, "operator_read_only");
    assert_eq!(stored(&app, &report).await.results.len(), 2);
}
