//! A node's live boards: loaded from the store at start, then following its match log and
//! account log, so that every node on one database shows the same boards.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex, OnceLock, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, mpsc, watch};
use tokio::task::JoinHandle;

use super::index::{BoardIndex, Standing};
use super::kinds::{BoardId, TimeWindow};
use super::packed::WindowTotals;
use super::snapshot::{self, Covered};
use crate::clock::Clock;
use crate::domain::GameMode;
use crate::store::{AccountChange, AccountId, BoardPlayer, MatchLogEntry, Store, StoreError};

/// Log entries read per store call while following.
const PAGE: u32 = 5_000;

/// Players or log entries read per store call while loading.
const LOAD_PAGE: u32 = 20_000;

/// How often a node looks for entries other nodes appended.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);

/// How long a request waits for a node still loading before answering that it is.
const LOADING_PATIENCE: Duration = Duration::from_secs(1);

/// How long the follower waits after the store failed before trying again.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// How often a node offers to write a snapshot of its boards (the node that claims the turn
/// writes it; the others skip), and how soon after it starts from the whole log.
const SNAPSHOT_EVERY: Duration = Duration::from_secs(15 * 60);

/// The bytes of one stored part of a snapshot.
const SNAPSHOT_PART: usize = 4 << 20;

/// The complete snapshots kept (the newest, and one before it).
const SNAPSHOTS_KEPT: u32 = 2;

/// Why the boards cannot answer.
#[derive(Debug)]
pub enum BoardsError {
    /// The node is still loading its boards; this many results are loaded so far.
    Loading {
        /// Results loaded so far.
        loaded: u64,
    },
    /// The store failed while catching up.
    Store(StoreError),
}

impl From<StoreError> for BoardsError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

/// A board's first rows as of one version of the board, shared by every request that reads
/// that version; the API keeps their rendering in `rendered`.
#[derive(Debug)]
pub struct TopRows {
    version: u64,
    /// The first rows, best first.
    pub standings: Vec<Standing>,
    /// The rows as the API renders them, made once per version.
    pub rendered: OnceLock<Box<serde_json::value::RawValue>>,
}

/// A board as a request sees it: the shared first rows, and the caller's own row.
#[derive(Debug)]
pub struct BoardAnswer {
    /// The first rows.
    pub top: Arc<TopRows>,
    /// The caller's row; `None` without a caller or when the caller is not ranked here.
    pub user: Option<Standing>,
}

/// What the boards of a node hold right now, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardsStatus {
    /// Whether the boards are loaded and answering.
    pub ready: bool,
    /// The match log results read so far by the load (all of them once ready).
    pub loaded_results: u64,
    /// The players the boards know (0 while loading).
    pub players: usize,
    /// About the heap bytes the boards hold (0 while loading).
    pub memory_bytes: usize,
    /// The results counted in each window, in [`TimeWindow::ALL`] order (0 while loading).
    pub results: [u64; 5],
    /// The snapshot the boards started from (its id), `None` when they read the whole log.
    pub started_from: Option<i64>,
}

/// The loaded index and how far into each log it is.
struct Loaded {
    index: BoardIndex,
    match_seq: i64,
    account_seq: i64,
}

/// Every board of this node, kept live. Cheap to share; the follower stops when the last
/// handle is dropped.
pub struct Leaderboards {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    loaded: RwLock<Option<Loaded>>,
    ready: watch::Sender<bool>,
    /// Held while reading the logs, so that one task catches up at a time.
    catching_up: Mutex<()>,
    /// Counts the changes made through this node; the boards have caught up with
    /// `caught_up` of them.
    changes_here: AtomicU64,
    caught_up: AtomicU64,
    loaded_results: AtomicU64,
    started: AtomicBool,
    /// The snapshot the boards started from (0: none).
    started_from: AtomicU64,
    /// The positions of the last snapshot this node read or wrote.
    last_snapshot: StdMutex<Option<Covered>>,
    /// The last first rows made for each board, in the index's order of boards (grown when
    /// the index grows a mode).
    top_rows: RwLock<Vec<StdMutex<Option<Arc<TopRows>>>>>,
}

