//! The players: device accounts the generator knows (their key, friend code, balances, packs,
//! the rewards they have not claimed and the polls they may vote in), and what each kind of
//! player request does, as the game client would send it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rand::Rng;
use rand::seq::IndexedRandom;
use serde_json::Value;

use crate::client::{Answer, Http, Request};
use crate::kinds::Kind;

/// The rewards a new account may claim during the day (the shipped content's schedules: once,
/// every 4 hours, 3 a day, 1 a day, once).
const CLAIMS: [&str; 7] = [
    "first",
    "gift",
    "recurring",
    "recurring",
    "recurring",
    "bonus",
    "social",
];

/// Boards asked for, the default one most.
const MODES: [&str; 5] = ["solo", "solo", "duo", "squad", "limited"];
const WINDOWS: [&str; 6] = ["all", "all", "24h", "7d", "1m", "1y"];
const CATEGORIES: [&str; 7] = [
    "wins",
    "kills",
    "rounds",
    "top10",
    "winrate",
    "kills_per_round",
    "time_alive",
];

/// One device account.
struct Player {
    device: String,
    id: i64,
    key: String,
    friend_code: String,
    coins: i64,
    gems: i64,
    /// Unopened packs: (pack id, quantity).
    packs: Vec<(i64, i64)>,
    claims: Vec<&'static str>,
    /// Polls seen open and not voted in: (poll id, option ids).
    polls: Vec<(i64, Vec<i64>)>,
    /// Deleted, or being deleted.
    gone: bool,
}

impl Player {
    /// Reads what an answer's `user` says of the account.
    fn learn(&mut self, user: &Value) {
        if let Some(coins) = user["coins"].as_i64() {
            self.coins = coins;
        }
        if let Some(gems) = user["gems"].as_i64() {
            self.gems = gems;
        }
        if let Some(code) = user["friend_code"].as_str() {
            code.clone_into(&mut self.friend_code);
        }
        if let Some(key) = user["key"].as_str().filter(|key| !key.is_empty()) {
            key.clone_into(&mut self.key);
        }
        if let Some(packs) = user["packs"].as_array() {
            self.packs = packs
                .iter()
                .filter_map(|pack| Some((pack["pack_id"].as_i64()?, pack["quantity"].as_i64()?)))
                .collect();
        }
    }
}

/// What a request needs of a player, copied out so that no lock is held across it.
#[derive(Clone)]
struct Snapshot {
    index: usize,
    device: String,
    id: i64,
    key: String,
}

/// Every player the generator made, and what they do.
pub struct Players {
    list: Mutex<Vec<Player>>,
    http: Http,
    /// A prefix unique to this run, for device ids, idempotency keys and names.
    run: String,
    counter: AtomicU64,
    /// (account, idempotency key) of every economy change answered 2xx: each must be in the
    /// database at the end, unless its account was deleted.
    pub acknowledged: Mutex<Vec<(i64, String)>>,
    /// Per account, the sign-ins of its existing device sent and answered 2xx.
    pub sign_ins: Mutex<HashMap<i64, (u32, u32)>>,
}

impl Players {
    /// No players yet; `run` prefixes what this run names.
    pub fn new(http: Http, run: String) -> Arc<Self> {
        Arc::new(Self {
            list: Mutex::new(Vec::new()),
            http,
            run,
            counter: AtomicU64::new(0),
            acknowledged: Mutex::new(Vec::new()),
            sign_ins: Mutex::new(HashMap::new()),
        })
    }

    fn next(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }

