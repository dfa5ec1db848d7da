//! Finding and listing players (`PlayerDirectory::players`), written once and run against
//! SQLite and PostgreSQL, each test on its own fresh database: friend-code and display-name
//! starts in any letter case, the newest, banned and last signed-in players, and pages that
//! together visit every player exactly once.

use std::collections::BTreeSet;
use std::sync::Arc;

use safezone_core::store::{
    AccountId, ActivityBatch, PlayerCursor, PlayerListing, PlayerPage, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_friend_code_is_found_by_its_start_in_any_letter_case,
    a_display_name_is_found_by_its_start_in_any_letter_case,
    pages_visit_every_player_exactly_once,
    the_banned_are_listed_newest_first,
    players_are_listed_by_their_last_sign_in,
    a_cursor_of_another_listing_is_refused,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

/// The friend codes of one page of `listing`, the first (at most `limit`).
async fn codes(store: &Arc<dyn Store>, listing: PlayerListing, limit: u32) -> Vec<String> {
    let page = store
        .players(&listing, None, limit)
        .await
        .expect("a page is read");
    page.players
        .iter()
        .map(|player| player.friend_code.to_string())
        .collect()
}

/// Every page of `listing`, `limit` players each, following the cursors to the end.
async fn every_page(
    store: &Arc<dyn Store>,
    listing: &PlayerListing,
    limit: u32,
) -> Vec<PlayerPage> {
    let mut pages = Vec::new();
    let mut after: Option<PlayerCursor> = None;
    loop {
        let page = store
            .players(listing, after.as_ref(), limit)
            .await
            .expect("a page is read");
        assert!(page.players.len() <= limit as usize);
        after = page.next.clone();
        // A cursor goes through its text form, as an operator's URL carries it.
        after = after
            .map(|cursor| PlayerCursor::parse(&cursor.to_string()).expect("the cursor reads back"));
        let last = after.is_none();
        pages.push(page);
        if last {
            return pages;
        }
        assert!(pages.len() < 100, "the pages end");
    }
}

async fn a_friend_code_is_found_by_its_start_in_any_letter_case(store: Arc<dyn Store>) {
    for code in [
        "Sneeza#0001",
        "sneezy#0002",
        "SNEEZE#0100",
        "SNEEZE#0042",
        "Snow#0001",
        "Other#0001",
    ] {
        account(&store, code).await;
    }
    let by_code = |text: &str| PlayerListing::FriendCode(text.to_owned());
    assert_eq!(
        codes(&store, by_code("snee"), 100).await,
        ["Sneeza#0001", "SNEEZE#0042", "SNEEZE#0100", "sneezy#0002"],
        "by lowered name, then digits"
    );
    assert_eq!(codes(&store, by_code("SnEeZ"), 100).await.len(), 4);
    assert_eq!(
        codes(&store, by_code("sneeza#0"), 100).await,
        ["Sneeza#0001"]
    );
    assert_eq!(
        codes(&store, by_code("sneeze#01"), 100).await,
        ["SNEEZE#0100"]
    );
    assert_eq!(codes(&store, by_code("Sneeze#"), 100).await.len(), 2);
    assert_eq!(
        codes(&store, by_code("SNEEZE#0042"), 100).await,
        ["SNEEZE#0042"]
    );
    assert!(codes(&store, by_code("sneeze#02"), 100).await.is_empty());
    assert!(
        codes(&store, by_code("snee#0001"), 100).await.is_empty(),
        "a whole name"
    );
    assert!(
        codes(&store, by_code("sn%"), 100).await.is_empty(),
        "no pattern"
    );
    assert_eq!(codes(&store, by_code(""), 100).await.len(), 6);
    let found = store
        .players(&by_code("sneeza"), None, 100)
        .await
        .expect("found");
    let player = &found.players[0];
    assert_eq!(player.level, 1);
    assert_eq!((player.coins, player.gems, player.banned), (0, 0, false));
    assert_eq!(player.created, NOW);
    assert_eq!(player.name.as_deref(), Some("Sneeza"));
    assert_eq!(player.last_sign_in, None, "the rollup has read nothing yet");
    assert!(found.next.is_none());
}

async fn a_display_name_is_found_by_its_start_in_any_letter_case(store: Arc<dyn Store>) {
    // The display name is the code's name (see `new_account`).
    for code in [
        "Marta#0001",
        "MARTIN#0002",
        "martina#0003",
        "Mart#0004",
        "Mar#0005",
    ] {
        account(&store, code).await;
    }
    let by_name = |text: &str| PlayerListing::Name(text.to_owned());
    assert_eq!(
        codes(&store, by_name("MARt"), 100).await,
        ["Mart#0004", "Marta#0001", "MARTIN#0002", "martina#0003"]
    );
    assert_eq!(codes(&store, by_name("martin"), 100).await.len(), 2);
    assert!(codes(&store, by_name("martinez"), 100).await.is_empty());
    assert!(
        codes(&store, by_name("m%"), 100).await.is_empty(),
        "no pattern"
    );
    assert_eq!(codes(&store, by_name(""), 100).await.len(), 5);
}

async fn pages_visit_every_player_exactly_once(store: Arc<dyn Store>) {
    let mut ids = Vec::new();
    for number in 0..23 {
        // Names repeat, in two letter cases, so that digits and ids break ties.
        let name = if number % 2 == 0 { "Pager" } else { "pager" };
        let code = format!("{name}{}#{:04}", number % 3, number);
        ids.push(account(&store, &code).await);
    }
    for (listing, limit) in [
        (PlayerListing::Newest, 5),
        (PlayerListing::FriendCode("PAG".to_owned()), 4),
        (PlayerListing::FriendCode("pager1#".to_owned()), 2),
        (PlayerListing::Name("page".to_owned()), 6),
        (PlayerListing::Newest, 23),
        (PlayerListing::Newest, 1),
    ] {
        let pages = every_page(&store, &listing, limit).await;
        let seen: Vec<AccountId> = pages
            .iter()
            .flat_map(|page| page.players.iter().map(|player| player.id))
            .collect();
        let distinct: BTreeSet<AccountId> = seen.iter().copied().collect();
        assert_eq!(distinct.len(), seen.len(), "{listing:?}: each player once");
        let expected = match &listing {
            PlayerListing::FriendCode(text) if text.contains('#') => {
                (0..ids.len()).filter(|number| number % 3 == 1).count()
            }
            _ => ids.len(),
        };
        assert_eq!(seen.len(), expected, "{listing:?} by {limit}: every player");
        let full_pages = pages
            .iter()
            .filter(|page| page.players.len() == limit as usize);
        assert!(
            full_pages.count() >= pages.len() - 1,
            "only the last page is short"
        );
        if listing == PlayerListing::Newest {
            let mut newest_first = ids.clone();
            newest_first.reverse();
            assert_eq!(seen, newest_first);
        }
        if let PlayerListing::FriendCode(_) = listing {
            let keys: Vec<(String, u16)> = pages
                .iter()
                .flat_map(|page| &page.players)
                .map(|player| {
                    let code = &player.friend_code;
                    (code.name().to_lowercase(), code.digits())
                })
                .collect();
            assert!(
                keys.windows(2).all(|pair| pair[0] < pair[1]),
                "in code order"
            );
        }
    }
}

async fn the_banned_are_listed_newest_first(store: Arc<dyn Store>) {
    let mut banned = Vec::new();
    for number in 0..7 {
        let id = account(&store, &format!("Ban#{number:04}")).await;
        if number % 2 == 1 {
            assert!(store.set_banned(id, true, None).await.expect("banned"));
            banned.push(id);
        }
    }
    banned.reverse();
    let pages = every_page(&store, &PlayerListing::Banned, 2).await;
    let seen: Vec<AccountId> = pages
        .iter()
        .flat_map(|page| page.players.iter().map(|player| player.id))
        .collect();
    assert_eq!(seen, banned);
    assert!(
        pages
            .iter()
            .flat_map(|page| &page.players)
            .all(|player| player.banned)
    );
    store
        .set_banned(banned[0], false, None)
        .await
        .expect("unbanned");
    let listed = store
        .players(&PlayerListing::Banned, None, 100)
        .await
        .expect("listed");
    assert_eq!(listed.players.len(), banned.len() - 1);
}

async fn players_are_listed_by_their_last_sign_in(store: Arc<dyn Store>) {
    let mut ids = Vec::new();
    for number in 0..5 {
        ids.push(account(&store, &format!("Seen#{number:04}")).await);
    }
    let never = account(&store, "Never#0001").await;
    // Signed in an hour apart, the first account last; two at the same time.
    let at = |hours: i64| NOW + Duration::hours(hours);
    let sign_ins = vec![
        (ids[0], at(10)),
        (ids[1], at(1)),
        (ids[2], at(2)),
        (ids[3], at(2)),
        (ids[4], at(3)),
    ];
    let batch = ActivityBatch {
        sign_ins,
        ..ActivityBatch::default()
    };
    let from = store.activity_cursor("test", NOW).await.expect("a cursor");
    assert!(
        store
            .apply_activity("test", from, from + 1, &batch, NOW)
            .await
            .expect("applied")
    );
    // An earlier sign-in read later keeps the later one.
    let late = ActivityBatch {
        sign_ins: vec![(ids[0], at(0))],
        ..ActivityBatch::default()
    };
    assert!(
        store
            .apply_activity("test", from + 1, from + 2, &late, NOW)
            .await
            .expect("applied")
    );
    let pages = every_page(&store, &PlayerListing::LastSignIn, 2).await;
    let seen: Vec<(AccountId, Option<OffsetDateTime>)> = pages
        .iter()
        .flat_map(|page| {
            page.players
                .iter()
                .map(|player| (player.id, player.last_sign_in))
        })
        .collect();
    assert_eq!(
        seen,
        [
            (ids[0], Some(at(10))),
            (ids[4], Some(at(3))),
            (ids[3], Some(at(2))),
            (ids[2], Some(at(2))),
            (ids[1], Some(at(1))),
        ]
    );
    assert!(seen.iter().all(|(id, _)| *id != never));
    let newest = store
        .players(&PlayerListing::Newest, None, 100)
        .await
        .expect("listed");
    let first = newest.players.iter().find(|player| player.id == ids[0]);
    assert_eq!(first.and_then(|player| player.last_sign_in), Some(at(10)));
    // A deleted account leaves the listing.
    assert!(store.delete_account(ids[4], None).await.expect("deleted"));
    let listed = store
        .players(&PlayerListing::LastSignIn, None, 100)
        .await
        .expect("listed");
    assert_eq!(listed.players.len(), 4);
}

async fn a_cursor_of_another_listing_is_refused(store: Arc<dyn Store>) {
    account(&store, "Cursor#0001").await;
    let cursor = PlayerCursor::Id(AccountId(1));
    assert!(!cursor.fits(&PlayerListing::LastSignIn));
    let refused = store
        .players(&PlayerListing::LastSignIn, Some(&cursor), 10)
        .await;
    assert!(refused.is_err());
}
