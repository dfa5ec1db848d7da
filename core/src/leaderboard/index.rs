//! The in-memory index of every board: each player's totals per mode and window, each board's
//! score histogram and top list, and the results still due to leave a window.
//!
//! Memory for a player is 47 bytes in [`Players`] and, per mode played, 4 bytes plus 12 per
//! window holding results ([`ModeTotals`]); a result is a log position in [`Expiry`], read back
//! from the match log when a window's edge comes near its hour (12 bytes while kept); a board
//! holds 12 bytes per distinct score and at most [`TOP_KEPT`] places. No board copies the
//! players' totals.

use time::OffsetDateTime;

use super::expiry::{Expiry, HOUR, Kept, Pending, Runs};
use super::histogram::ScoreHistogram;
use super::kinds::{BOARDS_PER_MODE, BoardId, Category, TimeWindow, board_position};
use super::packed::{ModeTotals, RowRef, WindowTotals};
use super::players::{NO_ROW, Players};
use super::top::{Place, TOP_KEPT, TOP_ROWS, TopList, place};
use super::totals::{Contribution, Totals};
use crate::domain::{FriendCode, GameMode};

/// The most modes the index keeps: a result pending expiry holds its mode's index in 4 bits.
pub const MODE_SLOTS: usize = 16;
use crate::store::{AccountChange, AccountId, BoardPlayer, MatchLogEntry};

/// One row of a board, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// 1 + the players with a strictly greater score.
    pub rank: u64,
    /// The player's friend code (its name is the board's name).
    pub friend_code: FriendCode,
    /// The player's totals in the board's mode and window.
    pub totals: Totals,
}

/// One board's ranking state.
#[derive(Debug, Default)]
pub(crate) struct Board {
    pub(crate) histogram: ScoreHistogram,
    pub(crate) top: TopList,
    /// Moves on whenever a row the board lists may have changed.
    version: u64,
}

impl Board {
    /// A board with this histogram and top list, at version 0.
    pub(crate) fn new(histogram: ScoreHistogram, top: TopList) -> Self {
        Self {
            histogram,
            top,
            version: 0,
        }
    }
}

/// The players, their totals and the boards: everything but the pending expiries.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    pub(crate) players: Players,
    /// The modes the index holds, in the order they first had a result (or were in a
    /// snapshot): a mode's position here is its index in every other column.
    pub(crate) names: Vec<GameMode>,
    pub(crate) modes: Vec<ModeTotals>,
    /// [`BOARDS_PER_MODE`] boards per mode, mode after mode.
    pub(crate) boards: Vec<Board>,
    /// Boards whose top lists ran short, to refill once the current batch is applied.
    refills: Vec<usize>,
    /// While loading, only totals are kept; the boards are built once at the end.
    loading: bool,
}

/// Every board of one node, and the players behind them.
#[derive(Debug)]
pub struct BoardIndex {
    pub(crate) tables: Tables,
    pub(crate) expiry: Expiry,
}

impl BoardIndex {
    /// An empty index whose windows end at `now`, loading: results only add to totals until
    /// [`BoardIndex::finish_loading`] builds the boards.
    pub fn loading(now: OffsetDateTime) -> Self {
        Self {
            tables: Tables {
                loading: true,
                ..Tables::default()
            },
            expiry: Expiry::new(now),
        }
    }

    /// An index of these players, totals, boards and results pending expiry, as a snapshot
    /// holds them.
    pub(crate) fn from_parts(
        players: Players,
        names: Vec<GameMode>,
        modes: Vec<ModeTotals>,
        boards: Vec<Board>,
        expiry: Expiry,
    ) -> Self {
        Self {
            tables: Tables {
                players,
                names,
                modes,
                boards,
                ..Tables::default()
            },
            expiry,
        }
    }

    /// Builds every board from the totals loaded so far; from now on results move the boards.
    pub fn finish_loading(&mut self) {
        self.tables.loading = false;
        self.tables.players.sort();
        self.tables.players.shrink();
        for mode in &mut self.tables.modes {
            mode.shrink();
        }
        for mode in 0..self.tables.modes.len() {
            for window in 0..TimeWindow::ALL.len() {
                self.tables.rebuild_window(mode, window);
            }
        }
        self.expiry.shrink();
    }

