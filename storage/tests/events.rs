//! The store contract of the domain events' outbox: exactly the committed changes write their
//! events, in the transaction of the change, in order per account; the relay hands the
//! unrelayed events over in id order and marks exactly those it delivered; the webhooks'
//! delivery log. Run against SQLite and PostgreSQL, each test on its own fresh database.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures_util::future::join_all;
use safezone_core::domain::{GameMode, PackId};
use safezone_core::events::{DeliveryError, DomainEvent, EventPayload};
use safezone_core::store::{
    AccountId, Applied, Change, Currency, EventDelivery, Granted, MatchApplied, MatchId,
    MatchRecord, NewAuditEntry, NewOperatorToken, OperatorRole, PlayerResult, RelayRound, Step,
    Store, WebhookAttempt, WebhookOutcome,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_sign_up_writes_account_created_then_signed_in,
    committed_changes_write_their_events_and_refused_ones_none,
    renames_bans_and_deletions_write_their_events,
    a_match_report_writes_each_players_result_levels_and_tiers,
    an_operator_action_writes_its_event,
    concurrent_changes_of_one_account_are_in_commit_order,
    the_relay_delivers_in_id_order_and_marks_what_it_delivered,
    the_webhook_log_keeps_attempts_and_dead_letters,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

async fn account(store: &Arc<dyn Store>, code: &str) -> AccountId {
    test_support::new_account(store.as_ref(), code, NOW)
        .await
        .id
}

fn change(account: AccountId, reason: &str, reference: &str, steps: Vec<Step>) -> Change {
    Change {
        account,
        now: NOW,
        reason: reason.to_owned(),
        reference: reference.to_owned(),
        idempotency: None,
        steps,
    }
}

fn credit(amount: i64) -> Step {
    Step::Credit {
        currency: Currency::Coins,
        amount,
    }
}

fn debit(amount: i64) -> Step {
    Step::Debit {
        currency: Currency::Coins,
        amount,
    }
}

async fn apply(store: &Arc<dyn Store>, change: Change) -> Applied {
    store.apply(change, None).await.expect("the change runs")
}

/// Every stored event, in id order.
async fn all_events(store: &Arc<dyn Store>) -> Vec<DomainEvent> {
    store
        .events(0, 100_000)
        .await
        .expect("the events read")
        .into_iter()
        .map(|(event, _)| event)
        .collect()
}

/// The stored events of `account` after the sign-up's two, their payloads in id order.
async fn events_of(store: &Arc<dyn Store>, account: AccountId) -> Vec<EventPayload> {
    all_events(store)
        .await
        .into_iter()
        .filter(|event| event.account == Some(account))
        .map(|event| event.payload)
        .filter(|payload| {
            !matches!(
                payload,
                EventPayload::AccountCreated { .. } | EventPayload::SignedIn { .. }
            )
        })
        .collect()
}

async fn a_sign_up_writes_account_created_then_signed_in(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let events = all_events(&store).await;
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].account, Some(ann));
    assert_eq!(events[0].at, NOW);
    assert_eq!(
        events[0].payload,
        EventPayload::AccountCreated {
            provider: "device".to_owned(),
            friend_code: "Ann#0001".to_owned(),
        }
    );
    assert_eq!(
        events[1].payload,
        EventPayload::SignedIn {
            provider: "device".to_owned(),
            first_login: true,
        }
    );
    assert!(events[0].id < events[1].id);
    // Signing in again: one more signed_in, no account_created.
    test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    let events = all_events(&store).await;
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[2].payload,
        EventPayload::SignedIn {
            provider: "device".to_owned(),
            first_login: false,
        }
    );
}

