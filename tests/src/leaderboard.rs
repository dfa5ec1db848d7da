//! Helpers for the behaviour tests of leaderboards and public profiles: the boards and profiles
//! as the API answers them, and [`Played`]: what every board and profile must show after the
//! matches a test reported, computed from the reported lines by the rules of the API.
//!
//! The rules modelled here: a player is on a board with at least 1 round in its mode and window
//! (at least [`RATIO_MIN_ROUNDS`] on the ratio boards); a result counts in a window when its
//! match ended after `now - length`; scores are sums, ratios are rounded to 4 decimals and
//! ranked by that rounded value; rows are ordered by score descending, then account id
//! ascending; `rank` is 1 + the number of listed players with a strictly greater score; the
//! board answers its first [`TOP_ROWS`] rows.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration as StdDuration, Instant};

use safezone_core::clock::Clock;
use safezone_core::domain::{FriendCode, GameMode, KeyClaims, KeySecret, KeySigner};
use safezone_core::store::{AccountId, NewSignIn};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

use crate::community::Player;
use crate::economy::gems;
use crate::progression::{Line, Report, Who};
use crate::{Answer, TestApp};

/// How many rows a board answers.
pub const TOP_ROWS: usize = 100;

/// The fewest rounds that put a player on a ratio board (`winrate`, `kills_per_round`).
pub const RATIO_MIN_ROUNDS: i64 = 10;

/// The windows of the API, shortest first.
pub const WINDOWS: [&str; 5] = ["24h", "7d", "1m", "1y", "all"];

/// The categories of the API.
pub const CATEGORIES: [&str; 7] = [
    "wins",
    "kills",
    "kills_per_round",
    "winrate",
    "time_alive",
    "rounds",
    "top10",
];

/// The gems a friend-code rename costs under the shipped content file (a test checks that they
/// agree).
pub const RENAME_PRICE: i64 = 40;

/// How long another node, or a ban on the same node, may take to show a change.
pub const DEADLINE: StdDuration = StdDuration::from_secs(3);

/// How often a test polls while it waits for a change.
pub const POLL: StdDuration = StdDuration::from_millis(50);

/// The length of a window (`None` for `all`).
///
/// # Panics
/// On a name that is not a window of the API.
pub fn window_length(window: &str) -> Option<Duration> {
    match window {
        "24h" => Some(Duration::seconds(86_400)),
        "7d" => Some(Duration::seconds(604_800)),
        "1m" => Some(Duration::days(30)),
        "1y" => Some(Duration::days(365)),
        "all" => None,
        other => panic!("no window {other}"),
    }
}

/// Whether a match that ended at `ended` counts in `window` at `now`.
pub fn in_window(window: &str, ended: OffsetDateTime, now: OffsetDateTime) -> bool {
    window_length(window).is_none_or(|length| ended > now - length)
}

/// Whether `category` is a ratio board.
pub fn is_ratio(category: &str) -> bool {
    matches!(category, "winrate" | "kills_per_round")
}

/// `numerator / denominator` in ten-thousandths, rounded half up (0 when `denominator` is 0).
pub fn ten_thousandths(numerator: i64, denominator: i64) -> i64 {
    if denominator == 0 {
        0
    } else {
        (2 * numerator * 10_000 + denominator) / (2 * denominator)
    }
}

/// `numerator / denominator` rounded to 4 decimal places, as the API answers ratios.
pub fn ratio(numerator: i64, denominator: i64) -> f64 {
    ten_thousandths(numerator, denominator) as f64 / 10_000.0
}

/// One player's sums over the results of one mode and window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Matches played.
    pub rounds: i64,
    /// Placements 1.
    pub wins: i64,
    /// Placements 1 to 10.
    pub top10: i64,
    /// Kills.
    pub kills: i64,
    /// Seconds alive.
    pub time_alive: i64,
}

impl Tally {
    /// The tally with `line` added.
    pub fn add(&mut self, line: &Line) {
        self.rounds += 1;
        self.wins += i64::from(line.placement == 1);
        self.top10 += i64::from(line.placement <= 10);
        self.kills += line.kills;
        self.time_alive += line.time_alive;
    }

