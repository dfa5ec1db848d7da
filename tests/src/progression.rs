//! Helpers for the behaviour tests of match reports, quests and reward tracks: reports as a
//! game server sends them, the quest and track lists, an account's whole standing (to show that
//! a refused request changed nothing), and [`Model`]: what the content file says an account
//! holds after its matches, passes and skips, to compare the server's answers and state with.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use reqwest::Method;
use safezone_core::clock::Clock;
use safezone_core::content::{Content, RewardSpec, RewardTrack};
use safezone_core::domain::{GameMode, ItemId, PackId, TrackId};
use safezone_core::economy::DUPLICATE_COINS_DEFAULT;
use safezone_core::store::{AccountId, MatchLogEntry};
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;
use time::macros::{datetime, format_description};
use time::{Duration, OffsetDateTime};

use crate::economy::{Snapshot, int};
use crate::{Answer, GAME_SERVER_TOKEN, TestApp};

/// An instant inside the shipped reward tracks' season (2026-11-01 to 2027-03-01) and before
/// the end of the pass's discount: tests of running tracks and quests set the clock here.
pub const IN_SEASON: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

/// How long the reports built here last: the longest a match may (6 hours), so that any
/// `timeAlive` up to it is valid.
pub const MATCH_SECS: i64 = 6 * 3600;

/// Who a report's line is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    /// By account id (`accountId`).
    Account(AccountId),
    /// By user key (`userKey`).
    Key(String),
}

/// One player's line of a match report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The player.
    pub who: Who,
    /// Final placement, 1 for the winner.
    pub placement: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive: i64,
    /// The game's named counters.
    pub stats: BTreeMap<String, i64>,
}

impl Line {
    /// The line of the account `account`.
    pub fn new(account: AccountId, placement: i64, kills: i64, time_alive: i64) -> Self {
        Self {
            who: Who::Account(account),
            placement,
            kills,
            time_alive,
            stats: BTreeMap::new(),
        }
    }

    /// The line of the holder of the user key `key`.
    pub fn by_key(key: &str, placement: i64, kills: i64, time_alive: i64) -> Self {
        Self {
            who: Who::Key(key.to_owned()),
            ..Self::new(AccountId(0), placement, kills, time_alive)
        }
    }

    /// The best result a match can have: the win with 99 kills, alive for the whole 6 hours.
    pub fn best(account: AccountId) -> Self {
        Self::new(account, 1, 99, MATCH_SECS)
    }

    /// The line with the named counter `key` at `value`.
    pub fn stat(mut self, key: &str, value: i64) -> Self {
        self.stats.insert(key.to_owned(), value);
        self
    }

    /// The line as the report's JSON.
    pub fn json(&self) -> Value {
        let mut line = json!({
            "placement": self.placement,
            "kills": self.kills,
            "timeAlive": self.time_alive,
            "stats": self.stats,
        });
        match &self.who {
            Who::Account(account) => line["accountId"] = json!(account.0),
            Who::Key(key) => line["userKey"] = json!(key),
        }
        line
    }

    /// The experience the content file gives this result.
    pub fn experience(&self, content: &Content) -> i64 {
        content
            .progression
            .match_experience
            .for_result(self.placement, self.kills, self.time_alive)
    }

    /// The coins the content file gives this result.
    pub fn coins(&self, content: &Content) -> i64 {
        content
            .progression
            .match_coins
            .for_result(self.placement, self.kills, self.time_alive)
    }

    /// The statistics stored for this line: `rounds` 1, `wins` 1 for placement 1, `top10` 1
    /// for placements 1 to 10, `kills`, `time_alive`, then the named counters; zeros left out.
    pub fn stored_stats(&self) -> BTreeMap<String, i64> {
        let standard = [
            ("rounds", 1),
            ("wins", i64::from(self.placement == 1)),
            ("top10", i64::from(self.placement <= 10)),
            ("kills", self.kills),
            ("time_alive", self.time_alive),
        ];
        standard
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .chain(self.stats.iter().map(|(key, value)| (key.clone(), *value)))
            .filter(|(_, value)| *value > 0)
            .collect()
    }

