//! The index against a slow model that recounts every board from the whole list of results,
//! through a long pseudo-random run of results, expiries, renames, bans and deletions.

use std::collections::{BTreeMap, BTreeSet};

use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::index::{BoardIndex, Standing};
use super::kinds::{BoardId, Category, TimeWindow};
use super::snapshot::{self, Covered};
use super::top::TOP_ROWS;
use super::totals::{Contribution, Totals};
use crate::domain::{FriendCode, GameMode};
use crate::store::{AccountChange, AccountId, BoardPlayer, MatchLogEntry};

const START: OffsetDateTime = datetime!(2026-01-01 00:00:00 UTC);

/// The modes of the run: results come in the first three (the index grows each at its first
/// result), none in the last (its boards are empty).
fn modes() -> [GameMode; 4] {
    ["solo", "duo", "trios", "limited"].map(|name| GameMode::parse(name).expect("a mode"))
}

/// A small deterministic generator (SplitMix64).
struct Draw(u64);

impl Draw {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.0;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (mixed ^ (mixed >> 31)) % bound
    }
}

/// Everything that happened, recounted from scratch for each check.
#[derive(Default)]
struct Model {
    results: Vec<MatchLogEntry>,
    names: BTreeMap<AccountId, FriendCode>,
    banned: BTreeSet<AccountId>,
    deleted: BTreeSet<AccountId>,
}

impl Model {
    /// Every player's totals in one mode and window, in one pass over the results.
    fn all_totals(
        &self,
        mode: GameMode,
        window: TimeWindow,
        now: i64,
    ) -> BTreeMap<AccountId, Totals> {
        let mut all: BTreeMap<AccountId, Totals> = BTreeMap::new();
        let edge = window.length().map(|length| now - length.whole_seconds());
        for entry in &self.results {
            let ended = entry.ended.unix_timestamp();
            if entry.mode == mode && edge.is_none_or(|e| ended > e) {
                all.entry(entry.account).or_default().add(Contribution {
                    placement: entry.placement as u8,
                    kills: entry.kills as u8,
                    time_alive: entry.time_alive_secs as u32,
                });
            }
        }
        all
    }

    /// Whether the boards show the account (neither banned nor deleted).
    fn shown(&self, account: &AccountId) -> bool {
        !self.banned.contains(account) && !self.deleted.contains(account)
    }

    /// The board's first rows and the caller's row.
    fn view(&self, id: BoardId, caller: AccountId, now: i64) -> (Vec<Standing>, Option<Standing>) {
        let (ranked, rank_of) = self.ranked(id, now);
        let standing = |account: AccountId, totals: Totals, rank: u64| Standing {
            rank,
            friend_code: self.names[&account].clone(),
            totals,
        };
        let top = ranked
            .iter()
            .take(TOP_ROWS)
            .map(|(score, account, totals)| standing(*account, *totals, rank_of(*score)))
            .collect();
        let user = ranked
            .iter()
            .find(|(_, account, _)| *account == caller)
            .map(|(score, account, totals)| standing(*account, *totals, rank_of(*score)));
        (top, user)
    }

    /// The caller's row and up to `around` rows on each side of it, best first.
    fn neighbourhood(
        &self,
        id: BoardId,
        caller: AccountId,
        around: usize,
        now: i64,
    ) -> Option<Vec<Standing>> {
        let (ranked, rank_of) = self.ranked(id, now);
        let at = ranked
            .iter()
            .position(|(_, account, _)| *account == caller)?;
        let rows = &ranked[at.saturating_sub(around)..(at + around + 1).min(ranked.len())];
        Some(
            rows.iter()
                .map(|(score, account, totals)| Standing {
                    rank: rank_of(*score),
                    friend_code: self.names[account].clone(),
                    totals: *totals,
                })
                .collect(),
        )
    }

