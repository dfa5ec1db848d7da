//! The economy's store contract (`Store::apply` and the holdings it changes), written once and
//! run against SQLite and PostgreSQL, each test on its own fresh database.

use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::domain::{IapId, ItemId, PackId};
use safezone_core::store::{
    AccountId, Applied, BALANCE_MAX, Change, Currency, Granted, Idempotency, Refusal, Rejection,
    RejectionCode, RejectionStatus, Step, Store,
};
use safezone_storage::test_support;
use time::OffsetDateTime;
use time::macros::datetime;

safezone_storage::store_conformance!(
    credits_and_debits_write_the_ledger,
    insufficient_funds_change_nothing,
    credits_stop_at_the_balance_maximum,
    items_are_owned_once,
    owned_items_become_duplicate_coins,
    packs_are_granted_and_opened,
    claims_take_the_first_free_key,
    idempotency_keys_replay_the_first_grants,
    renames_keep_digits_when_free,
    renames_refuse_taken_and_same_names,
    premium_needs_a_premium_chat_link,
    unknown_accounts_are_refused,
    concurrent_debits_never_overdraw,
    concurrent_opens_consume_each_pack_once,
    concurrent_repeats_of_one_key_apply_once,
    purchases_are_recorded_once_per_store_transaction,
    windows_are_checked_at_the_change_time,
    a_change_racing_the_accounts_deletion_applies_or_is_refused,
    a_chat_link_racing_the_accounts_deletion_links_or_is_refused,
    concurrent_purchases_of_many_accounts_apply_each_in_full_or_not_at_all,
    concurrent_purchases_of_one_item_give_it_once,
    purchases_beside_a_banned_and_a_deleted_account_are_answered_each_their_own,
    concurrent_keyed_purchases_apply_once_per_key,
    a_studios_limit_lets_as_many_through_as_it_has_keys,
    a_studios_rejection_writes_nothing_and_lets_a_repeat_replay,
);

/// How many times each race with an account's deletion is run.
const DELETION_TRIES: u16 = 16;

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// A new account with friend code `code`.
async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

fn change(account: AccountId, steps: Vec<Step>) -> Change {
    Change {
        account,
        now: NOW,
        reason: "test".to_owned(),
        reference: "case".to_owned(),
        idempotency: None,
        steps,
    }
}

fn credit(currency: Currency, amount: i64) -> Step {
    Step::Credit { currency, amount }
}

fn debit(currency: Currency, amount: i64) -> Step {
    Step::Debit { currency, amount }
}

async fn apply(store: &Arc<dyn Store>, change: Change) -> Applied {
    store.apply(change, None).await.expect("the change runs")
}

/// Applies `change` from `times` tasks at once; answers every outcome and how many were done.
async fn apply_concurrently(
    store: &Arc<dyn Store>,
    times: usize,
    change: Change,
) -> (Vec<Applied>, usize) {
    let attempts = (0..times).map(|_| {
        let store = Arc::clone(store);
        let change = change.clone();
        tokio::spawn(async move { store.apply(change, None).await.expect("the change runs") })
    });
    let results: Vec<Applied> = join_all(attempts)
        .await
        .into_iter()
        .map(|joined| joined.expect("the task ends"))
        .collect();
    let done = results
        .iter()
        .filter(|applied| matches!(applied, Applied::Done(_)))
        .count();
    (results, done)
}

/// The account's coins and gems.
async fn balances(store: &Arc<dyn Store>, account: AccountId) -> (i64, i64) {
    let account = store
        .account(account)
        .await
        .expect("account lookup succeeds")
        .expect("the account exists");
    (account.coins, account.gems)
}

/// Checks that each balance is the sum of its ledger deltas and each entry's balance is the
/// running sum; answers the number of ledger entries.
async fn assert_ledger_balanced(store: &Arc<dyn Store>, account: AccountId) -> usize {
    let ledger = store.ledger(account).await.expect("the ledger reads");
    let (mut coins, mut gems) = (0, 0);
    for entry in &ledger {
        let running = match entry.currency {
            Currency::Coins => &mut coins,
            Currency::Gems => &mut gems,
        };
        *running += entry.delta;
        assert_eq!(entry.balance_after, *running, "{entry:?}");
    }
    assert_eq!(balances(store, account).await, (coins, gems));
    ledger.len()
}