    fn list(&self) -> std::sync::MutexGuard<'_, Vec<Player>> {
        self.list
            .lock()
            .expect("the players' lock is never poisoned")
    }

    /// A random player still there.
    fn pick(&self) -> Option<Snapshot> {
        let list = self.list();
        let mut rng = rand::rng();
        for _ in 0..20 {
            if list.is_empty() {
                return None;
            }
            let index = rng.random_range(0..list.len());
            let player = &list[index];
            if !player.gone {
                return Some(Snapshot {
                    index,
                    device: player.device.clone(),
                    id: player.id,
                    key: player.key.clone(),
                });
            }
        }
        None
    }

    /// `count` distinct account ids of players still there (fewer when there are fewer).
    pub fn accounts(&self, count: usize) -> Vec<i64> {
        let list = self.list();
        let live: Vec<i64> = list
            .iter()
            .filter(|player| !player.gone)
            .map(|player| player.id)
            .collect();
        live.choose_multiple(&mut rand::rng(), count)
            .copied()
            .collect()
    }

    /// Players still there.
    pub fn live(&self) -> usize {
        self.list().iter().filter(|player| !player.gone).count()
    }

    fn update(&self, index: usize, change: impl FnOnce(&mut Player)) {
        if let Some(player) = self.list().get_mut(index) {
            change(player);
        }
    }

    fn learn(&self, index: usize, answer: &Answer) {
        if answer.ok() {
            let body = answer.json();
            self.update(index, |player| player.learn(&body["user"]));
        }
    }

    /// Signs up a new device and claims its welcome reward (`first`) at once, as a new
    /// player's client does.
    pub async fn sign_up(&self, kind: Kind) {
        let number = self.next();
        let platform = if number.is_multiple_of(3) {
            "android"
        } else {
            "ios"
        };
        let device = format!("{platform}-{}-{number}", self.run);
        let Some(answer) = self
            .http
            .send(
                kind,
                &Request::post(format!("/api/validate/device/{device}")),
            )
            .await
        else {
            return;
        };
        if !answer.ok() {
            return;
        }
        let body = answer.json();
        let user = &body["user"];
        let (Some(id), Some(key)) = (user["id"].as_i64(), user["key"].as_str()) else {
            return;
        };
        let mut player = Player {
            device,
            id,
            key: key.to_owned(),
            friend_code: String::new(),
            coins: 0,
            gems: 0,
            packs: Vec::new(),
            claims: CLAIMS[1..].to_vec(),
            polls: Vec::new(),
            gone: false,
        };
        player.learn(user);
        let snapshot = Snapshot {
            index: 0,
            device: player.device.clone(),
            id,
            key: player.key.clone(),
        };
        let index = {
            let mut list = self.list();
            list.push(player);
            list.len() - 1
        };
        let snapshot = Snapshot { index, ..snapshot };
        let target = format!(
            "/api/user/{}/rewards/claim?type={}",
            snapshot.key, CLAIMS[0]
        );
        self.change(Kind::Claim, &snapshot, target).await;
    }

    /// Does one request of `kind` as a random player (or what the client does instead when
    /// the player cannot).
    pub async fn act(&self, kind: Kind) {
        if kind == Kind::SignUp {
            return self.sign_up(kind).await;
        }
        let Some(player) = self.pick() else {
            return self.sign_up(Kind::SignUp).await;
        };
        match kind {
            Kind::Config => self.config(&player).await,
            Kind::Account => self.account(&player).await,
            Kind::SignIn => {
                self.sign_in(&player).await;
            }
            Kind::Leaderboard => self.leaderboard(&player).await,
            Kind::Profile => self.profile(&player).await,
            Kind::Rewards => {
                self.read(Kind::Rewards, format!("/api/user/{}/rewards", player.key))
                    .await
            }
            Kind::Shop => {
                self.read(
                    Kind::Shop,
                    format!("/api/shop/available?userKey={}", player.key),
                )
                .await
            }
            Kind::Quests => {
                self.read(
                    Kind::Quests,
                    format!("/api/quest/available?userKey={}", player.key),
                )
                .await
            }
            Kind::Tracks => {
                self.read(
                    Kind::Tracks,
                    format!("/api/reward/tracks?userKey={}", player.key),
                )
                .await
            }
            Kind::Claim => self.claim(&player).await,
            Kind::Buy => self.buy(&player).await,
            Kind::Open => self.open(&player).await,
            Kind::Polls => self.polls(&player).await,
            Kind::Vote => self.vote(&player).await,
            Kind::Rename => self.rename(&player).await,
            Kind::Delete => self.delete(&player).await,
            _ => {}
        }
    }

    async fn read(&self, kind: Kind, target: String) {
        self.http.send(kind, &Request::get(target)).await;
    }

    async fn config(&self, player: &Snapshot) {
        let polled = rand::rng().random_bool(0.7);
        let platform = if player.device.starts_with("android") {
            "android"
        } else {
            "ios"
        };
        let target = format!(
            "/api/config?platform={platform}&version=2.8.1&version2=1.3.0&userKey={}{}",
            player.key,
            if polled { "&isPolledUpdate=true" } else { "" }
        );
        self.read(Kind::Config, target).await;
    }

    async fn account(&self, player: &Snapshot) {
        let request = Request::get(format!("/api/user/{}", player.key));
        if let Some(answer) = self.http.send(Kind::Account, &request).await {
            self.learn(player.index, &answer);
        }
    }

    /// Signs the player's device in again; answers the new key.
    async fn sign_in(&self, player: &Snapshot) -> Option<String> {
        let request = Request::post(format!("/api/validate/device/{}", player.device));
        self.count_sign_in(player.id, 1, 0);
        let answer = self.http.send(Kind::SignIn, &request).await?;
        if answer.ok() {
            self.count_sign_in(player.id, 0, 1);
        }
        self.learn(player.index, &answer);
        answer.json()["user"]["key"].as_str().map(str::to_owned)
    }

    fn count_sign_in(&self, account: i64, sent: u32, acknowledged: u32) {
        let mut sign_ins = self.sign_ins.lock().expect("never poisoned");
        let counts = sign_ins.entry(account).or_default();
        counts.0 += sent;
        counts.1 += acknowledged;
    }

    async fn leaderboard(&self, player: &Snapshot) {
        let target = {
            let mut rng = rand::rng();
            let category = if rng.random_bool(0.5) {
                "wins"
            } else {
                CATEGORIES.choose(&mut rng).copied().unwrap_or("wins")
            };
            format!(
                "/api/leaderboard/live?mode={}&time={}&category={category}&userKey={}",
                MODES.choose(&mut rng).copied().unwrap_or("solo"),
                WINDOWS.choose(&mut rng).copied().unwrap_or("all"),
                player.key
            )
        };
        self.read(Kind::Leaderboard, target).await;
    }

    async fn profile(&self, player: &Snapshot) {
        let code = {
            let list = self.list();
            let other = rand::rng().random_range(0..list.len());
            list[other].friend_code.replace('#', "%23")
        };
        if code.is_empty() {
            return self.account(player).await;
        }
        self.read(
            Kind::Profile,
            format!("/api/profile/{code}?userKey={}", player.key),
        )
        .await;
    }

    /// Sends an economy change with a fresh idempotency key and learns its answer.
    async fn change(&self, kind: Kind, player: &Snapshot, target: String) {
        let key = format!("{}-{}", self.run, self.next());
        let mut request = Request::post(target);
        request.idempotency = Some(key.clone());
        if let Some(answer) = self.http.send(kind, &request).await {
            if answer.ok() {
                self.acknowledged
                    .lock()
                    .expect("never poisoned")
                    .push((player.id, key));
            }
            self.learn(player.index, &answer);
        }
    }

    async fn claim(&self, player: &Snapshot) {
        let mut claim = None;
        self.update(player.index, |state| {
            if !state.claims.is_empty() {
                let at = rand::rng().random_range(0..state.claims.len());
                claim = Some(state.claims.swap_remove(at));
            }
        });
        let Some(claim) = claim else {
            return self
                .read(Kind::Rewards, format!("/api/user/{}/rewards", player.key))
                .await;
        };
        let target = format!("/api/user/{}/rewards/claim?type={claim}", player.key);
        self.change(Kind::Claim, player, target).await;
    }

    async fn buy(&self, player: &Snapshot) {
        let mut pack = None;
        self.update(player.index, |state| {
            pack = if state.coins >= 750 {
                Some(1)
            } else if state.gems >= 250 {
                Some(2)
            } else {
                None
            };
        });
        let Some(pack) = pack else {
            return self
                .read(
                    Kind::Shop,
                    format!("/api/shop/available?userKey={}", player.key),
                )
                .await;
        };
        let target = format!("/api/user/{}/buy?packId={pack}&quantity=1", player.key);
        self.change(Kind::Buy, player, target).await;
    }

    async fn open(&self, player: &Snapshot) {
        let mut pack = None;
        self.update(player.index, |state| {
            pack = state
                .packs
                .iter()
                .find(|(_, quantity)| *quantity > 0)
                .map(|(id, _)| *id);
        });
        let Some(pack) = pack else {
            return self.account(player).await;
        };
        let target = format!("/api/user/{}/pack/open?packId={pack}", player.key);
        self.change(Kind::Open, player, target).await;
    }

    async fn polls(&self, player: &Snapshot) {
        let request = Request::get(format!("/api/poll/available?userKey={}", player.key));
        let Some(answer) = self.http.send(Kind::Polls, &request).await else {
            return;
        };
        let body = answer.json();
        let polls: Vec<(i64, Vec<i64>)> = body["poll"]
            .as_array()
            .map(|polls| {
                polls
                    .iter()
                    .filter_map(|poll| {
                        let options = poll["options"]
                            .as_array()?
                            .iter()
                            .filter_map(|option| option["id"].as_i64())
                            .collect();
                        Some((poll["id"].as_i64()?, options))
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.update(player.index, |state| state.polls = polls);
    }

    async fn vote(&self, player: &Snapshot) {
        let mut vote = None;
        self.update(player.index, |state| {
            if let Some((poll, options)) = state.polls.pop() {
                vote = options
                    .choose(&mut rand::rng())
                    .map(|option| (poll, *option));
            }
        });
        let Some((poll, option)) = vote else {
            return self.polls(player).await;
        };
        let target = format!(
            "/api/poll/vote/{poll}?optionId={option}&userKey={}",
            player.key
        );
        self.http.send(Kind::Vote, &Request::post(target)).await;
    }

    async fn rename(&self, player: &Snapshot) {
        let mut gems = 0;
        self.update(player.index, |state| gems = state.gems);
        if gems < 40 {
            return self.claim(player).await;
        }
        let name = format!("Day{}", self.next() % 1_000_000);
        let target = format!("/api/user/{}/friend-code/update?name={name}", player.key);
        self.change(Kind::Rename, player, target).await;
    }

    /// Signs in again for a second key, then deletes the account with it as confirmation.
    async fn delete(&self, player: &Snapshot) {
        let mut claimed = false;
        self.update(player.index, |state| {
            claimed = !state.gone;
            state.gone = true;
        });
        if !claimed {
            return;
        }
        let Some(second) = self.sign_in(player).await else {
            return;
        };
        let target = format!(
            "/api/user/{}/delete-account?confirmationKey={second}",
            player.key
        );
        self.http.send(Kind::Delete, &Request::post(target)).await;
    }
}