    /// The score the board `category` ranks (ratios in ten-thousandths).
    pub fn score(&self, category: &str) -> i64 {
        match category {
            "wins" => self.wins,
            "kills" => self.kills,
            "kills_per_round" => ten_thousandths(self.kills, self.rounds),
            "winrate" => ten_thousandths(self.wins, self.rounds),
            "time_alive" => self.time_alive,
            "rounds" => self.rounds,
            "top10" => self.top10,
            other => panic!("no category {other}"),
        }
    }

    /// Whether the player is listed on the board `category`.
    pub fn listed_on(&self, category: &str) -> bool {
        let minimum = if is_ratio(category) {
            RATIO_MIN_ROUNDS
        } else {
            1
        };
        self.rounds >= minimum
    }

    /// The statistics object of a profile: `{rounds, wins, top10, winrate, kills,
    /// kills_per_round, time_alive}`.
    pub fn stats(&self) -> Value {
        json!({
            "rounds": self.rounds,
            "wins": self.wins,
            "top10": self.top10,
            "winrate": ratio(self.wins, self.rounds),
            "kills": self.kills,
            "kills_per_round": ratio(self.kills, self.rounds),
            "time_alive": self.time_alive,
        })
    }

    /// A board's row of the player with friend code `code` (`Name#0001`).
    pub fn row(&self, rank: i64, code: &str) -> Value {
        let (name, _) = code.rsplit_once('#').expect("a friend code Name#dddd");
        let mut row = self.stats();
        row["rank"] = json!(rank);
        row["name"] = json!(name);
        row["friend_code"] = json!(code);
        row
    }
}