    /// What quests and challenges count of this line in `mode`: the stored statistics plus
    /// `mode_games_{mode}`, `mode_wins_{mode}`, `mode_top10_{mode}` and `mode_kills_{mode}`.
    pub fn counted_stats(&self, mode: GameMode) -> BTreeMap<String, i64> {
        let mut all = self.stored_stats();
        for (stat, name) in [
            ("rounds", "games"),
            ("wins", "wins"),
            ("top10", "top10"),
            ("kills", "kills"),
        ] {
            if let Some(value) = all.get(stat).copied() {
                all.insert(format!("mode_{name}_{}", mode.as_str()), value);
            }
        }
        all
    }
}

/// A finished match as a game server reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The game server's match id.
    pub id: String,
    /// The mode.
    pub mode: GameMode,
    /// When it ended; it started [`MATCH_SECS`] earlier.
    pub ended: OffsetDateTime,
    /// The players' lines.
    pub lines: Vec<Line>,
}

impl Report {
    /// The match `id` in `mode` that ended at `ended`, with these lines.
    pub fn new(id: &str, mode: GameMode, ended: OffsetDateTime, lines: Vec<Line>) -> Self {
        Self {
            id: id.to_owned(),
            mode,
            ended,
            lines,
        }
    }

    /// When it started.
    pub fn started(&self) -> OffsetDateTime {
        self.ended - Duration::seconds(MATCH_SECS)
    }

    /// The JSON body of `POST /internal/matches`.
    pub fn body(&self) -> Value {
        json!({
            "matchId": self.id,
            "mode": self.mode.as_str(),
            "startedAt": rfc3339(self.started()),
            "endedAt": rfc3339(self.ended),
            "players": self.lines.iter().map(Line::json).collect::<Vec<_>>(),
        })
    }
}

/// An instant as RFC 3339 text (`2026-11-22T12:00:00Z`).
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).expect("an RFC 3339 time")
}

/// An ApiDate at this instant, as the wire shows it.
pub fn api_date(at: OffsetDateTime) -> Value {
    let date = at
        .format(format_description!(
            "[year]-[month]-[day] [hour]:[minute]:[second].[subsecond digits:6]"
        ))
        .expect("a formatted date");
    json!({"date": date, "timezone_type": 3, "timezone": "UTC"})
}

/// A reward of the content file as clients read it, promised or granted (an item not owned
/// before).
pub fn reward_json(content: &Content, reward: &RewardSpec) -> Value {
    match reward {
        RewardSpec::Coins(quantity) => json!({"type": "coins", "quantity": quantity}),
        RewardSpec::Gems(quantity) => json!({"type": "gems", "quantity": quantity}),
        RewardSpec::Experience(quantity) => json!({"type": "experience", "quantity": quantity}),
        RewardSpec::Item(item) => {
            let sku = &content.catalog.item(*item).expect("the item exists").sku;
            json!({"type": "item", "itemId": item.0, "itemSku": sku, "quantity": 1})
        }
        RewardSpec::Pack { pack, quantity } => {
            let sku = &content.catalog.pack(*pack).expect("the pack exists").sku;
            json!({"type": "pack", "packId": pack.0, "packSku": sku, "quantity": quantity})
        }
    }
}

/// [`reward_json`] of each reward.
pub fn rewards_json(content: &Content, rewards: &[RewardSpec]) -> Vec<Value> {
    rewards
        .iter()
        .map(|reward| reward_json(content, reward))
        .collect()
}

/// Reward objects sorted by their text, to compare lists whose order is not part of the
/// contract.
pub fn sorted(rewards: &Value) -> Vec<String> {
    let mut texts: Vec<String> = rewards
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    texts.sort();
    texts
}

/// The shipped track with this id.
pub fn shipped_track(content: &Content, id: i64) -> &RewardTrack {
    content
        .tracks
        .iter()
        .find(|track| track.id == TrackId(id))
        .unwrap_or_else(|| panic!("the shipped content has track {id}"))
}

