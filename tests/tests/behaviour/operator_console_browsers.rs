//! The console's browsers over HTTP without a browser, each through the operator API read it
//! renders (which the tests also call directly): a live board of any mode, window and category
//! with a player's place and the rows around it; players found by the start of a friend code
//! and listed a page at a time (newest, banned, by last sign-in); a player's ledger paged and
//! filtered; and the overview's charts of what the activity rollup counted.

use std::time::Duration;

use safezone_tests::leaderboard::Played;
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};

use super::operator_api::Operator;
use super::operator_console::Console;

each_combination!(
    a_board_and_a_players_neighbours_are_shown,
    players_are_found_and_listed_a_page_at_a_time,
    a_ledger_is_paged_and_filtered,
    the_overview_charts_what_the_rollup_counted,
);

/// The friend codes of a page of players.
fn codes(page: &Value) -> Vec<String> {
    page["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|player| player["friendCode"].as_str().expect("a code").to_owned())
        .collect()
}

/// Asks `path` of the API until `done` holds for its answer (the activity rollup counts each
/// second), at most ten seconds.
async fn until(
    operator: &Operator,
    app: &TestApp,
    path: &str,
    secret: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..100 {
        let answer = operator.get(app, path, secret).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        if done(&answer.json) {
            return answer.json;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{path} never answered as expected");
}

async fn players_are_found_and_listed_a_page_at_a_time(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 5).await;
    let code = players[2].friend_code.to_string();
    let prefix = code[..code.len() - 2].to_lowercase().replace('#', "%23");
    let found = operator
        .get(
            &app,
            &format!("/operator/api/players/list?search={prefix}"),
            &secret,
        )
        .await;
    assert_eq!(found.status, 200, "{}", found.text);
    assert!(codes(&found.json).contains(&code), "{}", found.text);
    // The newest first, two a page, every player once across the pages.
    let mut seen = Vec::new();
    let mut path = "/operator/api/players/list?list=newest&limit=2".to_owned();
    loop {
        let page = operator.get(&app, &path, &secret).await;
        assert_eq!(page.status, 200, "{}", page.text);
        seen.extend(codes(&page.json));
        match page.json["next"].as_str() {
            Some(next) => {
                path = format!("/operator/api/players/list?list=newest&limit=2&after={next}")
            }
            None => break,
        }
    }
    let mut expected: Vec<String> = players
        .iter()
        .rev()
        .map(|p| p.friend_code.to_string())
        .collect();
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);
    let banned = operator
        .post(
            &app,
            &format!("/operator/api/players/{}/ban", players[1].id.0),
            &secret,
            json!({ "banned": true, "reason": "cheating" }),
        )
        .await;
    assert_eq!(banned.status, 200, "{}", banned.text);
    let listed = operator
        .get(&app, "/operator/api/players/list?list=banned", &secret)
        .await;
    assert_eq!(codes(&listed.json), [players[1].friend_code.to_string()]);
    let signed_in = until(
        &operator,
        &app,
        "/operator/api/players/list?list=last_sign_in",
        &secret,
        |page| codes(page).len() == 5,
    )
    .await;
    assert!(
        signed_in["players"][0]["lastSignIn"].is_string(),
        "{signed_in}"
    );
    let wrong = operator
        .get(
            &app,
            "/operator/api/players/list?list=banned&after=s.1.2",
            &secret,
        )
        .await;
    assert_eq!(wrong.status, 400, "{}", wrong.text);
    // The console: a search, a list with its next page.
    let cookie = console.sign_in(&secret).await;
    let page = console
        .page(
            &format!("/players/list?list=friend_code&search={prefix}"),
            &cookie,
        )
        .await;
    assert!(page.text.contains(&format!(">{code}</a>")), "{}", page.text);
    let first = console
        .page("/players/list?list=newest&limit=2", &cookie)
        .await;
    assert!(first.text.contains("id=\"next-page\""), "{}", first.text);
    let home = console.page("/", &cookie).await;
    assert!(home.text.contains("id=\"search\""), "{}", home.text);
}

async fn a_ledger_is_paged_and_filtered(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let (_, player) = app.new_device().await;
    let id = player["user"]["id"].as_i64().expect("an id");
    for (coins, gems) in [(10, 0), (0, 3), (20, 0), (0, 4), (30, 0)] {
        let granted = operator
            .post(
                &app,
                &format!("/operator/api/players/{id}/grant"),
                &secret,
                json!({ "coins": coins, "gems": gems, "reason": "support ticket" }),
            )
            .await;
        assert_eq!(granted.status, 200, "{}", granted.text);
    }
    let base = format!("/operator/api/players/{id}/ledger");
    let gems = operator
        .get(&app, &format!("{base}?currency=gems"), &secret)
        .await;
    let deltas = |page: &Value| -> Vec<i64> {
        page["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|row| row["delta"].as_i64().expect("a delta"))
            .collect()
    };
    assert_eq!(deltas(&gems.json), [4, 3], "{}", gems.text);
    let first = operator
        .get(&app, &format!("{base}?currency=coins&limit=2"), &secret)
        .await;
    assert_eq!(deltas(&first.json), [30, 20], "{}", first.text);
    let next = first.json["next"].as_str().expect("a next page");
    let second = operator
        .get(
            &app,
            &format!("{base}?currency=coins&limit=2&after={next}"),
            &secret,
        )
        .await;
    assert_eq!(deltas(&second.json), [10], "{}", second.text);
    assert!(second.json["next"].is_null(), "{}", second.text);
    let none = operator
        .get(&app, &format!("{base}?reason=buy"), &secret)
        .await;
    assert_eq!(deltas(&none.json), Vec::<i64>::new(), "{}", none.text);
    let bad = operator
        .get(&app, &format!("{base}?currency=gold"), &secret)
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    assert!(bad.text.contains("currency"), "{}", bad.text);
    let cookie = console.sign_in(&secret).await;
    let page = console
        .page(
            &format!("/players/{id}/ledger?currency=gems&from=2000-01-01T00:00"),
            &cookie,
        )
        .await;
    assert!(page.text.contains("id=\"ledger\""), "{}", page.text);
    assert_eq!(
        page.text.matches("data-ledger-id=").count(),
        2,
        "{}",
        page.text
    );
    let player_page = console
        .page(&format!("/players?accountId={id}"), &cookie)
        .await;
    assert!(
        player_page.text.contains("id=\"whole-ledger\""),
        "{}",
        player_page.text
    );
}

async fn the_overview_charts_what_the_rollup_counted(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "read").await;
    for _ in 0..3 {
        app.new_device().await;
    }
    let counted = until(
        &operator,
        &app,
        "/operator/api/activity?metric=new_players&bucket=hour",
        &secret,
        |series| {
            series["totals"]
                .as_array()
                .is_some_and(|totals| totals.iter().filter_map(Value::as_i64).sum::<i64>() == 3)
        },
    )
    .await;
    assert_eq!(
        counted["starts"].as_array().map(Vec::len),
        Some(48),
        "{counted}"
    );
    let days = operator
        .get(
            &app,
            "/operator/api/activity?metric=sign_ins&bucket=day",
            &secret,
        )
        .await;
    assert_eq!(
        days.json["starts"].as_array().map(Vec::len),
        Some(60),
        "{}",
        days.text
    );
    let bad = operator
        .get(
            &app,
            "/operator/api/activity?metric=logins&bucket=hour",
            &secret,
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    let cookie = console.sign_in(&secret).await;
    let page = console.page("/overview", &cookie).await;
    assert!(
        page.text.contains("id=\"chart-new_players\""),
        "{}",
        page.text
    );
    assert!(
        page.text.contains("(3 in 48 hours, 3 in 60 days)"),
        "{}",
        page.text
    );
    assert_eq!(page.text.matches("<svg").count(), 18, "{}", page.text);
}

async fn a_board_and_a_players_neighbours_are_shown(app: TestApp) {
    let console = Console::serve(&app).await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 12).await;
    let lines = players
        .iter()
        .zip(0_i64..)
        .map(|(player, at)| Line::new(player.id, at + 1, 12 - at, 600))
        .collect();
    app.report_now(&mut played, mode("solo"), lines).await;
    let secret = app.operator_token("reader", "read").await;
    let middle = &players[6];
    let code = middle.friend_code.to_string();
    let url = format!(
        "{}/operator/api/leaderboards?mode=solo&window=all&category=kills&friendCode={}",
        console.origin(),
        code.replace('#', "%23")
    );
    let answer: Value = app
        .client
        .get(url)
        .bearer_auth(&secret)
        .send()
        .await
        .expect("the API answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(answer["status"], "success", "{answer}");
    let top = answer["top"].as_array().expect("the first rows");
    assert_eq!(top.len(), 12, "{answer}");
    assert_eq!(top[0]["friendCode"], players[0].friend_code.to_string());
    assert_eq!(top[0]["kills"], 12);
    let around = answer["around"].as_array().expect("the neighbours");
    let ranks: Vec<i64> = around
        .iter()
        .map(|row| row["rank"].as_i64().expect("a rank"))
        .collect();
    assert_eq!(ranks, (2..=12).collect::<Vec<_>>(), "{answer}");
    assert_eq!(around[5]["friendCode"], code);
    let cookie = console.sign_in(&secret).await;
    let path = format!(
        "/leaderboards?mode=solo&window=all&category=kills&friendCode={}",
        code.replace('#', "%23")
    );
    let page = console.page(&path, &cookie).await;
    assert!(page.text.contains("id=\"board-around\""), "{}", page.text);
    assert!(page.text.contains("class=\"own\""), "{}", page.text);
    assert!(page.text.contains(&format!(">{code}</a>")), "{}", page.text);
    let first = console.page("/leaderboards", &cookie).await;
    assert!(first.text.contains("id=\"board-top\""), "{}", first.text);
    assert!(
        !first.text.contains("id=\"board-around\""),
        "{}",
        first.text
    );
    let refused = console
        .get(
            "/leaderboards?mode=chess&window=all&category=kills",
            &[&cookie],
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("mode"), "{}", refused.text);
}