/// A match id no other report of the test run uses.
pub fn match_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("lb:{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `rounds` lines of `player` whose sums are the given ones: the first `wins` placements are
/// 1, the next up to `top10` are 5, the rest 50; kills and seconds alive are spread evenly,
/// the remainder on the first rounds.
///
/// # Panics
/// When the sums cannot be made of `rounds` valid lines.
pub fn lines_summing(
    player: AccountId,
    rounds: i64,
    wins: i64,
    top10: i64,
    kills: i64,
    time_alive: i64,
) -> Vec<Line> {
    assert!(rounds > 0 && wins <= top10 && top10 <= rounds, "valid sums");
    (0..rounds)
        .map(|round| {
            let placement = if round < wins {
                1
            } else if round < top10 {
                5
            } else {
                50
            };
            let share = |total: i64| total / rounds + i64::from(round < total % rounds);
            let line = Line::new(player, placement, share(kills), share(time_alive));
            assert!(line.kills <= 99, "at most 99 kills in a match");
            line
        })
        .collect()
}

/// Each player's lines, made into matches: match `j` holds the `j`-th line of every player
/// that has one.
pub fn into_matches(players: &[Vec<Line>]) -> Vec<Vec<Line>> {
    let count = players.iter().map(Vec::len).max().unwrap_or(0);
    (0..count)
        .map(|round| {
            players
                .iter()
                .filter_map(|lines| lines.get(round).cloned())
                .collect()
        })
        .collect()
}

/// The results a test reported and the accounts' friend codes: what every board and profile
/// must show at any time.
#[derive(Debug, Clone, Default)]
pub struct Played {
    codes: BTreeMap<AccountId, String>,
    results: Vec<(AccountId, GameMode, OffsetDateTime, Line)>,
    hidden: BTreeSet<AccountId>,
}

impl Played {
    /// Nothing reported yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the player's friend code.
    pub fn join(&mut self, player: &Player) {
        self.codes.insert(player.id, player.friend_code.to_string());
    }

    /// Registers each player's friend code.
    pub fn join_all(&mut self, players: &[Player]) {
        for player in players {
            self.join(player);
        }
    }

    /// The account's friend code now.
    pub fn code(&self, account: AccountId) -> &str {
        self.codes
            .get(&account)
            .unwrap_or_else(|| panic!("account {} joined", account.0))
    }

    /// The account took the friend code `code`.
    pub fn rename(&mut self, account: AccountId, code: &str) {
        self.codes.insert(account, code.to_owned());
    }

    /// The account leaves every board (deleted or banned).
    pub fn hide(&mut self, account: AccountId) {
        self.hidden.insert(account);
    }

    /// The account is back on the boards (unbanned).
    pub fn show(&mut self, account: AccountId) {
        self.hidden.remove(&account);
    }

    /// The account's results so far leave every board (an operator removed them); its later
    /// results count.
    pub fn forget_results(&mut self, account: AccountId) {
        self.results.retain(|(who, _, _, _)| *who != account);
    }

    /// The account's result in `report` leaves every board (an operator removed it); its other
    /// results still count.
    pub fn forget_result(&mut self, account: AccountId, report: &Report) {
        let line = report
            .lines
            .iter()
            .find(|line| line.who == Who::Account(account))
            .unwrap_or_else(|| panic!("account {} played {}", account.0, report.id));
        let at = self
            .results
            .iter()
            .position(|(who, mode, ended, played)| {
                (*who, *mode, *ended, played) == (account, report.mode, report.ended, line)
            })
            .unwrap_or_else(|| panic!("the result of account {} was recorded", account.0));
        self.results.remove(at);
    }

    /// Records the lines of `report` (every line must name its account by id).
    pub fn record(&mut self, report: &Report) {
        for line in &report.lines {
            let Who::Account(account) = line.who else {
                panic!("the model needs lines by account id");
            };
            assert!(
                self.codes.contains_key(&account),
                "account {} joined",
                account.0
            );
            self.results
                .push((account, report.mode, report.ended, line.clone()));
        }
    }

    /// The account's sums in `mode` and `window` at `now`.
    pub fn tally(
        &self,
        account: AccountId,
        mode: GameMode,
        window: &str,
        now: OffsetDateTime,
    ) -> Tally {
        let mut tally = Tally::default();
        for (_, _, _, line) in self.results.iter().filter(|(who, played, ended, _)| {
            *who == account && *played == mode && in_window(window, *ended, now)
        }) {
            tally.add(line);
        }
        tally
    }

    /// The profile's `stats`: window -> mode -> statistics, at `now`.
    pub fn stats(&self, account: AccountId, now: OffsetDateTime) -> Value {
        let mut windows = Map::new();
        for window in WINDOWS {
            let mut modes = Map::new();
            for mode in crate::shipped_modes() {
                let tally = self.tally(account, mode, window, now);
                modes.insert(mode.as_str().to_owned(), tally.stats());
            }
            windows.insert(window.to_owned(), Value::Object(modes));
        }
        Value::Object(windows)
    }

    /// Every listed player of a board, best first, with their scores and tallies.
    fn ranked(
        &self,
        mode: GameMode,
        window: &str,
        category: &str,
        now: OffsetDateTime,
    ) -> Vec<(AccountId, i64, Tally)> {
        let mut listed: Vec<(AccountId, i64, Tally)> = self
            .codes
            .keys()
            .filter(|account| !self.hidden.contains(account))
            .map(|account| {
                let tally = self.tally(*account, mode, window, now);
                (*account, tally.score(category), tally)
            })
            .filter(|(_, _, tally)| tally.listed_on(category))
            .collect();
        listed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.0.cmp(&b.0.0)));
        listed
    }

    /// The whole board (every listed row, not only the top ones), best first.
    pub fn board(
        &self,
        mode: GameMode,
        window: &str,
        category: &str,
        now: OffsetDateTime,
    ) -> Vec<Value> {
        let ranked = self.ranked(mode, window, category, now);
        ranked
            .iter()
            .map(|(account, score, tally)| {
                let rank = 1 + ranked.iter().filter(|other| other.1 > *score).count();
                tally.row(rank_number(rank), self.code(*account))
            })
            .collect()
    }

    /// The caller's `user` row on a board, with its rank: null when the caller is not listed
    /// on it (no games in that mode and window, too few rounds for a ratio board, or hidden),
    /// never a row with a null rank.
    pub fn user_row(
        &self,
        caller: AccountId,
        mode: GameMode,
        window: &str,
        category: &str,
        now: OffsetDateTime,
    ) -> Value {
        if self.hidden.contains(&caller) {
            return Value::Null;
        }
        let tally = self.tally(caller, mode, window, now);
        if !tally.listed_on(category) {
            return Value::Null;
        }
        let score = tally.score(category);
        let above = self
            .ranked(mode, window, category, now)
            .iter()
            .filter(|other| other.1 > score)
            .count();
        tally.row(rank_number(above + 1), self.code(caller))
    }

    /// The whole answer of a board at `now`, for `caller` when given.
    pub fn answer(
        &self,
        mode: GameMode,
        window: &str,
        category: &str,
        now: OffsetDateTime,
        caller: Option<AccountId>,
    ) -> Value {
        let mut players = self.board(mode, window, category, now);
        players.truncate(TOP_ROWS);
        let user = caller.map_or(Value::Null, |caller| {
            self.user_row(caller, mode, window, category, now)
        });
        json!({"status": "success", "players": players, "user": user})
    }
}

