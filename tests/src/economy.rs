//! Helpers for the economy's behaviour tests: the operator's grant, reading an account's money
//! and holdings over HTTP, and checking its ledger against its balances.

use reqwest::Method;
use safezone_core::clock::Clock;
use safezone_core::content::Content;
use safezone_core::domain::FriendCode;
use safezone_core::operator::{self, GrantError};
use safezone_core::store::{Account, AccountId, Currency, Granted, LedgerEntry};
use serde_json::Value;

pub use safezone_core::operator::Grant;

use crate::{Answer, TestApp};

/// A grant of `coins` coins and nothing else.
pub fn coins(coins: i64) -> Grant {
    Grant {
        coins,
        ..Grant::default()
    }
}

/// A grant of `gems` gems and nothing else.
pub fn gems(gems: i64) -> Grant {
    Grant {
        gems,
        ..Grant::default()
    }
}

/// A grant of the items with these SKUs and nothing else.
pub fn items(skus: &[&str]) -> Grant {
    Grant {
        items: skus.iter().map(|sku| (*sku).to_owned()).collect(),
        ..Grant::default()
    }
}

/// A grant of `quantity` packs with this SKU and nothing else.
pub fn packs(sku: &str, quantity: i64) -> Grant {
    Grant {
        packs: vec![(sku.to_owned(), quantity)],
        ..Grant::default()
    }
}

/// What an account holds, as `GET /api/user/{key}` shows it, plus the length of its ledger:
/// compared before and after a refused request to show that nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The coin balance.
    pub coins: i64,
    /// The gem balance.
    pub gems: i64,
    /// Experience points.
    pub experience: i64,
    /// The friend code.
    pub friend_code: String,
    /// Owned item ids, in the answer's order.
    pub licenses: Vec<i64>,
    /// `(pack id, quantity)` of unopened packs, in the answer's order.
    pub packs: Vec<(i64, i64)>,
    /// How many ledger rows the account has.
    pub ledger_rows: usize,
}

