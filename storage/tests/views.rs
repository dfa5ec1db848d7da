//! The account views (`Store::session_view`, the view `Store::apply_viewed` and a sign-in
//! answer), run against SQLite and PostgreSQL: each shows what the separate reads of the
//! account, its holdings and its clan show.

use std::sync::Arc;

use safezone_core::domain::{FriendCode, ItemId, PackId, UserKey};
use safezone_core::store::{
    AccountView, Applied, Change, Currency, Idempotency, KeyLookup, NewClan, NewSignIn, Refusal,
    SignedIn, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    an_account_that_holds_nothing_has_an_empty_view,
    views_show_the_holdings_and_the_clan,
    a_change_answers_the_view_it_left,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00:00 UTC);

/// Signs in the device `code` names (creating its account the first time) with a fresh signed
/// key; answers the sign-in and how the store finds the key.
async fn sign_in(store: &Arc<dyn Store>, code: &str) -> (SignedIn, KeyLookup) {
    let signed_in = store
        .sign_in(NewSignIn {
            provider: "device".to_owned(),
            identifier: format!("device-{code}"),
            name: None,
            avatar: None,
            email: None,
            friend_code_candidates: vec![FriendCode::parse(code).expect("a friend code")],
            now: NOW,
        })
        .await
        .expect("sign-in succeeds");
    let key = test_support::signed_key(&signed_in, NOW + Duration::days(30));
    (signed_in, key)
}

/// The account's view from the separate reads.
async fn read_separately(store: &Arc<dyn Store>, view: &AccountView) -> AccountView {
    let id = view.account.id;
    AccountView {
        account: store.account(id).await.expect("read").expect("exists"),
        holdings: store.holdings(id).await.expect("read"),
        clan: store.clan_of(id).await.expect("read"),
    }
}

/// The view of `key`'s session, checked against the separate reads.
async fn session_view(store: &Arc<dyn Store>, key: &KeyLookup) -> AccountView {
    let found = store
        .session_view(key, NOW)
        .await
        .expect("read")
        .expect("the key opens its account");
    let session = store.session(key, NOW).await.expect("read").expect("valid");
    assert_eq!(found.expires, session.expires);
    assert_eq!(found.view, read_separately(store, &found.view).await);
    found.view
}

fn change(view: &AccountView, steps: Vec<Step>, idempotency: Option<&str>) -> Change {
    Change {
        account: view.account.id,
        now: NOW,
        reason: "test".to_owned(),
        reference: "views".to_owned(),
        idempotency: idempotency.map(|key| Idempotency {
            key: key.to_owned(),
            fingerprint: "test:views".to_owned(),
        }),
        steps,
    }
}

/// Grants coins, two items and packs.
fn riches() -> Vec<Step> {
    vec![
        Step::Credit {
            currency: Currency::Coins,
            amount: 500,
        },
        Step::AddItem { item: ItemId(7) },
        Step::AddItem { item: ItemId(3) },
        Step::GrantPacks {
            pack: PackId(1),
            quantity: 2,
        },
    ]
}

async fn an_account_that_holds_nothing_has_an_empty_view(store: Arc<dyn Store>) {
    let (first, key) = sign_in(&store, "Ace#0001").await;
    assert!(first.first_login);
    let view = session_view(&store, &key).await;
    assert_eq!(view.account, first.account);
    assert_eq!(view.holdings, Default::default());
    assert_eq!((first.holdings, first.clan), (view.holdings, view.clan));
    let expired = store
        .session_view(&key, NOW + Duration::days(31))
        .await
        .expect("read");
    assert_eq!(expired, None, "an expired key opens no view");
    let unknown = KeyLookup::Stored(UserKey::generate().hash());
    assert_eq!(store.session_view(&unknown, NOW).await.expect("read"), None);
}

async fn views_show_the_holdings_and_the_clan(store: Arc<dyn Store>) {
    let (ace, _) = sign_in(&store, "Ace#0001").await;
    let (bee, _) = sign_in(&store, "Bee#0001").await;
    let applied = store
        .apply(change(&ace_view(&ace), riches(), None), None)
        .await
        .expect("applies");
    assert!(matches!(applied, Applied::Done(_)));
    let clan = NewClan {
        creator: ace.account.id,
        tag: "Abc".to_owned(),
        name: "The Abc".to_owned(),
        description: None,
        max_members: 3,
        now: NOW,
    };
    let created = store
        .create_clan(clan)
        .await
        .expect("no error")
        .expect("made");
    store
        .invite_to_clan(created.id, ace.account.id, bee.account.id, NOW)
        .await
        .expect("no error")
        .expect("invited");
    store
        .join_clan(created.id, bee.account.id, NOW)
        .await
        .expect("no error")
        .expect("joined");

    let (again, key) = sign_in(&store, "Ace#0001").await;
    assert!(!again.first_login);
    let view = session_view(&store, &key).await;
    assert_eq!(view.holdings.licenses.len(), 2);
    assert_eq!(view.holdings.packs.len(), 1);
    assert_eq!(view.clan.as_ref().map(|clan| clan.members.len()), Some(2));
    assert_eq!(
        (&again.account, &again.holdings, &again.clan),
        (&view.account, &view.holdings, &view.clan),
        "a sign-in answers the same view"
    );
}

async fn a_change_answers_the_view_it_left(store: Arc<dyn Store>) {
    let (ace, _) = sign_in(&store, "Ace#0001").await;
    let before = ace_view(&ace);
    let (applied, view) = store
        .apply_viewed(change(&before, riches(), Some("first")), None)
        .await
        .expect("applies");
    assert!(matches!(applied, Applied::Done(_)));
    let view = view.expect("an applied change answers its view");
    assert_eq!(view, read_separately(&store, &before).await);
    assert_eq!(view.account.coins, 500);

    let (replayed, again) = store
        .apply_viewed(change(&before, riches(), Some("first")), None)
        .await
        .expect("replays");
    assert!(matches!(replayed, Applied::Replayed(_)));
    assert_eq!(again, Some(view), "a repeat answers the view too");

    let too_dear = vec![Step::Debit {
        currency: Currency::Gems,
        amount: 1,
    }];
    let (refused, none) = store
        .apply_viewed(change(&before, too_dear, None), None)
        .await
        .expect("refuses");
    assert!(matches!(
        refused,
        Applied::Refused(Refusal::InsufficientFunds { .. })
    ));
    assert_eq!(none, None, "a refusal answers no view");
}

/// The view a sign-in answered.
fn ace_view(signed_in: &SignedIn) -> AccountView {
    AccountView {
        account: signed_in.account.clone(),
        holdings: signed_in.holdings.clone(),
        clan: signed_in.clan.clone(),
    }
}
