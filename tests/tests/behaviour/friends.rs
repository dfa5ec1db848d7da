//! Friends over HTTP: requests by friend code, accepting, declining, cancelling, removing,
//! blocking and unblocking; the lists with level, clan and presence; profiles' `friend`; every
//! refusal with its status and code; the races (requests meeting, a request against a deletion
//! of either account, a request against a block), checked in the database; the rate limit.

use std::sync::Arc;

use futures_util::future::{join as together, join_all};
use safezone_core::Settings;
use safezone_core::domain::ApiDate;
use safezone_core::http::{EndpointGroup, Rate, RateLimits, Scope};
use safezone_core::presence::PresenceWriter;
use safezone_core::store::AccountId;
use safezone_tests::community::Player;
use safezone_tests::leaderboard::{encoded, within};
use safezone_tests::realtime::MESSAGE_WAIT;
use safezone_tests::{Answer, TestApp, each_combination, test_settings};
use serde_json::{Value, json};
use time::Duration;

each_combination!(
    a_request_accepted_makes_friends_listed_with_level_clan_and_presence,
    requests_that_meet_make_friends_at_once,
    declining_and_cancelling_take_the_request_away,
    every_refusal_has_its_status_and_code,
    a_block_ends_friendship_and_refuses_requests_invites_and_presence,
    presence_shows_friends_online_and_when_last_seen,
    deleting_an_account_takes_its_friendships_away,
    requests_meeting_make_one_friendship,
    a_request_racing_a_deletion_or_a_block_leaves_nothing_behind,
    a_realtime_channel_shows_the_player_online_to_friends,
    friend_events_reach_both_players_channels_and_their_resumed_streams,
);

each_combination!(
    settings = limited_settings;
    friend_changes_are_rate_limited_like_other_writes,
);

/// How many times each race is run.
const TRIES: usize = 8;

/// Three writes per account a minute.
fn limited_settings() -> Settings {
    let three = Rate::per_minute(3.try_into().expect("not zero"));
    let mut rate_limits = RateLimits::default();
    rate_limits.set(EndpointGroup::Write, Scope::Account, Some(three));
    let mut settings = test_settings();
    settings.rate_limits = rate_limits;
    settings
}

/// `POST /api/friends/{other's code}/{action}` by `player`.
async fn act(app: &TestApp, player: &Player, action: &str, other: &Player) -> Answer {
    act_on(app, player, action, &other.friend_code.to_string()).await
}

/// `POST /api/friends/{code}/{action}` by `player`, the code percent-encoded.
async fn act_on(app: &TestApp, player: &Player, action: &str, code: &str) -> Answer {
    app.post(&format!(
        "/api/friends/{}/{action}?userKey={}",
        encoded(code),
        player.key
    ))
    .await
}

/// `GET /api/friends` of `player`.
async fn lists(app: &TestApp, player: &Player) -> Value {
    app.get(&format!("/api/friends?userKey={}", player.key))
        .await
        .success()
        .clone()
}

/// The ids on one of `player`'s lists.
async fn ids(app: &TestApp, player: &Player, list: &str) -> Vec<i64> {
    lists(app, player).await[list]
        .as_array()
        .unwrap_or_else(|| panic!("a list `{list}`"))
        .iter()
        .map(|entry| entry["id"].as_i64().expect("an id"))
        .collect()
}

/// The ids on each list of an account, read from the database.
async fn stored(app: &TestApp, account: AccountId) -> [Vec<AccountId>; 4] {
    let lists = app.store.friend_lists(account).await.expect("the lists");
    let ids = |listed: &[safezone_core::store::Listed]| {
        listed
            .iter()
            .map(|listed| listed.player.account)
            .collect::<Vec<_>>()
    };
    [
        ids(&lists.friends),
        ids(&lists.incoming),
        ids(&lists.outgoing),
        ids(&lists.blocked),
    ]
}

fn date(at: time::OffsetDateTime) -> Value {
    serde_json::to_value(ApiDate(at)).expect("a date")
}

/// Makes `one` and `other` friends.
async fn befriend(app: &TestApp, one: &Player, other: &Player) {
    act(app, one, "request", other).await.success();
    let accepted = act(app, other, "accept", one).await;
    assert_eq!(accepted.success()["friendship"], "friends");
}

