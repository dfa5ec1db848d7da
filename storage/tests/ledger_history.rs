//! An account's ledger paged and filtered (`LedgerHistory::ledger_page`), written once and run
//! against SQLite and PostgreSQL, each test on its own fresh database: newest first, every
//! row exactly once across pages, and the currency, reason and time filters alone and together.

use std::sync::Arc;

use safezone_core::store::{
    AccountId, Applied, Change, Currency, LedgerCursor, LedgerEntry, LedgerFilter, Step, Store,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    pages_visit_every_row_newest_first_exactly_once,
    filters_apply_alone_and_together,
    another_accounts_rows_are_never_shown,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

/// How many changes [`ledger_of`] applies.
const CHANGES: i64 = 30;

/// The reason of change `number`.
fn reason(number: i64) -> &'static str {
    ["match", "claim", "refund"][usize::try_from(number % 3).unwrap_or(0)]
}

/// An account with [`CHANGES`] credits an hour apart from `NOW` (every third of gems, the others
/// of coins; the reasons in turn), plus two at the same time as the last one; answers it and its
/// whole ledger.
async fn ledger_of(store: &Arc<dyn Store>, code: &str) -> (AccountId, Vec<LedgerEntry>) {
    let account = test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id;
    for number in 0..CHANGES + 2 {
        let currency = if number % 3 == 2 {
            Currency::Gems
        } else {
            Currency::Coins
        };
        let change = Change {
            account,
            now: NOW + Duration::hours(number.min(CHANGES - 1)),
            reason: reason(number).to_owned(),
            reference: format!("ref-{number}"),
            idempotency: None,
            steps: vec![Step::Credit {
                currency,
                amount: number + 1,
            }],
        };
        let applied = store.apply(change, None).await.expect("applied");
        assert!(matches!(applied, Applied::Done(_)), "{applied:?}");
    }
    let ledger = store.ledger(account).await.expect("the ledger");
    (account, ledger)
}

/// `entries` newest first, as a page orders them: creation time, then id, both descending.
fn newest_first(entries: &[LedgerEntry]) -> Vec<i64> {
    let mut sorted: Vec<&LedgerEntry> = entries.iter().collect();
    sorted.sort_by_key(|entry| std::cmp::Reverse((entry.created, entry.id)));
    sorted.iter().map(|entry| entry.id).collect()
}

/// The ids of every page of `account`'s ledger matching `filter`, `limit` a page, following the
/// cursors (through their text form) to the end.
async fn every_page(
    store: &Arc<dyn Store>,
    account: AccountId,
    filter: &LedgerFilter,
    limit: u32,
) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut after = None;
    for _ in 0..100 {
        let page = store
            .ledger_page(account, filter, after, limit)
            .await
            .expect("a page is read");
        assert!(page.entries.len() <= limit as usize);
        assert!(page.next.is_none() || page.entries.len() == limit as usize);
        ids.extend(page.entries.iter().map(|entry| entry.id));
        let Some(next) = page.next else {
            return ids;
        };
        after = Some(LedgerCursor::parse(&next.to_string()).expect("the cursor reads back"));
    }
    panic!("the pages do not end");
}

async fn pages_visit_every_row_newest_first_exactly_once(store: Arc<dyn Store>) {
    let (account, ledger) = ledger_of(&store, "Ledger#0001").await;
    assert_eq!(ledger.len(), usize::try_from(CHANGES + 2).unwrap_or(0));
    let expected = newest_first(&ledger);
    for limit in [1, 7, 32, 100] {
        let seen = every_page(&store, account, &LedgerFilter::default(), limit).await;
        assert_eq!(seen, expected, "pages of {limit}");
    }
    let first = store
        .ledger_page(account, &LedgerFilter::default(), None, 1_000)
        .await
        .expect("a page");
    assert_eq!(first.entries.len(), ledger.len(), "at most 100, here all");
    let newest = &first.entries[0];
    assert_eq!(newest.created, NOW + Duration::hours(CHANGES - 1));
    assert_eq!(newest.account, account);
}

async fn filters_apply_alone_and_together(store: Arc<dyn Store>) {
    let (account, ledger) = ledger_of(&store, "Ledger#0002").await;
    let from = NOW + Duration::hours(5);
    let until = NOW + Duration::hours(20);
    let filters = [
        LedgerFilter {
            currency: Some(Currency::Gems),
            ..LedgerFilter::default()
        },
        LedgerFilter {
            currency: Some(Currency::Coins),
            ..LedgerFilter::default()
        },
        LedgerFilter {
            reason: Some("refund".to_owned()),
            ..LedgerFilter::default()
        },
        LedgerFilter {
            from: Some(from),
            until: Some(until),
            ..LedgerFilter::default()
        },
        LedgerFilter {
            from: Some(from),
            ..LedgerFilter::default()
        },
        LedgerFilter {
            currency: Some(Currency::Coins),
            reason: Some("claim".to_owned()),
            from: Some(from),
            until: Some(until),
        },
        LedgerFilter {
            reason: Some("nothing".to_owned()),
            ..LedgerFilter::default()
        },
    ];
    for filter in filters {
        let matching: Vec<LedgerEntry> = ledger
            .iter()
            .filter(|entry| {
                filter
                    .currency
                    .is_none_or(|currency| entry.currency == currency)
            })
            .filter(|entry| {
                filter
                    .reason
                    .as_ref()
                    .is_none_or(|reason| entry.reason == *reason)
            })
            .filter(|entry| filter.from.is_none_or(|from| entry.created >= from))
            .filter(|entry| filter.until.is_none_or(|until| entry.created < until))
            .cloned()
            .collect();
        let expected = newest_first(&matching);
        for limit in [3, 100] {
            let seen = every_page(&store, account, &filter, limit).await;
            assert_eq!(seen, expected, "{filter:?} by {limit}");
        }
    }
}

async fn another_accounts_rows_are_never_shown(store: Arc<dyn Store>) {
    let (first, _) = ledger_of(&store, "Ledger#0003").await;
    let (second, ledger) = ledger_of(&store, "Ledger#0004").await;
    let seen = every_page(&store, second, &LedgerFilter::default(), 10).await;
    assert_eq!(seen, newest_first(&ledger));
    let page = store
        .ledger_page(first, &LedgerFilter::default(), None, 100)
        .await
        .expect("a page");
    assert!(page.entries.iter().all(|entry| entry.account == first));
    let nobody = store
        .ledger_page(AccountId(999_999), &LedgerFilter::default(), None, 100)
        .await
        .expect("a page");
    assert!(nobody.entries.is_empty() && nobody.next.is_none());
}
