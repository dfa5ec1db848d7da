//! The console's webhooks page, over HTTP without a browser: the dead letters listed with a
//! Replay form for a full token, a replay asked through it (the API's pending replay and its
//! audit row read from the store, the form gone for that dead letter), and a read-only token
//! shown no form and refused a forged replay (audited).

use std::time::Duration;

use safezone_core::Settings;
use safezone_core::clock::Clock;
use safezone_core::events::webhook::{WebhookRetries, WebhookSettings};
use safezone_core::store::{
    AuditFilter, ReplayState, WebhookAttempt, WebhookDelivery, WebhookOutcome,
};
use safezone_tests::{TestApp, each_combination, test_settings};

use super::operator_console::{Console, csrf_of};

each_combination!(
    settings = with_a_webhook;
    dead_letters_are_listed_and_replayed_through_the_console,
    a_read_only_token_sees_no_replay_form_and_is_refused,
);

/// A receiver that refuses every connection.
const URL: &str = "http://127.0.0.1:9/safezone-events";

/// The test settings with one webhook whose receiver is down, tried again only after a minute:
/// a replay stays pending while the test looks.
fn with_a_webhook() -> Settings {
    let mut settings = test_settings();
    settings.events.webhooks = vec![WebhookSettings {
        url: URL.to_owned(),
        secret: "webhook-secret-for-tests".to_owned(),
    }];
    settings.events.webhook_retries = WebhookRetries {
        attempts: 5,
        first_backoff: Duration::from_secs(60),
        max_backoff: Duration::from_secs(60),
        timeout: Duration::from_secs(1),
    };
    settings
}

/// A dead letter of the first two relayed events (a player's sign-up), logged in the store.
async fn dead_letter(app: &TestApp) -> WebhookDelivery {
    app.player().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.store.relay_head().await.expect("reads") < 2 {
        assert!(tokio::time::Instant::now() < deadline, "events relayed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let attempt = WebhookAttempt {
        url: URL.to_owned(),
        first_event: 1,
        last_event: 2,
        events: 2,
        positions: Some((1, 2)),
        attempt: 5,
        outcome: WebhookOutcome::Dead,
        status: None,
        error: Some("connection refused <b>".to_owned()),
        at: app.clock.now(),
    };
    app.store
        .record_webhook_attempts(&[attempt])
        .await
        .expect("records");
    app.store
        .webhook_deliveries(Some(WebhookOutcome::Dead), 1)
        .await
        .expect("reads")
        .remove(0)
}

/// The audit rows of replays of `delivery`, newest first.
async fn replay_audit(app: &TestApp, delivery: &WebhookDelivery) -> Vec<String> {
    app.store
        .audit(&AuditFilter {
            target: Some(format!("webhook-delivery:{}", delivery.id)),
            limit: 10,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads")
        .into_iter()
        .map(|row| {
            format!(
                "{} {}: {}",
                row.token_name, row.entry.action, row.entry.result
            )
        })
        .collect()
}

async fn dead_letters_are_listed_and_replayed_through_the_console(app: TestApp) {
    let delivery = dead_letter(&app).await;
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let page = console.page("/webhooks", &cookie).await;
    let row = format!("data-delivery-id=\"{}\"", delivery.id);
    assert!(page.text.contains(&row), "{}", page.text);
    assert!(page.text.contains(URL));
    assert!(
        page.text.contains("connection refused &#60;b&#62;")
            || page.text.contains("connection refused &lt;b&gt;"),
        "the error is shown escaped: {}",
        page.text
    );
    let action = format!("/webhooks/{}/replay", delivery.id);
    assert!(page.text.contains(&format!("/operator/console{action}")));
    assert!(page.text.contains("id=\"replays-empty\""));

    let shown = console
        .submit(&cookie, &page, &action, &[("reason", "receiver fixed")])
        .await;
    assert!(shown.text.contains("Replay: done."), "{}", shown.text);
    let replays = app.store.webhook_replays(10).await.expect("reads");
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0].delivery, delivery.id);
    assert_eq!(replays[0].state, ReplayState::Pending);
    assert_eq!(replays[0].positions, (1, 2));
    assert!(
        shown
            .text
            .contains(&format!("data-replay-id=\"{}\"", replays[0].id)),
        "{}",
        shown.text
    );
    assert!(shown.text.contains("replay pending"));
    assert!(
        !shown.text.contains(&format!("/operator/console{action}")),
        "no second replay is offered while one is pending"
    );
    assert_eq!(
        replay_audit(&app, &delivery).await,
        ["alice webhook-replay: done"]
    );
    // Asked again all the same (a form left open), the API refuses it.
    let again = console
        .submit(&cookie, &page, &action, &[("reason", "twice")])
        .await;
    assert!(
        again.text.contains("Replay refused") && again.text.contains("(replay_pending)"),
        "{}",
        again.text
    );
    assert_eq!(app.store.webhook_replays(10).await.expect("reads").len(), 1);
}

async fn a_read_only_token_sees_no_replay_form_and_is_refused(app: TestApp) {
    let delivery = dead_letter(&app).await;
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("bob", "read").await)
        .await;
    let page = console.page("/webhooks", &cookie).await;
    let row = format!("data-delivery-id=\"{}\"", delivery.id);
    assert!(page.text.contains(&row), "{}", page.text);
    let action = format!("/webhooks/{}/replay", delivery.id);
    assert!(!page.text.contains(&format!("/operator/console{action}")));
    // A forged POST with the page's form token (the sign-out form's).
    let csrf = csrf_of(&page);
    let answer = console
        .post(
            &action,
            &[&cookie],
            &[("reason", "forged"), ("csrf", csrf.as_str())],
        )
        .await;
    assert_eq!(answer.status, 303, "{}", answer.text);
    assert!(
        app.store
            .webhook_replays(10)
            .await
            .expect("reads")
            .is_empty()
    );
    let audit = replay_audit(&app, &delivery).await;
    assert_eq!(audit.len(), 1);
    assert!(
        audit[0].starts_with("bob webhook-replay: refused: the operator token bob is read-only"),
        "{audit:?}"
    );
}