async fn a_request_accepted_makes_friends_listed_with_level_clan_and_presence(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    let requested = act(&app, &ace, "request", &bee).await;
    assert_eq!(requested.success()["friendship"], "requested");
    let sent = app.now();
    let ace_lists = lists(&app, &ace).await;
    assert_eq!(
        ace_lists,
        json!({
            "status": "success",
            "friends": [],
            "incoming": [],
            "outgoing": [{
                "id": bee.id.0,
                "friend_code": bee.friend_code.to_string(),
                "name": bee.friend_code.name(),
                "avatar": null,
                "level": 1,
                "clan": null,
                "since": date(sent),
            }],
            "blocked": [],
        })
    );
    assert_eq!(ids(&app, &bee, "incoming").await, [ace.id.0]);

    app.post(&format!(
        "/api/clan/create?tag=Bzz&name=Hive&userKey={}",
        bee.key
    ))
    .await
    .success();
    app.clock.advance(Duration::minutes(5));
    let accepted = act(&app, &bee, "accept", &ace).await;
    assert_eq!(accepted.success()["friendship"], "friends");
    let friends = lists(&app, &ace).await["friends"].clone();
    let clan = &friends[0]["clan"];
    assert_eq!(clan["tag"], "Bzz");
    assert_eq!(clan["name"], "Hive");
    assert!(clan["id"].as_i64().is_some());
    assert_eq!(
        friends,
        json!([{
            "id": bee.id.0,
            "friend_code": bee.friend_code.to_string(),
            "name": bee.friend_code.name(),
            "avatar": null,
            "level": 1,
            "clan": clan.clone(),
            "online": false,
            "last_seen": null,
            "since": date(app.now()),
        }])
    );
    assert_eq!(ids(&app, &bee, "friends").await, [ace.id.0]);
    assert_eq!(lists(&app, &ace).await["outgoing"], json!([]));
    assert_eq!(lists(&app, &bee).await["incoming"], json!([]));

    let profile = app
        .profile_answer(&bee.friend_code.to_string(), &ace.key)
        .await;
    assert_eq!(profile.success()["friend"], true);
    let own = app
        .profile_answer(&ace.friend_code.to_string(), &ace.key)
        .await;
    assert_eq!(own.success()["friend"], false);

    act(&app, &ace, "remove", &bee).await.success();
    assert_eq!(ids(&app, &bee, "friends").await, Vec::<i64>::new());
    let profile = app
        .profile_answer(&bee.friend_code.to_string(), &ace.key)
        .await;
    assert_eq!(profile.success()["friend"], false);
}

async fn requests_that_meet_make_friends_at_once(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    let first = act(&app, &ace, "request", &bee).await;
    assert_eq!(first.success()["friendship"], "requested");
    let second = act(&app, &bee, "request", &ace).await;
    assert_eq!(second.success()["friendship"], "friends");
    assert_eq!(
        stored(&app, ace.id).await,
        [vec![bee.id], vec![], vec![], vec![]]
    );
    assert_eq!(
        stored(&app, bee.id).await,
        [vec![ace.id], vec![], vec![], vec![]]
    );
}

async fn declining_and_cancelling_take_the_request_away(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    act(&app, &ace, "request", &bee).await.success();
    let declined = act(&app, &bee, "decline", &ace).await;
    assert_eq!(declined.success(), &json!({"status": "success"}));
    assert_eq!(stored(&app, ace.id).await, [vec![], vec![], vec![], vec![]]);
    assert_eq!(stored(&app, bee.id).await, [vec![], vec![], vec![], vec![]]);

    act(&app, &ace, "request", &bee).await.success();
    act(&app, &ace, "cancel", &bee).await.success();
    assert_eq!(stored(&app, bee.id).await, [vec![], vec![], vec![], vec![]]);
    act(&app, &bee, "accept", &ace)
        .await
        .error(404, "no_friend_request");
}