async fn committed_changes_write_their_events_and_refused_ones_none(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let pack = PackId(3);
    assert!(matches!(
        apply(&store, change(ann, "grant", "setup", vec![credit(500)])).await,
        Applied::Done(_)
    ));
    // Refused: too dear, then nothing to open, then claimed twice.
    let refused = apply(&store, change(ann, "buy", "item:7", vec![debit(10_000)])).await;
    assert!(matches!(refused, Applied::Refused(_)));
    let refused = apply(
        &store,
        change(ann, "pack", "open:3", vec![Step::OpenPack { pack }]),
    )
    .await;
    assert!(matches!(refused, Applied::Refused(_)));
    assert_eq!(events_of(&store, ann).await, [], "no event for a refusal");

    let bought = vec![debit(120), Step::GrantPacks { pack, quantity: 1 }];
    assert!(matches!(
        apply(&store, change(ann, "buy", "pack:3x1", bought)).await,
        Applied::Done(_)
    ));
    let opened = vec![Step::OpenPack { pack }, credit(40)];
    assert!(matches!(
        apply(&store, change(ann, "pack", "open:3", opened)).await,
        Applied::Done(_)
    ));
    let claim = |key: &str| {
        change(
            ann,
            "claim",
            "gift",
            vec![
                Step::Claim {
                    keys: vec![key.to_owned()],
                },
                credit(5),
            ],
        )
    };
    assert!(matches!(
        apply(&store, claim("gift/1")).await,
        Applied::Done(_)
    ));
    assert!(matches!(
        apply(&store, claim("gift/1")).await,
        Applied::Refused(_)
    ));
    assert_eq!(
        events_of(&store, ann).await,
        [
            EventPayload::Purchase {
                reason: "buy".to_owned(),
                reference: "pack:3x1".to_owned(),
                price: vec![safezone_core::events::Price {
                    currency: Currency::Coins,
                    amount: 120,
                }],
                granted: vec![Granted::Packs { pack, quantity: 1 }],
            },
            EventPayload::PackOpened {
                reference: "open:3".to_owned(),
                drops: vec![Granted::Currency {
                    currency: Currency::Coins,
                    amount: 40,
                }],
            },
            EventPayload::RewardClaimed {
                reward_type: "gift".to_owned(),
                reference: "gift".to_owned(),
                granted: vec![Granted::Currency {
                    currency: Currency::Coins,
                    amount: 5,
                }],
            },
        ]
    );
}

async fn renames_bans_and_deletions_write_their_events(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let rename = |who, name: &str| {
        change(
            who,
            "rename",
            "name",
            vec![Step::ChangeFriendCode {
                name: name.to_owned(),
                digits: vec![1, 2],
            }],
        )
    };
    assert!(matches!(
        apply(&store, rename(ann, "Zed")).await,
        Applied::Done(_)
    ));
    // Taken and same-name renames are refused and leave no event.
    assert!(matches!(
        apply(&store, rename(bob, "Zed")).await,
        Applied::Done(_)
    ));
    assert!(matches!(
        apply(&store, rename(ann, "Zed")).await,
        Applied::Refused(_)
    ));
    assert!(store.set_banned(ann, true, None).await.expect("bans"));
    assert!(store.set_banned(ann, false, None).await.expect("unbans"));
    assert!(store.delete_account(ann, None).await.expect("deletes"));
    assert!(!store.delete_account(ann, None).await.expect("answers"));
    assert_eq!(
        events_of(&store, ann).await,
        [
            // The deletion erased the friend code the rename told.
            EventPayload::Renamed {
                friend_code: String::new()
            },
            EventPayload::Banned { banned: true },
            EventPayload::Banned { banned: false },
            EventPayload::Deleted,
        ],
        "a deleted account's events stay, without its personal data"
    );
    assert_eq!(
        events_of(&store, bob).await,
        [EventPayload::Renamed {
            friend_code: "Zed#0002".to_owned()
        }]
    );
}

