//! The store contract of the domain events' outbox: exactly the committed changes write their
//! events, in the transaction of the change, in order per account; the relay sequences the
//! committed events in id order (on PostgreSQL, one that commits late after a larger id gets a
//! later position and is not skipped); the sinks' cursors, leases and failures; the webhooks'
//! delivery log. Run against SQLite and PostgreSQL, each test on its own fresh database.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::join_all;
use safezone_core::domain::{GameMode, PackId, UserKey};
use safezone_core::events::{DomainEvent, EventPayload, MatchPlayer, RelayedChange};
use safezone_core::store::{
    AccountId, Applied, Change, Currency, FriendChange, FriendChanged, FriendLimits, Granted,
    KeyLookup, MatchApplied, MatchId, MatchRecord, NewAuditEntry, NewClan, NewOperatorToken,
    OperatorRole, PlayerResult, Role, SequenceRound, Settlement, Step, Store, WebhookAttempt,
    WebhookOutcome,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_sign_up_writes_account_created_then_signed_in,
    committed_changes_write_their_events_and_refused_ones_none,
    renames_bans_and_deletions_write_their_events,
    key_revocations_roles_chat_links_and_clan_joins_write_their_events,
    a_match_report_writes_one_event_with_every_result_then_levels_and_tiers,
    an_operator_action_writes_its_event,
    concurrent_changes_of_one_account_are_in_commit_order,
    the_relay_sequences_committed_events_in_id_order,
    the_followers_light_read_names_the_accounts_of_the_relayed_events,
    a_one_account_change_committed_here_is_noted_as_told_here,
    an_accounts_events_are_its_own_and_those_naming_it,
    an_accounts_events_are_found_across_many_positions,
    a_sinks_cursor_is_leased_to_one_node_and_settled_by_it,
    a_stopping_node_releases_its_leases_to_the_others,
    the_webhook_log_keeps_attempts_and_dead_letters,
    delivered_events_go_after_their_retention_unless_a_sink_still_needs_them,
    the_webhook_log_is_deleted_after_its_retention,
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
    let granted = EventPayload::HoldingsChanged {
        reason: "grant".to_owned(),
        reference: "setup".to_owned(),
        price: Vec::new(),
        granted: vec![Granted::Currency {
            currency: Currency::Coins,
            amount: 500,
        }],
    };
    assert_eq!(
        events_of(&store, ann).await,
        std::slice::from_ref(&granted),
        "the grant's event, none for a refusal"
    );

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
            granted,
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

/// The changes of an account's view outside the economy each write their event (what the
/// nodes keeping views in memory follow); a revocation that revokes nothing writes none.
async fn key_revocations_roles_chat_links_and_clan_joins_write_their_events(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let key = KeyLookup::Signed {
        account: ann,
        generation: 0,
        expires: NOW + Duration::days(30),
        hash: UserKey::generate().hash(),
    };
    assert!(store.revoke_key(&key).await.expect("revokes"));
    assert!(!store.revoke_key(&key).await.expect("answers"));
    assert!(store.revoke_all_keys(ann, None).await.expect("revokes all"));
    assert!(
        store
            .set_role(ann, Role::Admin)
            .await
            .expect("sets the role")
    );
    assert!(
        store
            .link_chat(ann, "chat-ann", true, NOW)
            .await
            .expect("links")
    );
    let clan = store
        .create_clan(NewClan {
            creator: ann,
            tag: "EVT".to_owned(),
            name: "Eventful".to_owned(),
            description: None,
            max_members: 10,
            now: NOW,
        })
        .await
        .expect("answers")
        .expect("created");
    store
        .invite_to_clan(clan.id, ann, bob, NOW)
        .await
        .expect("answers")
        .expect("invited");
    store
        .join_clan(clan.id, bob, NOW)
        .await
        .expect("answers")
        .expect("joined");
    assert_eq!(
        events_of(&store, ann).await,
        [
            EventPayload::KeysRevoked { all: false },
            EventPayload::KeysRevoked { all: true },
            EventPayload::RoleChanged {
                role: "admin".to_owned()
            },
            EventPayload::ChatLinked { premium: true },
            EventPayload::ClanJoined {
                clan: clan.id.0,
                created: true
            },
            EventPayload::ClanInvited {
                clan: clan.id.0,
                invitee: bob
            },
        ]
    );
    assert_eq!(
        events_of(&store, bob).await,
        [EventPayload::ClanJoined {
            clan: clan.id.0,
            created: false
        }]
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
        mode: GameMode::parse("solo").expect("a mode"),
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

async fn a_match_report_writes_one_event_with_every_result_then_levels_and_tiers(
    store: Arc<dyn Store>,
) {
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
    // One report event on no account carries both players' results, in the report's order;
    // each player's levels and tiers follow on their account.
    let report: Vec<EventPayload> = all_events(&store)
        .await
        .into_iter()
        .filter(|event| event.account.is_none())
        .map(|event| event.payload)
        .collect();
    let player = |account, placement, granted| MatchPlayer {
        account,
        placement,
        kills: 3,
        time_alive_secs: 600,
        granted,
    };
    assert_eq!(
        report,
        [EventPayload::MatchReported {
            match_id: "m-1".to_owned(),
            mode: "solo".to_owned(),
            players: vec![
                player(bob, 1, vec![]),
                player(
                    ann,
                    2,
                    vec![
                        Granted::Experience { amount: 100 },
                        Granted::Currency {
                            currency: Currency::Coins,
                            amount: 7
                        }
                    ]
                ),
            ],
        }]
    );
    assert_eq!(events_of(&store, bob).await, []);
    assert_eq!(
        events_of(&store, ann).await,
        [
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

async fn the_relay_sequences_committed_events_in_id_order(store: Arc<dyn Store>) {
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
    assert_eq!(store.relay_head().await.expect("reads"), 0);
    assert!(store.relayed_events(0, 10).await.expect("reads").is_empty());
    let sequence = |limit| {
        let store = Arc::clone(&store);
        async move { store.sequence_events(limit).await.expect("the round runs") }
    };
    assert_eq!(sequence(3).await, SequenceRound::Sequenced(3));
    assert_eq!(sequence(3).await, SequenceRound::Sequenced(2));
    assert_eq!(sequence(3).await, SequenceRound::Sequenced(0));
    assert_eq!(store.relay_head().await.expect("reads"), 5);
    let relayed = store.relayed_events(0, 10).await.expect("reads");
    let positions: Vec<(i64, i64)> = relayed
        .iter()
        .map(|relayed| (relayed.position, relayed.event.id))
        .collect();
    assert_eq!(
        positions,
        (1..=5).zip(ids.iter().copied()).collect::<Vec<_>>()
    );
    let stored = store.events(0, 10).await.expect("reads");
    assert!(stored.iter().all(|(_, position)| position.is_some()));
    // Reading after a position answers only what follows it.
    let after = store.relayed_events(3, 10).await.expect("reads");
    assert_eq!(after.len(), 2);
    assert_eq!(after[0].position, 4);
    // A new event is the only one sequenced next, after the others.
    test_support::new_account(store.as_ref(), "Ann#0001", NOW).await;
    let (_, waiting) = store.events(ids[4], 10).await.expect("reads")[0].clone();
    assert_eq!(waiting, None, "not sequenced yet");
    assert_eq!(sequence(3).await, SequenceRound::Sequenced(1));
    let next = store.relayed_events(5, 10).await.expect("reads");
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].position, 6);
}

async fn a_sinks_cursor_is_leased_to_one_node_and_settled_by_it(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    store.sequence_events(100).await.expect("sequences");
    // A new sink starts at the head: what was relayed before it counts as delivered.
    let hook = store.event_consumer("webhook a", NOW).await.expect("reads");
    assert_eq!((hook.position, hook.failures), (2, 0));
    assert_eq!(hook.holder, None);
    let again = store.event_consumer("webhook a", NOW).await.expect("reads");
    assert_eq!(again, hook, "created once");
    let until = NOW + Duration::seconds(30);
    let lease = |node: &'static str, position, now| {
        let store = Arc::clone(&store);
        async move {
            store
                .lease_event_consumer(
                    "webhook a",
                    node,
                    position,
                    now,
                    now + Duration::seconds(30),
                )
                .await
                .expect("leases")
        }
    };
    assert!(lease("one", 2, NOW).await);
    assert!(!lease("two", 2, NOW).await, "node one's lease runs");
    assert!(lease("one", 2, NOW).await, "renewed by its holder");
    assert!(!lease("one", 1, NOW).await, "the cursor is not there");
    let failed = Settlement::Failed {
        failures: 1,
        retry_at: NOW + Duration::seconds(1),
        error: "answered HTTP 500".to_owned(),
    };
    let settle = |node: &'static str, from, settlement| {
        let store = Arc::clone(&store);
        async move {
            store
                .settle_event_consumer("webhook a", node, from, settlement, NOW)
                .await
                .expect("settles")
        }
    };
    assert!(!settle("two", 2, failed.clone()).await, "not its lease");
    assert!(settle("one", 2, failed).await);
    let hook = store.event_consumer("webhook a", NOW).await.expect("reads");
    assert_eq!(hook.failures, 1);
    assert_eq!(hook.retry_at, Some(NOW + Duration::seconds(1)));
    assert_eq!(hook.error.as_deref(), Some("answered HTTP 500"));
    assert_eq!(hook.holder.as_deref(), Some("one"));
    assert_eq!(hook.lease_until, Some(until));
    // New events; node one delivers them and the cursor moves, failures forgotten.
    let claim = change(ann, "claim", "gift:1", vec![credit(1)]);
    assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    store.sequence_events(100).await.expect("sequences");
    assert!(settle("one", 2, Settlement::Advanced(3)).await);
    assert!(
        !settle("one", 2, Settlement::Advanced(3)).await,
        "already moved"
    );
    let hook = store.event_consumer("webhook a", NOW).await.expect("reads");
    assert_eq!((hook.position, hook.failures, hook.retry_at), (3, 0, None));
    // Once the lease has run out, another node takes over.
    assert!(!lease("two", 3, NOW + Duration::seconds(29)).await);
    assert!(lease("two", 3, NOW + Duration::seconds(30)).await);
    // Each sink has its own cursor, created at the head.
    let nats = store.event_consumer("nats x", NOW).await.expect("reads");
    assert_eq!(nats.position, 3);
    let names: Vec<String> = store
        .event_consumers()
        .await
        .expect("reads")
        .into_iter()
        .map(|consumer| consumer.name)
        .collect();
    assert_eq!(names, ["nats x", "webhook a"]);
}

async fn the_webhook_log_keeps_attempts_and_dead_letters(store: Arc<dyn Store>) {
    let attempt = |attempt, outcome| WebhookAttempt {
        url: "http://127.0.0.1:9/hook".to_owned(),
        first_event: 1,
        last_event: 4,
        events: 4,
        positions: Some((1, 4)),
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

async fn delivered_events_go_after_their_retention_unless_a_sink_still_needs_them(
    store: Arc<dyn Store>,
) {
    // A sink that exists before any event is sequenced starts at position 0; it last moved two
    // days after the events were written.
    let moved = NOW + Duration::days(2);
    store
        .event_consumer("webhook slow", moved)
        .await
        .expect("reads");
    let ann = account(&store, "Ann#0001").await;
    for at in 0..3 {
        let claim = change(ann, "claim", &format!("gift:{at}"), vec![credit(1)]);
        assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    }
    store.sequence_events(100).await.expect("sequences");
    assert_eq!(store.relay_head().await.expect("reads"), 5);
    let sweep = |before, limit| {
        let store = Arc::clone(&store);
        async move {
            store
                .delete_delivered_events(before, limit)
                .await
                .expect("the sweep runs")
        }
    };
    let day_after = NOW + Duration::days(1);
    assert_eq!(
        sweep(day_after, 100).await,
        0,
        "the sink has delivered none"
    );
    // The sink delivers up to position 3: those go, in batches, oldest first.
    assert!(
        store
            .lease_event_consumer(
                "webhook slow",
                "one",
                0,
                moved,
                moved + Duration::seconds(30)
            )
            .await
            .expect("leases")
    );
    assert!(
        store
            .settle_event_consumer("webhook slow", "one", 0, Settlement::Advanced(3), moved)
            .await
            .expect("settles")
    );
    assert_eq!(sweep(NOW, 100).await, 0, "none is older than the window");
    assert_eq!(sweep(day_after, 2).await, 2);
    assert_eq!(sweep(day_after, 2).await, 1);
    assert_eq!(sweep(day_after, 2).await, 0);
    let positions: Vec<Option<i64>> = store
        .events(0, 100)
        .await
        .expect("reads")
        .into_iter()
        .map(|(_, position)| position)
        .collect();
    assert_eq!(positions, [Some(4), Some(5)]);
    // A sink that has not moved within the window is gone from every node's settings: it
    // holds nothing back. Events not yet sequenced are never deleted, nor the newest relayed
    // one (the relay head never goes back).
    let later = change(ann, "claim", "gift:later", vec![credit(1)]);
    assert!(matches!(apply(&store, later).await, Applied::Done(_)));
    assert_eq!(sweep(NOW + Duration::days(3), 100).await, 1);
    let left: Vec<Option<i64>> = store
        .events(0, 100)
        .await
        .expect("reads")
        .into_iter()
        .map(|(_, position)| position)
        .collect();
    assert_eq!(
        left,
        [Some(5), None],
        "the head and the unsequenced event stay"
    );
    store.sequence_events(100).await.expect("sequences");
    assert_eq!(store.relay_head().await.expect("reads"), 6);
}

async fn the_webhook_log_is_deleted_after_its_retention(store: Arc<dyn Store>) {
    let attempt = |at| WebhookAttempt {
        url: "http://127.0.0.1:9/hook".to_owned(),
        first_event: 1,
        last_event: 1,
        events: 1,
        positions: None,
        attempt: 1,
        outcome: WebhookOutcome::Dead,
        status: None,
        error: Some("refused".to_owned()),
        at,
    };
    let old = attempt(NOW);
    let new = attempt(NOW + Duration::days(1));
    store
        .record_webhook_attempts(&[old, new.clone()])
        .await
        .expect("records");
    let deleted = store
        .delete_webhook_deliveries(NOW + Duration::hours(1), 100)
        .await
        .expect("the sweep runs");
    assert_eq!(deleted, 1);
    let left = store.webhook_deliveries(None, 10).await.expect("reads");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].attempt, new);
}

/// On PostgreSQL ids do not commit in id order: an event whose transaction commits after a
/// larger id was relayed gets a later position, so a sink reading after its last position
/// still gets it (a cursor over ids would have skipped it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_an_event_committed_late_is_sequenced_after_and_not_skipped() {
    use sqlx::Connection;
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url).await.expect("the store opens");
    let mut late = sqlx::PgConnection::connect(&url).await.expect("connects");
    let mut tx = late.begin().await.expect("begins");
    let late_id: i64 = sqlx::query_scalar(
        "INSERT INTO events (account_id, kind, payload, created) \
         VALUES (NULL, 'deleted', '{\"kind\":\"deleted\"}', 0) RETURNING id",
    )
    .fetch_one(&mut *tx)
    .await
    .expect("inserts");
    account(&store, "Ann#0001").await;
    assert_eq!(
        store.sequence_events(100).await.expect("sequences"),
        SequenceRound::Sequenced(2)
    );
    let first = store.relayed_events(0, 10).await.expect("reads");
    assert!(first.iter().all(|relayed| relayed.event.id > late_id));
    let cursor = first.last().expect("two events").position;
    tx.commit().await.expect("commits");
    assert_eq!(
        store.sequence_events(100).await.expect("sequences"),
        SequenceRound::Sequenced(1)
    );
    let next = store.relayed_events(cursor, 10).await.expect("reads");
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].event.id, late_id);
    assert_eq!(next[0].position, cursor + 1);
    late.close().await.expect("closes");
    drop(store);
    test_support::drop_postgres_database(&url).await;
}