/// The run of the first shipped track running at `now` that is not stock and has a price and
/// tiers to skip: the pass the tests buy.
pub fn pass_track(content: &Content, now: OffsetDateTime) -> RewardTrack {
    content
        .tracks_at(now)
        .find(|track| !track.is_stock && track.cost_gems_per_tier > 0)
        .expect("a pass runs at that time")
        .into_owned()
}

/// The run of the first shipped stock track running at `now`.
pub fn stock_track(content: &Content, now: OffsetDateTime) -> RewardTrack {
    content
        .tracks_at(now)
        .find(|track| track.is_stock)
        .expect("a stock track runs at that time")
        .into_owned()
}

/// Everything about an account that the API and the store show: compared before and after a
/// refused request to show that nothing changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Balances, holdings, experience and ledger length.
    pub snapshot: Snapshot,
    /// The stored level.
    pub level: i64,
    /// `GET /api/quest/available` with the account's key.
    pub quests: Value,
    /// `GET /api/reward/tracks` with the account's key.
    pub tracks: Value,
    /// The statistics of each mode, in the shipped content's order ([`crate::shipped_modes`]).
    pub stats: Vec<BTreeMap<String, i64>>,
    /// The account's entries of the match log.
    pub match_log: Vec<MatchLogEntry>,
}

impl TestApp {
    /// `POST /internal/matches` with the game-server credential and this JSON body.
    pub async fn send_report(&self, body: &Value) -> Answer {
        let credential = format!("Bearer {GAME_SERVER_TOKEN}");
        self.send(
            Method::POST,
            "/internal/matches",
            &[
                ("authorization", credential.as_str()),
                ("content-type", "application/json"),
            ],
            Some(body.to_string().into_bytes()),
        )
        .await
    }

    /// Reports `report`, asserting a first (not replayed) success; answers the body.
    pub async fn report(&self, report: &Report) -> Value {
        let answer = self.send_report(&report.body()).await;
        let body = answer.success().clone();
        assert!(
            answer.header_values("idempotent-replayed").is_empty(),
            "a first report is not a replay: {}",
            answer.text
        );
        assert_eq!(body["matchId"], report.id.as_str());
        body
    }

    /// A report of match `id` in `mode` that ended a minute before the clock's now.
    pub fn finished(&self, id: &str, mode: GameMode, lines: Vec<Line>) -> Report {
        Report::new(id, mode, self.clock.now() - Duration::minutes(1), lines)
    }

    /// `GET /api/quest/available`, with `?userKey=` when `key` is given: the `quests`.
    pub async fn quests(&self, key: Option<&str>) -> Vec<Value> {
        let path = key.map_or_else(
            || "/api/quest/available".to_owned(),
            |key| format!("/api/quest/available?userKey={key}"),
        );
        let body = self.get(&path).await.success().clone();
        body["quests"].as_array().cloned().expect("a quests array")
    }

    /// `GET /api/reward/tracks`, with `?userKey=` when `key` is given: the `tracks`.
    pub async fn tracks(&self, key: Option<&str>) -> Vec<Value> {
        let path = key.map_or_else(
            || "/api/reward/tracks".to_owned(),
            |key| format!("/api/reward/tracks?userKey={key}"),
        );
        let body = self.get(&path).await.success().clone();
        body["tracks"].as_array().cloned().expect("a tracks array")
    }

    /// The listed track `track` as the holder of `key` sees it.
    pub async fn track_seen(&self, key: &str, track: TrackId) -> Value {
        self.tracks(Some(key))
            .await
            .into_iter()
            .find(|listed| listed["id"] == track.0)
            .unwrap_or_else(|| panic!("track {} is listed", track.0))
    }

    /// `POST /api/reward/tracks/{track}/buy?userKey={key}`.
    pub async fn buy_track(&self, key: &str, track: TrackId) -> Answer {
        self.post(&format!("/api/reward/tracks/{}/buy?userKey={key}", track.0))
            .await
    }

