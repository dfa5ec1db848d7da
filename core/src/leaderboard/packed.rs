//! One mode's totals of every player who played it, packed: a player's row keeps only the
//! windows that hold results, in 12 bytes per window while its counters fit.
//!
//! The windows are nested (a result within 24 hours is within 7 days, and so on), so the windows
//! holding results are always the longest ones: a row of width `k` keeps the last `k` windows
//! of [`TimeWindow::ALL`] (all time first to go in, 24 hours last), and the shorter ones are
//! empty. Rows of each width live in a table of their own and move between tables as windows
//! fill and empty. A row whose counters outgrow 16 bits (65,535 rounds, wins, top 10s or kills in
//! one window) moves to the wide table, which keeps [`Totals`] as they are.
//!
//! [`TimeWindow::ALL`]: super::kinds::TimeWindow::ALL

use super::totals::Totals;

/// The windows of a mode, in [`TimeWindow::ALL`](super::kinds::TimeWindow::ALL) order.
const WINDOWS: usize = 5;

/// The wide table's number (the narrow tables are 0 to 4: widths 1 to 5).
const WIDE: u32 = 5;

/// Bits of a [`RowRef`] that number the row within its table.
const INDEX_BITS: u32 = 29;

/// The totals of one player in every window of one mode, in
/// [`TimeWindow::ALL`](super::kinds::TimeWindow::ALL) order.
pub type WindowTotals = [Totals; WINDOWS];

/// Where a row lives: its table in the top 3 bits, its index in the table below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef(u32);

impl RowRef {
    fn new(table: u32, index: usize) -> Self {
        let index = u32::try_from(index)
            .ok()
            .filter(|index| *index < 1 << INDEX_BITS)
            .expect("fewer than 2^29 rows per table");
        Self(table << INDEX_BITS | index)
    }

    fn table(self) -> u32 {
        self.0 >> INDEX_BITS
    }

    fn index(self) -> usize {
        (self.0 & ((1 << INDEX_BITS) - 1)) as usize
    }

    /// The reference as a number, for a snapshot.
    pub fn to_bits(self) -> u32 {
        self.0
    }

    /// A reference from [`RowRef::to_bits`].
    pub fn from_bits(bits: u32) -> Self {
        Self(bits)
    }
}

/// [`Totals`] in 12 bytes, while its counters fit in 16 bits and its seconds in 32.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Narrow {
    rounds: u16,
    wins: u16,
    top10: u16,
    kills: u16,
    time_alive: u32,
}

impl Narrow {
    /// The totals packed, or `None` when a counter does not fit.
    fn pack(totals: &Totals) -> Option<Self> {
        Some(Self {
            rounds: u16::try_from(totals.rounds).ok()?,
            wins: u16::try_from(totals.wins).ok()?,
            top10: u16::try_from(totals.top10).ok()?,
            kills: u16::try_from(totals.kills).ok()?,
            time_alive: u32::try_from(totals.time_alive).ok()?,
        })
    }

    fn unpack(self) -> Totals {
        Totals {
            rounds: u32::from(self.rounds),
            wins: u32::from(self.wins),
            top10: u32::from(self.top10),
            kills: u32::from(self.kills),
            time_alive: u64::from(self.time_alive),
        }
    }

    /// The five numbers, for a snapshot.
    pub fn to_parts(self) -> (u16, u16, u16, u16, u32) {
        (
            self.rounds,
            self.wins,
            self.top10,
            self.kills,
            self.time_alive,
        )
    }

    /// Totals from [`Narrow::to_parts`].
    pub fn from_parts((rounds, wins, top10, kills, time_alive): (u16, u16, u16, u16, u32)) -> Self {
        Self {
            rounds,
            wins,
            top10,
            kills,
            time_alive,
        }
    }
}

/// The rows of one width: `width` windows per row, flat, and each row's owner.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Table<T> {
    /// The rows' windows, `width` per row.
    pub cells: Vec<T>,
    /// The player slot owning each row.
    pub owners: Vec<u32>,
}

