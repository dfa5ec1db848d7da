//! The store contract of the replays of dead-lettered webhook batches: a request is written
//! with its audit row in one transaction, refused while one of the same dead letter is pending
//! or when its events are gone; a replay is leased to one node, settled by it, tried again
//! after a failure; a pending replay keeps its events from the retention sweep, and finished
//! replays go after their retention. Run against SQLite and PostgreSQL.

use std::sync::Arc;

use safezone_core::events::EventPayload;
use safezone_core::store::{
    AccountId, Applied, AuditFilter, Change, Currency, NewAuditEntry, NewOperatorToken,
    OperatorRole, ReplayOutcome, ReplayRequested, ReplayState, Settlement, Step, Store,
    WebhookAttempt, WebhookDelivery, WebhookOutcome, WebhookReplay,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    a_replay_is_requested_once_with_its_audit_row,
    a_dead_letter_without_its_events_is_refused,
    a_replay_is_leased_to_one_node_and_settled_by_it,
    a_pending_replay_keeps_its_events_from_the_sweep,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

const URL: &str = "http://127.0.0.1:9/hook";

/// Ann's account with `claims` credits, each one event, all sequenced (positions 1 to
/// `claims` + 2 with her account's two sign-up events first).
async fn events(store: &Arc<dyn Store>, claims: u32) -> AccountId {
    let ann = test_support::new_account(store.as_ref(), "Ann#0001", NOW)
        .await
        .id;
    for at in 0..claims {
        let change = Change {
            account: ann,
            now: NOW,
            reason: "claim".to_owned(),
            reference: format!("gift:{at}"),
            idempotency: None,
            steps: vec![Step::Credit {
                currency: Currency::Coins,
                amount: 1,
            }],
        };
        let applied = store.apply(change, None).await.expect("the change runs");
        assert!(matches!(applied, Applied::Done(_)));
    }
    store.sequence_events(100).await.expect("sequences");
    ann
}

/// Logs a dead letter of the events at `positions` (`None`: logged before positions were);
/// answers its row.
async fn dead_letter(
    store: &Arc<dyn Store>,
    positions: Option<(i64, i64)>,
    at: OffsetDateTime,
) -> WebhookDelivery {
    let (first, last) = positions.unwrap_or((1, 1));
    let attempt = WebhookAttempt {
        url: URL.to_owned(),
        first_event: first,
        last_event: last,
        events: last - first + 1,
        positions,
        attempt: 5,
        outcome: WebhookOutcome::Dead,
        status: Some(500),
        error: Some("answered HTTP 500".to_owned()),
        at,
    };
    store
        .record_webhook_attempts(&[attempt])
        .await
        .expect("records");
    let newest = store
        .webhook_deliveries(Some(WebhookOutcome::Dead), 1)
        .await
        .expect("reads")
        .remove(0);
    let read = store
        .webhook_delivery(newest.id)
        .await
        .expect("reads")
        .expect("the row is there");
    assert_eq!(read, newest);
    assert_eq!(read.attempt.positions, positions);
    newest
}

/// A full operator token's audit row for replaying `delivery`.
async fn audit_row(store: &Arc<dyn Store>, delivery: &WebhookDelivery) -> NewAuditEntry {
    let token = match store
        .create_operator_token(NewOperatorToken {
            name: "alice".to_owned(),
            role: OperatorRole::Full,
            secret_hash: "aa".to_owned(),
            now: NOW,
        })
        .await
        .expect("the store answers")
    {
        Some(token) => token,
        None => store.operator_tokens().await.expect("reads").remove(0),
    };
    NewAuditEntry {
        token: token.id,
        at: NOW,
        action: "webhook-replay".to_owned(),
        target: format!("webhook-delivery:{}", delivery.id),
        reason: "the receiver is back".to_owned(),
        result: "done".to_owned(),
    }
}

/// The replay answered by a request that was accepted.
fn requested(answer: ReplayRequested) -> WebhookReplay {
    match answer {
        ReplayRequested::Requested(replay) => replay,
        other => panic!("the replay was refused: {other:?}"),
    }
}

async fn webhook_replay_audit(store: &Arc<dyn Store>) -> usize {
    let filter = AuditFilter {
        action: Some("webhook-replay".to_owned()),
        limit: 100,
        ..AuditFilter::default()
    };
    store.audit(&filter).await.expect("reads").len()
}

async fn a_replay_is_requested_once_with_its_audit_row(store: Arc<dyn Store>) {
    events(&store, 3).await;
    let delivery = dead_letter(&store, Some((2, 4)), NOW).await;
    let audit = audit_row(&store, &delivery).await;
    let replay = requested(
        store
            .request_webhook_replay(&delivery, NOW, Some(&audit))
            .await
            .expect("the request runs"),
    );
    assert_eq!(replay.delivery, delivery.id);
    assert_eq!(replay.url, URL);
    assert_eq!(replay.positions, (2, 4));
    assert_eq!(replay.state, ReplayState::Pending);
    assert_eq!((replay.failures, replay.retry_at), (0, None));
    assert_eq!((replay.requested, replay.updated), (NOW, NOW));
    assert_eq!(webhook_replay_audit(&store).await, 1);
    // The audit row's event is in the outbox with it.
    let outbox = store.events(0, 100).await.expect("reads");
    let (last, _) = outbox.last().expect("events");
    assert!(
        matches!(&last.payload, EventPayload::OperatorAction { action, .. } if action == "webhook-replay")
    );
    // A second request while it is pending writes nothing, not even its audit row.
    let again = store
        .request_webhook_replay(&delivery, NOW, Some(&audit))
        .await
        .expect("the request runs");
    assert_eq!(again, ReplayRequested::AlreadyPending);
    assert_eq!(webhook_replay_audit(&store).await, 1);
    assert_eq!(store.webhook_replays(10).await.expect("reads"), [replay]);
}

async fn a_dead_letter_without_its_events_is_refused(store: Arc<dyn Store>) {
    events(&store, 1).await;
    // Positions past the head: those events are not stored.
    let beyond = dead_letter(&store, Some((2, 9)), NOW).await;
    // Logged before positions were recorded.
    let unknown = dead_letter(&store, None, NOW).await;
    for delivery in [beyond, unknown] {
        let audit = audit_row(&store, &delivery).await;
        let answer = store
            .request_webhook_replay(&delivery, NOW, Some(&audit))
            .await
            .expect("the request runs");
        assert_eq!(answer, ReplayRequested::EventsGone);
    }
    assert_eq!(webhook_replay_audit(&store).await, 0);
    assert!(store.webhook_replays(10).await.expect("reads").is_empty());
}

async fn a_replay_is_leased_to_one_node_and_settled_by_it(store: Arc<dyn Store>) {
    events(&store, 2).await;
    let delivery = dead_letter(&store, Some((1, 4)), NOW).await;
    let replay = requested(
        store
            .request_webhook_replay(&delivery, NOW, None)
            .await
            .expect("the request runs"),
    );
    let lease = Duration::seconds(30);
    let claim = |holder: &'static str, url: &'static str, at: OffsetDateTime| {
        let store = Arc::clone(&store);
        async move {
            store
                .claim_webhook_replay(url, holder, at, at + lease)
                .await
                .expect("the claim runs")
        }
    };
    assert_eq!(claim("one", "http://elsewhere/", NOW).await, None);
    let taken = claim("one", URL, NOW).await.expect("due");
    assert_eq!((taken.id, taken.state), (replay.id, ReplayState::Pending));
    assert_eq!(claim("two", URL, NOW + Duration::seconds(29)).await, None);
    assert!(
        claim("one", URL, NOW + Duration::seconds(1))
            .await
            .is_some()
    );
    // Only the holder settles it.
    let failed = |failures| ReplayOutcome::Failed {
        failures,
        retry_at: NOW + Duration::seconds(10),
        error: "answered HTTP 500".to_owned(),
    };
    let settle = |holder: &'static str, outcome| {
        let store = Arc::clone(&store);
        async move {
            store
                .settle_webhook_replay(replay.id, holder, outcome, NOW + Duration::seconds(2))
                .await
                .expect("settling runs")
        }
    };
    assert!(!settle("two", failed(1)).await);
    assert!(settle("one", failed(1)).await);
    let shown = store.webhook_replays(10).await.expect("reads").remove(0);
    assert_eq!(shown.state, ReplayState::Pending);
    assert_eq!(shown.failures, 1);
    assert_eq!(shown.retry_at, Some(NOW + Duration::seconds(10)));
    assert_eq!(shown.error.as_deref(), Some("answered HTTP 500"));
    // Not before its retry time; then any node, the lease being let go.
    assert_eq!(claim("two", URL, NOW + Duration::seconds(9)).await, None);
    let retried = claim("two", URL, NOW + Duration::seconds(10))
        .await
        .expect("due");
    assert_eq!(retried.failures, 1);
    assert!(settle("two", ReplayOutcome::Finished(ReplayState::Delivered, None)).await);
    assert!(!settle("two", failed(2)).await, "a finished replay stays");
    let done = store.webhook_replays(10).await.expect("reads").remove(0);
    assert_eq!(done.state, ReplayState::Delivered);
    assert_eq!(done.failures, 1, "its failures are kept");
    assert_eq!(done.error, None);
    assert_eq!(claim("one", URL, NOW + Duration::hours(1)).await, None);
    // Once it ended, the dead letter may be replayed again.
    let second = requested(
        store
            .request_webhook_replay(&delivery, NOW + Duration::hours(1), None)
            .await
            .expect("the request runs"),
    );
    assert_ne!(second.id, replay.id);
    // Finished replays go after their retention; pending ones never.
    let sweep = |before| {
        let store = Arc::clone(&store);
        async move {
            store
                .delete_webhook_replays(before, 100)
                .await
                .expect("the sweep runs")
        }
    };
    assert_eq!(sweep(NOW).await, 0, "changed at NOW + 2 s");
    assert_eq!(sweep(NOW + Duration::days(60)).await, 1);
    let left = store.webhook_replays(10).await.expect("reads");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].id, second.id);
}