async fn pack_count(store: &Arc<dyn Store>, account: AccountId, pack: PackId) -> i64 {
    let holdings = store.holdings(account).await.expect("holdings read");
    holdings
        .packs
        .iter()
        .find(|stock| stock.pack == pack)
        .map_or(0, |stock| stock.quantity)
}

async fn credits_and_debits_write_the_ledger(store: Arc<dyn Store>) {
    let id = account(&store, "Ledger#0001").await;
    let done = apply(
        &store,
        change(
            id,
            vec![credit(Currency::Coins, 500), credit(Currency::Gems, 40)],
        ),
    )
    .await;
    assert_eq!(
        done,
        Applied::Done(vec![
            Granted::Currency {
                currency: Currency::Coins,
                amount: 500
            },
            Granted::Currency {
                currency: Currency::Gems,
                amount: 40
            },
        ])
    );
    let spent = apply(&store, change(id, vec![debit(Currency::Coins, 120)])).await;
    assert_eq!(spent, Applied::Done(Vec::new()), "debits grant nothing");
    assert_eq!(balances(&store, id).await, (380, 40));
    let ledger = store.ledger(id).await.expect("the ledger reads");
    let deltas: Vec<(Currency, i64, i64)> = ledger
        .iter()
        .map(|entry| (entry.currency, entry.delta, entry.balance_after))
        .collect();
    assert_eq!(
        deltas,
        [
            (Currency::Coins, 500, 500),
            (Currency::Gems, 40, 40),
            (Currency::Coins, -120, 380)
        ]
    );
    assert!(ledger.iter().all(|entry| entry.reason == "test"
        && entry.reference == "case"
        && entry.created == NOW
        && entry.account == id));
}

async fn insufficient_funds_change_nothing(store: Arc<dyn Store>) {
    let id = account(&store, "Poor#0001").await;
    apply(&store, change(id, vec![credit(Currency::Gems, 30)])).await;
    let refused = apply(
        &store,
        change(
            id,
            vec![
                Step::AddItem { item: ItemId(7) },
                debit(Currency::Gems, 20),
                debit(Currency::Gems, 20),
            ],
        ),
    )
    .await;
    assert_eq!(
        refused,
        Applied::Refused(Refusal::InsufficientFunds {
            currency: Currency::Gems,
            needed: 20,
            balance: 10
        }),
        "the balance reported is the one the failing step saw"
    );
    assert_eq!(
        balances(&store, id).await,
        (0, 30),
        "the first debit is rolled back"
    );
    let holdings = store.holdings(id).await.expect("holdings read");
    assert!(holdings.licenses.is_empty(), "the item is rolled back");
    assert_eq!(assert_ledger_balanced(&store, id).await, 1);
}

async fn credits_stop_at_the_balance_maximum(store: Arc<dyn Store>) {
    let id = account(&store, "Rich#0001").await;
    apply(
        &store,
        change(id, vec![credit(Currency::Coins, BALANCE_MAX)]),
    )
    .await;
    let refused = apply(&store, change(id, vec![credit(Currency::Coins, 1)])).await;
    assert_eq!(
        refused,
        Applied::Refused(Refusal::BalanceLimit {
            currency: Currency::Coins
        })
    );
    assert_eq!(balances(&store, id).await, (BALANCE_MAX, 0));
}

async fn items_are_owned_once(store: Arc<dyn Store>) {
    let id = account(&store, "Owner#0001").await;
    let item = ItemId(11);
    let first = apply(&store, change(id, vec![Step::AddItem { item }])).await;
    assert_eq!(first, Applied::Done(vec![Granted::Item { item }]));
    let again = apply(&store, change(id, vec![Step::AddItem { item }])).await;
    assert_eq!(again, Applied::Refused(Refusal::AlreadyOwned(item)));
    let holdings = store.holdings(id).await.expect("holdings read");
    assert_eq!(holdings.licenses.len(), 1);
    assert_eq!(
        (holdings.licenses[0].item, holdings.licenses[0].quantity),
        (item, 1)
    );
}

