//! The accounts (signed up, funded by the operator's `grant`) and the random money operations
//! the clients send for them.

use std::process::{Child, Command, Stdio};

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::Value;
use tokio::sync::watch;

use super::server::Address;

/// Accounts signed up and funded.
pub(super) const ACCOUNTS: usize = 12;
/// Concurrent clients per account, each sending its operations one after another.
pub(super) const WORKERS_PER_ACCOUNT: usize = 2;
/// Operations each client sends.
pub(super) const OPS_PER_WORKER: usize = 16;
/// The share of operations sent twice at once with the same key.
const DOUBLE_CLICKS: f64 = 0.2;
/// Coins and gems the operator grants each account before the run.
const FUNDING: (i64, i64) = (9_000, 2_500);
/// Items sold for coins only (one debit each).
const COIN_ITEMS: [i64; 13] = [10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23];
/// Reward types the content lets every account claim, each granting exactly one currency.
const REWARD_TYPES: [&str; 5] = ["first", "gift", "recurring", "bonus", "social"];
/// Names the renames choose from.
const NAMES: [&str; 3] = ["Frost", "Ember", "Drift"];
/// The reward track whose pass is bought (for gems).
pub(super) const PASS_TRACK: i64 = 2;
/// The reward tracks whose tiers are skipped (for gems): the free one and the pass.
pub(super) const SKIP_TRACKS: [i64; 2] = [1, PASS_TRACK];

/// A signed-up account as the clients know it.
pub(super) struct Account {
    pub(super) id: i64,
    pub(super) key: String,
    pub(super) friend_code: String,
}

/// Signs up [`ACCOUNTS`] Android devices, each a new account.
pub(super) async fn sign_up(
    client: &reqwest::Client,
    addresses: &watch::Receiver<Address>,
) -> Vec<Account> {
    let address = addresses
        .borrow()
        .address
        .clone()
        .expect("the server is up");
    let mut accounts = Vec::with_capacity(ACCOUNTS);
    for index in 0..ACCOUNTS {
        let response = client
            .post(format!(
                "http://{address}/api/validate/device/android-crash-{index}"
            ))
            .send()
            .await
            .expect("the sign-in is answered");
        assert_eq!(response.status().as_u16(), 200, "device sign-in");
        let body: Value = response.json().await.expect("a JSON sign-in answer");
        let user = &body["user"];
        accounts.push(Account {
            id: user["id"].as_i64().expect("an account id"),
            key: user["key"].as_str().expect("a key").to_owned(),
            friend_code: user["friend_code"]
                .as_str()
                .expect("a friend code")
                .to_owned(),
        });
    }
    accounts
}

/// Gives every account [`FUNDING`] with the binary's `grant` subcommand, all at once.
pub(super) fn fund(binary: &str, url: &str, accounts: &[Account]) {
    let (coins, gems) = FUNDING;
    let grants: Vec<Child> = accounts
        .iter()
        .map(|account| {
            Command::new(binary)
                .args(["--database-url", url, "grant", "--to", &account.friend_code])
                .args(["--coins", &coins.to_string(), "--gems", &gems.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the grant command starts")
        })
        .collect();
    for grant in grants {
        let output =
            tokio::task::block_in_place(|| grant.wait_with_output()).expect("the grant ends");
        assert!(
            output.status.success(),
            "the operator's grant failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// One money operation: a POST with its own `Idempotency-Key`.
#[derive(Debug, Clone)]
pub(super) struct Op {
    /// The index of the account in the run's list.
    pub(super) account: usize,
    /// The path and query, e.g. `/api/user/{key}/buy?packId=1&quantity=2`.
    pub(super) path: String,
    /// The `Idempotency-Key` header.
    pub(super) key: String,
    /// `reason:reference` of the change, as the store records it with the key.
    pub(super) fingerprint: String,
    /// Ledger debits one application writes.
    pub(super) debits: usize,
    /// Sent twice at once with the same key.
    pub(super) double_click: bool,
}

/// The operations of each client: [`WORKERS_PER_ACCOUNT`] lists per account.
pub(super) fn plan_ops(accounts: &[Account], rng: &mut StdRng) -> Vec<Vec<Op>> {
    let mut lists = Vec::new();
    for (index, account) in accounts.iter().enumerate() {
        for worker in 0..WORKERS_PER_ACCOUNT {
            let list = (0..OPS_PER_WORKER)
                .map(|number| {
                    let (path, fingerprint, debits) = random_action(&account.key, rng);
                    Op {
                        account: index,
                        path,
                        key: format!("crash-{index}-{worker}-{number}"),
                        fingerprint,
                        debits,
                        double_click: rng.random_bool(DOUBLE_CLICKS),
                    }
                })
                .collect();
            lists.push(list);
        }
    }
    lists
}

/// A random money operation for the holder of `key`: its path, fingerprint and debits (ledger
/// rows with a negative delta that one application writes).
fn random_action(key: &str, rng: &mut StdRng) -> (String, String, usize) {
    let user = format!("/api/user/{key}");
    match rng.random_range(0..12) {
        0 | 1 => {
            let item = COIN_ITEMS.choose(rng).expect("coin items");
            let query = format!("itemId={item}&quantity=1");
            (format!("{user}/buy?{query}"), format!("buy:item:{item}"), 1)
        }
        2 => {
            let quantity = rng.random_range(1..=3);
            (
                format!("{user}/buy?packId=1&quantity={quantity}"),
                format!("buy:pack:1x{quantity}"),
                1,
            )
        }
        3 => {
            let (query, reference) = match rng.random_range(0..3) {
                0 => ("packId=2&quantity=1", "pack:2x1"),
                1 => ("itemId=15&quantity=1", "item:15"),
                _ => ("timedDealId=1&quantity=1", "deal:1"),
            };
            (format!("{user}/buy?{query}"), format!("buy:{reference}"), 1)
        }
        4..=6 => {
            let pack = rng.random_range(1..=3);
            (
                format!("{user}/pack/open?packId={pack}"),
                format!("pack:open:{pack}"),
                0,
            )
        }
        7 | 8 => {
            let kind = REWARD_TYPES.choose(rng).expect("reward types");
            (
                format!("{user}/rewards/claim?type={kind}"),
                format!("claim:{kind}"),
                0,
            )
        }
        9 => {
            let name = NAMES.choose(rng).expect("names");
            (
                format!("{user}/friend-code/update?name={name}"),
                format!("rename:name:{name}"),
                1,
            )
        }
        10 => (
            format!("/api/reward/tracks/{PASS_TRACK}/buy?userKey={key}"),
            format!("track:buy:{PASS_TRACK}"),
            1,
        ),
        _ => {
            let track = SKIP_TRACKS.choose(rng).expect("tracks");
            let tiers = rng.random_range(1..=2);
            (
                format!("/api/reward/tracks/{track}/skip?tiers={tiers}&userKey={key}"),
                format!("track:skip:{track}:{tiers}"),
                1,
            )
        }
    }
}
