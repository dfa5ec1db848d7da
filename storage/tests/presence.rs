//! Presence, written by the core's presence writer and read by the store, against SQLite and
//! PostgreSQL: online while a channel is open on a node that beats, offline (last seen) after
//! the last closes, a silent node's players offline within 30 s, a stopped node's at once, and
//! dead nodes forgotten by the sweep.

use std::sync::Arc;

use safezone_core::clock::{Clock, ManualClock};
use safezone_core::presence::{HEARTBEAT_EVERY, PresenceWriter};
use safezone_core::store::{AccountId, PRESENCE_NODE_ALIVE, Presence, Store};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    the_first_channel_makes_online_and_the_last_closing_offline,
    transitions_between_flushes_write_only_the_latest,
    a_silent_node_stops_counting_and_the_heartbeat_keeps_it_counting,
    an_account_is_online_while_on_any_node,
    a_stopped_node_leaves_nobody_online,
    the_sweep_forgets_dead_nodes_at_their_last_heartbeat,
    deleted_accounts_are_left_out,
);

const START: OffsetDateTime = datetime!(2026-11-28 08:00:00 UTC);

/// `count` accounts, `{prefix}#0000` upwards.
async fn accounts(store: &Arc<dyn Store>, prefix: &str, count: u16) -> Vec<AccountId> {
    let mut all = Vec::new();
    for n in 0..count {
        let code = format!("{prefix}#{n:04}");
        all.push(
            test_support::new_account(store.as_ref(), &code, START)
                .await
                .id,
        );
    }
    all
}

fn writer(store: &Arc<dyn Store>, clock: &ManualClock, node: &str) -> Arc<PresenceWriter> {
    PresenceWriter::new(Arc::clone(store), Arc::new(clock.clone()), node.into())
}

async fn presence_of(store: &Arc<dyn Store>, account: AccountId, now: OffsetDateTime) -> Presence {
    store.presence(&[account], now).await.expect("read")[&account]
}

fn online(now: OffsetDateTime) -> Presence {
    Presence {
        online: true,
        last_seen: Some(now),
    }
}

fn offline(last_seen: Option<OffsetDateTime>) -> Presence {
    Presence {
        online: false,
        last_seen,
    }
}

async fn the_first_channel_makes_online_and_the_last_closing_offline(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Onl", 2).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let node = writer(&store, &clock, "node-a");
    assert_eq!(presence_of(&store, ace, START).await, offline(None));
    node.online(ace);
    assert!(node.is_online(ace));
    assert_eq!(
        presence_of(&store, ace, START).await,
        offline(None),
        "not flushed yet"
    );
    node.flush().await.expect("written");
    assert_eq!(presence_of(&store, ace, START).await, online(START));
    assert_eq!(presence_of(&store, bee, START).await, offline(None));

    clock.advance(Duration::seconds(5));
    node.online(ace);
    node.flush()
        .await
        .expect("nothing new, no heartbeat due yet");
    let now = clock.now();
    assert_eq!(presence_of(&store, ace, now).await, online(now));

    clock.advance(Duration::seconds(5));
    let closed_at = clock.now();
    node.offline(ace);
    node.offline(ace);
    node.flush().await.expect("written");
    clock.advance(Duration::minutes(3));
    assert_eq!(
        presence_of(&store, ace, clock.now()).await,
        offline(Some(closed_at))
    );
    assert!(!node.is_online(ace));
    let both = store
        .presence(&[ace, bee], clock.now())
        .await
        .expect("read");
    assert_eq!(both.len(), 2);
}

async fn transitions_between_flushes_write_only_the_latest(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Latest", 2).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let node = writer(&store, &clock, "node-a");
    node.online(ace);
    node.offline(ace);
    node.online(bee);
    node.offline(bee);
    node.online(bee);
    node.flush().await.expect("written");
    assert_eq!(presence_of(&store, ace, START).await, offline(Some(START)));
    assert_eq!(presence_of(&store, bee, START).await, online(START));
}

