//! The realtime channel (`GET /api/realtime`) over real WebSockets: a player's grants,
//! purchases, match results and clan invitations as they commit, content publications, pings; a reconnect with
//! `after` that loses and repeats nothing (and a reset once the outbox no longer keeps what was
//! missed); a consumer that stops reading closed with 4008 while the others go on; silence
//! closed with 4000; a revoked key or a ban closed with 1008; the refusals before the upgrade
//! and the limits; every message the server sent valid against the AsyncAPI document.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Method;
use safezone_core::Settings;
use safezone_core::content::SHIPPED;
use safezone_core::http::{EndpointGroup, Rate, RateLimits, Scope};
use safezone_core::store::Publication;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::economy::{coins, gems};
use safezone_tests::progression::Line;
use safezone_tests::realtime::{Channel, assert_messages_match_asyncapi, channel_path};
use safezone_tests::{TestApp, each_combination, mode, test_settings};
use serde_json::{Value, json};

each_combination!(
    a_channel_carries_the_players_changes_and_content,
    a_channel_resumes_after_its_last_position,
    a_revoked_or_banned_key_closes_the_channel,
    channels_are_refused_before_the_upgrade,
    a_stopping_node_closes_its_channels_with_1001,
);

each_combination!(
    settings = small_queues;
    a_consumer_too_far_behind_is_closed_and_the_others_go_on,
);

each_combination!(
    settings = quick_pings;
    pings_keep_a_channel_open_and_silence_closes_it,
);

each_combination!(
    settings = two_channels_a_minute;
    opening_channels_is_rate_limited_per_address,
);

/// Channels whose queue holds 8 messages.
fn small_queues() -> Settings {
    let mut settings = test_settings();
    settings.realtime.queue = 8;
    settings
}

/// A protocol Ping every second (a silent client is closed after two).
fn quick_pings() -> Settings {
    let mut settings = test_settings();
    settings.realtime.ping_every = Duration::from_secs(1);
    settings
}

/// Two channels opened per address a minute.
fn two_channels_a_minute() -> Settings {
    let mut rate_limits = RateLimits::default();
    let two = Rate::per_minute(2.try_into().expect("not zero"));
    rate_limits.set(EndpointGroup::Realtime, Scope::Address, Some(two));
    let mut settings = test_settings();
    settings.rate_limits = rate_limits;
    settings
}

/// The kinds of `events`, without the levels and tiers (which depend on the content's curve).
fn kinds(events: &[(i64, Value)]) -> Vec<String> {
    events
        .iter()
        .map(|(_, event)| event["kind"].as_str().unwrap_or_default().to_owned())
        .filter(|kind| kind != "level_reached" && kind != "tier_reached")
        .collect()
}

/// Whether the positions of `events` grow strictly (nothing repeated, in relay order).
fn strictly_growing(events: &[(i64, Value)]) -> bool {
    events.windows(2).all(|pair| pair[0].0 < pair[1].0)
}

/// The AsyncAPI document the server serves.
async fn asyncapi(app: &TestApp) -> Value {
    let answer = app.get("/api/asyncapi.json").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.json
}