async fn every_refusal_has_its_status_and_code(app: TestApp) {
    let [ace, bee, cat] = [app.player().await, app.player().await, app.player().await];
    for action in [
        "request", "accept", "decline", "cancel", "remove", "block", "unblock",
    ] {
        act_on(&app, &ace, action, "not-a-code").await.error_naming(
            400,
            "invalid_parameter",
            "friendCode",
        );
        act(&app, &ace, action, &ace)
            .await
            .error_naming(400, "invalid_parameter", "friendCode");
        act_on(&app, &ace, action, "Nobodyhere#0001")
            .await
            .error(404, "unknown_user");
        app.post(&format!(
            "/api/friends/{}/{action}",
            encoded(&bee.friend_code.to_string())
        ))
        .await
        .error(401, "missing_user_key");
        app.post(&format!(
            "/api/friends/{}/{action}?userKey=nonsense",
            encoded(&bee.friend_code.to_string())
        ))
        .await
        .error(401, "invalid_user_key");
    }
    app.get("/api/friends").await.error(401, "missing_user_key");

    for action in ["accept", "decline", "cancel"] {
        act(&app, &ace, action, &bee)
            .await
            .error(404, "no_friend_request");
    }
    act(&app, &ace, "remove", &bee)
        .await
        .error(404, "not_friends");
    act(&app, &ace, "unblock", &bee)
        .await
        .error(404, "not_blocked");

    act(&app, &ace, "request", &bee).await.success();
    act(&app, &ace, "request", &bee)
        .await
        .error(409, "already_requested");
    act(&app, &bee, "accept", &ace).await.success();
    act(&app, &ace, "request", &bee)
        .await
        .error(409, "already_friends");
    act(&app, &bee, "request", &ace)
        .await
        .error(409, "already_friends");

    act(&app, &ace, "block", &cat).await.success();
    act(&app, &ace, "block", &cat)
        .await
        .error(409, "already_blocked");
    act(&app, &cat, "request", &ace).await.error(403, "blocked");
    act(&app, &ace, "request", &cat)
        .await
        .error(409, "player_blocked");

    let dog = app.player().await;
    app.set_banned(&dog, true).await;
    act(&app, &dog, "request", &bee)
        .await
        .error(403, "account_banned");
    act(&app, &bee, "request", &dog).await.success();
    act(&app, &dog, "accept", &bee)
        .await
        .error(403, "account_banned");
    act(&app, &dog, "decline", &bee).await.success();

    assert_eq!(
        stored(&app, ace.id).await,
        [vec![bee.id], vec![], vec![], vec![cat.id]]
    );
    assert_eq!(stored(&app, cat.id).await, [vec![], vec![], vec![], vec![]]);
    assert_eq!(stored(&app, dog.id).await, [vec![], vec![], vec![], vec![]]);
}

async fn a_block_ends_friendship_and_refuses_requests_invites_and_presence(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    befriend(&app, &ace, &bee).await;
    let writer = PresenceWriter::new(
        Arc::clone(&app.store),
        Arc::new(app.clock.clone()),
        "node-block".into(),
    );
    writer.online(ace.id);
    writer.flush().await.expect("written");
    assert_eq!(lists(&app, &bee).await["friends"][0]["online"], true);

    act(&app, &ace, "block", &bee).await.success();
    let bee_lists = lists(&app, &bee).await;
    assert_eq!(bee_lists["friends"], json!([]), "no friend, no presence");
    assert_eq!(ids(&app, &ace, "blocked").await, [bee.id.0]);
    act(&app, &bee, "request", &ace).await.error(403, "blocked");
    let profile = app
        .profile_answer(&ace.friend_code.to_string(), &bee.key)
        .await;
    assert_eq!(profile.success()["friend"], false);

    let created = app
        .post(&format!(
            "/api/clan/create?tag=Bee&name=Bees&userKey={}",
            bee.key
        ))
        .await;
    let clan = created.success()["clan"]["id"].as_i64().expect("an id");
    let invite = format!(
        "/api/clan/{clan}/invite?userId={}&userKey={}",
        ace.id.0, bee.key
    );
    app.post(&invite).await.error(403, "blocked");

    act(&app, &ace, "unblock", &bee).await.success();
    app.post(&invite).await.success();
    act(&app, &bee, "request", &ace).await.success();
}