async fn a_pending_replay_keeps_its_events_from_the_sweep(store: Arc<dyn Store>) {
    let moved = NOW + Duration::days(2);
    store
        .event_consumer("webhook a", moved)
        .await
        .expect("reads");
    events(&store, 4).await;
    let head = store.relay_head().await.expect("reads");
    assert_eq!(head, 6);
    // The sink delivered everything (positions 3 and 4 were a dead letter).
    assert!(
        store
            .lease_event_consumer("webhook a", "one", 0, moved, moved + Duration::seconds(30))
            .await
            .expect("leases")
    );
    assert!(
        store
            .settle_event_consumer("webhook a", "one", 0, Settlement::Advanced(head), moved)
            .await
            .expect("settles")
    );
    let delivery = dead_letter(&store, Some((3, 4)), NOW).await;
    let replay = requested(
        store
            .request_webhook_replay(&delivery, moved, None)
            .await
            .expect("the request runs"),
    );
    let sweep = || {
        let store = Arc::clone(&store);
        async move {
            store
                .delete_delivered_events(NOW + Duration::days(1), 100)
                .await
                .expect("the sweep runs")
        }
    };
    // Only what comes before the replay's first event goes.
    assert_eq!(sweep().await, 2);
    let positions = |store: Arc<dyn Store>| async move {
        store
            .events(0, 100)
            .await
            .expect("reads")
            .into_iter()
            .filter_map(|(_, position)| position)
            .collect::<Vec<i64>>()
    };
    assert_eq!(positions(Arc::clone(&store)).await, [3, 4, 5, 6]);
    assert_eq!(sweep().await, 0);
    // Once it ended, its events go too.
    let taken = store
        .claim_webhook_replay(URL, "one", moved, moved + Duration::seconds(30))
        .await
        .expect("the claim runs")
        .expect("due");
    assert_eq!(taken.id, replay.id);
    assert!(
        store
            .settle_webhook_replay(
                replay.id,
                "one",
                ReplayOutcome::Finished(ReplayState::Delivered, None),
                moved,
            )
            .await
            .expect("settles")
    );
    // All but the relay head's event, which is always kept.
    assert_eq!(sweep().await, 3);
    assert_eq!(positions(Arc::clone(&store)).await, [6]);
    // Now it cannot be replayed any more.
    let answer = store
        .request_webhook_replay(&delivery, moved, None)
        .await
        .expect("the request runs");
    assert_eq!(answer, ReplayRequested::EventsGone);
}