    /// `POST /api/reward/tracks/{track}/skip?userKey={key}&tiers={tiers}`.
    pub async fn skip_track(&self, key: &str, track: TrackId, tiers: i64) -> Answer {
        self.post(&format!(
            "/api/reward/tracks/{}/skip?userKey={key}&tiers={tiers}",
            track.0
        ))
        .await
    }

    /// The account's statistics in `mode` over all time, as the store sums them.
    pub async fn stats_of(&self, account: AccountId, mode: GameMode) -> BTreeMap<String, i64> {
        self.store
            .stat_totals(account, mode, OffsetDateTime::UNIX_EPOCH)
            .await
            .expect("the statistics read")
    }

    /// The whole match log.
    pub async fn match_log(&self) -> Vec<MatchLogEntry> {
        self.store
            .match_log(0, 1000)
            .await
            .expect("the match log reads")
    }

    /// The account's entries of the match log.
    pub async fn match_log_of(&self, account: AccountId) -> Vec<MatchLogEntry> {
        self.match_log()
            .await
            .into_iter()
            .filter(|entry| entry.account == account)
            .collect()
    }

    /// Everything the holder of `key` has, by the API and the store.
    pub async fn standing(&self, key: &str) -> Standing {
        let user = self.user(key).await;
        let account = AccountId(int(&user, "id"));
        let mut stats = Vec::new();
        for mode in crate::shipped_modes() {
            stats.push(self.stats_of(account, mode).await);
        }
        Standing {
            snapshot: self.snapshot(key).await,
            level: int(&user, "level"),
            quests: Value::Array(self.quests(Some(key)).await),
            tracks: Value::Array(self.tracks(Some(key)).await),
            stats,
            match_log: self.match_log_of(account).await,
        }
    }

