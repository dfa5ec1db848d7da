//! The store contract of friends (requests, friendships, blocks, their events, expiry, and what
//! an account's deletion takes with it), and the races between them, run against SQLite and
//! PostgreSQL, each test on its own fresh database.

use std::sync::Arc;

use safezone_core::events::EventPayload;
use safezone_core::store::{
    Account, AccountId, ClanRefusal, FriendChange, FriendChanged, FriendLimits, FriendRefusal,
    NewClan, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use FriendChange::{Accept, Block, Cancel, Decline, Remove, Request, Unblock};

safezone_storage::store_conformance!(
    requests_accepted_make_friends_listed_both_ways,
    every_change_is_refused_without_its_precondition,
    friends_and_requests_out_have_limits,
    blocks_end_friendships_and_requests_and_refuse_requests_and_invites,
    friend_changes_write_events_naming_the_other_account,
    two_requests_at_once_make_one_friendship,
    a_request_racing_a_deletion_of_either_account_leaves_nothing_behind,
    a_request_racing_a_block_is_refused_or_taken_away,
    deleting_an_account_takes_its_friendships_requests_and_blocks,
    requests_nobody_answered_expire,
);

const NOW: OffsetDateTime = datetime!(2026-11-28 08:00:00 UTC);

const LIMITS: FriendLimits = FriendLimits {
    friends_max: 200,
    requests_max: 100,
};

/// How many times each race is run.
const RACES: usize = 12;

async fn account(store: &Arc<dyn Store>, code: &str) -> Account {
    test_support::new_account(store.as_ref(), code, NOW).await
}

/// `count` new accounts named `{prefix}#0000` upwards.
async fn accounts(store: &Arc<dyn Store>, prefix: &str, count: u16) -> Vec<AccountId> {
    let mut all = Vec::new();
    for n in 0..count {
        all.push(account(store, &format!("{prefix}#{n:04}")).await.id);
    }
    all
}

async fn change(
    store: &Arc<dyn Store>,
    account: AccountId,
    other: AccountId,
    change: FriendChange,
) -> Result<FriendChanged, FriendRefusal> {
    store
        .change_friendship(account, other, change, LIMITS, NOW)
        .await
        .expect("no store error")
}

/// The ids on each of an account's lists: friends, incoming, outgoing, blocked.
async fn lists(store: &Arc<dyn Store>, account: AccountId) -> [Vec<AccountId>; 4] {
    let lists = store.friend_lists(account).await.expect("the lists");
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

/// The friend events of an account, in order.
async fn friend_events(store: &Arc<dyn Store>, account: AccountId) -> Vec<EventPayload> {
    store
        .events(0, 10_000)
        .await
        .expect("the events")
        .into_iter()
        .map(|(event, _)| event)
        .filter(|event| event.account == Some(account))
        .map(|event| event.payload)
        .filter(|payload| {
            payload.kind().starts_with("friend_") || payload.kind() == "player_blocked"
        })
        .collect()
}

async fn requests_accepted_make_friends_listed_both_ways(store: Arc<dyn Store>) {
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0002").await;
    let clan = store
        .create_clan(NewClan {
            creator: bee.id,
            tag: "Bzz".to_owned(),
            name: "Hive".to_owned(),
            description: None,
            max_members: 50,
            now: NOW,
        })
        .await
        .expect("no store error")
        .expect("a clan");
    assert_eq!(
        change(&store, ace.id, bee.id, Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        lists(&store, ace.id).await,
        [vec![], vec![], vec![bee.id], vec![]]
    );
    assert_eq!(
        lists(&store, bee.id).await,
        [vec![], vec![ace.id], vec![], vec![]]
    );
    assert!(!store.are_friends(ace.id, bee.id).await.expect("read"));

    assert_eq!(
        change(&store, bee.id, ace.id, Accept).await,
        Ok(FriendChanged::Befriended)
    );
    assert_eq!(
        lists(&store, ace.id).await,
        [vec![bee.id], vec![], vec![], vec![]]
    );
    assert_eq!(
        lists(&store, bee.id).await,
        [vec![ace.id], vec![], vec![], vec![]]
    );
    assert!(store.are_friends(ace.id, bee.id).await.expect("read"));
    assert!(store.are_friends(bee.id, ace.id).await.expect("read"));

    let listed = store.friend_lists(ace.id).await.expect("the lists");
    let friend = &listed.friends[0];
    assert_eq!(friend.player.friend_code, bee.friend_code);
    assert_eq!(friend.player.level, bee.level);
    assert_eq!(friend.since, NOW);
    let badge = friend.player.clan.as_ref().expect("bee's clan");
    assert_eq!(
        (badge.id, badge.tag.as_str(), badge.name.as_str()),
        (clan.id, "Bzz", "Hive")
    );
    let listed = store.friend_lists(bee.id).await.expect("the lists");
    assert_eq!(listed.friends[0].player.clan, None);

    assert_eq!(
        change(&store, ace.id, bee.id, Remove).await,
        Ok(FriendChanged::Done)
    );
    assert!(!store.are_friends(ace.id, bee.id).await.expect("read"));
    assert_eq!(
        lists(&store, bee.id).await,
        [vec![], vec![], vec![], vec![]]
    );
}

async fn every_change_is_refused_without_its_precondition(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Pal", 2).await[..] else {
        unreachable!()
    };
    let nobody = AccountId(i64::from(i32::MAX));
    for refused in [Accept, Decline, Cancel] {
        assert_eq!(
            change(&store, ace, bee, refused).await,
            Err(FriendRefusal::NoRequest)
        );
    }
    assert_eq!(
        change(&store, ace, bee, Remove).await,
        Err(FriendRefusal::NotFriends)
    );
    assert_eq!(
        change(&store, ace, bee, Unblock).await,
        Err(FriendRefusal::NotBlocked)
    );
    for any in [Request, Accept, Decline, Cancel, Remove, Block, Unblock] {
        assert_eq!(
            change(&store, ace, nobody, any).await,
            Err(FriendRefusal::UnknownPlayer)
        );
        assert_eq!(
            change(&store, nobody, ace, any).await,
            Err(FriendRefusal::NoAccount)
        );
    }

    assert_eq!(
        change(&store, ace, bee, Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        change(&store, ace, bee, Request).await,
        Err(FriendRefusal::AlreadyRequested)
    );
    assert_eq!(
        change(&store, ace, bee, Accept).await,
        Err(FriendRefusal::NoRequest)
    );
    assert_eq!(
        change(&store, bee, ace, Cancel).await,
        Err(FriendRefusal::NoRequest)
    );
    assert_eq!(
        change(&store, ace, bee, Cancel).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(lists(&store, bee).await, [vec![], vec![], vec![], vec![]]);

    assert_eq!(
        change(&store, ace, bee, Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        change(&store, bee, ace, Decline).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(lists(&store, ace).await, [vec![], vec![], vec![], vec![]]);

    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, bee, ace, Accept).await.expect("friends");
    assert_eq!(
        change(&store, bee, ace, Request).await,
        Err(FriendRefusal::AlreadyFriends)
    );

    assert!(store.set_banned(ace, true, None).await.expect("banned"));
    let [cat] = accounts(&store, "Cat", 1).await[..] else {
        unreachable!()
    };
    assert_eq!(
        change(&store, ace, cat, Request).await,
        Err(FriendRefusal::Banned)
    );
    change(&store, cat, ace, Request)
        .await
        .expect("a banned player may be asked");
    assert_eq!(
        change(&store, ace, cat, Accept).await,
        Err(FriendRefusal::Banned)
    );
    assert_eq!(
        change(&store, ace, cat, Decline).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        change(&store, ace, bee, Remove).await,
        Ok(FriendChanged::Done)
    );
}

async fn friends_and_requests_out_have_limits(store: Arc<dyn Store>) {
    let players = accounts(&store, "Max", 4).await;
    let tight = FriendLimits {
        friends_max: 1,
        requests_max: 1,
    };
    let limited = |account, other, change| {
        let store = Arc::clone(&store);
        async move {
            store
                .change_friendship(account, other, change, tight, NOW)
                .await
                .expect("no store error")
        }
    };
    assert_eq!(
        limited(players[0], players[1], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[0], players[2], Request).await,
        Err(FriendRefusal::RequestsFull)
    );
    assert_eq!(
        limited(players[1], players[0], Accept).await,
        Ok(FriendChanged::Befriended)
    );
    assert_eq!(
        limited(players[2], players[0], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[0], players[2], Accept).await,
        Err(FriendRefusal::FriendsFull)
    );
    assert_eq!(
        limited(players[3], players[1], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[1], players[3], Request).await,
        Err(FriendRefusal::FriendsFull),
        "meeting requests are held to the limit too"
    );
    assert_eq!(
        limited(players[2], players[0], Cancel).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        limited(players[2], players[1], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[1], players[2], Accept).await,
        Err(FriendRefusal::FriendsFull)
    );
    assert_eq!(
        limited(players[3], players[1], Cancel).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        limited(players[3], players[0], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[3], players[0], Cancel).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        limited(players[3], players[2], Request).await,
        Ok(FriendChanged::Requested)
    );
    assert_eq!(
        limited(players[2], players[3], Accept).await,
        Ok(FriendChanged::Befriended)
    );
    assert_eq!(
        limited(players[1], players[2], Cancel).await,
        Err(FriendRefusal::NoRequest)
    );
    assert_eq!(
        limited(players[2], players[1], Cancel).await,
        Ok(FriendChanged::Done),
        "2's request to 1 is still there"
    );
    let [friends, ..] = lists(&store, players[0]).await;
    assert_eq!(friends, [players[1]]);
}

async fn blocks_end_friendships_and_requests_and_refuse_requests_and_invites(
    store: Arc<dyn Store>,
) {
    let [ace, bee, cat] = accounts(&store, "Blk", 3).await[..] else {
        unreachable!()
    };
    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, bee, ace, Accept).await.expect("friends");
    change(&store, ace, cat, Request).await.expect("requested");
    change(&store, cat, bee, Request).await.expect("requested");

    assert_eq!(
        change(&store, ace, bee, Block).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        change(&store, ace, cat, Block).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        lists(&store, ace).await,
        [vec![], vec![], vec![], vec![bee, cat]]
    );
    assert_eq!(
        lists(&store, bee).await,
        [vec![], vec![cat], vec![], vec![]]
    );
    assert_eq!(
        lists(&store, cat).await,
        [vec![], vec![], vec![bee], vec![]]
    );
    assert_eq!(
        change(&store, ace, bee, Block).await,
        Err(FriendRefusal::AlreadyBlocked)
    );
    assert_eq!(
        change(&store, bee, ace, Request).await,
        Err(FriendRefusal::BlockedByThem)
    );
    assert_eq!(
        change(&store, ace, bee, Request).await,
        Err(FriendRefusal::BlockedByYou)
    );
    assert_eq!(
        change(&store, bee, ace, Accept).await,
        Err(FriendRefusal::NoRequest)
    );

    let clan = store
        .create_clan(NewClan {
            creator: bee,
            tag: "Bzz".to_owned(),
            name: "Hive".to_owned(),
            description: None,
            max_members: 50,
            now: NOW,
        })
        .await
        .expect("no store error")
        .expect("a clan");
    assert_eq!(
        store
            .invite_to_clan(clan.id, bee, ace, NOW)
            .await
            .expect("no store error"),
        Err(ClanRefusal::Blocked)
    );
    store
        .invite_to_clan(clan.id, bee, cat, NOW)
        .await
        .expect("no store error")
        .expect("cat blocked nobody");

    assert_eq!(
        change(&store, ace, bee, Unblock).await,
        Ok(FriendChanged::Done)
    );
    assert_eq!(
        lists(&store, ace).await,
        [vec![], vec![], vec![], vec![cat]]
    );
    store
        .invite_to_clan(clan.id, bee, ace, NOW)
        .await
        .expect("no store error")
        .expect("unblocked");
    assert_eq!(
        change(&store, bee, ace, Request).await,
        Ok(FriendChanged::Requested)
    );
}

async fn friend_changes_write_events_naming_the_other_account(store: Arc<dyn Store>) {
    let [ace, bee] = accounts(&store, "Evt", 2).await[..] else {
        unreachable!()
    };
    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, ace, bee, Cancel).await.expect("cancelled");
    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, bee, ace, Decline).await.expect("declined");
    change(&store, bee, ace, Request).await.expect("requested");
    change(&store, ace, bee, Request)
        .await
        .expect("met: friends");
    change(&store, bee, ace, Remove).await.expect("removed");
    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, bee, ace, Accept).await.expect("friends");
    change(&store, bee, ace, Block).await.expect("blocked");
    change(&store, bee, ace, Unblock).await.expect("unblocked");
    change(&store, bee, ace, Request).await.expect("requested");
    change(&store, ace, bee, Block).await.expect("blocked");
    assert_eq!(
        friend_events(&store, ace).await,
        [
            EventPayload::FriendRequested { friend: bee },
            EventPayload::FriendRequestCancelled { friend: bee },
            EventPayload::FriendRequested { friend: bee },
            EventPayload::FriendAccepted { friend: bee },
            EventPayload::FriendRequested { friend: bee },
            EventPayload::FriendRequestDeclined { friend: bee },
            EventPayload::PlayerBlocked {
                player: bee,
                blocked: true
            },
        ]
    );
    assert_eq!(
        friend_events(&store, bee).await,
        [
            EventPayload::FriendRequestDeclined { friend: ace },
            EventPayload::FriendRequested { friend: ace },
            EventPayload::FriendRemoved { friend: ace },
            EventPayload::FriendAccepted { friend: ace },
            EventPayload::FriendRemoved { friend: ace },
            EventPayload::PlayerBlocked {
                player: ace,
                blocked: true
            },
            EventPayload::PlayerBlocked {
                player: ace,
                blocked: false
            },
            EventPayload::FriendRequested { friend: ace },
        ]
    );
    let refused = change(&store, ace, bee, Remove).await;
    assert_eq!(refused, Err(FriendRefusal::NotFriends));
    assert_eq!(
        friend_events(&store, ace).await.len(),
        7,
        "a refusal writes none"
    );
}

async fn two_requests_at_once_make_one_friendship(store: Arc<dyn Store>) {
    for round in 0..RACES {
        let [ace, bee] = accounts(&store, &format!("Two{round}"), 2).await[..] else {
            unreachable!()
        };
        let mut tasks = Vec::new();
        for n in 0..6 {
            let store = Arc::clone(&store);
            let (from, to) = if n % 2 == 0 { (ace, bee) } else { (bee, ace) };
            tasks.push(tokio::spawn(async move {
                store
                    .change_friendship(from, to, Request, LIMITS, NOW)
                    .await
                    .expect("no store error")
            }));
        }
        let mut befriended = 0;
        for task in tasks {
            match task.await.expect("task") {
                Ok(FriendChanged::Befriended) => befriended += 1,
                Ok(FriendChanged::Requested)
                | Err(FriendRefusal::AlreadyRequested | FriendRefusal::AlreadyFriends) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(befriended, 1, "round {round}");
        assert_eq!(
            lists(&store, ace).await,
            [vec![bee], vec![], vec![], vec![]]
        );
        assert_eq!(
            lists(&store, bee).await,
            [vec![ace], vec![], vec![], vec![]]
        );
        let accepted = |account| {
            let store = Arc::clone(&store);
            async move {
                friend_events(&store, account)
                    .await
                    .iter()
                    .filter(|event| matches!(event, EventPayload::FriendAccepted { .. }))
                    .count()
            }
        };
        assert_eq!(accepted(ace).await + accepted(bee).await, 1);
    }
}

async fn a_request_racing_a_deletion_of_either_account_leaves_nothing_behind(
    store: Arc<dyn Store>,
) {
    for round in 0..RACES {
        let [ace, bee] = accounts(&store, &format!("Del{round}"), 2).await[..] else {
            unreachable!()
        };
        let deleted = if round % 2 == 0 { bee } else { ace };
        let survivor = if deleted == ace { bee } else { ace };
        let requesting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                store
                    .change_friendship(ace, bee, Request, LIMITS, NOW)
                    .await
                    .expect("no store error")
            })
        };
        let deleting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.delete_account(deleted, None).await })
        };
        let requested = requesting.await.expect("task");
        assert!(deleting.await.expect("task").expect("deleted"));
        let expected_refusal = if deleted == bee {
            FriendRefusal::UnknownPlayer
        } else {
            FriendRefusal::NoAccount
        };
        assert!(
            requested == Ok(FriendChanged::Requested) || requested == Err(expected_refusal),
            "round {round}: {requested:?}"
        );
        assert_eq!(
            lists(&store, survivor).await,
            [vec![], vec![], vec![], vec![]]
        );
        assert_eq!(
            lists(&store, deleted).await,
            [vec![], vec![], vec![], vec![]]
        );
    }
}