async fn owned_items_become_duplicate_coins(store: Arc<dyn Store>) {
    let id = account(&store, "Dupe#0001").await;
    let grant = |item, owned_by_everyone| Step::GrantItem {
        item: ItemId(item),
        duplicate_coins: 50,
        owned_by_everyone,
    };
    let done = apply(
        &store,
        change(id, vec![grant(3, false), grant(3, false), grant(1, true)]),
    )
    .await;
    assert_eq!(
        done,
        Applied::Done(vec![
            Granted::Item { item: ItemId(3) },
            Granted::DuplicateItem {
                item: ItemId(3),
                coins: 50
            },
            Granted::DuplicateItem {
                item: ItemId(1),
                coins: 50
            },
        ])
    );
    assert_eq!(balances(&store, id).await, (100, 0));
    assert_eq!(assert_ledger_balanced(&store, id).await, 2);
}

async fn packs_are_granted_and_opened(store: Arc<dyn Store>) {
    let id = account(&store, "Packer#0001").await;
    let pack = PackId(2);
    apply(
        &store,
        change(id, vec![Step::GrantPacks { pack, quantity: 2 }]),
    )
    .await;
    assert_eq!(pack_count(&store, id, pack).await, 2);
    for left in [1, 0] {
        let opened = apply(&store, change(id, vec![Step::OpenPack { pack }])).await;
        assert_eq!(opened, Applied::Done(Vec::new()));
        assert_eq!(pack_count(&store, id, pack).await, left);
    }
    let none = apply(&store, change(id, vec![Step::OpenPack { pack }])).await;
    assert_eq!(none, Applied::Refused(Refusal::NoPackToOpen(pack)));
    let holdings = store.holdings(id).await.expect("holdings read");
    assert!(
        holdings.packs.is_empty(),
        "kinds with none left are not listed"
    );
    let too_many = apply(
        &store,
        change(
            id,
            vec![Step::GrantPacks {
                pack,
                quantity: safezone_core::store::PACKS_MAX + 1,
            }],
        ),
    )
    .await;
    assert_eq!(too_many, Applied::Refused(Refusal::PackLimit(pack)));
}

async fn claims_take_the_first_free_key(store: Arc<dyn Store>) {
    let id = account(&store, "Claimer#0001").await;
    let keys = vec!["daily/1".to_owned(), "daily/2".to_owned()];
    let claim = || change(id, vec![Step::Claim { keys: keys.clone() }]);
    assert_eq!(apply(&store, claim()).await, Applied::Done(Vec::new()));
    let claimed = store.claimed(id, &keys).await.expect("claims read");
    assert_eq!(claimed, ["daily/1"]);
    assert_eq!(apply(&store, claim()).await, Applied::Done(Vec::new()));
    assert_eq!(
        apply(&store, claim()).await,
        Applied::Refused(Refusal::AlreadyClaimed)
    );
    let mut claimed = store.claimed(id, &keys).await.expect("claims read");
    claimed.sort();
    assert_eq!(claimed, keys);
    let other = account(&store, "Other#0001").await;
    assert!(
        store
            .claimed(other, &keys)
            .await
            .expect("claims read")
            .is_empty()
    );
}

async fn idempotency_keys_replay_the_first_grants(store: Arc<dyn Store>) {
    let id = account(&store, "Retry#0001").await;
    let keyed = |fingerprint: &str| Change {
        idempotency: Some(Idempotency {
            key: "k-1".to_owned(),
            fingerprint: fingerprint.to_owned(),
        }),
        ..change(id, vec![credit(Currency::Coins, 10)])
    };
    let grants = vec![Granted::Currency {
        currency: Currency::Coins,
        amount: 10,
    }];
    assert_eq!(
        apply(&store, keyed("a")).await,
        Applied::Done(grants.clone())
    );
    assert_eq!(apply(&store, keyed("a")).await, Applied::Replayed(grants));
    assert_eq!(
        apply(&store, keyed("b")).await,
        Applied::Refused(Refusal::IdempotencyKeyReused)
    );
    assert_eq!(balances(&store, id).await, (10, 0));
    let other = account(&store, "Retry#0002").await;
    let theirs = Change {
        account: other,
        ..keyed("a")
    };
    assert!(
        matches!(apply(&store, theirs).await, Applied::Done(_)),
        "keys are per account"
    );
}