    /// The board's players, best first, and the rank of a score.
    fn ranked(
        &self,
        id: BoardId,
        now: i64,
    ) -> (Vec<(u64, AccountId, Totals)>, impl Fn(u64) -> u64) {
        let all = self.all_totals(id.mode, id.window, now);
        let mut ranked: Vec<(u64, AccountId, Totals)> = all
            .iter()
            .filter(|(account, _)| self.shown(account))
            .filter_map(|(account, totals)| {
                totals
                    .score(id.category)
                    .map(|score| (score, *account, *totals))
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let scores: Vec<u64> = ranked.iter().map(|(score, ..)| *score).collect();
        let rank_of =
            move |score: u64| scores.iter().filter(|other| **other > score).count() as u64 + 1;
        (ranked, rank_of)
    }
}

fn code(account: i64, version: u64) -> FriendCode {
    FriendCode::new(&format!("player{account}v{version}"), 1).expect("a valid friend code")
}

#[test]
fn the_index_agrees_with_a_recount_through_a_long_run() {
    long_run(None);
}

#[test]
fn an_index_read_back_from_its_snapshot_agrees_and_goes_on_alike() {
    long_run(Some(97));
}

/// Every board and every account's row and totals of two indexes, compared.
fn assert_same(left: &BoardIndex, right: &BoardIndex, players: i64) {
    for mode in modes() {
        for window in TimeWindow::ALL {
            for category in Category::ALL {
                let id = BoardId {
                    mode,
                    window,
                    category,
                };
                assert_eq!(left.top(id), right.top(id), "{id:?}");
                for account in (1..=players).map(AccountId) {
                    assert_eq!(
                        left.standing_of(id, account),
                        right.standing_of(id, account)
                    );
                }
            }
        }
    }
    for account in (1..=players).map(AccountId) {
        assert_eq!(
            left.totals_of(account, &modes()),
            right.totals_of(account, &modes())
        );
        assert_eq!(left.knows(account), right.knows(account));
    }
    assert_eq!(left.players(), right.players());
}

/// The run, checked against the model at each step; with `snapshot_every`, the index is
/// replaced every so many steps by the one its snapshot reads back as (compared whole first).
fn long_run(snapshot_every: Option<u64>) {
    let mut draw = Draw(42);
    let mut model = Model::default();
    let mut index = BoardIndex::loading(START);
    let mut now = START;
    let players = 700_i64;
    let mut seq = 0;
    let mut renames = 0;
    // Loading: results over the past two years, so that every window has some.
    let mut add = |model: &mut Model,
                   index: &mut BoardIndex,
                   draw: &mut Draw,
                   now: OffsetDateTime,
                   age_secs: u64| {
        seq += 1;
        let account = AccountId(1 + draw.below(players as u64) as i64);
        if model.deleted.contains(&account) {
            return;
        }
        if !index.knows(account) {
            let friend_code = model
                .names
                .entry(account)
                .or_insert_with(|| code(account.0, 0))
                .clone();
            index.add_player(&BoardPlayer {
                account,
                friend_code,
                is_banned: model.banned.contains(&account),
            });
        }
        let entry = MatchLogEntry {
            seq,
            account,
            mode: modes()[draw.below(3) as usize],
            ended: now - Duration::seconds(draw.below(age_secs.max(1)) as i64),
            placement: 1 + draw.below(14) as i64,
            kills: draw.below(6) as i64,
            time_alive_secs: draw.below(900) as i64,
        };
        assert!(index.add_result(&entry));
        model.results.push(entry);
    };
    for _ in 0..20_000 {
        add(&mut model, &mut index, &mut draw, now, 2 * 365 * 86_400);
    }
    index.finish_loading();
    for step in 0..1_500 {
        match draw.below(20) {
            0 => {
                let account = AccountId(1 + draw.below(players as u64) as i64);
                if model.names.contains_key(&account) && !model.deleted.contains(&account) {
                    renames += 1;
                    let new = code(account.0, renames);
                    model.names.insert(account, new.clone());
                    index.apply_change(account, &AccountChange::Renamed(new));
                }
            }
            1 => {
                let account = AccountId(1 + draw.below(players as u64) as i64);
                let banned = !model.banned.contains(&account);
                if banned {
                    model.banned.insert(account);
                } else {
                    model.banned.remove(&account);
                }
                index.apply_change(account, &AccountChange::Banned(banned));
            }
            2 if step % 5 == 0 => {
                let account = AccountId(1 + draw.below(players as u64) as i64);
                model.deleted.insert(account);
                index.apply_change(account, &AccountChange::Deleted);
            }
            2 if step % 5 == 1 => {
                let account = AccountId(1 + draw.below(players as u64) as i64);
                let through = model
                    .results
                    .iter()
                    .filter(|result| result.account == account)
                    .map(|result| result.seq)
                    .max()
                    .unwrap_or(0);
                model.results.retain(|result| result.account != account);
                index.apply_change(account, &AccountChange::ResultsRemoved { through });
            }
            3..=8 => {
                now += Duration::seconds(draw.below(4 * 86_400) as i64);
                // As the follower does: the hours due read back from the log a few at a
                // time, the windows moved after each few. (The model's results are in log
                // order.)
                loop {
                    let due = index.hours_to_read(now);
                    if due.is_empty() {
                        break;
                    }
                    for (hour, runs) in due {
                        let mut entries = Vec::new();
                        for (first, last) in runs {
                            let from = model.results.partition_point(|result| result.seq < first);
                            let to = model.results.partition_point(|result| result.seq <= last);
                            entries.extend_from_slice(&model.results[from..to]);
                        }
                        let kept = index.kept_of(hour, &entries);
                        index.read_back(hour, kept);
                    }
                    index.expire(now);
                }
                index.expire(now);
            }
            _ => {
                for _ in 0..draw.below(30) {
                    add(&mut model, &mut index, &mut draw, now, 7 * 86_400);
                }
            }
        }
        index.refill();
        if let Some(every) = snapshot_every
            && step % every == 0
        {
            let covered = Covered {
                match_seq: step as i64,
                account_seq: 3,
            };
            let (restored, read_covered) =
                snapshot::read(&snapshot::write(&index, covered, 4_096).concat())
                    .expect("the snapshot reads back");
            assert_eq!(read_covered, covered);
            assert_same(&index, &restored, players);
            index = restored;
        }
        let caller = AccountId(1 + draw.below(players as u64) as i64);
        let id = BoardId {
            mode: modes()[draw.below(3) as usize],
            window: TimeWindow::ALL[draw.below(5) as usize],
            category: Category::ALL[draw.below(7) as usize],
        };
        let expected = model.view(id, caller, now.unix_timestamp());
        assert_eq!(
            (index.top(id), index.standing_of(id, caller)),
            expected,
            "step {step}, {id:?}"
        );
        assert_eq!(
            index.neighbourhood(id, caller, 3),
            model.neighbourhood(id, caller, 3, now.unix_timestamp()),
            "step {step}, {id:?}: the caller's neighbours"
        );
    }
    // Every board once more at the end.
    for mode in modes() {
        for window in TimeWindow::ALL {
            for category in Category::ALL {
                let id = BoardId {
                    mode,
                    window,
                    category,
                };
                let caller = AccountId(7);
                let expected = model.view(id, caller, now.unix_timestamp());
                assert_eq!(
                    (index.top(id), index.standing_of(id, caller)),
                    expected,
                    "{id:?}"
                );
            }
        }
    }
    // The results each window holds (as the metrics tell them), of the players shown.
    for window in TimeWindow::ALL {
        let shown_rounds: u64 = modes()
            .into_iter()
            .flat_map(|mode| model.all_totals(mode, window, now.unix_timestamp()))
            .filter(|(account, _)| model.shown(account))
            .map(|(_, totals)| u64::from(totals.rounds))
            .sum();
        assert!(
            shown_rounds > 0 || window != TimeWindow::All,
            "the run leaves results to count"
        );
        assert_eq!(index.results_in(window), shown_rounds, "{window:?}");
    }
}

#[test]
fn the_index_grows_a_mode_at_its_first_result_up_to_sixteen() {
    let mut index = BoardIndex::loading(START);
    index.finish_loading();
    let account = AccountId(1);
    index.add_player(&BoardPlayer {
        account,
        friend_code: code(1, 0),
        is_banned: false,
    });
    let result = |seq: i64, name: &str| MatchLogEntry {
        seq,
        account,
        mode: GameMode::parse(name).expect("a mode"),
        ended: START - Duration::minutes(1),
        placement: 1,
        kills: 2,
        time_alive_secs: 300,
    };
    let fourth = BoardId {
        mode: GameMode::parse("mode_3").expect("a mode"),
        window: TimeWindow::All,
        category: Category::Kills,
    };
    assert_eq!(index.top(fourth), Vec::new());
    assert_eq!(index.position(fourth), None);
    for slot in 0..super::index::MODE_SLOTS {
        assert!(index.add_result(&result(slot as i64 + 1, &format!("mode_{slot}"))));
    }
    assert!(
        !index.add_result(&result(100, "mode_16")),
        "a 17th mode is not counted"
    );
    assert_eq!(index.board_count(), 16 * 35);
    let top = index.top(fourth);
    assert_eq!((top.len(), top[0].rank, top[0].totals.kills), (1, 1, 2));
    let own = index.standing_of(fourth, account).expect("ranked");
    assert_eq!(own.totals.rounds, 1);
}