    /// About the heap bytes the index holds (its columns' capacities and its trees' nodes):
    /// what the boards cost in memory, less what the allocator keeps around them.
    pub fn heap_bytes(&self) -> usize {
        let tables = &self.tables;
        let modes: usize = tables.modes.iter().map(ModeTotals::heap_bytes).sum();
        let boards: usize = tables
            .boards
            .iter()
            .map(|board| board.histogram.heap_bytes() + board.top.heap_bytes())
            .sum();
        tables.players.heap_bytes() + modes + boards + self.expiry.heap_bytes()
    }

    /// How many players the index knows (deleted ones included).
    pub fn players(&self) -> usize {
        self.tables.players.len()
    }

    /// How many results the players shown on the boards have in `window` (every mode; banned
    /// and deleted players' are not counted): the `rounds` boards' scores times their players,
    /// read from the boards' histograms, one entry per distinct score rather than per player.
    pub fn results_in(&self, window: TimeWindow) -> u64 {
        (0..self.tables.modes.len())
            .map(|mode| {
                let rounds = board_position(mode, window.index(), Category::Rounds.index());
                self.tables.boards[rounds]
                    .histogram
                    .entries()
                    .map(|(score, players)| score * u64::from(players))
                    .sum::<u64>()
            })
            .sum()
    }

    /// Whether the index knows the account (it has results, and is not deleted).
    pub fn knows(&self, account: AccountId) -> bool {
        self.tables.players.slot_of(account).is_some()
    }

    /// Adds a player, or brings a known one's friend code and ban state up to date.
    pub fn add_player(&mut self, player: &BoardPlayer) {
        self.tables.add_player(player);
    }

    /// Adds one result from the match log, in the windows it is still within. Answers `false`
    /// (adding nothing) when its player is unknown: add the player first.
    pub fn add_result(&mut self, entry: &MatchLogEntry) -> bool {
        if self.tables.mode_of(entry.mode).is_none() && !self.tables.add_mode(entry.mode) {
            tracing::error!(
                mode = entry.mode.as_str(),
                "a result of a mode beyond the {MODE_SLOTS} modes the boards keep is not counted"
            );
            return false;
        }
        let Some(pending) = self.pending_of(entry) else {
            return false;
        };
        let ended = entry.ended.unix_timestamp();
        let windows = TimeWindow::ALL.map(|window| self.expiry.counts(window, ended));
        self.tables
            .change_totals(pending.slot, usize::from(pending.mode), windows, |totals| {
                totals.add(pending.result)
            });
        self.expiry.remember(ended, entry.seq, pending);
        true
    }

    /// The log entry as the result of a known player; `None` when its player or its mode is
    /// unknown.
    fn pending_of(&self, entry: &MatchLogEntry) -> Option<Pending> {
        let slot = self.tables.players.slot_of(entry.account)?;
        let mode = self.tables.mode_of(entry.mode)?;
        Some(Pending {
            slot,
            mode: mode as u8,
            result: Contribution {
                placement: u8::try_from(entry.placement.clamp(1, 255)).unwrap_or(u8::MAX),
                kills: u8::try_from(entry.kills.clamp(0, 255)).unwrap_or(u8::MAX),
                time_alive: u32::try_from(entry.time_alive_secs.max(0)).unwrap_or(u32::MAX),
            },
        })
    }

    /// The hours whose results must be read back from the match log before the windows can
    /// move to `now` (a few at a time, earliest first), each with the log positions (first,
    /// last) its results are within.
    pub fn hours_to_read(&self, now: OffsetDateTime) -> Vec<(i64, Runs)> {
        self.expiry.hours_to_read(now)
    }

    /// Whether a window cannot move to `now` before an hour is read back.
    pub fn must_read_back(&self, now: OffsetDateTime) -> bool {
        self.expiry.must_read_back(now)
    }