async fn a_request_racing_a_block_is_refused_or_taken_away(store: Arc<dyn Store>) {
    let mut refused = 0;
    for round in 0..RACES {
        let [ace, bee] = accounts(&store, &format!("Rb{round}"), 2).await[..] else {
            unreachable!()
        };
        let requesting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                store
                    .change_friendship(ace, bee, Request, LIMITS, NOW)
                    .await
                    .expect("no store error")
            })
        };
        let blocking = {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                store
                    .change_friendship(bee, ace, Block, LIMITS, NOW)
                    .await
                    .expect("no store error")
            })
        };
        let requested = requesting.await.expect("task");
        assert_eq!(blocking.await.expect("task"), Ok(FriendChanged::Done));
        match requested {
            Ok(FriendChanged::Requested) => {}
            Err(FriendRefusal::BlockedByThem) => refused += 1,
            other => panic!("round {round}: {other:?}"),
        }
        assert_eq!(
            lists(&store, bee).await,
            [vec![], vec![], vec![], vec![ace]]
        );
        assert_eq!(lists(&store, ace).await, [vec![], vec![], vec![], vec![]]);
    }
    assert!(refused <= RACES);
}

async fn deleting_an_account_takes_its_friendships_requests_and_blocks(store: Arc<dyn Store>) {
    let [ace, bee, cat, dog] = accounts(&store, "Gone", 4).await[..] else {
        unreachable!()
    };
    change(&store, ace, bee, Request).await.expect("requested");
    change(&store, bee, ace, Accept).await.expect("friends");
    change(&store, ace, cat, Request).await.expect("requested");
    change(&store, dog, ace, Request).await.expect("requested");
    change(&store, ace, dog, Block).await.expect("blocked");
    change(&store, cat, ace, Block).await.expect("blocked");
    change(&store, bee, cat, Request).await.expect("requested");
    assert!(store.delete_account(ace, None).await.expect("deleted"));
    assert_eq!(
        lists(&store, bee).await,
        [vec![], vec![], vec![cat], vec![]]
    );
    assert_eq!(
        lists(&store, cat).await,
        [vec![], vec![bee], vec![], vec![]]
    );
    assert_eq!(lists(&store, dog).await, [vec![], vec![], vec![], vec![]]);
    assert!(!store.are_friends(ace, bee).await.expect("read"));
}