async fn a_channel_carries_the_players_changes_and_content(app: TestApp) {
    let player = app.relayed_player().await;
    let other = app.relayed_player().await;
    let mut channel = app.open_channel(&player.key, None).await;
    let mut others = app.open_channel(&other.key, None).await;
    assert_eq!(channel.welcome["account"], player.id.0);
    assert_eq!(channel.welcome["contentVersion"], 0);
    assert_eq!(channel.welcome["maintenance"], false);
    assert_eq!(channel.welcome["pingSecs"], 20);
    assert!(
        channel.welcome["position"]
            .as_i64()
            .is_some_and(|head| head > 0)
    );

    // A grant made with the operator's `grant`, then a purchase through the API.
    app.grant_to(&player.key, coins(100_000)).await;
    app.grant_to(&player.key, gems(10_000)).await;
    app.buy(&player.key, "packId=1&quantity=1").await.success();
    let mut events = channel.events_until("purchase").await;
    assert_eq!(
        kinds(&events),
        ["holdings_changed", "holdings_changed", "purchase"]
    );
    assert!(
        events
            .iter()
            .all(|(_, event)| event["account"] == player.id.0)
    );
    assert_eq!(events[0].1["reason"], "grant");
    assert_eq!(
        events[0].1["granted"],
        json!([{"granted": "currency", "currency": "coins", "amount": 100_000}])
    );
    assert_eq!(events[2].1["reference"], "pack:1x1");

    // A match result naming both players reaches both, once.
    let report = app.finished(
        "realtime:1",
        mode("solo"),
        vec![
            Line::by_key(&player.key, 1, 3, 600),
            Line::by_key(&other.key, 2, 1, 500),
        ],
    );
    app.report(&report).await;
    let played = channel.events_until("match_reported").await;
    let reported = &played.last().expect("the report").1;
    assert_eq!(reported["match_id"], "realtime:1");
    assert_eq!(reported["account"], Value::Null);
    assert_eq!(reported["players"][0]["account"], player.id.0);
    events.extend(played);
    let others_events = others.events_until("match_reported").await;
    assert_eq!(
        others_events.last().expect("the report").1["match_id"],
        "realtime:1"
    );
    assert!(strictly_growing(&events), "{events:?}");

    // A clan invitation reaches the invitee: the inviter's event, naming it.
    let created = app
        .post(&format!(
            "/api/clan/create?tag=RTC&name=Realtime&userKey={}",
            player.key
        ))
        .await;
    let clan = created.success()["clan"]["id"].as_i64().expect("an id");
    app.post(&format!(
        "/api/clan/{clan}/invite?userId={}&userKey={}",
        other.id.0, player.key
    ))
    .await
    .success();
    let invited = others.events_until("clan_invited").await;
    let invitation = &invited.last().expect("the invitation").1;
    assert_eq!(invitation["account"], player.id.0);
    assert_eq!(invitation["invitee"], other.id.0);
    assert_eq!(invitation["clan"], clan);
    let own = channel.events_until("clan_invited").await;
    assert_eq!(kinds(&own), ["clan_joined", "clan_invited"]);

    // A ping, in JSON and as a protocol frame.
    channel.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(channel.next_message().await, json!({"type": "pong"}));
    channel.send_text(r#"{"type":"anything else"}"#).await;
    channel.ping_frame(b"are you there").await;

    // A content publication reaches every channel.
    let published = app
        .store
        .publish_content(
            &shipped_with_maintenance(true),
            &Publication::default(),
            app.now(),
            None,
        )
        .await
        .expect("published");
    let expected = json!({"type": "content", "version": published, "maintenance": true});
    assert_eq!(channel.next_message().await, expected);
    assert_eq!(others.next_message().await, expected);
    app.store
        .publish_content(SHIPPED, &Publication::default(), app.now(), None)
        .await
        .expect("published again");
    channel.next_message().await;

    let document = asyncapi(&app).await;
    let mut sent = channel.received.clone();
    sent.extend(others.received.iter().cloned());
    channel.close().await;
    others.close().await;
    // A reset, as a client past the head is sent.
    let mut past = app.open_channel(&player.key, Some(1_000_000_000)).await;
    let reset = past.next_message().await;
    assert_eq!(reset["type"], "reset", "{reset}");
    sent.extend(past.received.iter().cloned());
    past.close().await;
    for kind in ["welcome", "event", "pong", "content", "reset"] {
        assert!(sent.iter().any(|message| message["type"] == kind), "{kind}");
    }
    assert_messages_match_asyncapi(&document, &sent).await;
}

async fn a_channel_resumes_after_its_last_position(app: TestApp) {
    let player = app.relayed_player().await;
    let code = player.friend_code.to_string();
    let mut channel = app.open_channel(&player.key, None).await;
    app.grant_to(&player.key, coins(1)).await;
    let (first, _) = channel.next_event().await;
    channel.close().await;

    // Committed while no channel is open.
    for amount in [2, 3, 4] {
        grant_coins(&app, &code, amount).await;
    }
    let mut resumed = app.open_channel(&player.key, Some(first)).await;
    let missed: Vec<(i64, Value)> = vec![
        resumed.next_event().await,
        resumed.next_event().await,
        resumed.next_event().await,
    ];
    let amounts: Vec<&Value> = missed
        .iter()
        .map(|(_, event)| &event["granted"][0]["amount"])
        .collect();
    assert_eq!(amounts, [2, 3, 4]);
    assert!(
        missed[0].0 > first && strictly_growing(&missed),
        "{missed:?}"
    );
    // Then the live ones, once each, with nothing repeated.
    grant_coins(&app, &code, 5).await;
    let (live, event) = resumed.next_event().await;
    assert_eq!(event["granted"][0]["amount"], 5);
    assert!(live > missed[2].0);
    resumed.assert_quiet_for(Duration::from_millis(600)).await;
    resumed.close().await;

    // From 0: every event of the player the outbox keeps, from its first sign-in.
    let mut everything = app.open_channel(&player.key, Some(0)).await;
    let all = everything.events_until("holdings_changed").await;
    assert_eq!(
        kinds(&all),
        ["account_created", "signed_in", "holdings_changed"]
    );
    everything.close().await;

    // Once the events after `after` are no longer kept (retention), a reset, then the stream
    // goes on.
    app.clock.advance(time::Duration::days(1));
    grant_coins(&app, &code, 6).await;
    let kept_from = app.now() - time::Duration::hours(1);
    let mut deleted = 0;
    for _ in 0..50 {
        deleted += app
            .store
            .delete_delivered_events(kept_from, 10_000)
            .await
            .expect("retention runs");
        if deleted > 0 {
            break;
        }
        // The last grant is sequenced first: retention deletes only relayed events.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(deleted > 0);
    let mut reset = app.open_channel(&player.key, Some(first - 1)).await;
    let message = reset.next_message().await;
    assert_eq!(message["type"], "reset", "{message}");
    let head = message["position"].as_i64().expect("a position");
    grant_coins(&app, &code, 7).await;
    // The grant of 6 comes too when it was relayed after the reset's head.
    let mut amounts = Vec::new();
    while amounts.last() != Some(&7) {
        let (position, event) = reset.next_event().await;
        assert!(position > head, "{position} after a reset at {head}");
        amounts.push(event["granted"][0]["amount"].as_i64().expect("an amount"));
    }
    assert!(amounts == [7] || amounts == [6, 7], "{amounts:?}");
    reset.close().await;
}

/// Grants `amount` coins to the account with friend code `code`, as `grant` does.
async fn grant_coins(app: &TestApp, code: &str, amount: i64) {
    app.grant_to_code(code, &coins(amount))
        .await
        .expect("the grant is made");
}

async fn a_revoked_or_banned_key_closes_the_channel(app: TestApp) {
    let (device, body) = app.new_device().await;
    let key = body["user"]["key"].as_str().expect("a key").to_owned();
    let mut channel = app.open_channel(&key, None).await;
    // Signing out another key of the account leaves this one's channel open.
    let other_key = app.key_of_device(&device).await;
    let cookie = format!("userKey={other_key}");
    let signed_out = app
        .send(Method::GET, "/user/logout", &[("cookie", &cookie)], None)
        .await;
    assert_eq!(signed_out.status, 200, "{}", signed_out.text);
    let events = channel.events_until("keys_revoked").await;
    assert_eq!(events.last().expect("the sign-out").1["all"], false);
    channel.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(channel.next_message().await, json!({"type": "pong"}));
    channel.close().await;

    let player = app.relayed_player().await;
    let mut channel = app.open_channel(&player.key, None).await;
    app.post(&format!("/api/user/{}/clear-sessions", player.key))
        .await
        .success();
    let closed = channel.closed_within(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(1008), "{closed:?}");
    assert_eq!(
        closed.messages.last().expect("the revocation")["event"]["kind"],
        "keys_revoked"
    );
    app.channel_refusal(&channel_path(&player.key, None))
        .await
        .error(401, "invalid_user_key");

    let banned = app.relayed_player().await;
    let mut channel = app.open_channel(&banned.key, None).await;
    app.set_banned(&banned, true).await;
    let closed = channel.closed_within(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(1008), "{closed:?}");
    assert_eq!(
        closed.messages.last().expect("the ban")["event"]["kind"],
        "banned"
    );
}

async fn channels_are_refused_before_the_upgrade(app: TestApp) {
    let player = app.relayed_player().await;
    app.channel_refusal("/api/realtime?userKey=not-a-key")
        .await
        .error(401, "invalid_user_key");
    app.channel_refusal("/api/realtime")
        .await
        .error(401, "missing_user_key");
    for bad in ["-1", "first", "1.5"] {
        app.channel_refusal(&format!("/api/realtime?userKey={}&after={bad}", player.key))
            .await
            .error_naming(400, "invalid_parameter", "after");
    }
    app.get(&channel_path(&player.key, None))
        .await
        .error(400, "not_websocket_upgrade");

    // Five channels per account on a node; the sixth is refused until one closes.
    let mut open: Vec<Channel> = Vec::new();
    for _ in 0..5 {
        open.push(app.open_channel(&player.key, None).await);
    }
    app.channel_refusal(&channel_path(&player.key, None))
        .await
        .error(429, "too_many_channels");
    let other = app.relayed_player().await;
    open.push(app.open_channel(&other.key, None).await);
    assert_eq!(app.service.realtime_channels_of(player.id), 5);
    open.swap_remove(0).close().await;
    let reopened = safezone_tests::leaderboard::within(Duration::from_secs(10), || async {
        if app.service.realtime_channels_of(player.id) < 5 {
            Ok(())
        } else {
            Err("still five".to_owned())
        }
    })
    .await;
    assert!(reopened.is_ok());
    open.push(app.open_channel(&player.key, None).await);
    for channel in open {
        channel.close().await;
    }
}

async fn a_consumer_too_far_behind_is_closed_and_the_others_go_on(app: TestApp) {
    let slow = app.relayed_player().await;
    let fast = app.relayed_player().await;
    let mut stalled = app.open_slow_channel(&slow.key).await;
    let mut reading = app.open_channel(&fast.key, None).await;
    let code = slow.friend_code.to_string();
    // The slow player's game stops reading; its events keep coming until the server gives up.
    let mut granted = 0;
    while app.service.realtime_channels_of(slow.id) > 0 {
        assert!(granted < 20_000, "the stalled channel is still open");
        join_all((0..16).map(|_| grant_coins(&app, &code, 1))).await;
        granted += 16;
    }
    // The other player's channel goes on.
    app.grant_to(&fast.key, coins(9)).await;
    let (_, event) = reading.next_event().await;
    assert_eq!(event["granted"][0]["amount"], 9);
    // The stalled game reads again: what was sent, then the close.
    let closed = stalled.closed_within(Duration::from_secs(20)).await;
    assert_eq!(
        closed.code,
        Some(4008),
        "after {} messages",
        closed.messages.len()
    );
    reading.close().await;
}

async fn pings_keep_a_channel_open_and_silence_closes_it(app: TestApp) {
    let player = app.relayed_player().await;
    let mut answering = app.open_channel(&player.key, None).await;
    assert_eq!(answering.welcome["pingSecs"], 1);
    // Reading answers the server's pings: the channel stays open past two intervals.
    answering
        .assert_quiet_for(Duration::from_millis(3_500))
        .await;
    answering.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(answering.next_message().await, json!({"type": "pong"}));

    let mut silent = app.open_channel(&player.key, None).await;
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let closed = silent.closed_within(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(4000), "{closed:?}");
    answering.close().await;
}

async fn opening_channels_is_rate_limited_per_address(app: TestApp) {
    let player = app.relayed_player().await;
    let first = app.open_channel(&player.key, None).await;
    let second = app.open_channel(&player.key, None).await;
    app.channel_refusal(&channel_path(&player.key, None))
        .await
        .error(429, "rate_limited");
    first.close().await;
    second.close().await;
}

async fn a_stopping_node_closes_its_channels_with_1001(app: TestApp) {
    let player = app.relayed_player().await;
    let mut channels = vec![
        app.open_channel(&player.key, None).await,
        app.open_channel(&player.key, None).await,
    ];
    let started = std::time::Instant::now();
    let stopping = app.service.clone();
    let stopped = tokio::spawn(async move { stopping.close_realtime_channels().await });
    for channel in &mut channels {
        let closed = channel.closed_within(Duration::from_secs(5)).await;
        assert_eq!(closed.code, Some(1001), "{closed:?}");
    }
    stopped.await.expect("the stop ends");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(app.service.realtime_channels(), 0);
    app.channel_refusal(&channel_path(&player.key, None))
        .await
        .error(503, "overloaded");
}
