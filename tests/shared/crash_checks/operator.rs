//! The operator's grants racing the kills: clients of the operator API granting one coin each
//! to random accounts, each grant with its own reason, sent once (a grant has no idempotency
//! key: one left unanswered is not sent again); and the check that every grant the ledger holds
//! has exactly one audit row and one `operator_action` event, and every audited grant its
//! ledger row.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rand::Rng;
use serde_json::{Value, json};
use tokio::sync::watch;

use super::database::Stored;
use super::server::Address;
use super::workload::Account;

/// Concurrent operator clients.
const OPERATORS: usize = 8;
/// The operator token's name: the grants' ledger reference is `operator:crash:grant`.
const TOKEN: &str = "crash";
/// The ledger reference of the operator API's grants.
pub(super) const REFERENCE: &str = "operator:crash:grant";

/// Creates the operator token with the binary's `operator-token create`; answers its secret.
pub(super) fn token(binary: &str, url: &str) -> String {
    let output = Command::new(binary)
        .args(["--database-url", url, "operator-token", "create"])
        .args(["--name", TOKEN, "--role", "full"])
        .output()
        .expect("the token command runs");
    assert!(
        output.status.success(),
        "operator-token create failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = String::from_utf8_lossy(&output.stdout);
    line.split_whitespace()
        .last()
        .expect("the secret ends the line")
        .to_owned()
}

/// The operator clients' counters.
#[derive(Default)]
pub(super) struct Granting {
    /// Grants sent.
    pub(super) sent: AtomicU64,
    /// Reasons of the grants answered 200.
    pub(super) acknowledged: std::sync::Mutex<Vec<String>>,
    /// Set when the money clients are done: the operators stop.
    pub(super) stop: AtomicBool,
}

/// Runs [`OPERATORS`] clients granting one coin at a time to random `accounts` through the
/// operator API with `secret`, until `granting.stop`.
pub(super) fn spawn(
    client: &reqwest::Client,
    addresses: &watch::Receiver<Address>,
    accounts: &[Account],
    secret: &str,
    granting: &Arc<Granting>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let ids: Arc<Vec<i64>> = Arc::new(accounts.iter().map(|account| account.id).collect());
    (0..OPERATORS)
        .map(|operator| {
            let (client, mut addresses) = (client.clone(), addresses.clone());
            let (ids, secret, granting) =
                (Arc::clone(&ids), secret.to_owned(), Arc::clone(granting));
            tokio::spawn(async move {
                let mut sent = 0_u64;
                while !granting.stop.load(Ordering::SeqCst) {
                    let operator_address =
                        match addresses.wait_for(|now| now.operator.is_some()).await {
                            Ok(current) => current.operator.clone().expect("an address"),
                            Err(_) => return,
                        };
                    let account = ids[rand::rng().random_range(0..ids.len())];
                    let reason = format!("crash grant {operator}-{sent}");
                    sent += 1;
                    granting.sent.fetch_add(1, Ordering::SeqCst);
                    let answer = client
                        .post(format!(
                            "http://{operator_address}/operator/api/players/{account}/grant"
                        ))
                        .bearer_auth(&secret)
                        .json(&json!({"coins": 1, "reason": reason}))
                        .send()
                        .await;
                    if answer.is_ok_and(|answer| answer.status().as_u16() == 200) {
                        granting.acknowledged.lock().expect("a lock").push(reason);
                    }
                }
            })
        })
        .collect()
}

/// Every operator grant in the ledger (one coin row each, by its unique reason) has exactly one
/// audit row and one `operator_action` event, both `done`; every `done` grant in the audit has
/// its ledger row; every acknowledged grant was applied. Answers how many grants were applied.
pub(super) fn check(stored: &Stored, granting: &Granting) -> usize {
    let mut ledger = BTreeMap::<&str, usize>::new();
    for row in stored.ledger.iter().filter(|row| row.5 == REFERENCE) {
        assert_eq!(
            (row.1.as_str(), row.2),
            ("coins", 1),
            "a grant's row: {row:?}"
        );
        *ledger.entry(row.4.as_str()).or_default() += 1;
    }
    let mut audited = BTreeMap::<&str, Vec<&str>>::new();
    for (action, reason, result) in &stored.audit {
        if action == "grant" {
            audited
                .entry(reason.as_str())
                .or_default()
                .push(result.as_str());
        }
    }
    let mut told = BTreeMap::<String, Vec<String>>::new();
    for (_, kind, payload) in &stored.events {
        if kind == "operator_action" {
            let payload: Value = serde_json::from_str(payload).expect("an event is JSON");
            let text = |field: &str| payload[field].as_str().unwrap_or_default().to_owned();
            if text("action") == "grant" {
                told.entry(text("reason")).or_default().push(text("result"));
            }
        }
    }
    for (reason, rows) in &ledger {
        assert_eq!(*rows, 1, "grant `{reason}`: ledger rows");
        assert_eq!(
            audited.get(reason).map(Vec::as_slice),
            Some(&["done"][..]),
            "grant `{reason}` is in the ledger: its audit rows"
        );
        assert_eq!(
            told.get(*reason).map(Vec::as_slice),
            Some(&["done".to_owned()][..]),
            "grant `{reason}` is in the ledger: its operator_action events"
        );
    }
    for (reason, results) in &audited {
        if results.contains(&"done") {
            assert!(
                ledger.contains_key(reason),
                "grant `{reason}` audited done without its row"
            );
        }
    }
    for reason in granting.acknowledged.lock().expect("a lock").iter() {
        assert!(
            ledger.contains_key(reason.as_str()),
            "grant `{reason}` acknowledged, not applied"
        );
    }
    ledger.len()
}