async fn requests_nobody_answered_expire(store: Arc<dyn Store>) {
    let [ace, bee, cat] = accounts(&store, "Old", 3).await[..] else {
        unreachable!()
    };
    let at = |when| {
        let store = Arc::clone(&store);
        move |from, to| {
            let store = Arc::clone(&store);
            async move {
                store
                    .change_friendship(from, to, Request, LIMITS, when)
                    .await
                    .expect("no store error")
                    .expect("requested")
            }
        }
    };
    at(NOW - Duration::days(31))(ace, bee).await;
    at(NOW - Duration::days(29))(ace, cat).await;
    at(NOW - Duration::days(40))(cat, bee).await;
    let before = NOW - Duration::days(30);
    assert_eq!(
        store
            .expire_friend_requests(before, 1)
            .await
            .expect("swept"),
        1
    );
    assert_eq!(
        lists(&store, bee).await,
        [vec![], vec![ace], vec![], vec![]]
    );
    assert_eq!(
        store
            .expire_friend_requests(before, 10)
            .await
            .expect("swept"),
        1
    );
    assert_eq!(
        store
            .expire_friend_requests(before, 10)
            .await
            .expect("swept"),
        0
    );
    assert_eq!(
        lists(&store, ace).await,
        [vec![], vec![], vec![cat], vec![]]
    );
}