async fn renames_keep_digits_when_free(store: Arc<dyn Store>) {
    let id = account(&store, "Old#0042").await;
    account(&store, "Taken#0042").await;
    let rename = |name: &str| {
        change(
            id,
            vec![Step::ChangeFriendCode {
                name: name.to_owned(),
                digits: vec![42, 7, 8],
            }],
        )
    };
    assert_eq!(
        apply(&store, rename("Fresh")).await,
        Applied::Done(Vec::new())
    );
    let code = |store: Arc<dyn Store>| async move {
        store
            .account(id)
            .await
            .expect("account lookup succeeds")
            .expect("the account exists")
            .friend_code
            .to_string()
    };
    assert_eq!(code(Arc::clone(&store)).await, "Fresh#0042");
    assert_eq!(
        apply(&store, rename("taken")).await,
        Applied::Done(Vec::new())
    );
    assert_eq!(
        code(Arc::clone(&store)).await,
        "taken#0007",
        "`Taken#0042` holds the digits, in any letter case"
    );
    assert_eq!(
        apply(&store, rename("TAKEN")).await,
        Applied::Done(Vec::new())
    );
    assert_eq!(
        code(Arc::clone(&store)).await,
        "TAKEN#0007",
        "a case change keeps the account's own digits"
    );
}

async fn renames_refuse_taken_and_same_names(store: Arc<dyn Store>) {
    let id = account(&store, "Mine#0001").await;
    account(&store, "Full#0001").await;
    account(&store, "Full#0002").await;
    let rename = |name: &str| {
        change(
            id,
            vec![
                credit(Currency::Gems, 5),
                Step::ChangeFriendCode {
                    name: name.to_owned(),
                    digits: vec![1, 2],
                },
            ],
        )
    };
    assert_eq!(
        apply(&store, rename("Full")).await,
        Applied::Refused(Refusal::FriendCodeTaken)
    );
    assert_eq!(
        apply(&store, rename("Mine")).await,
        Applied::Refused(Refusal::SameFriendCodeName)
    );
    assert_eq!(
        balances(&store, id).await,
        (0, 0),
        "refused renames change nothing"
    );
}

async fn premium_needs_a_premium_chat_link(store: Arc<dyn Store>) {
    let id = account(&store, "Fan#0001").await;
    let premium = || change(id, vec![Step::RequirePremium]);
    assert_eq!(
        apply(&store, premium()).await,
        Applied::Refused(Refusal::NoChatLink)
    );
    assert_eq!(store.chat_premium(id).await.expect("reads"), None);
    store
        .link_chat(id, "chat-user-1", false, NOW)
        .await
        .expect("links");
    assert_eq!(
        apply(&store, premium()).await,
        Applied::Refused(Refusal::NotPremium)
    );
    store
        .link_chat(id, "chat-user-1", true, NOW)
        .await
        .expect("links again");
    assert_eq!(store.chat_premium(id).await.expect("reads"), Some(true));
    assert_eq!(apply(&store, premium()).await, Applied::Done(Vec::new()));
    let unknown = AccountId(999_999);
    let linked = store.link_chat(unknown, "chat-user-2", true, NOW).await;
    assert!(!linked.expect("no store error"), "no account, no link");
}

async fn unknown_accounts_are_refused(store: Arc<dyn Store>) {
    let refused = apply(
        &store,
        change(AccountId(999_999), vec![credit(Currency::Coins, 1)]),
    )
    .await;
    assert_eq!(refused, Applied::Refused(Refusal::NoAccount));
}

async fn concurrent_debits_never_overdraw(store: Arc<dyn Store>) {
    let id = account(&store, "Spender#0001").await;
    apply(&store, change(id, vec![credit(Currency::Gems, 50)])).await;
    let (results, done) = apply_concurrently(
        &store,
        40,
        change(
            id,
            vec![
                debit(Currency::Gems, 10),
                Step::GrantPacks {
                    pack: PackId(1),
                    quantity: 1,
                },
            ],
        ),
    )
    .await;
    assert_eq!(done, 5, "{results:?}");
    assert_eq!(balances(&store, id).await, (0, 0));
    assert_eq!(pack_count(&store, id, PackId(1)).await, 5);
    assert_eq!(assert_ledger_balanced(&store, id).await, 6);
}