/// The outbox before the relay sequenced: events 1, 2 and 4 relayed, 3 not (it committed
/// late), and a webhook's delivery.
const RELAYED_OUTBOX: &str = "\
    INSERT INTO events (account_id, kind, payload, created, relayed) VALUES \
    (NULL, 'deleted', '{\"kind\":\"deleted\"}', 0, TRUE), \
    (NULL, 'deleted', '{\"kind\":\"deleted\"}', 0, TRUE), \
    (NULL, 'deleted', '{\"kind\":\"deleted\"}', 0, FALSE), \
    (NULL, 'deleted', '{\"kind\":\"deleted\"}', 0, TRUE); \
    INSERT INTO webhook_deliveries \
    (url, first_event, last_event, events, attempt, outcome, status, error, created) \
    VALUES ('http://127.0.0.1:9/hook', 1, 2, 2, 1, 'delivered', 200, NULL, 0)";

/// The migrations of `dialect` from the source tree.
async fn migrator(dialect: &str) -> sqlx::migrate::Migrator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(dialect);
    sqlx::migrate::Migrator::new(path)
        .await
        .expect("the migrations read")
}

/// What the upgraded store holds: positions for what was relayed, the rest sequenced after,
/// a new sink starting past what was relayed, the delivery log kept.
async fn check_upgraded(store: Arc<dyn Store>) {
    let stored: Vec<(i64, Option<i64>)> = store
        .events(0, 10)
        .await
        .expect("reads")
        .into_iter()
        .map(|(event, position)| (event.id, position))
        .collect();
    assert_eq!(
        stored,
        [(1, Some(1)), (2, Some(2)), (3, None), (4, Some(4))]
    );
    let hook = store.event_consumer("webhook x", NOW).await.expect("reads");
    assert_eq!(hook.position, 4, "what was relayed counts as delivered");
    assert_eq!(
        store.sequence_events(10).await.expect("sequences"),
        SequenceRound::Sequenced(1)
    );
    let next = store
        .relayed_events(hook.position, 10)
        .await
        .expect("reads");
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].event.id, next[0].position), (3, 5));
    assert_eq!(
        store
            .webhook_deliveries(None, 10)
            .await
            .expect("reads")
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_populated_outbox_is_upgraded_in_place() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    let options: sqlx::sqlite::SqliteConnectOptions = url.parse().expect("a URL");
    let pool = sqlx::SqlitePool::connect_with(options.create_if_missing(true))
        .await
        .expect("connects");
    migrator("sqlite")
        .await
        .run_to(13, &pool)
        .await
        .expect("migrates to the outbox");
    sqlx::raw_sql(RELAYED_OUTBOX)
        .execute(&pool)
        .await
        .expect("fills");
    pool.close().await;
    check_upgraded(
        safezone_storage::open(&url)
            .await
            .expect("opens and migrates"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_populated_outbox_is_upgraded_in_place() {
    let url = test_support::fresh_postgres_url().await;
    let pool = sqlx::PgPool::connect(&url).await.expect("connects");
    migrator("postgres")
        .await
        .run_to(14, &pool)
        .await
        .expect("migrates to the outbox");
    sqlx::raw_sql(RELAYED_OUTBOX)
        .execute(&pool)
        .await
        .expect("fills");
    pool.close().await;
    check_upgraded(
        safezone_storage::open(&url)
            .await
            .expect("opens and migrates"),
    )
    .await;
    test_support::drop_postgres_database(&url).await;
}

/// A node that stops ends the leases it holds: another node takes the sink at once, and the
/// leases of other nodes stay.
async fn a_stopping_node_releases_its_leases_to_the_others(store: Arc<dyn Store>) {
    account(&store, "Ann#0001").await;
    store.sequence_events(100).await.expect("sequences");
    let position = store
        .event_consumer("webhook a", NOW)
        .await
        .expect("reads")
        .position;
    store.event_consumer("nats x", NOW).await.expect("reads");
    let lease = |sink: &'static str, node: &'static str| {
        let store = Arc::clone(&store);
        async move {
            store
                .lease_event_consumer(sink, node, position, NOW, NOW + Duration::seconds(30))
                .await
                .expect("leases")
        }
    };
    assert!(lease("webhook a", "one").await);
    assert!(lease("nats x", "two").await);
    assert!(!lease("webhook a", "two").await, "node one's lease runs");
    assert_eq!(
        store.release_event_leases("one").await.expect("releases"),
        1
    );
    assert!(lease("webhook a", "two").await, "taken over at once");
    assert!(!lease("nats x", "one").await, "node two's own lease stays");
    assert_eq!(
        store.release_event_leases("one").await.expect("releases"),
        0
    );
}

/// Two changes whose events name other accounts: a match report of `bob` and `ann`, then
/// `ann`'s friend request to `bob`.
async fn report_then_request_friendship(store: &Arc<dyn Store>, ann: AccountId, bob: AccountId) {
    let report = record("m-1", &[bob, ann]);
    let applied = store
        .report_match(&report, &[])
        .await
        .expect("the report runs");
    assert!(matches!(applied, MatchApplied::Done(_)));
    let limits = FriendLimits {
        friends_max: 10,
        requests_max: 10,
    };
    let requested = store
        .change_friendship(ann, bob, FriendChange::Request, limits, NOW)
        .await
        .expect("the request runs");
    assert_eq!(requested, Ok(FriendChanged::Requested));
}

/// What the relay's follower reads when no subscriber watches (positions and accounts, a match
/// report's payload only) names the same accounts at the same positions as the events read
/// whole, a report's players included.
async fn the_followers_light_read_names_the_accounts_of_the_relayed_events(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let claim = change(ann, "claim", "gift:1", vec![credit(1)]);
    assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    report_then_request_friendship(&store, ann, bob).await;
    store.sequence_events(100).await.expect("the round runs");
    let whole = store.relayed_events(0, 100).await.expect("reads");
    let light = store.relayed_changes(0, 100).await.expect("reads");
    let expected: Vec<RelayedChange> = whole.iter().map(RelayedChange::of).collect();
    assert_eq!(light, expected);
    assert!(
        light
            .iter()
            .any(|change| change.accounts == [ann.min(bob), ann.max(bob)]),
        "{light:?}"
    );
    assert_eq!(
        light.last().map(|change| change.accounts.clone()),
        Some(vec![ann, bob]),
        "a friend request names the account asked"
    );
    let after = store
        .relayed_changes(light[1].position, 100)
        .await
        .expect("reads");
    assert_eq!(after, expected[2..]);
}

/// The events of a one-account change committed through this store are noted as told here, so
/// the follower leaves their counters alone (the store moved them at the commit); a sign-up's,
/// a match report's and a friend request's (naming other accounts) are not. Each is forgotten
/// once the follower has seen it. (Nothing is noted before a follower's first round: see
/// `AccountChanges`' own tests.)
async fn a_one_account_change_committed_here_is_noted_as_told_here(store: Arc<dyn Store>) {
    let changes = store.account_changes().expect("the store counts changes");
    // A follower has run its first round (before it, nothing is noted).
    changes.all_seen_before(NOW);
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    store.sequence_events(100).await.expect("the round runs");
    let before = store.relay_head().await.expect("reads");
    let claim = change(ann, "claim", "gift:1", vec![credit(1)]);
    assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    store.sequence_events(100).await.expect("the round runs");
    let claimed = store.relay_head().await.expect("reads");
    assert!(claimed > before, "the claim wrote its events");
    report_then_request_friendship(&store, ann, bob).await;
    store.sequence_events(100).await.expect("the round runs");
    let relayed = store.relayed_changes(0, 100).await.expect("reads");
    assert!(relayed.last().is_some_and(|last| last.position > claimed));
    for change in &relayed {
        let claims = change.position > before && change.position <= claimed;
        assert_eq!(changes.relayed_here(change.event), claims, "{change:?}");
    }
    assert!(
        relayed
            .iter()
            .all(|change| !changes.relayed_here(change.event)),
        "each is forgotten once followed"
    );
}

/// An account's events are found after any position however many other events came between:
/// 600 claims of two accounts, interleaved, span SQLite's index blocks of 256 positions.
async fn an_accounts_events_are_found_across_many_positions(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    for round in 0..30 {
        let claims = (0..20).map(|at| {
            let owner = if at % 3 == 0 { ann } else { bob };
            change(
                owner,
                "claim",
                &format!("gift:{round}:{at}"),
                vec![credit(1)],
            )
        });
        for applied in join_all(claims.map(|claim| apply(&store, claim))).await {
            assert!(matches!(applied, Applied::Done(_)));
        }
    }
    assert_eq!(
        store.sequence_events(1_000).await.expect("the round runs"),
        SequenceRound::Sequenced(604)
    );
    let relayed = store.relayed_events(0, 1_000).await.expect("reads");
    assert_eq!(relayed.len(), 604);
    let head = relayed.last().expect("events").position;
    for reader in [ann, bob] {
        for after in [0, 4, 255, 256, 257, 300, 511, 512, head - 1, head] {
            let concerning: Vec<_> = relayed
                .iter()
                .filter(|event| event.position > after && event.event.account == Some(reader))
                .cloned()
                .collect();
            let read = store
                .account_events(reader, after, 1_000)
                .await
                .expect("reads");
            assert_eq!(read, concerning, "{reader:?} after {after}");
            let first = store.account_events(reader, after, 3).await.expect("reads");
            assert_eq!(first, concerning[..concerning.len().min(3)]);
        }
    }
}

async fn an_accounts_events_are_its_own_and_those_naming_it(store: Arc<dyn Store>) {
    let ann = account(&store, "Ann#0001").await;
    let bob = account(&store, "Bob#0001").await;
    let cid = account(&store, "Cid#0001").await;
    let claim = change(ann, "claim", "gift:1", vec![credit(1)]);
    assert!(matches!(apply(&store, claim).await, Applied::Done(_)));
    let report = record("m-1", &[bob, ann]);
    let applied = store
        .report_match(&report, &[])
        .await
        .expect("the report runs");
    assert!(matches!(applied, MatchApplied::Done(_)));
    let clan = store
        .create_clan(NewClan {
            creator: ann,
            tag: "EVT".to_owned(),
            name: "Eventful".to_owned(),
            description: None,
            max_members: 10,
            now: NOW,
        })
        .await
        .expect("answers")
        .expect("created");
    store
        .invite_to_clan(clan.id, ann, cid, NOW)
        .await
        .expect("answers")
        .expect("invited");
    store.sequence_events(100).await.expect("the round runs");
    let relayed = store.relayed_events(0, 100).await.expect("reads");

    // Each account's events are exactly those that concern it, in position order: its own and
    // those naming it (the report names Bob and Ann, the invitation Cid); read in pages too.
    for reader in [ann, bob, cid] {
        let concerning: Vec<_> = relayed
            .iter()
            .filter(|event| {
                event
                    .event
                    .payload
                    .accounts_concerned(event.event.account)
                    .contains(&reader)
            })
            .cloned()
            .collect();
        let read = store.account_events(reader, 0, 100).await.expect("reads");
        assert_eq!(read, concerning, "{reader:?}");
        let mut paged = Vec::new();
        let mut after = 0;
        loop {
            let page = store.account_events(reader, after, 2).await.expect("reads");
            let Some(last) = page.last() else { break };
            after = last.position;
            paged.extend(page);
        }
        assert_eq!(paged, concerning, "{reader:?} in pages");
    }
    let bobs = store.account_events(bob, 0, 100).await.expect("reads");
    assert!(bobs.iter().any(
        |event| event.event.account.is_none() && event.event.payload.kind() == "match_reported"
    ));
    let cids = store.account_events(cid, 0, 100).await.expect("reads");
    assert_eq!(
        cids.last()
            .map(|event| (&event.event.payload, event.event.account)),
        Some((
            &EventPayload::ClanInvited {
                clan: clan.id.0,
                invitee: cid
            },
            Some(ann)
        ))
    );

    // What the outbox keeps, before and after the retention.
    let head = relayed.last().expect("events").position;
    let kept = store.kept_positions().await.expect("reads");
    assert_eq!((kept.oldest, kept.head), (Some(1), head));
    assert!(kept.keeps_after(0) && kept.keeps_after(head));
    assert!(!kept.keeps_after(head + 1));
    store
        .delete_delivered_events(NOW + Duration::days(30), 1_000)
        .await
        .expect("the sweep runs");
    let kept = store.kept_positions().await.expect("reads");
    assert_eq!((kept.oldest, kept.head), (Some(head), head));
    assert!(!kept.keeps_after(0) && kept.keeps_after(head - 1));
    // The mentions of the deleted events went with them.
    let left = store.account_events(bob, 0, 100).await.expect("reads");
    assert!(left.iter().all(|event| event.position == head), "{left:?}");
}