impl<T: Copy> Table<T> {
    /// The heap bytes the table holds (its capacities).
    fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<T>()
            + self.owners.capacity() * std::mem::size_of::<u32>()
    }

    fn push(&mut self, owner: u32, cells: &[T]) -> usize {
        self.owners.push(owner);
        self.cells.extend_from_slice(cells);
        self.owners.len() - 1
    }

    /// Takes row `index` out, moving the last row into its place: answers the moved row's
    /// owner, if one moved.
    fn swap_remove(&mut self, index: usize, width: usize) -> Option<u32> {
        let last = self.owners.len() - 1;
        self.owners.swap_remove(index);
        if index != last {
            self.cells
                .copy_within(last * width..(last + 1) * width, index * width);
        }
        self.cells.truncate(last * width);
        (index != last).then(|| self.owners[index])
    }

    fn shrink(&mut self) {
        self.cells.shrink_to_fit();
        self.owners.shrink_to_fit();
    }
}

/// One mode's rows.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ModeTotals {
    /// The narrow tables: rows of width 1 to 5.
    pub narrow: [Table<Narrow>; WINDOWS],
    /// Rows whose counters do not fit narrow ones.
    pub wide: Table<Totals>,
}

/// A row that moved when another left its table: its owner now lives at `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    /// The moved row's owner.
    pub owner: u32,
    /// Where its row is now.
    pub to: RowRef,
}

impl ModeTotals {
    /// How many rows the mode holds.
    pub fn rows(&self) -> usize {
        self.narrow
            .iter()
            .map(|table| table.owners.len())
            .sum::<usize>()
            + self.wide.owners.len()
    }

    /// The row's totals in every window.
    pub fn get(&self, row: RowRef) -> WindowTotals {
        let mut all = WindowTotals::default();
        match row.table() {
            WIDE => all.copy_from_slice(&self.wide.cells[row.index() * WINDOWS..][..WINDOWS]),
            table => {
                let width = table as usize + 1;
                let cells = &self.narrow[table as usize].cells[row.index() * width..][..width];
                for (window, cell) in all[WINDOWS - width..].iter_mut().zip(cells) {
                    *window = cell.unpack();
                }
            }
        }
        all
    }

    /// The row's totals in one window.
    pub fn window(&self, row: RowRef, window: usize) -> Totals {
        match row.table() {
            WIDE => self.wide.cells[row.index() * WINDOWS + window],
            table => {
                let width = table as usize + 1;
                let Some(offset) = window.checked_sub(WINDOWS - width) else {
                    return Totals::default();
                };
                self.narrow[table as usize].cells[row.index() * width + offset].unpack()
            }
        }
    }

    /// Stores `owner`'s totals, in its row `row` or in a new one: answers where the row is now
    /// and the row that moved to make room, if one did.
    pub fn set(
        &mut self,
        row: Option<RowRef>,
        owner: u32,
        totals: &WindowTotals,
    ) -> (RowRef, Option<Moved>) {
        let packed = packed(totals);
        let table = match &packed {
            Some((width, _)) => *width as u32 - 1,
            None => WIDE,
        };
        if let Some(row) = row
            && row.table() == table
        {
            match &packed {
                Some((width, cells)) => self.narrow[table as usize].cells[row.index() * width..]
                    [..*width]
                    .copy_from_slice(&cells[..*width]),
                None => self.wide.cells[row.index() * WINDOWS..][..WINDOWS].copy_from_slice(totals),
            }
            return (row, None);
        }
        let moved = row.and_then(|row| self.remove(row));
        let index = match &packed {
            Some((width, cells)) => self.narrow[table as usize].push(owner, &cells[..*width]),
            None => self.wide.push(owner, totals),
        };
        (RowRef::new(table, index), moved)
    }

    /// Takes a row out; answers the row moved into its place, if one was.
    fn remove(&mut self, row: RowRef) -> Option<Moved> {
        let owner = match row.table() {
            WIDE => self.wide.swap_remove(row.index(), WINDOWS),
            table => self.narrow[table as usize].swap_remove(row.index(), table as usize + 1),
        }?;
        Some(Moved { owner, to: row })
    }