    /// The results of `hour` among `entries` read back from the match log, as the expiry keeps
    /// them (other hours' results and those of players no longer known are left out).
    pub fn kept_of<'a>(
        &self,
        hour: i64,
        entries: impl IntoIterator<Item = &'a MatchLogEntry>,
    ) -> Vec<Kept> {
        entries
            .into_iter()
            .filter(|entry| entry.ended.unix_timestamp().div_euclid(HOUR) == hour)
            .filter_map(|entry| {
                let pending = self.pending_of(entry)?;
                Some(Kept::new(entry.ended.unix_timestamp(), &pending))
            })
            .collect()
    }

    /// Installs the whole list of an hour's results read back from the match log
    /// ([`BoardIndex::kept_of`]).
    pub fn read_back(&mut self, hour: i64, results: Vec<Kept>) {
        self.expiry.read_back(hour, results);
    }

    /// Applies a rename, ban, deletion or removal of results from the account log. A deleted
    /// account, or one whose results were removed, leaves every board with all it counted: its
    /// place is retired (results still due to leave a window skip it) and the account is
    /// unknown again, so its later results start it afresh.
    pub fn apply_change(&mut self, account: AccountId, change: &AccountChange) {
        let Some(slot) = self.tables.players.slot_of(account) else {
            return;
        };
        match change {
            AccountChange::Renamed(code) => self.tables.rename(slot, code),
            AccountChange::Banned(banned) => self.tables.set_hidden(slot, *banned),
            AccountChange::Deleted | AccountChange::ResultsRemoved { .. } => {
                self.tables.set_hidden(slot, true);
                self.tables.players.retire(slot);
            }
        }
    }

    /// Takes out of each window the results that left it by `now`.
    pub fn expire(&mut self, now: OffsetDateTime) {
        let tables = &mut self.tables;
        self.expiry.advance(now, |window, pending| {
            if !tables.players.is_deleted(pending.slot) {
                let mut windows = [false; 5];
                windows[window.index()] = true;
                tables.change_totals(pending.slot, usize::from(pending.mode), windows, |totals| {
                    totals.remove(pending.result)
                });
            }
        });
    }

    /// Whether some window has results due to leave it at `now`.
    pub fn is_behind(&self, now: OffsetDateTime) -> bool {
        self.expiry.is_behind(now)
    }

    /// Refills the top lists that ran short; call after each batch of changes.
    pub fn refill(&mut self) {
        let refills = std::mem::take(&mut self.tables.refills);
        for board in refills {
            self.tables.rebuild_top(board);
        }
    }

    /// Where the board is in the index's list of boards; `None` while its mode has no result.
    pub fn position(&self, id: BoardId) -> Option<usize> {
        let mode = self.tables.mode_of(id.mode)?;
        Some(board_position(mode, id.window.index(), id.category.index()))
    }

    /// How many boards the index holds: `BOARDS_PER_MODE` for each mode with results.
    pub fn board_count(&self) -> usize {
        self.tables.boards.len()
    }

    /// The board's first [`TOP_ROWS`] rows, best first (none while its mode has no result).
    pub fn top(&self, id: BoardId) -> Vec<Standing> {
        let Some(mode) = self.tables.mode_of(id.mode) else {
            return Vec::new();
        };
        let window = id.window.index();
        let board = &self.tables.boards[board_position(mode, window, id.category.index())];
        let mut players = Vec::with_capacity(TOP_ROWS);
        let mut rank = 0;
        let mut previous = None;
        for (position, (score, _, slot)) in board.top.places().take(TOP_ROWS).enumerate() {
            if previous != Some(score.0) {
                rank = position as u64 + 1;
                previous = Some(score.0);
            }
            players.push(self.tables.standing(*slot, mode, window, rank));
        }
        players
    }

    /// The account's row on the board with its rank; `None` when it is not ranked on the
    /// board: no game in the board's mode and window, too few rounds for a ratio, or banned.
    pub fn standing_of(&self, id: BoardId, account: AccountId) -> Option<Standing> {
        let mode = self.tables.mode_of(id.mode)?;
        let window = id.window.index();
        let board = &self.tables.boards[board_position(mode, window, id.category.index())];
        let slot = self.tables.players.slot_of(account)?;
        if self.tables.players.is_hidden(slot) {
            return None;
        }
        let row = self.tables.row(slot, mode)?;
        let score = self.tables.modes[mode]
            .window(row, window)
            .score(id.category)?;
        let rank = board.histogram.players_above(score) + 1;
        Some(self.tables.standing(slot, mode, window, rank))
    }

    /// The account's row on the board and up to `around` rows on each side of it, best first;
    /// `None` when the account is not ranked on the board. One pass over the board's players
    /// (the boards keep no order past their top lists): for an operator's look, not a
    /// player's request.
    pub fn neighbourhood(
        &self,
        id: BoardId,
        account: AccountId,
        around: usize,
    ) -> Option<Vec<Standing>> {
        self.standing_of(id, account)?;
        let slot = self.tables.players.slot_of(account)?;
        let mode = self.tables.mode_of(id.mode)?;
        let window = id.window.index();
        let places = self.tables.places(mode, window, id.category);
        let own = *places.iter().find(|(_, _, of)| *of == slot)?;
        let (mut better, mut worse): (Vec<Place>, Vec<Place>) = places
            .into_iter()
            .filter(|place| *place != own)
            .partition(|place| *place < own);
        if better.len() > around {
            let first = better.len() - around;
            better.select_nth_unstable(first);
            better.drain(..first);
        }
        if worse.len() > around {
            worse.select_nth_unstable(around);
            worse.truncate(around);
        }
        let mut rows: Vec<Place> = better.into_iter().chain([own]).chain(worse).collect();
        rows.sort_unstable();
        let board = &self.tables.boards[board_position(mode, window, id.category.index())];
        Some(
            rows.into_iter()
                .map(|(score, _, slot)| {
                    let rank = board.histogram.players_above(score.0) + 1;
                    self.tables.standing(slot, mode, window, rank)
                })
                .collect(),
        )
    }

    /// The version of the board at `position`: it moves on whenever a row the board lists may
    /// have changed.
    pub fn version(&self, position: usize) -> u64 {
        self.tables.boards[position].version
    }

    /// The account's totals in each window, in [`TimeWindow::ALL`] order, for each of `modes`
    /// (zeros where it has none).
    pub fn totals_of(&self, account: AccountId, modes: &[GameMode]) -> Vec<WindowTotals> {
        let slot = self.tables.players.slot_of(account);
        modes
            .iter()
            .map(|mode| {
                let mode = self.tables.mode_of(*mode);
                slot.zip(mode)
                    .and_then(|(slot, mode)| {
                        let row = self.tables.row(slot, mode)?;
                        Some(self.tables.modes[mode].get(row))
                    })
                    .unwrap_or_default()
            })
            .collect()
    }
}