async fn a_silent_node_stops_counting_and_the_heartbeat_keeps_it_counting(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Beat", 2).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let beating = writer(&store, &clock, "beating");
    let crashing = writer(&store, &clock, "crashing");
    beating.online(ace);
    crashing.online(bee);
    beating.flush().await.expect("written");
    crashing.flush().await.expect("written");
    for _ in 0..6 {
        clock.advance(HEARTBEAT_EVERY);
        beating.flush().await.expect("the heartbeat");
    }
    let now = clock.now();
    assert_eq!(presence_of(&store, ace, now).await, online(now));
    assert_eq!(
        presence_of(&store, bee, now).await,
        offline(Some(START)),
        "the crashed node's last heartbeat is when its players were last seen"
    );

    let fresh = ManualClock::new(START);
    let node = writer(&store, &fresh, "edge");
    let [cat] = accounts(&store, "Edge", 1).await[..] else {
        unreachable!()
    };
    node.online(cat);
    node.flush().await.expect("written");
    let edge = START + PRESENCE_NODE_ALIVE;
    assert!(presence_of(&store, cat, edge).await.online);
    let past = edge + Duration::seconds(1);
    assert_eq!(presence_of(&store, cat, past).await, offline(Some(START)));
}

async fn an_account_is_online_while_on_any_node(store: Arc<dyn Store>) {
    let [ace] = accounts(&store, "Any", 1).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let one = writer(&store, &clock, "one");
    let two = writer(&store, &clock, "two");
    one.online(ace);
    two.online(ace);
    one.flush().await.expect("written");
    two.flush().await.expect("written");
    clock.advance(Duration::seconds(1));
    one.offline(ace);
    one.flush().await.expect("written");
    let now = clock.now();
    assert_eq!(presence_of(&store, ace, now).await, online(now));
    clock.advance(Duration::seconds(1));
    let closed = clock.now();
    two.offline(ace);
    two.flush().await.expect("written");
    assert_eq!(
        presence_of(&store, ace, closed).await,
        offline(Some(closed))
    );
}

async fn a_stopped_node_leaves_nobody_online(store: Arc<dyn Store>) {
    let players = accounts(&store, "Stop", 3).await;
    let clock = ManualClock::new(START);
    let node = writer(&store, &clock, "stopping");
    for player in &players {
        node.online(*player);
    }
    node.flush().await.expect("written");
    clock.advance(Duration::seconds(3));
    let stopped = clock.now();
    node.stop().await.expect("stopped");
    for player in &players {
        assert_eq!(
            presence_of(&store, *player, stopped).await,
            offline(Some(stopped))
        );
        assert!(!node.is_online(*player));
    }
}

async fn the_sweep_forgets_dead_nodes_at_their_last_heartbeat(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Dead", 2).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let dead = writer(&store, &clock, "dead");
    dead.online(ace);
    dead.online(bee);
    dead.flush().await.expect("written");
    clock.advance(Duration::hours(2));
    let live = writer(&store, &clock, "live");
    live.online(bee);
    live.flush().await.expect("written");
    let swept = store
        .delete_dead_presence_nodes(clock.now() - Duration::hours(1), 10)
        .await
        .expect("swept");
    assert_eq!(swept, 1, "only the dead node");
    let now = clock.now();
    assert_eq!(presence_of(&store, ace, now).await, offline(Some(START)));
    assert_eq!(presence_of(&store, bee, now).await, online(now));
    let again = store
        .delete_dead_presence_nodes(now - Duration::hours(1), 10)
        .await
        .expect("swept");
    assert_eq!(again, 0);
}

async fn deleted_accounts_are_left_out(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Del", 2).await[..] else {
        unreachable!()
    };
    let clock = ManualClock::new(START);
    let node = writer(&store, &clock, "node");
    node.online(bee);
    node.flush().await.expect("written");
    assert!(store.delete_account(ace, None).await.expect("deleted"));
    assert!(store.delete_account(bee, None).await.expect("deleted"));
    node.online(ace);
    node.offline(bee);
    node.flush()
        .await
        .expect("accounts gone are left out, not an error");
    let read = store.presence(&[ace, bee], START).await.expect("read");
    assert_eq!(read[&ace], offline(None));
    assert_eq!(read[&bee], offline(None));
}