async fn presence_shows_friends_online_and_when_last_seen(app: TestApp) {
    let [ace, bee, cat] = [app.player().await, app.player().await, app.player().await];
    befriend(&app, &ace, &bee).await;
    befriend(&app, &ace, &cat).await;
    let writer = PresenceWriter::new(
        Arc::clone(&app.store),
        Arc::new(app.clock.clone()),
        "node-presence".into(),
    );
    writer.online(bee.id);
    writer.online(cat.id);
    writer.flush().await.expect("written");
    let shown = |friends: &Value, id: AccountId| {
        friends
            .as_array()
            .expect("friends")
            .iter()
            .find(|friend| friend["id"] == id.0)
            .map(|friend| (friend["online"].clone(), friend["last_seen"].clone()))
            .expect("listed")
    };
    let friends = lists(&app, &ace).await["friends"].clone();
    assert_eq!(shown(&friends, bee.id), (json!(true), date(app.now())));

    app.clock.advance(Duration::seconds(5));
    let closed = app.now();
    writer.offline(bee.id);
    writer.flush().await.expect("written");
    app.clock.advance(Duration::minutes(2));
    let friends = lists(&app, &ace).await["friends"].clone();
    assert_eq!(shown(&friends, bee.id), (json!(false), date(closed)));
    assert_eq!(
        shown(&friends, cat.id),
        (json!(false), date(closed)),
        "a node silent past 30 s counts no more: last seen at its last heartbeat"
    );
    writer.flush().await.expect("the heartbeat");
    let friends = lists(&app, &ace).await["friends"].clone();
    assert_eq!(shown(&friends, cat.id), (json!(true), date(app.now())));
    let ace_as_friend = lists(&app, &bee).await["friends"][0].clone();
    assert_eq!(
        (
            ace_as_friend["online"].clone(),
            ace_as_friend["last_seen"].clone()
        ),
        (json!(false), Value::Null)
    );
}

async fn deleting_an_account_takes_its_friendships_away(app: TestApp) {
    let (gone, confirmation) = app.deletable_player().await;
    let [bee, cat] = [app.player().await, app.player().await];
    befriend(&app, &gone, &bee).await;
    act(&app, &gone, "request", &cat).await.success();
    act(&app, &gone, "block", &bee).await.success();
    act(&app, &cat, "block", &gone).await.success();
    app.delete_account(&gone, &confirmation).await;
    for player in [&bee, &cat] {
        assert_eq!(
            lists(&app, player).await,
            json!({"status": "success", "friends": [], "incoming": [], "outgoing": [], "blocked": []})
        );
    }
    act(&app, &bee, "request", &gone)
        .await
        .error(404, "unknown_user");
}

async fn requests_meeting_make_one_friendship(app: TestApp) {
    for _ in 0..TRIES {
        let [ace, bee] = [app.player().await, app.player().await];
        let tries = (0..6).map(|n| {
            let (from, to) = if n % 2 == 0 {
                (&ace, &bee)
            } else {
                (&bee, &ace)
            };
            act(&app, from, "request", to)
        });
        let answers = join_all(tries).await;
        let mut friends = 0;
        for answer in &answers {
            if answer.status == 200 {
                friends += usize::from(answer.success()["friendship"] == "friends");
            } else {
                let code = answer.json["code"].as_str().expect("a code");
                assert!(
                    ["already_requested", "already_friends"].contains(&code),
                    "{}",
                    answer.text
                );
                assert_eq!(answer.status, 409);
            }
        }
        assert_eq!(friends, 1, "exactly one request made them friends");
        assert_eq!(
            stored(&app, ace.id).await,
            [vec![bee.id], vec![], vec![], vec![]]
        );
        assert_eq!(
            stored(&app, bee.id).await,
            [vec![ace.id], vec![], vec![], vec![]]
        );
    }
}