fn rank_number(rank: usize) -> i64 {
    i64::try_from(rank).expect("a small rank")
}

/// The query string of a board (`mode=solo&time=all&category=wins`), with `&userKey=` when a
/// key is given.
pub fn query(mode: GameMode, window: &str, category: &str, key: Option<&str>) -> String {
    let mut query = format!("mode={}&time={window}&category={category}", mode.as_str());
    if let Some(key) = key {
        query.push_str("&userKey=");
        query.push_str(key);
    }
    query
}

/// The answer with every ratio (`winrate`, `kills_per_round`) of its rows as a JSON float, so
/// that `1` and `1.0` compare equal.
pub fn with_float_ratios(body: &Value) -> Value {
    let mut body = body.clone();
    let float = |row: &mut Value| {
        for field in ["winrate", "kills_per_round"] {
            if let Some(value) = row.get(field).and_then(Value::as_f64) {
                row[field] = json!(value);
            }
        }
    };
    if let Some(rows) = body.get_mut("players").and_then(Value::as_array_mut) {
        rows.iter_mut().for_each(float);
    }
    if let Some(user) = body.get_mut("user").filter(|user| user.is_object()) {
        float(user);
    }
    if let Some(stats) = body.get_mut("stats").and_then(Value::as_object_mut) {
        for modes in stats.values_mut().filter_map(Value::as_object_mut) {
            modes.values_mut().for_each(float);
        }
    }
    body
}

/// The friend code as a path segment: `#` percent-encoded (`Sneeza%230001`).
pub fn encoded(code: &str) -> String {
    code.replace('#', "%23")
}

/// The friend codes of a board's rows, in order.
pub fn codes(body: &Value) -> Vec<String> {
    body["players"]
        .as_array()
        .expect("a players array")
        .iter()
        .map(|row| {
            row["friend_code"]
                .as_str()
                .expect("a friend code")
                .to_owned()
        })
        .collect()
}

/// The ranks of a board's rows, in order.
pub fn ranks(body: &Value) -> Vec<Value> {
    body["players"]
        .as_array()
        .expect("a players array")
        .iter()
        .map(|row| row["rank"].clone())
        .collect()
}

/// Polls `probe` every [`POLL`] until it answers `Ok` or `deadline` passes; answers the last
/// `Err` then.
///
/// # Errors
/// The last `Err` of `probe` when the deadline passed first.
pub async fn within<T, F, Fut>(deadline: StdDuration, mut probe: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let start = Instant::now();
    loop {
        match probe().await {
            Ok(value) => return Ok(value),
            Err(why) if start.elapsed() >= deadline => return Err(why),
            Err(_) => tokio::time::sleep(POLL).await,
        }
    }
}

impl TestApp {
    /// `GET /api/leaderboard/live?{query}` as it came.
    pub async fn board_answer(&self, query: &str) -> Answer {
        self.get(&format!("/api/leaderboard/live?{query}")).await
    }

