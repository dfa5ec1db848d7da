//! Domain events through the public API: a new player's sign-in, a purchase, a pack opened, a
//! reward claimed, a rename, a match report and an operator's ban each become their events,
//! received in order through the in-process subscription and stored, sequenced, in the outbox
//! (read back in relay order with `events_after`); refused requests leave none.

use std::time::Duration;

use safezone_core::cli::AdminCommand;
use safezone_core::domain::GameMode;
use safezone_core::events::subscription::EventSubscriber;
use safezone_core::events::{DomainEvent, EventPayload};
use safezone_core::store::AccountId;
use safezone_tests::economy::{coins, gems};
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination};
use serde_json::json;

each_combination!(every_change_through_the_api_is_one_event_in_order);

/// The kinds of the events of `account`, in id order, without the levels and tiers (which
/// depend on the content's curve).
fn kinds(events: &[DomainEvent], account: AccountId) -> Vec<&'static str> {
    events
        .iter()
        .filter(|event| event.account == Some(account))
        .map(|event| event.payload.kind())
        .filter(|kind| !matches!(*kind, "level_reached" | "tier_reached"))
        .collect()
}

/// Receives events until one of `kind` for `account` came, within 10 seconds.
async fn receive_until(
    events: &mut EventSubscriber,
    account: AccountId,
    kind: &str,
) -> Vec<DomainEvent> {
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("no {kind} event within 10 s: {received:?}"))
            .expect("the service lives");
        let done = event.account == Some(account) && event.payload.kind() == kind;
        received.push(event);
        if done {
            return received;
        }
    }
}

/// Creates a full operator token with `operator-token create`; answers its secret.
async fn operator_token(app: &TestApp) -> String {
    let args = [
        "operator-token",
        "create",
        "--name",
        "ops",
        "--role",
        "full",
    ];
    let line = AdminCommand::from_args(args)
        .expect("the command parses")
        .execute(app.store.as_ref(), app.now())
        .await
        .expect("the token is created");
    line.rsplit(' ').next().expect("a secret").to_owned()
}

async fn every_change_through_the_api_is_one_event_in_order(app: TestApp) {
    let mut events = app.service.subscribe_events();
    let key = app.new_key().await;
    let account = app.account_id(&key).await;
    // Grants through the command line are events too (`holdings_changed`): every change of an
    // account's view is, for the nodes that keep the view in memory.
    app.grant_to(&key, coins(100_000)).await;
    app.grant_to(&key, gems(10_000)).await;
    app.buy(&key, "packId=1&quantity=1").await.success();
    app.open_pack(&key, 1).await.success();
    app.open_pack(&key, 1).await.error(409, "no_pack_to_open");
    app.claim(&key, "first").await.success();
    app.claim(&key, "first").await.error(409, "already_claimed");
    app.act(&key, "friend-code/update", "name=Eventful")
        .await
        .success();
    let report = app.finished(
        "events:1",
        GameMode::parse("solo").expect("a mode"),
        vec![Line::by_key(&key, 1, 4, 600)],
    );
    app.report(&report).await;

    let listener = app.operator_listener().await;
    let secret = operator_token(&app).await;
    let url = format!(
        "http://{}/operator/api/players/{}/ban",
        listener.local_addr(),
        account.0
    );
    let banned = app
        .client
        .post(url)
        .bearer_auth(&secret)
        .json(&json!({"banned": true, "reason": "cheating, report 7"}))
        .send()
        .await
        .expect("the operator listener answers");
    assert_eq!(banned.status(), 200);

    let received = receive_until(&mut events, account, "operator_action").await;
    let expected = [
        "account_created",
        "signed_in",
        "holdings_changed",
        "holdings_changed",
        "purchase",
        "pack_opened",
        "reward_claimed",
        "renamed",
        "banned",
        "operator_action",
    ];
    assert_eq!(kinds(&received, account), expected);
    let ids: Vec<i64> = received.iter().map(|event| event.id).collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");

    let mine: Vec<&DomainEvent> = received
        .iter()
        .filter(|event| event.account == Some(account))
        .collect();
    let purchase = mine
        .iter()
        .find_map(|event| match &event.payload {
            EventPayload::Purchase {
                reference, price, ..
            } => Some((reference.clone(), price.len())),
            _ => None,
        })
        .expect("a purchase");
    assert_eq!(purchase, ("pack:1x1".to_owned(), 1));
    // The report is one event on no account, carrying every player's result.
    assert!(received.iter().any(|event| event.account.is_none()
        && matches!(
            &event.payload,
            EventPayload::MatchReported { match_id, players, .. }
                if match_id == "events:1"
                    && players.iter().any(|player| player.account == account
                        && player.placement == 1
                        && player.kills == 4
                        && !player.granted.is_empty())
        )));
    assert!(mine.iter().any(|event| matches!(
        &event.payload,
        EventPayload::Renamed { friend_code } if friend_code.starts_with("Eventful#")
    )));

    // The outbox holds the same events, each with its relay position; read in relay order
    // after a position, it answers them again.
    let received_mine: Vec<i64> = mine.iter().map(|event| event.id).collect();
    let stored = app.store.events(0, 10_000).await.expect("the events read");
    let stored_mine: Vec<(i64, Option<i64>)> = stored
        .iter()
        .filter(|(event, _)| event.account == Some(account))
        .map(|(event, position)| (event.id, *position))
        .collect();
    let ids: Vec<i64> = stored_mine.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, received_mine);
    assert!(stored_mine.iter().all(|(_, position)| position.is_some()));
    let relayed = app
        .service
        .events_after(0, 10_000)
        .await
        .expect("the outbox reads");
    let relayed_mine: Vec<i64> = relayed
        .iter()
        .filter(|relayed| relayed.event.account == Some(account))
        .map(|relayed| relayed.event.id)
        .collect();
    assert_eq!(relayed_mine, received_mine);
    let positions: Vec<i64> = relayed.iter().map(|relayed| relayed.position).collect();
    assert!(
        positions.windows(2).all(|pair| pair[0] < pair[1]),
        "{positions:?}"
    );
    listener.stop().await;
}