async fn a_request_racing_a_deletion_or_a_block_leaves_nothing_behind(app: TestApp) {
    for n in 0..TRIES {
        // The player asked deletes the account meanwhile.
        let asking = app.player().await;
        let (asked, confirmation) = app.deletable_player().await;
        let (requested, ()) = together(
            act(&app, &asking, "request", &asked),
            app.delete_account(&asked, &confirmation),
        )
        .await;
        if requested.status != 200 {
            requested.error(404, "unknown_user");
        }
        assert_eq!(
            stored(&app, asking.id).await,
            [vec![], vec![], vec![], vec![]]
        );

        // The asking player deletes the account meanwhile.
        let (leaving, confirmation) = app.deletable_player().await;
        let target = app.player().await;
        let (requested, ()) = together(
            act(&app, &leaving, "request", &target),
            app.delete_account(&leaving, &confirmation),
        )
        .await;
        if requested.status != 200 {
            requested.error(401, "invalid_user_key");
        }
        assert_eq!(
            stored(&app, target.id).await,
            [vec![], vec![], vec![], vec![]]
        );

        // The player asked blocks the asking one meanwhile.
        let [ace, bee] = [app.player().await, app.player().await];
        let (requested, blocked) = together(
            act(&app, &ace, "request", &bee),
            act(&app, &bee, "block", &ace),
        )
        .await;
        blocked.success();
        if requested.status != 200 {
            requested.error(403, "blocked");
        }
        assert_eq!(
            stored(&app, bee.id).await,
            [vec![], vec![], vec![], vec![ace.id]],
            "try {n}"
        );
        assert_eq!(stored(&app, ace.id).await, [vec![], vec![], vec![], vec![]]);
    }
}

async fn friend_changes_are_rate_limited_like_other_writes(app: TestApp) {
    let players = app.players(5).await;
    for other in &players[1..4] {
        act(&app, &players[0], "request", other).await.success();
    }
    act(&app, &players[0], "request", &players[4])
        .await
        .error(429, "rate_limited");
    assert_eq!(
        stored(&app, players[4].id).await[1],
        Vec::<AccountId>::new()
    );
}

async fn a_realtime_channel_shows_the_player_online_to_friends(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    befriend(&app, &ace, &bee).await;
    let shown = || async {
        let friend = lists(&app, &ace).await["friends"][0].clone();
        (friend["online"].clone(), friend["last_seen"].clone())
    };
    assert_eq!(shown().await, (json!(false), Value::Null));

    let first = app.open_channel(&bee.key, None).await;
    let second = app.open_channel(&bee.key, None).await;
    let now = app.now();
    let online = within(MESSAGE_WAIT, || async {
        let seen = shown().await;
        (seen == (json!(true), date(now)))
            .then_some(())
            .ok_or(format!("{seen:?}"))
    })
    .await;
    assert!(online.is_ok(), "not shown online: {online:?}");

    app.clock.advance(Duration::seconds(30));
    first.close().await;
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let now = app.now();
    assert_eq!(
        shown().await,
        (json!(true), date(now)),
        "one channel is left"
    );

    app.clock.advance(Duration::seconds(5));
    let closed = app.now();
    second.close().await;
    let offline = within(MESSAGE_WAIT, || async {
        let seen = shown().await;
        (seen == (json!(false), date(closed)))
            .then_some(())
            .ok_or(format!("{seen:?}"))
    })
    .await;
    assert!(
        offline.is_ok(),
        "not shown offline, last seen at the close: {offline:?}"
    );
}

async fn friend_events_reach_both_players_channels_and_their_resumed_streams(app: TestApp) {
    let [ace, bee] = [app.relayed_player().await, app.relayed_player().await];
    let mut ace_channel = app.open_channel(&ace.key, None).await;
    let mut bee_channel = app.open_channel(&bee.key, None).await;
    act(&app, &ace, "request", &bee).await.success();
    let told = bee_channel.events_until("friend_requested").await;
    let (_, event) = told.last().expect("the request");
    assert_eq!(event["account"], ace.id.0);
    assert_eq!(event["friend"], bee.id.0);
    ace_channel.events_until("friend_requested").await;

    act(&app, &bee, "block", &ace).await.success();
    let told = bee_channel.events_until("player_blocked").await;
    assert!(
        told.iter()
            .any(|(_, event)| event["kind"] == "friend_request_declined"),
        "{told:?}"
    );
    let told = ace_channel.events_until("friend_request_declined").await;
    assert_eq!(told.last().expect("the decline").1["account"], bee.id.0);
    ace_channel
        .assert_quiet_for(std::time::Duration::from_secs(1))
        .await;

    let resumed = app
        .store
        .account_events(ace.id, 0, 100)
        .await
        .expect("the stream");
    let kinds: Vec<&str> = resumed
        .iter()
        .map(|relayed| relayed.event.payload.kind())
        .filter(|kind| kind.starts_with("friend_") || *kind == "player_blocked")
        .collect();
    assert_eq!(kinds, ["friend_requested", "friend_request_declined"]);
    ace_channel.close().await;
    bee_channel.close().await;
}