    /// The success body of `GET /api/leaderboard/live?{query}`, ratios as floats.
    pub async fn board(&self, query: &str) -> Value {
        with_float_ratios(self.board_answer(query).await.success())
    }

    /// The board of `mode`, `window` and `category` as answered for the holder of `caller`'s
    /// key when given, and as `played` says it should be at the clock's time.
    async fn board_and_expected(
        &self,
        played: &Played,
        mode: GameMode,
        window: &str,
        category: &str,
        caller: Option<(&str, AccountId)>,
    ) -> (Value, Value) {
        let body = self
            .board(&query(mode, window, category, caller.map(|(key, _)| key)))
            .await;
        let expected = played.answer(
            mode,
            window,
            category,
            self.clock.now(),
            caller.map(|(_, id)| id),
        );
        (body, expected)
    }

    /// Asserts that the board of `mode`, `window` and `category` answers what `played` says
    /// at the clock's time, for the holder of `caller`'s key when given.
    pub async fn assert_board(
        &self,
        played: &Played,
        mode: GameMode,
        window: &str,
        category: &str,
        caller: Option<(&str, AccountId)>,
    ) {
        let (body, expected) = self
            .board_and_expected(played, mode, window, category, caller)
            .await;
        assert_eq!(
            body,
            expected,
            "board {} {window} {category} at {}",
            mode.as_str(),
            self.clock.now()
        );
    }

    /// Asserts every one of the 140 boards (4 modes, 5 windows, 7 categories) against
    /// `played`, for `caller` when given.
    pub async fn assert_every_board(&self, played: &Played, caller: Option<(&str, AccountId)>) {
        for mode in crate::shipped_modes() {
            for window in WINDOWS {
                for category in CATEGORIES {
                    self.assert_board(played, mode, window, category, caller)
                        .await;
                }
            }
        }
    }

    /// Polls every board until all 140 answer what `played` says (at most [`DEADLINE`]),
    /// then asserts them.
    pub async fn await_every_board(&self, played: &Played, caller: Option<(&str, AccountId)>) {
        let settled = within(DEADLINE, || async {
            for mode in crate::shipped_modes() {
                for window in WINDOWS {
                    for category in CATEGORIES {
                        let (body, expected) = self
                            .board_and_expected(played, mode, window, category, caller)
                            .await;
                        if body != expected {
                            return Err(format!("{} {window} {category}: {body}", mode.as_str()));
                        }
                    }
                }
            }
            Ok(())
        })
        .await;
        if let Err(why) = settled {
            panic!("the boards did not show the change within {DEADLINE:?}: {why}");
        }
        self.assert_every_board(played, caller).await;
    }

    /// Polls one board until it answers what `played` says (at most [`DEADLINE`]), then
    /// asserts it.
    pub async fn await_board(
        &self,
        played: &Played,
        mode: GameMode,
        window: &str,
        category: &str,
        caller: Option<(&str, AccountId)>,
    ) {
        let path = query(mode, window, category, caller.map(|(key, _)| key));
        let expected = played.answer(
            mode,
            window,
            category,
            self.clock.now(),
            caller.map(|(_, id)| id),
        );
        let settled = within(DEADLINE, || async {
            let body = self.board(&path).await;
            if body == expected {
                Ok(())
            } else {
                Err(body.to_string())
            }
        })
        .await;
        if let Err(last) = settled {
            panic!(
                "board {path} did not show the change within {DEADLINE:?}:\n   last: {last}\n wanted: {expected}"
            );
        }
    }