fn record(id: &str, players: &[AccountId]) -> MatchRecord {
    let ended = datetime!(2026-11-22 08:30 UTC);
    MatchRecord {
        id: MatchId::parse(id).expect("a match id"),
        mode: GameMode::Solo,
        started: ended - Duration::minutes(20),
        ended,
        reported: ended + Duration::seconds(5),
        players: (1..)
            .zip(players)
            .map(|(placement, &account)| PlayerResult {
                account,
                placement,
                kills: 3,
                time_alive_secs: 600,
                stats: BTreeMap::from([("rounds".to_owned(), 1)]),
            })
            .collect(),
        summary: format!("summary of {id}"),
    }
}

async fn a_match_report_writes_each_players_result_levels_and_tiers(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let first = record("m-1", &[bob, ann]);
    let leveled = |who| Change {
        now: first.reported,
        ..change(
            who,
            "match",
            "m-1",
            vec![
                Step::AddExperience { amount: 100 },
                Step::SetLevel { level: 2 },
                Step::Once {
                    key: "track/1/tier/1".to_owned(),
                    steps: vec![credit(7)],
                },
            ],
        )
    };
    let applied = store
        .report_match(&first, &[leveled(ann)])
        .await
        .expect("the report runs");
    assert!(matches!(applied, MatchApplied::Done(_)));
    let result = |placement, granted| EventPayload::MatchRecorded {
        match_id: "m-1".to_owned(),
        mode: "solo".to_owned(),
        placement,
        kills: 3,
        time_alive_secs: 600,
        granted,
    };
    assert_eq!(events_of(&store, bob).await, [result(1, vec![])]);
    assert_eq!(
        events_of(&store, ann).await,
        [
            result(
                2,
                vec![
                    Granted::Experience { amount: 100 },
                    Granted::Currency {
                        currency: Currency::Coins,
                        amount: 7
                    }
                ]
            ),
            EventPayload::LevelReached { level: 2 },
            EventPayload::TierReached { track: 1, tier: 1 },
        ]
    );
    // A repeat records nothing again; a refused report writes nothing.
    let before = all_events(&store).await.len();
    let repeat = store.report_match(&first, &[]).await.expect("runs");
    assert!(matches!(repeat, MatchApplied::Replayed { .. }));
    let refused = store
        .report_match(
            &record("m-2", &[ann]),
            &[change(ann, "match", "m-2", vec![debit(1_000_000)])],
        )
        .await
        .expect("runs");
    assert!(matches!(refused, MatchApplied::Refused { .. }));
    assert_eq!(all_events(&store).await.len(), before);
}

async fn an_operator_action_writes_its_event(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let token = store
        .create_operator_token(NewOperatorToken {
            name: "alice".to_owned(),
            role: OperatorRole::Full,
            secret_hash: "aa".to_owned(),
            now: NOW,
        })
        .await
        .expect("the store answers")
        .expect("a new name");
    let entry = NewAuditEntry {
        token: token.id,
        at: NOW,
        action: "grant".to_owned(),
        target: format!("account:{}", ann.0),
        reason: "support ticket 7".to_owned(),
        result: "done".to_owned(),
    };
    store.append_audit(entry).await.expect("appends");
    assert_eq!(
        events_of(&store, ann).await,
        [EventPayload::OperatorAction {
            token: token.id,
            action: "grant".to_owned(),
            target: format!("account:{}", ann.0),
            reason: "support ticket 7".to_owned(),
            result: "done".to_owned(),
        }]
    );
}