impl Tables {
    /// Adds a player; a known one takes the given friend code and ban state (read after the
    /// account log entries applied so far, so at least as recent).
    fn add_player(&mut self, player: &BoardPlayer) {
        if let Some(slot) = self.players.slot_of(player.account) {
            if !self.players.has_code(slot, &player.friend_code) {
                self.rename(slot, &player.friend_code);
            }
            self.set_hidden(slot, player.is_banned);
            return;
        }
        self.players
            .push(player.account, &player.friend_code, player.is_banned);
    }

    /// The position of a mode among the index's modes; `None` while it has no result. A look
    /// along at most [`MODE_SLOTS`] inline names, no hashing.
    pub(crate) fn mode_of(&self, mode: GameMode) -> Option<usize> {
        self.names.iter().position(|name| *name == mode)
    }

    /// Adds a mode with no result and its empty boards; `false` when the index holds
    /// [`MODE_SLOTS`] modes already.
    fn add_mode(&mut self, mode: GameMode) -> bool {
        if self.names.len() >= MODE_SLOTS {
            return false;
        }
        self.players.add_mode();
        self.names.push(mode);
        self.modes.push(ModeTotals::default());
        self.boards
            .extend((0..BOARDS_PER_MODE).map(|_| Board::default()));
        true
    }

    /// The player's row in a mode, if it played it.
    fn row(&self, slot: u32, mode: usize) -> Option<RowRef> {
        let row = self.players.row(slot, mode);
        (row != NO_ROW).then(|| RowRef::from_bits(row))
    }

    /// Changes one player's totals in one mode and the windows marked, and moves them on its
    /// boards.
    fn change_totals(
        &mut self,
        slot: u32,
        mode: usize,
        windows: [bool; 5],
        change: impl Fn(&mut Totals),
    ) {
        if !windows.contains(&true) {
            return;
        }
        let row = self.row(slot, mode);
        let before: WindowTotals = row.map(|row| self.modes[mode].get(row)).unwrap_or_default();
        let mut totals = before;
        for (totals, counted) in totals.iter_mut().zip(windows) {
            if counted {
                change(totals);
            }
        }
        let (row, moved) = self.modes[mode].set(row, slot, &totals);
        self.players.set_row(slot, mode, row.to_bits());
        if let Some(moved) = moved {
            self.players.set_row(moved.owner, mode, moved.to.to_bits());
        }
        if self.loading || self.players.is_hidden(slot) {
            return;
        }
        let account = self.players.account(slot);
        for window in (0..windows.len()).filter(|window| windows[*window]) {
            for category in Category::ALL {
                let places = |totals: Totals| {
                    totals
                        .score(category)
                        .map(|score| place(score, account.0, slot))
                };
                self.move_on_board(
                    board_position(mode, window, category.index()),
                    places(before[window]),
                    places(totals[window]),
                );
            }
        }
    }