    /// A new device account whose friend code is `code` (`Sneeza#0001`), signed in through the
    /// store, with a key signed by the database's secret (the server's, when none is
    /// configured); its key works over HTTP like any other.
    pub async fn player_with_code(&self, code: &str) -> Player {
        let now = self.clock.now();
        let friend_code = FriendCode::parse(code).expect("a friend code");
        let signed_in = self
            .store
            .sign_in(NewSignIn {
                provider: "device".to_owned(),
                identifier: format!("android-{}", uuid::Uuid::new_v4()),
                name: None,
                avatar: None,
                email: None,
                friend_code_candidates: vec![friend_code.clone()],
                now,
            })
            .await
            .expect("the sign-in is stored");
        assert_eq!(signed_in.account.friend_code, friend_code);
        let secret = self
            .store
            .stored_key_secret(&KeySecret::generate().to_hex())
            .await
            .expect("the secret is stored");
        let key = KeySigner::new(KeySecret::parse(&secret).expect("a secret"), None)
            .sign(&KeyClaims {
                account: signed_in.account.id.0,
                generation: signed_in.key_generation,
                expires: now + Duration::days(30),
            })
            .expect("the account fits a key");
        Player {
            key: key.as_str().to_owned(),
            id: signed_in.account.id,
            friend_code,
        }
    }

    /// Reports a match in `mode` that ended at `ended` with these lines, and records it in
    /// `played`; answers the report.
    pub async fn report_at(
        &self,
        played: &mut Played,
        mode: GameMode,
        ended: OffsetDateTime,
        lines: Vec<Line>,
    ) -> Report {
        let report = Report::new(&match_id(), mode, ended, lines);
        self.report(&report).await;
        played.record(&report);
        report
    }

    /// Reports a match in `mode` that ended a minute ago with these lines (see
    /// [`TestApp::report_at`]).
    pub async fn report_now(
        &self,
        played: &mut Played,
        mode: GameMode,
        lines: Vec<Line>,
    ) -> Report {
        let ended = self.clock.now() - Duration::minutes(1);
        self.report_at(played, mode, ended, lines).await
    }

    /// A new player, registered in `played`.
    pub async fn joined(&self, played: &mut Played) -> Player {
        let player = self.player().await;
        played.join(&player);
        player
    }

    /// `count` new players, registered in `played`, in the order of their account ids.
    pub async fn joined_all(&self, played: &mut Played, count: usize) -> Vec<Player> {
        let players = self.players(count).await;
        played.join_all(&players);
        assert!(
            players.windows(2).all(|pair| pair[0].id.0 < pair[1].id.0),
            "accounts made later have greater ids"
        );
        players
    }

    /// A new player whose account can be deleted: answers the player and a second key of the
    /// same device (the confirmation `delete-account` needs).
    pub async fn deletable_player(&self) -> (Player, String) {
        let (device, body) = self.new_device().await;
        let user = &body["user"];
        let player = Player {
            key: user["key"].as_str().expect("a key").to_owned(),
            id: AccountId(user["id"].as_i64().expect("an id")),
            friend_code: FriendCode::parse(user["friend_code"].as_str().expect("a friend code"))
                .expect("a valid friend code"),
        };
        let confirmation = self.key_of_device(&device).await;
        (player, confirmation)
    }

    /// Deletes the player's account, confirmed with the second key `confirmation`.
    pub async fn delete_account(&self, player: &Player, confirmation: &str) {
        self.post(&format!(
            "/api/user/{}/delete-account?confirmationKey={confirmation}",
            player.key
        ))
        .await
        .success();
    }

    /// Renames the holder of `key` to `name` (granting the gems it costs first); answers the
    /// new friend code.
    pub async fn rename_to(&self, key: &str, name: &str) -> String {
        self.grant_to(key, gems(RENAME_PRICE)).await;
        let body = self
            .act(key, "friend-code/update", &format!("name={name}"))
            .await
            .success()
            .clone();
        let code = body["user"]["friend_code"]
            .as_str()
            .expect("a friend code")
            .to_owned();
        assert!(code.starts_with(&format!("{name}#")), "{code}");
        code
    }

    /// `GET /api/profile/{code}?userKey={key}` with the `#` of `code` percent-encoded.
    pub async fn profile_answer(&self, code: &str, key: &str) -> Answer {
        self.get(&format!("/api/profile/{}?userKey={key}", encoded(code)))
            .await
    }

    /// The success body of the profile of `code`, ratios as floats.
    pub async fn profile(&self, code: &str, key: &str) -> Value {
        with_float_ratios(self.profile_answer(code, key).await.success())
    }
}