async fn concurrent_changes_of_one_account_are_in_commit_order(store: Arc<dyn Store>) {
    const CHANGES: usize = 24;
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let applied = join_all((0..CHANGES).map(|at| {
        let store = Arc::clone(&store);
        let who = if at % 2 == 0 { ann } else { bob };
        async move {
            let change = change(who, "claim", &format!("gift:{at}"), vec![credit(1)]);
            store.apply(change, None).await.expect("the change runs")
        }
    }))
    .await;
    assert!(
        applied
            .iter()
            .all(|applied| matches!(applied, Applied::Done(_)))
    );
    for who in [ann, bob] {
        // The ledger's rows are in commit order (balances after grow by one); the events of
        // the account must be too.
        let ledger: Vec<String> = store
            .ledger(who)
            .await
            .expect("the ledger reads")
            .into_iter()
            .filter(|entry| entry.reason == "claim")
            .map(|entry| (entry.balance_after, entry.reference))
            .collect::<BTreeMap<_, _>>()
            .into_values()
            .collect();
        let events: Vec<String> = events_of(&store, who)
            .await
            .into_iter()
            .map(|payload| match payload {
                EventPayload::RewardClaimed { reference, .. } => reference,
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(events.len(), CHANGES / 2);
        assert_eq!(events, ledger);
    }
}

/// A delivery that keeps what it is handed and fails while `failing` is set.
#[derive(Default)]
struct Kept {
    delivered: Mutex<Vec<i64>>,
    failing: Mutex<bool>,
}

#[async_trait]
impl EventDelivery for Kept {
    async fn deliver(&self, events: &[DomainEvent]) -> Result<(), DeliveryError> {
        if *self.failing.lock().expect("not poisoned") {
            return Err(DeliveryError("the sink is down".to_owned()));
        }
        let mut delivered = self.delivered.lock().expect("not poisoned");
        delivered.extend(events.iter().map(|event| event.id));
        Ok(())
    }
}

async fn the_relay_delivers_in_id_order_and_marks_what_it_delivered(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    for at in 0..3 {
        let claim = change(ann, "claim", &format!("gift:{at}"), vec![credit(1)]);
        assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    }
    let ids: Vec<i64> = all_events(&store)
        .await
        .iter()
        .map(|event| event.id)
        .collect();
    assert_eq!(ids.len(), 5);
    let kept = Kept::default();
    *kept.failing.lock().expect("not poisoned") = true;
    let failed = store.relay_events(3, &kept).await.expect("the round runs");
    assert!(matches!(failed, RelayRound::Failed(_)));
    *kept.failing.lock().expect("not poisoned") = false;
    let first = store.relay_events(3, &kept).await.expect("the round runs");
    assert!(matches!(first, RelayRound::Delivered(3)));
    let second = store.relay_events(3, &kept).await.expect("the round runs");
    assert!(matches!(second, RelayRound::Delivered(2)));
    let idle = store.relay_events(3, &kept).await.expect("the round runs");
    assert!(matches!(idle, RelayRound::Delivered(0)));
    assert_eq!(*kept.delivered.lock().expect("not poisoned"), ids);
    let relayed = store.events(0, 100).await.expect("reads");
    assert!(relayed.iter().all(|(_, relayed)| *relayed));
    // A new event is the only one handed over next.
    test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    kept.delivered.lock().expect("not poisoned").clear();
    assert!(matches!(
        store.relay_events(3, &kept).await.expect("the round runs"),
        RelayRound::Delivered(1)
    ));
    assert_eq!(kept.delivered.lock().expect("not poisoned").len(), 1);
}

async fn the_webhook_log_keeps_attempts_and_dead_letters(store: Arc<dyn Store>) {
    let attempt = |attempt, outcome| WebhookAttempt {
        url: "http://127.0.0.1:9/hook".to_owned(),
        first_event: 1,
        last_event: 4,
        events: 4,
        attempt,
        outcome,
        status: Some(500),
        error: Some("HTTP 500".to_owned()),
        at: NOW,
    };
    store
        .record_webhook_attempts(&[
            attempt(1, WebhookOutcome::Failed),
            attempt(2, WebhookOutcome::Dead),
        ])
        .await
        .expect("records");
    let all = store.webhook_deliveries(None, 10).await.expect("reads");
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[0].attempt,
        attempt(2, WebhookOutcome::Dead),
        "newest first"
    );
    assert_eq!(all[1].attempt, attempt(1, WebhookOutcome::Failed));
    let dead = store
        .webhook_deliveries(Some(WebhookOutcome::Dead), 10)
        .await
        .expect("reads");
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].attempt.attempt, 2);
}