    /// The owner and totals in `window` of every row with results in that window.
    pub fn in_window(&self, window: usize) -> impl Iterator<Item = (u32, Totals)> + '_ {
        let narrow = self
            .narrow
            .iter()
            .enumerate()
            .filter(move |(table, _)| table + 1 >= WINDOWS - window)
            .flat_map(move |(table, rows)| {
                let width = table + 1;
                let offset = window - (WINDOWS - width);
                rows.owners
                    .iter()
                    .zip(rows.cells.chunks_exact(width))
                    .map(move |(owner, cells)| (*owner, cells[offset].unpack()))
            });
        let wide = self
            .wide
            .owners
            .iter()
            .zip(self.wide.cells.chunks_exact(WINDOWS))
            .map(move |(owner, cells)| (*owner, cells[window]));
        narrow.chain(wide)
    }

    /// The rows' table and index for a snapshot; `RowRef` of `(table, index)`.
    pub fn row_ref(table: u32, index: usize) -> RowRef {
        RowRef::new(table, index)
    }

    /// The heap bytes the tables hold (their capacities), for the metrics.
    pub fn heap_bytes(&self) -> usize {
        let narrow: usize = self.narrow.iter().map(Table::heap_bytes).sum();
        narrow + self.wide.heap_bytes()
    }

    /// Gives back the room the tables grew into.
    pub fn shrink(&mut self) {
        for table in &mut self.narrow {
            table.shrink();
        }
        self.wide.shrink();
    }
}

/// The totals narrow, with the row's width (the windows from the first with results to all
/// time, at least 1); `None` when a counter does not fit.
fn packed(totals: &WindowTotals) -> Option<(usize, [Narrow; WINDOWS])> {
    let first = totals
        .iter()
        .position(|window| *window != Totals::default())
        .unwrap_or(WINDOWS - 1);
    let width = WINDOWS - first;
    let mut cells = [Narrow::default(); WINDOWS];
    for (cell, window) in cells.iter_mut().zip(&totals[first..]) {
        *cell = Narrow::pack(window)?;
    }
    Some((width, cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(rounds: u32) -> Totals {
        Totals {
            rounds,
            wins: rounds / 2,
            top10: rounds / 2 + 1,
            kills: rounds * 3,
            time_alive: u64::from(rounds) * 600,
        }
    }

    #[test]
    fn rows_keep_the_windows_with_results_and_move_between_tables() {
        let mut mode = ModeTotals::default();
        let all_time = [
            Totals::default(),
            Totals::default(),
            Totals::default(),
            Totals::default(),
            totals(4),
        ];
        let (first, moved) = mode.set(None, 7, &all_time);
        assert_eq!(moved, None);
        assert_eq!(mode.get(first), all_time);
        let (second, _) = mode.set(None, 8, &all_time);
        // The first row fills its 24 hours: it moves to the width-5 table, the second takes
        // its place.
        let every = [totals(1), totals(2), totals(3), totals(4), totals(5)];
        let (first, moved) = mode.set(Some(first), 7, &every);
        assert_eq!(
            moved,
            Some(Moved {
                owner: 8,
                to: RowRef::new(0, 0)
            })
        );
        assert_ne!(second, RowRef::new(0, 0));
        assert_eq!(mode.get(first), every);
        assert_eq!(mode.window(first, 2), totals(3));
        assert_eq!(mode.get(RowRef::new(0, 0)), all_time);
        assert_eq!(mode.window(RowRef::new(0, 0), 0), Totals::default());
        assert_eq!(mode.rows(), 2);
        let in_week: Vec<(u32, Totals)> = mode.in_window(1).collect();
        assert_eq!(in_week, vec![(7, totals(2))]);
    }

    #[test]
    fn counters_past_sixteen_bits_go_wide_and_come_back() {
        let mut mode = ModeTotals::default();
        let mut big = [Totals::default(); WINDOWS];
        big[4] = totals(70_000);
        let (row, _) = mode.set(None, 1, &big);
        assert_eq!(row.table(), WIDE);
        assert_eq!(mode.get(row), big);
        assert_eq!(
            mode.in_window(4).collect::<Vec<_>>(),
            vec![(1, totals(70_000))]
        );
        big[4] = totals(9);
        let (row, moved) = mode.set(Some(row), 1, &big);
        assert_eq!((row.table(), moved), (0, None));
        assert_eq!(mode.get(row), big);
        assert_eq!(mode.wide.owners.len(), 0);
    }
}