    /// Asserts that the holder of `key` has exactly what `model` says: experience, level,
    /// coins, gems, items, packs, the progress of the quests and tracks running now, the
    /// once-only grants claimed, and a ledger equal to its balances.
    pub async fn assert_model(&self, key: &str, model: &Model) {
        let content = &model.content;
        let user = self.user(key).await;
        assert_eq!(int(&user, "id"), model.account.0, "the model's account");
        assert_eq!(
            (
                int(&user, "experience"),
                int(&user, "level"),
                int(&user, "coins"),
                int(&user, "gems"),
            ),
            (model.experience, model.level, model.coins, model.gems),
            "(experience, level, coins, gems) of {user}"
        );
        let items: BTreeSet<ItemId> = user["licenses"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|license| ItemId(int(license, "item_id")))
            .filter(|item| {
                content
                    .catalog
                    .item(*item)
                    .is_none_or(|item| !item.is_stock)
            })
            .collect();
        assert_eq!(items, model.items, "the items owned");
        let packs: BTreeMap<PackId, i64> = user["packs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|stock| (PackId(int(stock, "pack_id")), int(stock, "quantity")))
            .filter(|(_, quantity)| *quantity != 0)
            .collect();
        assert_eq!(packs, model.packs, "the unopened packs");

        for quest in self.quests(Some(key)).await {
            let id = int(&quest, "id");
            let value = model.counter(&format!("quest/{id}"));
            let personal = &quest["personal"];
            assert_eq!(int(personal, "value"), value, "quest {quest}");
            assert_eq!(
                personal["is_completed"],
                value >= int(&quest, "required"),
                "quest {quest}"
            );
        }
        for listed in self.tracks(Some(key)).await {
            let id = int(&listed, "id");
            let track = shipped_track(content, id);
            let experience = model.counter(&format!("track/{id}/experience"));
            let stars = model.counter(&format!("track/{id}/stars"));
            let personal = &listed["personal"];
            assert_eq!(
                (
                    int(personal, "experience"),
                    int(personal, "level"),
                    int(personal, "stars"),
                    int(personal, "tier"),
                ),
                (
                    experience,
                    track.level_for(experience),
                    stars,
                    track.tier_for(stars)
                ),
                "(experience, level, stars, tier) of track {id}: {personal}"
            );
            for challenge in listed["challenges"].as_array().into_iter().flatten() {
                let value = model.counter(&format!("challenge/{}", int(challenge, "id")));
                assert_eq!(
                    int(&challenge["personal"], "value"),
                    value,
                    "challenge {challenge}"
                );
            }
        }

        let mut keys: BTreeSet<String> = model.claims.clone();
        keys.extend(
            (1..=content.progression.levels.max_level).map(|level| format!("level/{level}")),
        );
        for track in &content.tracks {
            keys.extend(
                (1..=track.max_tier + 5).map(|tier| format!("track/{}/tier/{tier}", track.id.0)),
            );
            keys.extend(
                track
                    .challenges
                    .iter()
                    .map(|c| format!("challenge/{}", c.id.0)),
            );
            keys.extend(
                track
                    .evolutions
                    .iter()
                    .map(|e| format!("evolution/{}", e.id.0)),
            );
        }
        keys.extend(
            content
                .quests
                .active(self.clock.now())
                .iter()
                .map(|quest| format!("quest/{}", quest.id.0)),
        );
        let keys: Vec<String> = keys.into_iter().collect();
        let claimed: BTreeSet<String> = self
            .store
            .claimed(model.account, &keys)
            .await
            .expect("the claims read")
            .into_iter()
            .collect();
        assert_eq!(claimed, model.claims, "the once-only grants claimed");
        self.assert_ledger_balanced(model.account).await;
    }
}

/// What the content file says an account holds after the matches, passes and skips applied to
/// it in order, and what each of them answers. Starts as a new account: level 1, nothing held.
#[derive(Debug, Clone)]
pub struct Model {
    content: Arc<Content>,
    /// The account.
    pub account: AccountId,
    /// Experience points.
    pub experience: i64,
    /// The stored level.
    pub level: i64,
    /// Coins.
    pub coins: i64,
    /// Gems.
    pub gems: i64,
    /// Items owned (stock items left out).
    pub items: BTreeSet<ItemId>,
    /// Unopened packs.
    pub packs: BTreeMap<PackId, i64>,
    /// Progress counters (`quest/2`, `challenge/1`, `track/1/experience`, `track/1/stars`).
    pub counters: BTreeMap<String, i64>,
    /// The passes bought.
    pub passes: BTreeSet<TrackId>,
    /// The once-only grants made (`level/3`, `quest/2`, `track/1/tier/4`, `challenge/1`).
    pub claims: BTreeSet<String>,
}

impl Model {
    /// A new account `account` under the shipped content.
    pub fn new(account: AccountId) -> Self {
        Self {
            content: Arc::new(Content::shipped()),
            account,
            experience: 0,
            level: 1,
            coins: 0,
            gems: 0,
            items: BTreeSet::new(),
            packs: BTreeMap::new(),
            counters: BTreeMap::new(),
            passes: BTreeSet::new(),
            claims: BTreeSet::new(),
        }
    }

    /// The content the model follows.
    pub fn content(&self) -> &Content {
        &self.content
    }

    /// A progress counter (0 when never moved).
    pub fn counter(&self, key: &str) -> i64 {
        self.counters.get(key).copied().unwrap_or(0)
    }

    /// Coins and gems given by an operator grant.
    pub fn fund(&mut self, coins: i64, gems: i64) {
        self.coins += coins;
        self.gems += gems;
    }