async fn concurrent_opens_consume_each_pack_once(store: Arc<dyn Store>) {
    let id = account(&store, "Opener#0001").await;
    let pack = PackId(3);
    apply(
        &store,
        change(id, vec![Step::GrantPacks { pack, quantity: 3 }]),
    )
    .await;
    let (results, done) = apply_concurrently(
        &store,
        20,
        change(
            id,
            vec![
                Step::OpenPack { pack },
                Step::GrantItem {
                    item: ItemId(5),
                    duplicate_coins: 10,
                    owned_by_everyone: false,
                },
            ],
        ),
    )
    .await;
    assert_eq!(done, 3, "{results:?}");
    assert_eq!(pack_count(&store, id, pack).await, 0);
    assert_eq!(
        balances(&store, id).await,
        (20, 0),
        "one item, two duplicates"
    );
    assert_ledger_balanced(&store, id).await;
}

async fn concurrent_repeats_of_one_key_apply_once(store: Arc<dyn Store>) {
    let id = account(&store, "Clicker#0001").await;
    let (results, done) = apply_concurrently(
        &store,
        20,
        Change {
            idempotency: Some(Idempotency {
                key: "double-click".to_owned(),
                fingerprint: "claim:first".to_owned(),
            }),
            ..change(id, vec![credit(Currency::Coins, 100)])
        },
    )
    .await;
    assert_eq!(done, 1, "{results:?}");
    assert!(results.iter().all(|applied| match applied {
        Applied::Done(granted) | Applied::Replayed(granted) => granted.len() == 1,
        Applied::Refused(_) => false,
    }));
    assert_eq!(balances(&store, id).await, (100, 0));
    assert_eq!(assert_ledger_balanced(&store, id).await, 1);
}

async fn purchases_are_recorded_once_per_store_transaction(store: Arc<dyn Store>) {
    let buyer = account(&store, "Buyer#0001").await;
    let other = account(&store, "Buyer#0002").await;
    let purchase = |account, store_name: &str, subscription| {
        change(
            account,
            vec![
                Step::RecordPurchase {
                    store: store_name.to_owned(),
                    transaction_id: "t-1".to_owned(),
                    iap: IapId(4),
                    cost_cents: 499,
                    subscription,
                },
                credit(Currency::Gems, 500),
            ],
        )
    };
    let first = apply(&store, purchase(buyer, "engine", None)).await;
    assert!(matches!(first, Applied::Done(_)), "{first:?}");
    for replay in [
        purchase(buyer, "engine", None),
        purchase(other, "engine", None),
    ] {
        assert_eq!(
            apply(&store, replay).await,
            Applied::Refused(Refusal::ReceiptAlreadyUsed),
            "a store transaction counts once, whoever sends it"
        );
    }
    let expires = NOW + time::Duration::days(30);
    let other_store = apply(&store, purchase(buyer, "chat", Some(Some(expires)))).await;
    assert!(
        matches!(other_store, Applied::Done(_)),
        "transaction ids are per store"
    );
    let holdings = store.holdings(buyer).await.expect("holdings read");
    let bought: Vec<(IapId, i64)> = holdings
        .iaps
        .iter()
        .map(|iap| (iap.iap, iap.cost_cents))
        .collect();
    assert_eq!(bought, [(IapId(4), 499), (IapId(4), 499)]);
    assert_eq!(holdings.subscriptions.len(), 1);
    assert_eq!(holdings.subscriptions[0].expires, Some(expires));
    assert_eq!(balances(&store, buyer).await, (0, 1000));
    assert_eq!(balances(&store, other).await, (0, 0));
}

async fn windows_are_checked_at_the_change_time(store: Arc<dyn Store>) {
    let id = account(&store, "Timely#0001").await;
    let window = |starts, ends| {
        change(
            id,
            vec![
                Step::RequireWindow { starts, ends },
                credit(Currency::Coins, 1),
            ],
        )
    };
    let hour = time::Duration::hours(1);
    assert!(matches!(
        apply(&store, window(NOW - hour, NOW + hour)).await,
        Applied::Done(_)
    ));
    assert!(
        matches!(
            apply(&store, window(NOW, NOW + hour)).await,
            Applied::Done(_)
        ),
        "the start is inside"
    );
    for (starts, ends) in [(NOW - hour, NOW), (NOW + hour, NOW + hour + hour)] {
        assert_eq!(
            apply(&store, window(starts, ends)).await,
            Applied::Refused(Refusal::OutsideWindow { starts, ends })
        );
    }
    assert_eq!(balances(&store, id).await, (2, 0));
}