    /// Moves a player from one place on a board to another (`None`: off the board).
    fn move_on_board(&mut self, index: usize, before: Option<Place>, after: Option<Place>) {
        let board = &mut self.boards[index];
        let score = |place: Option<Place>| place.map(|(score, _, _)| score.0);
        if score(before) != score(after) {
            if let Some(score) = score(before) {
                board.histogram.remove(score);
            }
            if let Some(score) = score(after) {
                board.histogram.add(score);
            }
        }
        let touched = board.top.update(before, after);
        if touched.changed {
            board.version += 1;
        }
        if touched.needs_refill && !self.refills.contains(&index) {
            self.refills.push(index);
        }
    }

    /// Puts a player on or takes them off every board they have games on.
    fn set_hidden(&mut self, slot: u32, hidden: bool) {
        if self.players.is_hidden(slot) == hidden || self.players.is_deleted(slot) {
            return;
        }
        self.players.set_hidden(slot, hidden);
        if self.loading {
            return;
        }
        let account = self.players.account(slot);
        for mode in 0..self.modes.len() {
            let Some(row) = self.row(slot, mode) else {
                continue;
            };
            let totals = self.modes[mode].get(row);
            for (window, totals) in totals.into_iter().enumerate() {
                for category in Category::ALL {
                    let shown = totals
                        .score(category)
                        .map(|score| place(score, account.0, slot));
                    let (before, after) = if hidden { (shown, None) } else { (None, shown) };
                    self.move_on_board(
                        board_position(mode, window, category.index()),
                        before,
                        after,
                    );
                }
            }
        }
    }

    /// Gives a player a new friend code; the boards listing them show it from now on.
    fn rename(&mut self, slot: u32, code: &FriendCode) {
        self.players.set_code(slot, code);
        if self.loading || self.players.is_hidden(slot) {
            return;
        }
        let account = self.players.account(slot);
        for mode in 0..self.modes.len() {
            let Some(row) = self.row(slot, mode) else {
                continue;
            };
            for (window, totals) in self.modes[mode].get(row).iter().enumerate() {
                for category in Category::ALL {
                    let Some(score) = totals.score(category) else {
                        continue;
                    };
                    let board = &mut self.boards[board_position(mode, window, category.index())];
                    if board.top.holds(&place(score, account.0, slot)) {
                        board.version += 1;
                    }
                }
            }
        }
    }

    /// The places of every shown player with a score on the board of `mode`, `window` and
    /// `category`.
    fn places(&self, mode: usize, window: usize, category: Category) -> Vec<Place> {
        self.modes[mode]
            .in_window(window)
            .filter(|(slot, _)| !self.players.is_hidden(*slot))
            .filter_map(|(slot, totals)| {
                totals
                    .score(category)
                    .map(|score| place(score, self.players.accounts[slot as usize], slot))
            })
            .collect()
    }

    /// Builds the histograms and top lists of every board of a mode and window afresh from the
    /// players' totals.
    fn rebuild_window(&mut self, mode: usize, window: usize) {
        for category in Category::ALL {
            let mut places = self.places(mode, window, category);
            let mut scores: Vec<u64> = places.iter().map(|(score, _, _)| score.0).collect();
            scores.sort_unstable();
            let board = &mut self.boards[board_position(mode, window, category.index())];
            board.histogram = ScoreHistogram::from_sorted(&scores);
            drop(scores);
            board.top = top_of(&mut places);
            board.version += 1;
        }
    }

    /// Builds a board's top list afresh from the players' totals.
    fn rebuild_top(&mut self, index: usize) {
        let mode = index / BOARDS_PER_MODE;
        let window = (index % BOARDS_PER_MODE) / Category::ALL.len();
        let category = Category::ALL[index % Category::ALL.len()];
        let mut places = self.places(mode, window, category);
        let board = &mut self.boards[index];
        board.top = top_of(&mut places);
        board.version += 1;
    }

    fn standing(&self, slot: u32, mode: usize, window: usize, rank: u64) -> Standing {
        Standing {
            rank,
            friend_code: self.players.friend_code(slot),
            totals: self
                .row(slot, mode)
                .map(|row| self.modes[mode].window(row, window))
                .unwrap_or_default(),
        }
    }
}

/// The top list of a board whose places (in no order) are `places`.
fn top_of(places: &mut Vec<Place>) -> TopList {
    let whole_board = places.len() <= TOP_KEPT;
    if !whole_board {
        places.select_nth_unstable(TOP_KEPT - 1);
        places.truncate(TOP_KEPT);
    }
    TopList::from_places(std::mem::take(places), whole_board)
}
