//! The operator's grant (`safezone_core::operator::grant`, behind the binaries' `grant`
//! subcommand): coins, gems, items and packs by friend code, through the ledger.

use safezone_core::domain::{ItemId, PackId};
use safezone_core::operator::GrantError;
use safezone_core::store::{BALANCE_MAX, Currency, Granted, PACKS_MAX, Refusal};
use safezone_tests::economy::{Grant, coins, gems, int, items, owns, pack_count, packs};
use safezone_tests::{TestApp, each_combination};

each_combination!(
    grants_show_in_the_account_and_the_ledger,
    bad_grants_are_refused_and_give_nothing,
    balances_and_packs_stop_at_their_maximum,
    stock_items_are_owned_already_and_not_granted,
);

async fn grants_show_in_the_account_and_the_ledger(app: TestApp) {
    let key = app.new_key().await;
    let granted = app
        .grant_to(
            &key,
            Grant {
                coins: 500,
                gems: 70,
                items: vec!["outfit-ranger".to_owned()],
                packs: vec![("basic-chest".to_owned(), 3)],
            },
        )
        .await;
    assert!(granted.contains(&Granted::Currency {
        currency: Currency::Coins,
        amount: 500
    }));
    assert!(granted.contains(&Granted::Currency {
        currency: Currency::Gems,
        amount: 70
    }));
    assert!(granted.contains(&Granted::Item { item: ItemId(10) }));
    assert!(granted.contains(&Granted::Packs {
        pack: PackId(1),
        quantity: 3
    }));

    let user = app.user(&key).await;
    assert_eq!((int(&user, "coins"), int(&user, "gems")), (500, 70));
    assert!(owns(&user, 10), "{user}");
    assert_eq!(pack_count(&user, 1), 3);
    let ledger = app.ledger_of(&key).await;
    let rows: Vec<(Currency, i64, &str, &str)> = ledger
        .iter()
        .map(|entry| {
            (
                entry.currency,
                entry.delta,
                entry.reason.as_str(),
                entry.reference.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (Currency::Coins, 500, "grant", "operator"),
            (Currency::Gems, 70, "grant", "operator"),
        ]
    );

    // Separate grants add up; packs of another kind get their own row.
    app.grant_to(&key, coins(25)).await;
    app.grant_to(&key, packs("rare-chest", 2)).await;
    let user = app.user(&key).await;
    assert_eq!(int(&user, "coins"), 525);
    assert_eq!((pack_count(&user, 1), pack_count(&user, 2)), (3, 2));
    app.assert_key_ledger_balanced(&key).await;
}

async fn bad_grants_are_refused_and_give_nothing(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, items(&["outfit-ranger"])).await;
    let code = app.user(&key).await["friend_code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let before = app.snapshot(&key).await;

    let unknown_item = Grant {
        coins: 100,
        items: vec!["outfit-nope".to_owned()],
        ..Grant::default()
    };
    assert!(matches!(
        app.grant_to_code(&code, &unknown_item).await,
        Err(GrantError::UnknownSku(sku)) if sku == "outfit-nope"
    ));
    let unknown_pack = Grant {
        gems: 100,
        packs: vec![("gold-chest".to_owned(), 1)],
        ..Grant::default()
    };
    assert!(matches!(
        app.grant_to_code(&code, &unknown_pack).await,
        Err(GrantError::UnknownSku(sku)) if sku == "gold-chest"
    ));
    // A pack's SKU is not an item's, nor the other way round.
    assert!(matches!(
        app.grant_to_code(&code, &items(&["basic-chest"])).await,
        Err(GrantError::UnknownSku(_))
    ));
    assert!(matches!(
        app.grant_to_code(&code, &packs("outfit-ranger", 1)).await,
        Err(GrantError::UnknownSku(_))
    ));
    assert!(matches!(
        app.grant_to_code("Nobodyhere#0000", &coins(100)).await,
        Err(GrantError::UnknownAccount(_))
    ));
    for empty in [
        Grant::default(),
        coins(-5),
        gems(-1),
        packs("basic-chest", 0),
    ] {
        assert!(matches!(
            app.grant_to_code(&code, &empty).await,
            Err(GrantError::Empty)
        ));
    }
    // An item the account owns refuses the whole grant, coins included.
    let owned = Grant {
        coins: 100,
        items: vec!["outfit-ranger".to_owned()],
        ..Grant::default()
    };
    assert!(matches!(
        app.grant_to_code(&code, &owned).await,
        Err(GrantError::Refused(Refusal::AlreadyOwned(ItemId(10))))
    ));
    assert_eq!(app.snapshot(&key).await, before);

    // The friend code's name is matched regardless of letter case.
    let shouted = code.to_uppercase();
    app.grant_to_code(&shouted, &gems(5))
        .await
        .expect("the grant by an upper-case code is made");
    assert_eq!(int(&app.user(&key).await, "gems"), 5);
    app.assert_key_ledger_balanced(&key).await;
}

async fn balances_and_packs_stop_at_their_maximum(app: TestApp) {
    app.clock.set(time::macros::datetime!(2026-12-01 12:00 UTC));
    let key = app.new_key().await;
    let code = app.user(&key).await["friend_code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for huge in [i64::MAX, BALANCE_MAX + 1] {
        assert!(matches!(
            app.grant_to_code(&code, &coins(huge)).await,
            Err(GrantError::Refused(Refusal::BalanceLimit {
                currency: Currency::Coins
            }))
        ));
        assert!(matches!(
            app.grant_to_code(&code, &packs("basic-chest", huge)).await,
            Err(GrantError::Refused(Refusal::PackLimit(PackId(1))))
        ));
    }
    app.grant_to(&key, coins(BALANCE_MAX)).await;
    app.grant_to(&key, packs("basic-chest", PACKS_MAX)).await;
    let before = app.snapshot(&key).await;
    assert_eq!(before.coins, BALANCE_MAX);
    assert!(matches!(
        app.grant_to_code(&code, &coins(1)).await,
        Err(GrantError::Refused(Refusal::BalanceLimit { .. }))
    ));
    assert!(matches!(
        app.grant_to_code(&code, &packs("basic-chest", 1)).await,
        Err(GrantError::Refused(Refusal::PackLimit(_)))
    ));
    // Over HTTP: a claim past the maximum balance, a purchase past the maximum of packs.
    app.claim(&key, "gift").await.error(409, "balance_limit");
    app.buy(&key, "packId=1&quantity=1")
        .await
        .error(409, "pack_limit");
    assert_eq!(app.snapshot(&key).await, before);
    app.assert_key_ledger_balanced(&key).await;
}

async fn stock_items_are_owned_already_and_not_granted(app: TestApp) {
    // `outfit-recruit` (item 1) is a stock item: every player owns it. A grant of an item the
    // account owns is refused (`Grant::items`: "each refused if the account owns it already").
    let key = app.new_key().await;
    let code = app.user(&key).await["friend_code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let before = app.snapshot(&key).await;
    let result = app.grant_to_code(&code, &items(&["outfit-recruit"])).await;
    assert!(
        matches!(
            result,
            Err(GrantError::Refused(Refusal::AlreadyOwned(ItemId(1))))
        ),
        "granting a stock item: {result:?}"
    );
    assert_eq!(app.snapshot(&key).await, before);
}