/// A purchase with an idempotency key runs while the account is deleted: it is applied (and
/// everything it wrote goes with the account) or refused as for a missing account, never a
/// store error; nothing of the account is left.
async fn a_change_racing_the_accounts_deletion_applies_or_is_refused(store: Arc<dyn Store>) {
    for n in 0..DELETION_TRIES {
        let id = account(&store, &format!("Buyer#{n:04}")).await;
        apply(&store, change(id, vec![credit(Currency::Coins, 100)])).await;
        let purchase = Change {
            idempotency: Some(Idempotency {
                key: format!("buy-{n}"),
                fingerprint: "buy".to_owned(),
            }),
            ..change(
                id,
                vec![
                    debit(Currency::Coins, 10),
                    Step::AddItem { item: ItemId(7) },
                    Step::Claim {
                        keys: vec!["daily".to_owned()],
                    },
                ],
            )
        };
        let buying = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.apply(purchase, None).await })
        };
        let deleting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.delete_account(id, None).await })
        };
        let bought = buying.await.expect("task").expect("the change runs");
        assert!(deleting.await.expect("task").expect("deletes"));
        assert!(
            matches!(
                bought,
                Applied::Done(_) | Applied::Refused(Refusal::NoAccount)
            ),
            "unexpected answer {bought:?}"
        );
        assert!(store.account(id).await.expect("reads").is_none());
        assert!(store.ledger(id).await.expect("reads").is_empty());
    }
}

/// A chat sign-in links the chat user while the account is deleted: the link is made (and goes
/// with the account) or answered as without the account, never a store error; either way no
/// link is left.
async fn a_chat_link_racing_the_accounts_deletion_links_or_is_refused(store: Arc<dyn Store>) {
    for n in 0..DELETION_TRIES {
        let id = account(&store, &format!("Fan#{n:04}")).await;
        let linking = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.link_chat(id, &format!("chat-{n}"), true, NOW).await })
        };
        let deleting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.delete_account(id, None).await })
        };
        linking.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("deletes"));
        assert_eq!(store.chat_premium(id).await.expect("reads"), None);
        // No link is left behind: the chat user links to a fresh account.
        let fresh = account(&store, &format!("Fresh#{n:04}")).await;
        let relinked = store
            .link_chat(fresh, &format!("chat-{n}"), true, NOW)
            .await;
        assert!(relinked.expect("no store error"));
    }
}

/// A purchase of one pack for `price` coins, as the shop plans it.
fn pack_purchase(account: AccountId, price: i64) -> Change {
    Change {
        reason: "buy".to_owned(),
        reference: "pack:1x1".to_owned(),
        ..change(
            account,
            vec![
                debit(Currency::Coins, price),
                Step::GrantPacks {
                    pack: PackId(1),
                    quantity: 1,
                },
            ],
        )
    }
}

/// Applies every change at once, each from its own task, answering what each applied and
/// the view it answered.
async fn apply_all_viewed(
    store: &Arc<dyn Store>,
    changes: Vec<Change>,
) -> Vec<(Applied, Option<safezone_core::store::AccountView>)> {
    let tries = changes.into_iter().map(|change| {
        let store = Arc::clone(store);
        tokio::spawn(async move { store.apply_viewed(change, None).await.expect("it runs") })
    });
    join_all(tries)
        .await
        .into_iter()
        .map(|joined| joined.expect("the task ends"))
        .collect()
}

/// Many accounts buying at once (purchases are applied in batches): with 100 coins and three
/// purchases of 40 each, every account gets exactly two, each answered with the view its own
/// purchase left, and its ledger and packs say the same.
async fn concurrent_purchases_of_many_accounts_apply_each_in_full_or_not_at_all(
    store: Arc<dyn Store>,
) {
    let mut accounts = Vec::new();
    for n in 0..24 {
        let id = account(&store, &format!("Buyer#{:04}", n + 1)).await;
        apply(&store, change(id, vec![credit(Currency::Coins, 100)])).await;
        accounts.push(id);
    }
    let purchases = accounts
        .iter()
        .flat_map(|id| (0..3).map(|_| pack_purchase(*id, 40)))
        .collect();
    let answers = apply_all_viewed(&store, purchases).await;
    for (at, id) in accounts.iter().enumerate() {
        let own = &answers[at * 3..at * 3 + 3];
        let mut seen: Vec<i64> = own
            .iter()
            .filter_map(|(applied, view)| match applied {
                Applied::Done(granted) => {
                    assert_eq!(
                        granted,
                        &vec![Granted::Packs {
                            pack: PackId(1),
                            quantity: 1
                        }]
                    );
                    let view = view.as_ref().expect("a purchase answers its view");
                    assert_eq!(view.account.id, *id);
                    let packs = view.holdings.packs.iter().map(|p| p.quantity).sum::<i64>();
                    assert_eq!(packs, (100 - view.account.coins) / 40, "{view:?}");
                    Some(view.account.coins)
                }
                Applied::Refused(refusal) => {
                    assert_eq!(
                        refusal,
                        &Refusal::InsufficientFunds {
                            currency: Currency::Coins,
                            needed: 40,
                            balance: 20
                        }
                    );
                    None
                }
                Applied::Replayed(_) => panic!("no key was given: {applied:?}"),
            })
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, vec![20, 60], "{own:?}");
        assert_eq!(balances(&store, *id).await, (20, 0));
        assert_eq!(pack_count(&store, *id, PackId(1)).await, 2);
        assert_eq!(assert_ledger_balanced(&store, *id).await, 3);
    }
}