/// The quantity of unopened packs `pack` in an ApiUser (0 when it is not listed).
pub fn pack_count(user: &Value, pack: i64) -> i64 {
    user["packs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|stock| stock["pack_id"] == pack)
        .map_or(0, |stock| stock["quantity"].as_i64().unwrap_or(0))
}

/// Whether an ApiUser's `licenses` hold item `item`.
pub fn owns(user: &Value, item: i64) -> bool {
    user["licenses"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|license| license["item_id"] == item)
}

/// An integer field of a JSON object, or a panic naming it.
#[track_caller]
pub fn int(value: &Value, field: &str) -> i64 {
    value[field]
        .as_i64()
        .unwrap_or_else(|| panic!("`{field}` is not an integer: {value}"))
}

impl TestApp {
    /// Signs in the Android device `device` (again) and answers the fresh key: after moving
    /// the clock by more than a key's lifetime.
    pub async fn key_of_device(&self, device: &str) -> String {
        self.post(&format!("/api/validate/device/{device}"))
            .await
            .success()["user"]["key"]
            .as_str()
            .expect("a key")
            .to_owned()
    }

    /// The ApiUser of `GET /api/user/{key}` (asserting success).
    pub async fn user(&self, key: &str) -> Value {
        self.get(&format!("/api/user/{key}")).await.success()["user"].clone()
    }

    /// The account id of the holder of `key`.
    pub async fn account_id(&self, key: &str) -> AccountId {
        AccountId(int(&self.user(key).await, "id"))
    }

    /// The stored account of the holder of `key`.
    pub async fn account_of(&self, key: &str) -> Account {
        self.stored_account(self.account_id(key).await).await
    }

    /// The account with `id`, read from the store.
    pub async fn stored_account(&self, id: AccountId) -> Account {
        self.store
            .account(id)
            .await
            .expect("the store answers")
            .expect("the account exists")
    }

    /// Gives `grant` to the holder of `key` through the operator's grant (the same core call
    /// as the binaries' `grant` subcommand), finding the friend code with `GET /api/user`.
    /// Answers what was granted; panics when the grant is refused.
    pub async fn grant_to(&self, key: &str, grant: Grant) -> Vec<Granted> {
        let code = self.user(key).await["friend_code"]
            .as_str()
            .expect("a friend code")
            .to_owned();
        self.grant_to_code(&code, &grant)
            .await
            .unwrap_or_else(|error| panic!("the grant to {code} is refused: {error}"))
    }

    /// Gives `grant` to the account with the friend code `code` (`Name#1234`) through the
    /// operator's grant, at the test clock's time, with the server's hooks.
    pub async fn grant_to_code(
        &self,
        code: &str,
        grant: &Grant,
    ) -> Result<Vec<Granted>, GrantError> {
        let code = FriendCode::parse(code).expect("a well-formed friend code");
        operator::grant(
            self.store.as_ref(),
            &Content::shipped(),
            &code,
            grant,
            self.clock.now(),
            &self.hooks,
        )
        .await
        .map(|(_, granted)| granted)
    }

    /// A new account holding `coins` coins and `gems` gems (given by operator grants);
    /// answers its key.
    pub async fn funded_key(&self, coins: i64, gems: i64) -> String {
        let key = self.new_key().await;
        if coins > 0 || gems > 0 {
            self.grant_to(
                &key,
                Grant {
                    coins,
                    gems,
                    ..Grant::default()
                },
            )
            .await;
        }
        key
    }

    /// `POST /api/user/{key}/{action}?{query}`, e.g. `app.act(&key, "buy", "packId=1&quantity=1")`.
    pub async fn act(&self, key: &str, action: &str, query: &str) -> Answer {
        self.post(&format!("/api/user/{key}/{action}?{query}"))
            .await
    }

    /// `POST /api/user/{key}/buy?{query}`.
    pub async fn buy(&self, key: &str, query: &str) -> Answer {
        self.act(key, "buy", query).await
    }

    /// `POST /api/user/{key}/buy?{query}` with the `Idempotency-Key` header `idempotency`.
    pub async fn buy_once(&self, key: &str, query: &str, idempotency: &str) -> Answer {
        self.send(
            Method::POST,
            &format!("/api/user/{key}/buy?{query}"),
            &[("idempotency-key", idempotency)],
            None,
        )
        .await
    }

    /// `POST /api/user/{key}/pack/open?packId={pack}`.
    pub async fn open_pack(&self, key: &str, pack: i64) -> Answer {
        self.act(key, "pack/open", &format!("packId={pack}")).await
    }

    /// `POST /api/user/{key}/rewards/claim?type={kind}`.
    pub async fn claim(&self, key: &str, kind: &str) -> Answer {
        self.act(key, "rewards/claim", &format!("type={kind}"))
            .await
    }

    /// The ledger of the holder of `key`, oldest first.
    pub async fn ledger_of(&self, key: &str) -> Vec<LedgerEntry> {
        let id = self.account_id(key).await;
        self.store.ledger(id).await.expect("the ledger reads")
    }

    /// The holder of `key`'s balances, holdings and ledger length.
    pub async fn snapshot(&self, key: &str) -> Snapshot {
        let user = self.user(key).await;
        let id = AccountId(int(&user, "id"));
        let ledger = self.store.ledger(id).await.expect("the ledger reads");
        Snapshot {
            coins: int(&user, "coins"),
            gems: int(&user, "gems"),
            experience: int(&user, "experience"),
            friend_code: user["friend_code"].as_str().unwrap_or_default().to_owned(),
            licenses: user["licenses"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|license| int(license, "item_id"))
                .collect(),
            packs: user["packs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|stock| (int(stock, "pack_id"), int(stock, "quantity")))
                .collect(),
            ledger_rows: ledger.len(),
        }
    }

    /// Asserts that the account's coins and gems each equal the sum of its ledger deltas in
    /// that currency, that every ledger row's `balance_after` is the running sum of the rows
    /// before it and itself, and that no balance, license or pack count is negative.
    pub async fn assert_ledger_balanced(&self, account: AccountId) {
        let stored = self
            .store
            .account(account)
            .await
            .expect("the store answers")
            .expect("the account exists");
        let ledger = self.store.ledger(account).await.expect("the ledger reads");
        for (currency, balance) in [
            (Currency::Coins, stored.coins),
            (Currency::Gems, stored.gems),
        ] {
            let mut running: i64 = 0;
            let mut previous_id = i64::MIN;
            for entry in ledger.iter().filter(|entry| entry.currency == currency) {
                assert!(
                    entry.id > previous_id,
                    "ledger not ordered by id: {ledger:#?}"
                );
                previous_id = entry.id;
                assert_eq!(entry.account, account, "{entry:?}");
                assert_ne!(entry.delta, 0, "a ledger row moves nothing: {entry:?}");
                running = running
                    .checked_add(entry.delta)
                    .expect("the ledger's sum does not overflow");
                assert_eq!(
                    entry.balance_after,
                    running,
                    "{} balance_after is not the running sum: {entry:?}",
                    currency.as_str()
                );
                assert!(running >= 0, "negative balance in the ledger: {entry:?}");
            }
            assert_eq!(
                balance,
                running,
                "{} balance differs from the sum of its ledger deltas: {ledger:#?}",
                currency.as_str()
            );
            assert!(balance >= 0, "negative {} balance", currency.as_str());
        }
        let holdings = self
            .store
            .holdings(account)
            .await
            .expect("the holdings read");
        for license in &holdings.licenses {
            assert!(license.quantity >= 1, "{license:?}");
        }
        for stock in &holdings.packs {
            assert!(stock.quantity >= 0, "{stock:?}");
        }
    }

    /// [`TestApp::assert_ledger_balanced`] for the holder of `key`.
    pub async fn assert_key_ledger_balanced(&self, key: &str) {
        let id = self.account_id(key).await;
        self.assert_ledger_balanced(id).await;
    }
}
