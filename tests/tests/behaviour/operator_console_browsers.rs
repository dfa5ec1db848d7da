//! The console's browsers over HTTP without a browser: a live board of any mode, window and
//! category with a player's place and the rows around it (through the operator API's
//! leaderboard read, which the test also calls directly).

use safezone_core::domain::GameMode::Solo;
use safezone_tests::leaderboard::Played;
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination};
use serde_json::Value;

use super::operator_console::Console;

each_combination!(a_board_and_a_players_neighbours_are_shown);

async fn a_board_and_a_players_neighbours_are_shown(app: TestApp) {
    let console = Console::serve(&app).await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 12).await;
    let lines = players
        .iter()
        .zip(0_i64..)
        .map(|(player, at)| Line::new(player.id, at + 1, 12 - at, 600))
        .collect();
    app.report_now(&mut played, Solo, lines).await;
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