/// Buying an item its account owns already is refused, whether the purchases race each other
/// or not: each of 16 accounts pays for the item once, whatever the batches held.
async fn concurrent_purchases_of_one_item_give_it_once(store: Arc<dyn Store>) {
    let item = ItemId(7);
    let mut accounts = Vec::new();
    for n in 0..16 {
        let id = account(&store, &format!("Owner#{:04}", n + 1)).await;
        apply(&store, change(id, vec![credit(Currency::Gems, 50)])).await;
        accounts.push(id);
    }
    let buy = |id| Change {
        reason: "buy".to_owned(),
        ..change(id, vec![debit(Currency::Gems, 10), Step::AddItem { item }])
    };
    let purchases = accounts
        .iter()
        .flat_map(|id| (0..4).map(move |_| buy(*id)))
        .collect();
    let answers = apply_all_viewed(&store, purchases).await;
    for (at, id) in accounts.iter().enumerate() {
        let own = &answers[at * 4..at * 4 + 4];
        let done = own
            .iter()
            .filter(|(applied, _)| *applied == Applied::Done(vec![Granted::Item { item }]))
            .count();
        let owned = own
            .iter()
            .filter(|(applied, _)| *applied == Applied::Refused(Refusal::AlreadyOwned(item)))
            .count();
        assert_eq!((done, owned), (1, 3), "{own:?}");
        assert_eq!(balances(&store, *id).await, (0, 40));
        assert_eq!(assert_ledger_balanced(&store, *id).await, 2);
    }
    assert_eq!(
        apply(&store, buy(accounts[0])).await,
        Applied::Refused(Refusal::AlreadyOwned(item))
    );
}

/// Purchases batched with those of a banned and of a deleted account: those two are refused
/// for their reason, every other one applies.
async fn purchases_beside_a_banned_and_a_deleted_account_are_answered_each_their_own(
    store: Arc<dyn Store>,
) {
    let mut accounts = Vec::new();
    for n in 0..12 {
        let id = account(&store, &format!("Mixed#{:04}", n + 1)).await;
        apply(&store, change(id, vec![credit(Currency::Coins, 10)])).await;
        accounts.push(id);
    }
    let (banned, deleted) = (accounts[3], accounts[8]);
    store.set_banned(banned, true, None).await.expect("bans");
    assert!(store.delete_account(deleted, None).await.expect("deletes"));
    let purchases = accounts.iter().map(|id| pack_purchase(*id, 10)).collect();
    let answers = apply_all_viewed(&store, purchases).await;
    for (id, (applied, view)) in accounts.iter().zip(&answers) {
        if *id == banned {
            assert_eq!(applied, &Applied::Refused(Refusal::Banned));
        } else if *id == deleted {
            assert_eq!(applied, &Applied::Refused(Refusal::NoAccount));
        } else {
            assert!(matches!(applied, Applied::Done(_)), "{applied:?}");
            assert_eq!(view.as_ref().map(|view| view.account.coins), Some(0));
            assert_eq!(pack_count(&store, *id, PackId(1)).await, 1);
        }
    }
    assert_eq!(balances(&store, banned).await, (10, 0));
}

