//! Banned accounts: `is_banned` in the account, refused on buying, tournaments, votes and clans.

use safezone_tests::community::code;
use safezone_tests::{TestApp, each_combination};
use serde_json::json;

each_combination!(
    a_banned_account_is_refused_on_buy_and_tournament_join,
    a_banned_account_may_not_vote_or_use_clans,
);

async fn a_banned_account_is_refused_on_buy_and_tournament_join(app: TestApp) {
    app.create_tournament("cup", 10, false).await;
    let player = app.player().await;
    app.set_banned(&player, true).await;
    let user = app.get(&format!("/api/user/{}", player.key)).await;
    assert_eq!(user.success()["is_banned"], true);

    let buy = app
        .post(&format!(
            "/api/user/{}/buy?itemId=16&quantity=1",
            player.key
        ))
        .await;
    buy.error(403, "account_banned");
    app.post(&format!("/api/tournament/cup/join?userKey={}", player.key))
        .await
        .error(403, "account_banned");
    for path in ["/api/cup/join", "/api/tournament/cup/join"] {
        app.get(&format!("{path}?userKey={}", player.key))
            .await
            .error(403, "account_banned");
        app.get(path).await.success();
    }
    let stored = app.store.tournament(&code("cup")).await.expect("read");
    assert_eq!(stored.map(|t| t.entrants), Some(0));

    app.set_banned(&player, false).await;
    let user = app.get(&format!("/api/user/{}", player.key)).await;
    assert_eq!(user.success()["is_banned"], false);
    app.post(&format!("/api/tournament/cup/join?userKey={}", player.key))
        .await
        .success();
    app.post(&format!(
        "/api/user/{}/buy?itemId=16&quantity=1",
        player.key
    ))
    .await
    .error(402, "insufficient_funds");
}

async fn a_banned_account_may_not_vote_or_use_clans(app: TestApp) {
    let poll = app.open_poll().await;
    let [banned, leader] = [app.player().await, app.player().await];
    let clan = app
        .post(&format!(
            "/api/clan/create?tag=Abc&name=Alpha&userKey={}",
            leader.key
        ))
        .await
        .success()["clan"]["id"]
        .clone();
    app.post(&format!(
        "/api/clan/{clan}/invite?userId={}&userKey={}",
        banned.id.0, leader.key
    ))
    .await
    .success();
    app.set_banned(&banned, true).await;

    let available = app
        .get(&format!("/api/poll/available?userKey={}", banned.key))
        .await;
    assert_eq!(available.success()["poll"], json!([]));
    app.post(&format!(
        "/api/poll/vote/{}?optionId={}&userKey={}",
        poll.id.0, poll.options[0].id.0, banned.key
    ))
    .await
    .error(403, "account_banned");
    assert_eq!(app.votes(poll.id).await, [0, 0]);
    app.post(&format!(
        "/api/clan/create?tag=Xyz&name=Xyzzy&userKey={}",
        banned.key
    ))
    .await
    .error(403, "account_banned");
    app.post(&format!("/api/clan/{clan}/join?userKey={}", banned.key))
        .await
        .error(403, "account_banned");
}