    /// Applies the account's line of `report` and answers the player's expected entry of the
    /// report's answer (`{accountId, experience, coins, levelBefore, levelAfter, quests, tracks,
    /// rewards}`).
    pub fn play(&mut self, report: &Report, line: &Line) -> Value {
        let content = Arc::clone(&self.content);
        let stats = line.counted_stats(report.mode);
        let experience = line.experience(&content);
        let coins = line.coins(&content);
        let items_before = self.items.clone();
        let level_before = self.level;
        self.experience += experience;
        self.coins += coins;
        // The answer lists the match's own experience and coins among what it granted, first.
        let mut rewards = Vec::new();
        if experience > 0 {
            rewards.push(json!({"type": "experience", "quantity": experience}));
        }
        if coins > 0 {
            rewards.push(json!({"type": "coins", "quantity": coins}));
        }
        let mut quests = Vec::new();
        for quest in content.quests.active(report.ended) {
            let Some(gain) = stats.get(&quest.stat_key) else {
                continue;
            };
            let key = format!("quest/{}", quest.id.0);
            let (value, completed) = self.advance(&key, *gain, quest.required);
            if completed {
                rewards.extend(self.once(&key, std::slice::from_ref(&quest.reward)));
            }
            quests.push(json!({
                "id": quest.id.0,
                "value": value,
                "required": quest.required,
                "completed": completed,
            }));
        }
        let mut tracks = Vec::new();
        for track in content.tracks_at(report.ended) {
            tracks.push(self.play_track(&track, &stats, experience, &items_before, &mut rewards));
        }
        // Last, the levels of all the match's experience: its own and its rewards'.
        rewards.extend(self.level_up());
        json!({
            "accountId": self.account.0,
            "experience": experience,
            "coins": coins,
            "levelBefore": level_before,
            "levelAfter": self.level,
            "quests": quests,
            "tracks": tracks,
            "rewards": rewards,
        })
    }

    /// One running track's part of a match.
    fn play_track(
        &mut self,
        track: &RewardTrack,
        stats: &BTreeMap<String, i64>,
        experience: i64,
        items_before: &BTreeSet<ItemId>,
        rewards: &mut Vec<Value>,
    ) -> Value {
        let id = track.id.0;
        let experience_key = format!("track/{id}/experience");
        let experience_before = self.counter(&experience_key);
        let experience_after = experience_before + experience;
        if experience > 0 {
            self.counters.insert(experience_key, experience_after);
        }
        let mut stars = (track.level_for(experience_after) - track.level_for(experience_before))
            * track.stars_per_level;
        let mut completed = Vec::new();
        for challenge in &track.challenges {
            let Some(gain) = stats.get(&challenge.stat_key) else {
                continue;
            };
            let key = format!("challenge/{}", challenge.id.0);
            if self.advance(&key, *gain, challenge.required).1 {
                self.claims.insert(key);
                stars += challenge.stars;
                completed.push(challenge.id.0);
            }
        }
        for evolution in &track.evolutions {
            let Some(gain) = stats.get(&evolution.stat_key) else {
                continue;
            };
            if !items_before.contains(&evolution.required_item) {
                continue;
            }
            let key = format!("evolution/{}", evolution.id.0);
            if self.advance(&key, *gain, evolution.required).1 {
                rewards.extend(self.once(&key, std::slice::from_ref(&evolution.reward)));
            }
        }
        let stars_key = format!("track/{id}/stars");
        let stars_before = self.counter(&stars_key);
        let stars_after = stars_before + stars;
        if stars > 0 {
            self.counters.insert(stars_key, stars_after);
        }
        let (tier_before, tier_after) = (track.tier_for(stars_before), track.tier_for(stars_after));
        let owned = track.is_stock || self.passes.contains(&track.id);
        if owned {
            for tier in tier_before + 1..=tier_after {
                rewards.extend(
                    self.once(&format!("track/{id}/tier/{tier}"), track.tier_rewards(tier)),
                );
            }
        }
        json!({
            "id": id,
            "experience": experience,
            "stars": stars,
            "tierBefore": tier_before,
            "tierAfter": tier_after,
            "challengesCompleted": completed,
            "owned": owned,
        })
    }

    /// Buys the pass of `track` at `now`: answers the rewards of the tiers already reached.
    pub fn buy(&mut self, track: TrackId, now: OffsetDateTime) -> Vec<Value> {
        let content = Arc::clone(&self.content);
        let track = shipped_track(&content, track.0);
        let price = track.price_at(now);
        self.coins -= price.coins;
        self.gems -= price.gems;
        self.passes.insert(track.id);
        let reached = track.tier_for(self.counter(&format!("track/{}/stars", track.id.0)));
        let mut rewards = self.tiers(track, 1..=reached);
        rewards.extend(self.level_up());
        rewards
    }

