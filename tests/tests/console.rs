//! The operator's web console end to end in a real browser (headless Chromium driven by
//! `playwright-core`, `tests/login-kit/console.mjs`), under warp on SQLite: a full token signs
//! in, finds a player by friend code, refunds with a reason, sees the ledger row and the audit
//! row, bans the player, opens the polls, tournaments and content pages, creates a poll through
//! its `datetime-local` input and signs out; a read-only token is shown no form that changes
//! anything, and each write forged into its page is refused. The ledger and the audit are then
//! read from the database.

use safezone_core::store::{AuditFilter, Currency};
use safezone_tests::login_kit::run_kit_script;
use safezone_tests::{Database, Server, TestApp, run, shipped_content, test_settings};

#[tokio::test]
async fn console_in_chromium_refunds_bans_and_refuses_a_read_only_token() {
    run(
        Server::Warp,
        Database::Sqlite,
        test_settings(),
        shipped_content(),
        console_in_chromium,
    )
    .await;
}

async fn console_in_chromium(app: TestApp) {
    let player = app.player().await;
    let full = app.operator_token("alice", "full").await;
    let read = app.operator_token("bob", "read").await;
    let listener = app.operator_listener().await;
    let console = format!("http://{}/operator/console", listener.local_addr());
    let code = player.friend_code.to_string();
    let reason = "ticket 77: charged twice for <Gem Pack> & \"more\"";
    let minute = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]");
    let poll_closes = (app.now() + time::Duration::days(1))
        .format(minute)
        .expect("a time formats");

    let outcome = run_kit_script(
        "console.mjs",
        &[
            ("--console", &console),
            ("--full", &full),
            ("--read", &read),
            ("--friend-code", &code),
            ("--reason", reason),
            ("--poll-closes", &poll_closes),
        ],
    )
    .await;
    assert!(
        outcome.ok,
        "the browser run failed: {:#}\n{}",
        outcome.report, outcome.stderr
    );
    assert_eq!(outcome.report["accountId"], player.id.0.to_string());
    assert_eq!(outcome.report["gemsAfter"], "7");

    // What the browser saw is what the database holds.
    let account = app.stored_account(player.id).await;
    assert_eq!(
        (account.gems, account.coins, account.is_banned),
        (7, 0, true)
    );
    let ledger = app.store.ledger(player.id).await.expect("the ledger reads");
    let rows: Vec<_> = ledger
        .iter()
        .map(|e| {
            (
                e.currency,
                e.delta,
                e.balance_after,
                e.reason.as_str(),
                e.reference.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [(Currency::Gems, 7, 7, reason, "operator:alice:refund")]
    );
    let audit = app
        .store
        .audit(&AuditFilter {
            target: Some(format!("account:{}", player.id.0)),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads");
    let rows: Vec<_> = audit
        .iter()
        .rev()
        .map(|row| {
            let refused = row
                .entry
                .result
                .starts_with("refused: the operator token bob is read-only");
            let result = if refused {
                "refused (read-only)"
            } else {
                row.entry.result.as_str()
            };
            (
                row.token_name.as_str(),
                row.entry.action.as_str(),
                row.entry.reason.as_str(),
                result,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("alice", "refund", reason, "done"),
            ("alice", "ban", "cheating, report 7", "done"),
            ("bob", "grant", "forged", "refused (read-only)"),
            ("bob", "refund", "forged", "refused (read-only)"),
            ("bob", "remove", "forged", "refused (read-only)"),
            ("bob", "unban", "forged", "refused (read-only)"),
            ("bob", "revoke-keys", "forged", "refused (read-only)"),
        ],
        "the form without its token never reached the API"
    );
    app.assert_ledger_balanced(player.id).await;
    let polls = app.store.polls(10).await.expect("the polls read");
    let closes: Vec<_> = polls
        .iter()
        .map(|results| results.poll.window.closes.format(minute).expect("formats"))
        .collect();
    assert_eq!(closes, [poll_closes], "the browser's local time, as UTC");
    listener.stop().await;
}