impl Leaderboards {
    /// Boards over `store`, not loaded yet: [`Leaderboards::start`] loads and follows.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Arc<Self> {
        Arc::new(Self {
            store,
            clock,
            loaded: RwLock::new(None),
            ready: watch::Sender::new(false),
            catching_up: Mutex::new(()),
            changes_here: AtomicU64::new(0),
            caught_up: AtomicU64::new(0),
            loaded_results: AtomicU64::new(0),
            started: AtomicBool::new(false),
            started_from: AtomicU64::new(0),
            last_snapshot: StdMutex::new(None),
            top_rows: RwLock::new(Vec::new()),
        })
    }

    /// Starts loading and following in a task of the current Tokio runtime (once; does
    /// nothing outside a runtime: the first request starts it then).
    pub fn start(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        runtime.spawn(follow(Arc::downgrade(self)));
    }

    /// What the boards hold now, as they are: without waiting for the load or catching up.
    /// It reads the boards' sizes and histograms, not the players: a scrape at ten million
    /// players holds the boards' lock as briefly as at a thousand.
    pub fn status(&self) -> BoardsStatus {
        let loaded = self.read();
        let index = loaded.as_ref().map(|loaded| &loaded.index);
        BoardsStatus {
            ready: index.is_some(),
            loaded_results: self.loaded_results.load(Ordering::Relaxed),
            players: index.map_or(0, BoardIndex::players),
            memory_bytes: index.map_or(0, BoardIndex::heap_bytes),
            results: TimeWindow::ALL
                .map(|window| index.map_or(0, |index| index.results_in(window))),
            started_from: match self.started_from.load(Ordering::Relaxed) {
                0 => None,
                id => i64::try_from(id).ok(),
            },
        }
    }

    /// Notes that this node changed something the boards show (a match, a rename, a ban, a
    /// deletion): the next request through this node catches up first.
    pub fn changed_here(&self) {
        self.changes_here.fetch_add(1, Ordering::AcqRel);
    }

    /// The board's first rows and the caller's row, up to date with this node's changes and
    /// with the windows moved to now.
    pub async fn view(
        self: &Arc<Self>,
        id: BoardId,
        caller: Option<AccountId>,
    ) -> Result<BoardAnswer, BoardsError> {
        let loaded = self.current().await?;
        let index = &loaded.as_ref().ok_or_else(|| self.loading())?.index;
        let top = match index.position(id) {
            Some(position) => self.top_rows_of(index, id, position),
            // No result in the board's mode yet: an empty board.
            None => Arc::new(TopRows {
                version: 0,
                standings: Vec::new(),
                rendered: OnceLock::new(),
            }),
        };
        Ok(BoardAnswer {
            top,
            user: caller.and_then(|account| index.standing_of(id, account)),
        })
    }

    /// The account's row on the board and up to `around` rows on each side of it, best first
    /// ([`BoardIndex::neighbourhood`]); `None` when the account is not ranked there.
    pub async fn neighbourhood(
        self: &Arc<Self>,
        id: BoardId,
        account: AccountId,
        around: usize,
    ) -> Result<Option<Vec<Standing>>, BoardsError> {
        let loaded = self.current().await?;
        let index = &loaded.as_ref().ok_or_else(|| self.loading())?.index;
        Ok(index.neighbourhood(id, account, around))
    }

    /// The account's totals in each window ([`TimeWindow::ALL`] order) for each of `modes`,
    /// as the boards count them.
    pub async fn totals_of(
        self: &Arc<Self>,
        account: AccountId,
        modes: &[GameMode],
    ) -> Result<Vec<WindowTotals>, BoardsError> {
        let loaded = self.current().await?;
        let index = &loaded.as_ref().ok_or_else(|| self.loading())?.index;
        Ok(index.totals_of(account, modes))
    }

    /// The first rows of the board at `position` in `index`, made once per version of the
    /// board.
    fn top_rows_of(&self, index: &BoardIndex, id: BoardId, position: usize) -> Arc<TopRows> {
        let version = index.version(position);
        let cache = self
            .top_rows
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let cache = if position < cache.len() {
            cache
        } else {
            drop(cache);
            let mut grown = self
                .top_rows
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let boards = index.board_count().max(position + 1);
            while grown.len() < boards {
                grown.push(StdMutex::new(None));
            }
            drop(grown);
            self.top_rows
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        let mut cached = cache[position]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match cached.as_ref() {
            Some(top) if top.version == version => Arc::clone(top),
            _ => {
                let top = Arc::new(TopRows {
                    version,
                    standings: index.top(id),
                    rendered: OnceLock::new(),
                });
                *cached = Some(Arc::clone(&top));
                top
            }
        }
    }

    /// The loaded index, caught up and with its windows moved to now.
    async fn current(self: &Arc<Self>) -> Result<RwLockReadGuard<'_, Option<Loaded>>, BoardsError> {
        self.start();
        let mut ready = self.ready.subscribe();
        let patience = tokio::time::timeout(LOADING_PATIENCE, ready.wait_for(|ready| *ready));
        if !matches!(patience.await, Ok(Ok(_))) {
            return Err(self.loading());
        }
        let wanted = self.changes_here.load(Ordering::Acquire);
        if self.caught_up.load(Ordering::Acquire) < wanted {
            let _turn = self.catching_up.lock().await;
            if self.caught_up.load(Ordering::Acquire) < wanted {
                self.catch_up().await?;
            }
        }
        let now = self.clock.now();
        let behind = self
            .read()
            .as_ref()
            .is_some_and(|loaded| loaded.index.is_behind(now));
        if behind {
            // The follower reads each edge's next hour ahead; this is for a node that could not.
            let unread = self
                .read()
                .as_ref()
                .is_some_and(|loaded| loaded.index.must_read_back(now));
            if unread {
                let _turn = self.catching_up.lock().await;
                let match_seq = self.read().as_ref().map(|loaded| loaded.match_seq);
                if let Some(match_seq) = match_seq {
                    self.read_back_due(now, match_seq).await?;
                }
            }
            let mut loaded = self.write();
            if let Some(loaded) = loaded.as_mut() {
                loaded.index.expire(now);
                loaded.index.refill();
            }
        }
        Ok(self.read())
    }

    fn loading(&self) -> BoardsError {
        BoardsError::Loading {
            loaded: self.loaded_results.load(Ordering::Relaxed),
        }
    }

    /// Loads the boards from the newest snapshot and the logs' tail after it, or, without a
    /// readable snapshot, from the whole match log; answers once the boards are ready.
    async fn load(&self) -> Result<(), StoreError> {
        let started = Instant::now();
        match self.load_snapshot().await {
            Ok(Some((id, Ok((index, covered))))) => {
                let installed = started.elapsed();
                *self.write() = Some(Loaded {
                    index,
                    match_seq: covered.match_seq,
                    account_seq: covered.account_seq,
                });
                *self.last_snapshot_slot() = Some(covered);
                if let Err(BoardsError::Store(error)) = self.catch_up_tail().await {
                    *self.write() = None;
                    return Err(error);
                }
                self.started_from
                    .store(u64::try_from(id).unwrap_or(0), Ordering::Relaxed);
                self.ready.send_replace(true);
                let players = self
                    .read()
                    .as_ref()
                    .map_or(0, |loaded| loaded.index.players());
                tracing::info!(
                    snapshot = id,
                    players,
                    millis = started.elapsed().as_millis() as u64,
                    snapshot_millis = installed.as_millis() as u64,
                    tail_millis = (started.elapsed() - installed).as_millis() as u64,
                    "leaderboards ready"
                );
                return Ok(());
            }
            Ok(Some((id, Err(error)))) => {
                tracing::warn!(snapshot = id, %error, "reading the whole log instead");
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(%error, "cannot read the boards' snapshot; reading the whole log");
            }
        }
        self.load_log().await
    }

    /// The newest complete snapshot's id and what its bytes read as, if there is one (`None`
    /// as well when it was deleted while read). The parts are read one after the other into a
    /// reader on a blocking thread, so the whole snapshot is never held at once.
    async fn load_snapshot(&self) -> Result<Option<(i64, SnapshotRead)>, StoreError> {
        let Some(info) = self.store.newest_board_snapshot().await? else {
            return Ok(None);
        };
        let (parts, mut received) = mpsc::channel::<Vec<u8>>(2);
        let bound = (info.parts as usize).saturating_mul(SNAPSHOT_PART);
        let reader = tokio::task::spawn_blocking(move || {
            snapshot::read_parts(bound, &mut || received.blocking_recv())
        });
        let mut complete = true;
        for part in 0..info.parts {
            match self.store.board_snapshot_part(info.id, part).await {
                // A reader that stopped found the bytes damaged: it answers why.
                Ok(Some(bytes)) => {
                    if parts.send(bytes).await.is_err() {
                        break;
                    }
                }
                Ok(None) => {
                    complete = false;
                    break;
                }
                Err(error) => {
                    drop(parts);
                    let _ = reader.await;
                    return Err(error);
                }
            }
        }
        drop(parts);
        let read = reader.await.map_err(|error| {
            StoreError::Internal(format!("the snapshot reader failed: {error}"))
        })?;
        Ok(complete.then_some((info.id, read)))
    }

    /// Applies the logs' entries after the installed snapshot, and moves the windows to now.
    async fn catch_up_tail(&self) -> Result<(), BoardsError> {
        let _turn = self.catching_up.lock().await;
        let now = self.clock.now();
        self.apply(|loaded| loaded.index.expire(now));
        self.catch_up().await
    }

    /// Writes a snapshot of the boards now, unless another node began one since `unless_since`
    /// (`Leaderboards::write_snapshot` with the current time: unless one was begun in the
    /// same instant). Answers the snapshot's id, `None` when another node had the turn or the
    /// boards are not loaded.
    pub async fn write_snapshot_now(&self) -> Result<Option<i64>, BoardsError> {
        let now = self.clock.now();
        self.write_snapshot(now, None).await
    }

    /// Writes a snapshot of the boards as they are, caught up, unless a snapshot was begun
    /// after `unless_since`; it becomes the newest only once every part is stored. Past
    /// `deadline`, no further part is stored and the snapshot is left incomplete (never read).
    async fn write_snapshot(
        &self,
        unless_since: time::OffsetDateTime,
        deadline: Option<Instant>,
    ) -> Result<Option<i64>, BoardsError> {
        let past_deadline = || deadline.is_some_and(|deadline| Instant::now() >= deadline);
        let turn = self.catching_up.lock().await;
        let Some((bytes, covered)) = self.read().as_ref().map(|loaded| {
            let covered = Covered {
                match_seq: loaded.match_seq,
                account_seq: loaded.account_seq,
            };
            (
                snapshot::write(&loaded.index, covered, SNAPSHOT_PART),
                covered,
            )
        }) else {
            return Ok(None);
        };
        drop(turn);
        let now = self.clock.now();
        let Some(id) = self
            .store
            .begin_board_snapshot(covered.match_seq, covered.account_seq, now, unless_since)
            .await?
        else {
            return Ok(None);
        };
        let mut parts = 0;
        let size: usize = bytes.iter().map(Vec::len).sum();
        // Each part is dropped once stored.
        for part in bytes {
            if past_deadline() {
                tracing::warn!(
                    snapshot = id,
                    "the boards' snapshot ran out of time: given up"
                );
                return Ok(None);
            }
            self.store
                .write_board_snapshot_part(id, parts, &part)
                .await?;
            parts += 1;
        }
        if past_deadline()
            || !self
                .store
                .finish_board_snapshot(id, parts, SNAPSHOTS_KEPT)
                .await?
        {
            return Ok(None);
        }
        *self.last_snapshot_slot() = Some(covered);
        tracing::info!(
            snapshot = id,
            bytes = size,
            match_seq = covered.match_seq,
            account_seq = covered.account_seq,
            "boards' snapshot written"
        );
        Ok(Some(id))
    }

    /// The snapshot of a graceful stop: catches up with both logs, then writes a snapshot
    /// unless the last one this node read or wrote covers the same positions, all within
    /// `within` (a snapshot cut short is left incomplete, and never read). Answers the id of
    /// the snapshot written; what kept it from being written is logged.
    pub async fn snapshot_at_stop(&self, within: Duration) -> Option<i64> {
        let deadline = Instant::now() + within;
        let written = tokio::time::timeout(within, async {
            let turn = self.catching_up.lock().await;
            self.catch_up().await?;
            drop(turn);
            let current = self.read().as_ref().map(|loaded| Covered {
                match_seq: loaded.match_seq,
                account_seq: loaded.account_seq,
            });
            if current == *self.last_snapshot_slot() {
                return Ok(None);
            }
            self.write_snapshot(self.clock.now(), Some(deadline)).await
        })
        .await;
        match written {
            Ok(Ok(id)) => id,
            Ok(Err(BoardsError::Loading { .. })) => {
                tracing::info!("the boards were still loading: no snapshot at the stop");
                None
            }
            Ok(Err(error)) => {
                tracing::warn!(?error, "no snapshot of the boards at the stop");
                None
            }
            Err(_) => {
                tracing::warn!(?within, "the boards' snapshot at the stop was given up");
                None
            }
        }
    }

    /// Offers to write a snapshot when the logs moved since the last one this node read or
    /// wrote, unless another node began one within [`SNAPSHOT_EVERY`].
    async fn offer_snapshot(&self) -> Result<(), BoardsError> {
        let current = self.read().as_ref().map(|loaded| Covered {
            match_seq: loaded.match_seq,
            account_seq: loaded.account_seq,
        });
        if current.is_none() || current == *self.last_snapshot_slot() {
            return Ok(());
        }
        let every = time::Duration::try_from(SNAPSHOT_EVERY).unwrap_or(time::Duration::HOUR);
        self.write_snapshot(self.clock.now() - every, None).await?;
        Ok(())
    }

    fn last_snapshot_slot(&self) -> std::sync::MutexGuard<'_, Option<Covered>> {
        self.last_snapshot
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Loads every board from the store's whole match log. Players are read as their first
    /// results come, by id, so that accounts without results are never read.
    async fn load_log(&self) -> Result<(), StoreError> {
        let started = Instant::now();
        let account_seq = self.store.account_log_head().await?;
        let mut index = BoardIndex::loading(self.clock.now());
        let store = Arc::clone(&self.store);
        let (mut pages, reader) = read_in_pages(
            0,
            move |after| {
                let store = Arc::clone(&store);
                Box::pin(async move { store.match_log(after, LOAD_PAGE).await })
            },
            |entry: &MatchLogEntry| entry.seq,
        );
        let mut match_seq = 0;
        let mut results = 0;
        let mut players_waited = Duration::ZERO;
        while let Some(page) = pages.recv().await {
            if let Some(last) = page.last() {
                match_seq = last.seq;
            }
            results += page.len() as u64;
            let asked = Instant::now();
            let newcomers = page
                .iter()
                .map(|entry| entry.account)
                .filter(|account| !index.knows(*account));
            for player in &self.players_of(newcomers).await? {
                index.add_player(player);
            }
            players_waited += asked.elapsed();
            // Results of accounts deleted meanwhile find no player and are left out.
            for entry in &page {
                index.add_result(entry);
            }
            self.loaded_results.store(results, Ordering::Relaxed);
        }
        finished(reader).await?;
        let results_read = started.elapsed();
        index.finish_loading();
        let players = index.players();
        *self.write() = Some(Loaded {
            index,
            match_seq,
            account_seq,
        });
        self.ready.send_replace(true);
        tracing::info!(
            results,
            players,
            millis = started.elapsed().as_millis() as u64,
            players_millis = players_waited.as_millis() as u64,
            results_millis = results_read.as_millis() as u64,
            boards_millis = (started.elapsed() - results_read).as_millis() as u64,
            "leaderboards ready"
        );
        Ok(())
    }

    /// Applies what both logs gained since the last call, then moves the windows to now. The
    /// caller holds `catching_up`.
    async fn catch_up(&self) -> Result<(), BoardsError> {
        let covering = self.changes_here.load(Ordering::Acquire);
        let Some((mut match_seq, mut account_seq)) = self
            .read()
            .as_ref()
            .map(|loaded| (loaded.match_seq, loaded.account_seq))
        else {
            return Err(self.loading());
        };
        // The account log first: a result read after it carries a name and ban state at least
        // as recent as the account log entries applied before it.
        loop {
            let page = self.store.account_log(account_seq, PAGE).await?;
            let Some(last) = page.last() else {
                break;
            };
            account_seq = last.seq;
            self.apply(|loaded| {
                for entry in &page {
                    loaded.index.apply_change(entry.account, &entry.change);
                }
                loaded.account_seq = account_seq;
            });
            for entry in &page {
                if let AccountChange::ResultsRemoved { through } = entry.change {
                    self.count_again(entry.account, through, match_seq).await?;
                }
            }
        }
        loop {
            let page = self.store.match_log(match_seq, PAGE).await?;
            let Some(last) = page.last() else {
                break;
            };
            match_seq = last.seq;
            let newcomers: Vec<AccountId> = self.read().as_ref().map_or_else(Vec::new, |loaded| {
                page.iter()
                    .map(|entry| entry.account)
                    .filter(|account| !loaded.index.knows(*account))
                    .collect()
            });
            let players = self.players_of(newcomers).await?;
            self.apply(|loaded| {
                for player in &players {
                    loaded.index.add_player(player);
                }
                // The results of an account deleted meanwhile find no player: its deletion
                // follows in the account log.
                for entry in &page {
                    loaded.index.add_result(entry);
                }
                loaded.match_seq = match_seq;
            });
        }
        let now = self.clock.now();
        self.read_back_due(now, match_seq).await?;
        self.apply(|loaded| loaded.index.expire(now));
        self.caught_up.fetch_max(covering, Ordering::AcqRel);
        Ok(())
    }

    /// Reads back from the match log (up to position `match_seq`, the last applied) the results
    /// of the hours the windows' edges reach by `now`, a few hours at a time, moving the edges
    /// after each few so that only the hours near them stay in memory. The caller holds
    /// `catching_up`, so no entry is applied meanwhile.
    async fn read_back_due(
        &self,
        now: time::OffsetDateTime,
        match_seq: i64,
    ) -> Result<(), BoardsError> {
        loop {
            let hours = self
                .read()
                .as_ref()
                .map_or_else(Vec::new, |loaded| loaded.index.hours_to_read(now));
            if hours.is_empty() {
                return Ok(());
            }
            for (hour, runs) in hours {
                let mut kept = Vec::new();
                for (first, last) in runs {
                    let last = last.min(match_seq);
                    let mut after = first - 1;
                    while after < last {
                        let page = self.store.match_log(after, LOAD_PAGE).await?;
                        let Some(end) = page.last().map(|entry| entry.seq) else {
                            break;
                        };
                        if let Some(loaded) = self.read().as_ref() {
                            let within = page.iter().filter(|entry| entry.seq <= last);
                            kept.extend(loaded.index.kept_of(hour, within));
                        }
                        after = end;
                    }
                }
                self.apply(|loaded| loaded.index.read_back(hour, kept));
            }
            self.apply(|loaded| loaded.index.expire(now));
        }
    }

    /// After an account's results up to match log position `through` were removed: counts
    /// again its results after `through` that this node had read (up to `match_seq`), which
    /// the removal took off the boards with the rest. Results after `match_seq` come with the
    /// match log, as any newcomer's.
    async fn count_again(
        &self,
        account: AccountId,
        through: i64,
        match_seq: i64,
    ) -> Result<(), BoardsError> {
        if through >= match_seq {
            return Ok(());
        }
        let results = self.store.results_of(account, through, match_seq).await?;
        if results.is_empty() {
            return Ok(());
        }
        let players = self.players_of([account]).await?;
        self.apply(|loaded| {
            for player in &players {
                loaded.index.add_player(player);
            }
            for entry in &results {
                loaded.index.add_result(entry);
            }
        });
        Ok(())
    }

    /// The players of `accounts` (each asked once), as the store has them: accounts deleted
    /// meanwhile are left out. No store call when there are none.
    async fn players_of(
        &self,
        accounts: impl IntoIterator<Item = AccountId>,
    ) -> Result<Vec<BoardPlayer>, StoreError> {
        let accounts: BTreeSet<AccountId> = accounts.into_iter().collect();
        if accounts.is_empty() {
            return Ok(Vec::new());
        }
        let accounts: Vec<AccountId> = accounts.into_iter().collect();
        self.store.board_players_of(&accounts).await
    }

    /// Changes the loaded index under the write lock, refilling short top lists after.
    fn apply(&self, change: impl FnOnce(&mut Loaded)) {
        if let Some(loaded) = self.write().as_mut() {
            change(loaded);
            loaded.index.refill();
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Option<Loaded>> {
        self.loaded
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Option<Loaded>> {
        self.loaded
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What a snapshot's bytes read as.
type SnapshotRead = Result<(BoardIndex, Covered), snapshot::Damaged>;

/// A store read of one page after a cursor.
type PageRead<T> = Pin<Box<dyn Future<Output = Result<Vec<T>, StoreError>> + Send>>;

/// Reads a whole list in pages in a task of its own, handing over each page as it comes, so
/// that the store reads the next page while the last one is applied: `read` reads the page
/// after a cursor, `cursor` tells an item's. The task ends with the list's end or the store's
/// error.
fn read_in_pages<T, C>(
    start: C,
    read: impl Fn(C) -> PageRead<T> + Send + 'static,
    cursor: fn(&T) -> C,
) -> (mpsc::Receiver<Vec<T>>, JoinHandle<Result<(), StoreError>>)
where
    T: Send + 'static,
    C: Send + 'static,
{
    let (pages, received) = mpsc::channel(2);
    let reader = tokio::spawn(async move {
        let mut after = start;
        loop {
            let page = read(after).await?;
            let Some(last) = page.last() else {
                return Ok(());
            };
            after = cursor(last);
            if pages.send(page).await.is_err() {
                return Ok(());
            }
        }
    });
    (received, reader)
}

/// Waits for a page reader's end, answering the store's error if it failed.
async fn finished(reader: JoinHandle<Result<(), StoreError>>) -> Result<(), StoreError> {
    reader
        .await
        .map_err(|error| StoreError::Internal(format!("a log reader failed: {error}")))?
}

/// Loads the boards, then follows the logs until the boards are dropped.
async fn follow(boards: Weak<Leaderboards>) {
    loop {
        let Some(strong) = boards.upgrade() else {
            return;
        };
        match strong.load().await {
            Ok(()) => break,
            Err(error) => tracing::warn!(%error, "cannot load the leaderboards; retrying"),
        }
        drop(strong);
        tokio::time::sleep(RETRY_AFTER_FAILURE).await;
    }
    // The first offer right after the load (a node that read the whole log saves the next
    // one the work), then one every SNAPSHOT_EVERY.
    let mut next_offer = Instant::now();
    loop {
        tokio::time::sleep(FOLLOW_EVERY).await;
        let Some(strong) = boards.upgrade() else {
            return;
        };
        if Instant::now() >= next_offer {
            next_offer = Instant::now() + SNAPSHOT_EVERY;
            let offered = Arc::clone(&strong);
            // In a task of its own: storing the parts takes a while, and following goes on.
            tokio::spawn(async move {
                if let Err(error) = offered.offer_snapshot().await {
                    tracing::warn!(?error, "cannot write the boards' snapshot");
                }
            });
        }
        let turn = strong.catching_up.lock().await;
        let caught_up = strong.catch_up().await;
        drop(turn);
        if let Err(BoardsError::Store(error)) = caught_up {
            tracing::warn!(%error, "cannot follow the match log; retrying");
            drop(strong);
            tokio::time::sleep(RETRY_AFTER_FAILURE).await;
        }
    }
}