    /// Skips `tiers` tiers of `track`: answers the skipped tiers' rewards.
    pub fn skip(&mut self, track: TrackId, tiers: i64) -> Vec<Value> {
        let content = Arc::clone(&self.content);
        let track = shipped_track(&content, track.0);
        let key = format!("track/{}/stars", track.id.0);
        let stars = self.counter(&key);
        let tier = track.tier_for(stars);
        self.gems -= track.cost_gems_per_tier * tiers;
        self.counters
            .insert(key, stars + tiers * track.stars_per_tier);
        let mut rewards = self.tiers(track, tier + 1..=tier + tiers);
        rewards.extend(self.level_up());
        rewards
    }

    /// Reaches the levels the experience now gives, granting each level's rewards once (their
    /// own experience counting too); answers what was granted. Levels never go down.
    fn level_up(&mut self) -> Vec<Value> {
        let content = Arc::clone(&self.content);
        let curve = &content.progression.levels;
        let mut rewards = Vec::new();
        while curve.level_for(self.experience) > self.level {
            self.level += 1;
            let level = self.level;
            rewards.extend(self.once(&format!("level/{level}"), &curve.rewards_for(level)));
        }
        rewards
    }

    /// The once-only grants of `tiers` of `track`.
    fn tiers(&mut self, track: &RewardTrack, tiers: std::ops::RangeInclusive<i64>) -> Vec<Value> {
        let mut rewards = Vec::new();
        for tier in tiers {
            let key = format!("track/{}/tier/{tier}", track.id.0);
            rewards.extend(self.once(&key, track.tier_rewards(tier)));
        }
        rewards
    }

    /// Moves a counter by `gain` towards `required`, never past it and never once reached:
    /// its value after, and whether this move reached it.
    fn advance(&mut self, key: &str, gain: i64, required: i64) -> (i64, bool) {
        let before = self.counter(key);
        if before >= required || gain <= 0 {
            return (before, false);
        }
        let after = (before + gain).min(required);
        self.counters.insert(key.to_owned(), after);
        (after, after >= required)
    }

    /// Grants `rewards` unless `key` was claimed before; answers what was granted.
    fn once(&mut self, key: &str, rewards: &[RewardSpec]) -> Vec<Value> {
        if !self.claims.insert(key.to_owned()) {
            return Vec::new();
        }
        rewards.iter().map(|reward| self.grant(reward)).collect()
    }

    /// Grants one reward; an item owned already becomes its coins.
    fn grant(&mut self, reward: &RewardSpec) -> Value {
        let content = Arc::clone(&self.content);
        match reward {
            RewardSpec::Coins(quantity) => self.coins += quantity,
            RewardSpec::Gems(quantity) => self.gems += quantity,
            RewardSpec::Experience(quantity) => self.experience += quantity,
            RewardSpec::Item(item) => {
                if !self.items.insert(*item) {
                    let item = content.catalog.item(*item).expect("the item exists");
                    let coins = if item.price.coins > 0 {
                        item.price.coins
                    } else {
                        DUPLICATE_COINS_DEFAULT
                    };
                    self.coins += coins;
                    return json!({
                        "type": "coins",
                        "quantity": coins,
                        "duplicateItemId": item.id.0,
                        "itemSku": item.sku,
                    });
                }
            }
            RewardSpec::Pack { pack, quantity } => {
                *self.packs.entry(*pack).or_insert(0) += quantity;
            }
        }
        reward_json(&content, reward)
    }
}

/// Asserts that a player's entry of a report's answer is `expected` (from [`Model::play`]),
/// its rewards compared in any order.
#[track_caller]
pub fn assert_player(answered: &Value, expected: &Value) {
    let strip = |entry: &Value| {
        let mut entry = entry.clone();
        if let Some(object) = entry.as_object_mut() {
            object.remove("rewards");
        }
        entry
    };
    assert_eq!(strip(answered), strip(expected), "a player's summary");
    assert_eq!(
        sorted(&answered["rewards"]),
        sorted(&expected["rewards"]),
        "the rewards of {}",
        answered["accountId"]
    );
}