/// Double clicks of many accounts at once: each account sends one key three times and another
/// once; each key's purchase applies once and its repeats replay it.
async fn concurrent_keyed_purchases_apply_once_per_key(store: Arc<dyn Store>) {
    let mut accounts = Vec::new();
    for n in 0..16 {
        let id = account(&store, &format!("Keyed#{:04}", n + 1)).await;
        apply(&store, change(id, vec![credit(Currency::Coins, 100)])).await;
        accounts.push(id);
    }
    let keyed = |id, key: &str| Change {
        idempotency: Some(Idempotency {
            key: key.to_owned(),
            fingerprint: "pack:1x1".to_owned(),
        }),
        ..pack_purchase(id, 10)
    };
    let purchases = accounts
        .iter()
        .flat_map(|id| ["first", "first", "second", "first"].map(|key| keyed(*id, key)))
        .collect();
    let answers = apply_all_viewed(&store, purchases).await;
    let packs = vec![Granted::Packs {
        pack: PackId(1),
        quantity: 1,
    }];
    for (at, id) in accounts.iter().enumerate() {
        let own: Vec<&Applied> = answers[at * 4..at * 4 + 4].iter().map(|(a, _)| a).collect();
        let done = own
            .iter()
            .filter(|a| ***a == Applied::Done(packs.clone()))
            .count();
        let replayed = own
            .iter()
            .filter(|a| ***a == Applied::Replayed(packs.clone()))
            .count();
        assert_eq!((done, replayed), (2, 2), "{own:?}");
        assert_eq!(balances(&store, *id).await, (80, 0));
        assert_eq!(pack_count(&store, *id, PackId(1)).await, 2);
        assert_eq!(assert_ledger_balanced(&store, *id).await, 3);
    }
}

/// A studio's refusal, as its hooks make them.
fn rejection() -> Rejection {
    const DAILY_LIMIT: RejectionCode = RejectionCode::new("daily_limit");
    Rejection::new(RejectionStatus::TooManyRequests, DAILY_LIMIT, "3 a day")
}

async fn a_studios_limit_lets_as_many_through_as_it_has_keys(store: Arc<dyn Store>) {
    let id = account(&store, "Limited#0001").await;
    let keys: Vec<String> = (1..=3).map(|n| format!("hook/daily/{n}")).collect();
    let limited = change(
        id,
        vec![
            Step::Credit {
                currency: Currency::Coins,
                amount: 10,
            },
            Step::Limit {
                keys: keys.clone(),
                rejection: rejection(),
            },
        ],
    );
    let (results, done) = apply_concurrently(&store, 20, limited).await;
    assert_eq!(done, 3, "{results:?}");
    assert!(
        results.iter().all(|applied| matches!(
            applied,
            Applied::Done(_) | Applied::Refused(Refusal::Rejected(_))
        )),
        "{results:?}"
    );
    assert!(results.contains(&Applied::Refused(Refusal::Rejected(rejection()))));
    let mut claimed = store.claimed(id, &keys).await.expect("claims read");
    claimed.sort();
    assert_eq!(claimed, keys);
    assert_eq!(balances(&store, id).await, (30, 0));
    assert_eq!(assert_ledger_balanced(&store, id).await, 3);
}

async fn a_studios_rejection_writes_nothing_and_lets_a_repeat_replay(store: Arc<dyn Store>) {
    let id = account(&store, "Rejected#0001").await;
    let credit = Step::Credit {
        currency: Currency::Gems,
        amount: 5,
    };
    let keyed = |steps: Vec<Step>| Change {
        idempotency: Some(Idempotency {
            key: "once".to_owned(),
            fingerprint: "test:case".to_owned(),
        }),
        ..change(id, steps)
    };
    let rejected = || keyed(vec![Step::Reject(rejection()), credit.clone()]);
    assert_eq!(
        apply(&store, rejected()).await,
        Applied::Refused(Refusal::Rejected(rejection()))
    );
    assert_eq!(balances(&store, id).await, (0, 0));
    assert_eq!(assert_ledger_balanced(&store, id).await, 0);
    // The key was not recorded: the request is planned again, and done.
    let granted = vec![Granted::Currency {
        currency: Currency::Gems,
        amount: 5,
    }];
    assert_eq!(
        apply(&store, keyed(vec![credit.clone()])).await,
        Applied::Done(granted.clone())
    );
    // Once done, a repeat replays before the rejection is reached.
    assert_eq!(apply(&store, rejected()).await, Applied::Replayed(granted));
    assert_eq!(balances(&store, id).await, (0, 5));
}
