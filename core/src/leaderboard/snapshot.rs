//! A snapshot of the boards: the whole index as compact little-endian bytes, with the match log
//! and account log positions it covers, so that a node starts from it and reads only the logs'
//! tail instead of the whole match log.
//!
//! The bytes are the index's own columns, one after the other: a header (`SZBOARDS`, format,
//! positions), the windows' edges, the modes' names, the players, each mode's packed totals,
//! each board's histogram and top list, the results of the hours read back for the windows'
//! edges, those hours, the log positions of each hour's results within the year, and an end
//! mark. Reading checks every length and every reference between the parts, so damaged bytes
//! are refused, never half loaded. The modes are those the index held (every mode with a
//! result, whether the content still names it): a snapshot stays whole across a content
//! publication that adds or removes modes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::expiry::{Expiry, ExpiryParts, Kept};
use super::histogram::ScoreHistogram;
use super::index::MODE_SLOTS;
use super::index::{Board, BoardIndex};
use super::kinds::BOARDS_PER_MODE;
use super::packed::{ModeTotals, Narrow, Table};
use super::players::{NO_ROW, PackedCode, Players};
use super::top::{Place, TopList};
use super::totals::Totals;
use crate::domain::{GameMode, MODE_NAME_MAX_CHARS, NAME_MAX_CHARS};

/// The first bytes of a snapshot.
const MAGIC: &[u8; 8] = b"SZBOARDS";

/// The last bytes of a snapshot.
const END: &[u8; 8] = b"SZBOARD.";

/// The format written: 4 names the modes the index holds (they come from the content), where 3
/// held the four classic modes in a fixed order; 3 keeps only the lists of hours read back,
/// which a node of format 2 would take for the month's results. A snapshot of a format not in
/// [`FORMATS_READ`] is not read (the node rebuilds).
const FORMAT: u32 = 4;

/// The modes of a snapshot of format 2 or 3, in their order.
const FIXED_MODES: [&str; 4] = ["solo", "duo", "squad", "limited"];

/// The formats read: format 2's lists of the month's results are dropped, to be read back from
/// the match log like any hour's.
const FORMATS_READ: std::ops::RangeInclusive<u32> = 2..=FORMAT;

/// The log positions a snapshot covers: it counts every entry up to them, none after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Covered {
    /// The last match log position counted.
    pub match_seq: i64,
    /// The last account log position applied.
    pub account_seq: i64,
}

/// Why bytes are no snapshot this node can load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged(String);

impl fmt::Display for Damaged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the boards' snapshot cannot be read: {}", self.0)
    }
}

impl std::error::Error for Damaged {}

/// The index as snapshot bytes, covering the logs up to `covered`, cut into parts of
/// `part_size` bytes (the last one shorter), so that no part is ever copied to grow.
pub fn write(index: &BoardIndex, covered: Covered, part_size: usize) -> Vec<Vec<u8>> {
    let mut out = Out {
        parts: Vec::new(),
        part_size: part_size.max(1),
    };
    out.bytes(MAGIC);
    out.u32(FORMAT);
    out.i64(covered.match_seq);
    out.i64(covered.account_seq);
    for edge in index.expiry.edges() {
        out.i64(edge);
    }
    out.len(index.tables.names.len());
    for name in &index.tables.names {
        out.len(name.as_str().len());
        out.bytes(name.as_str().as_bytes());
    }
    let players = &index.tables.players;
    out.len(players.len());
    for account in &players.accounts {
        out.i64(*account);
    }
    for code in &players.codes {
        out.bytes(&code.name);
        out.u16(code.digits);
    }
    out.bytes(players.flags());
    for row in players.rows() {
        out.u32(*row);
    }
    for mode in &index.tables.modes {
        for table in &mode.narrow {
            write_owners(&mut out, table);
            for cell in &table.cells {
                let (rounds, wins, top10, kills, time_alive) = cell.to_parts();
                for counter in [rounds, wins, top10, kills] {
                    out.u16(counter);
                }
                out.u32(time_alive);
            }
        }
        write_owners(&mut out, &mode.wide);
        for totals in &mode.wide.cells {
            for counter in [totals.rounds, totals.wins, totals.top10, totals.kills] {
                out.u32(counter);
            }
            out.u64(totals.time_alive);
        }
    }
    for board in &index.tables.boards {
        let entries: Vec<(u64, u32)> = board.histogram.entries().collect();
        out.len(entries.len());
        for (score, count) in entries {
            out.u64(score);
            out.u32(count);
        }
        let places: Vec<&Place> = board.top.places().collect();
        out.len(places.len());
        for place in places {
            write_place(&mut out, place);
        }
        match board.top.boundary() {
            Some(boundary) => {
                out.bytes(&[1]);
                write_place(&mut out, &boundary);
            }
            None => out.bytes(&[0]),
        }
    }
    let hours = index.expiry.hours();
    out.len(hours.len());
    for (hour, kept) in hours {
        out.i64(*hour);
        out.len(kept.len());
        for kept in kept {
            out.u32(kept.slot);
            out.u32(kept.time_alive);
            out.u16(kept.at);
            out.bytes(&[kept.placement, kept.kills]);
        }
    }
    // Every list kept is whole: each is an hour read back.
    out.len(hours.len());
    for hour in hours.keys() {
        out.i64(*hour);
    }
    let positions = index.expiry.positions();
    out.len(positions.len());
    for (hour, runs) in positions {
        out.i64(*hour);
        out.len(runs.len());
        for (first, last) in runs {
            out.i64(*first);
            out.i64(*last);
        }
    }
    out.bytes(END);
    out.parts
}

/// The index the bytes hold and the positions it covers; the boards' versions start again.
pub fn read(bytes: &[u8]) -> Result<(BoardIndex, Covered), Damaged> {
    let mut whole = Some(bytes.to_vec());
    read_parts(bytes.len(), &mut || whole.take())
}

/// The index the parts handed by `next` hold, read as they come (so that the whole snapshot is
/// never held at once), and the positions it covers: `next` answers `None` after the last part;
/// `size_bound` is at least the parts' total size (no damaged count allocates beyond it).
pub fn read_parts(
    size_bound: usize,
    next: &mut dyn FnMut() -> Option<Vec<u8>>,
) -> Result<(BoardIndex, Covered), Damaged> {
    let mut input = In {
        chunk: Vec::new(),
        at: 0,
        next,
        left: size_bound,
    };
    if input.array::<8>()? != *MAGIC {
        return Err(damaged("no snapshot header"));
    }
    let format = input.u32()?;
    if !FORMATS_READ.contains(&format) {
        return Err(Damaged(format!(
            "format {format}, this node reads formats {} to {}",
            FORMATS_READ.start(),
            FORMATS_READ.end()
        )));
    }
    let covered = Covered {
        match_seq: input.i64()?,
        account_seq: input.i64()?,
    };
    let mut edges = [0; 4];
    for edge in &mut edges {
        *edge = input.i64()?;
    }
    let names = if format >= 4 {
        read_names(&mut input)?
    } else {
        FIXED_MODES
            .map(|name| GameMode::parse(name).expect("a valid name"))
            .to_vec()
    };
    let mode_count = names.len();
    let count = input.len(8 + NAME_MAX_CHARS + 2 + 1 + 4 * mode_count)?;
    let accounts = read_exactly(count, || input.i64())?;
    let mut codes = Vec::with_capacity(count);
    for _ in 0..count {
        let name = input.array::<NAME_MAX_CHARS>()?;
        let code = PackedCode {
            name,
            digits: input.u16()?,
        };
        if code.unpack().is_none() {
            return Err(damaged("a friend code"));
        }
        codes.push(code);
    }
    let mut flags = vec![0; count];
    input.fill(&mut flags)?;
    let rows = read_exactly(count * mode_count, || input.u32())?;
    let mut modes: Vec<ModeTotals> = (0..mode_count).map(|_| ModeTotals::default()).collect();
    for (mode_index, mode) in modes.iter_mut().enumerate() {
        for (table_index, table) in mode.narrow.iter_mut().enumerate() {
            let width = table_index + 1;
            table.owners = read_owners(&mut input, count, width * 12)?;
            table.cells = read_exactly(table.owners.len() * width, || {
                let counters = (input.u16()?, input.u16()?, input.u16()?, input.u16()?);
                let (rounds, wins, top10, kills) = counters;
                Ok(Narrow::from_parts((
                    rounds,
                    wins,
                    top10,
                    kills,
                    input.u32()?,
                )))
            })?;
            check_owners(
                &table.owners,
                (&rows, mode_count),
                mode_index,
                table_index as u32,
            )?;
        }
        mode.wide.owners = read_owners(&mut input, count, 5 * 24)?;
        mode.wide.cells = read_exactly(mode.wide.owners.len() * 5, || {
            Ok(Totals {
                rounds: input.u32()?,
                wins: input.u32()?,
                top10: input.u32()?,
                kills: input.u32()?,
                time_alive: input.u64()?,
            })
        })?;
        check_owners(&mode.wide.owners, (&rows, mode_count), mode_index, 5)?;
    }
    let rows_held: usize = modes.iter().map(ModeTotals::rows).sum();
    let rows_named = rows.iter().filter(|row| **row != NO_ROW).count();
    if rows_held != rows_named {
        return Err(damaged("the players' rows"));
    }
    let mut boards = Vec::with_capacity(mode_count * BOARDS_PER_MODE);
    for _ in 0..mode_count * BOARDS_PER_MODE {
        let distinct = input.len(12)?;
        let entries = read_exactly(distinct, || Ok((input.u64()?, input.u32()?)))?;
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            return Err(damaged("a histogram"));
        }
        let listed = input.len(20)?;
        let places = read_exactly(listed, || read_place(&mut input, count))?;
        let boundary = match input.u8()? {
            0 => None,
            1 => Some(read_place(&mut input, count)?),
            _ => return Err(damaged("a top list")),
        };
        boards.push(Board::new(
            ScoreHistogram::from_entries(entries),
            TopList::from_parts(places, boundary),
        ));
    }
    let mut hours = BTreeMap::new();
    for _ in 0..input.len(16)? {
        let hour = input.i64()?;
        let results = input.len(12)?;
        let kept = read_exactly(results, || {
            let kept = Kept {
                slot: input.u32()?,
                time_alive: input.u32()?,
                at: input.u16()?,
                placement: input.u8()?,
                kills: input.u8()?,
            };
            if kept.slot as usize >= count || kept.at & 0x0fff >= 3_600 {
                return Err(damaged("a result pending expiry"));
            }
            Ok(kept)
        })?;
        hours.insert(hour, kept);
    }
    let mut read_back = BTreeSet::new();
    for _ in 0..input.len(8)? {
        read_back.insert(input.i64()?);
    }
    let mut positions = BTreeMap::new();
    for _ in 0..input.len(16)? {
        let hour = input.i64()?;
        let runs = input.len(16)?;
        let runs = read_exactly(runs, || Ok((input.i64()?, input.i64()?)))?;
        if runs.iter().any(|(first, last)| first > last) {
            return Err(damaged("the log positions of an hour"));
        }
        positions.insert(hour, runs);
    }
    if input.array::<8>()? != *END || !input.at_end() {
        return Err(damaged("no end mark where the snapshot ends"));
    }
    let players = Players::from_columns(accounts, codes, flags, rows, mode_count);
    let expiry = Expiry::from_parts(ExpiryParts {
        edges,
        hours,
        read_back,
        positions,
    });
    Ok((
        BoardIndex::from_parts(players, names, modes, boards, expiry),
        covered,
    ))
}

/// `count` values read one after the other into a vector allocated once at its final size
/// (growing one by doubling would leave its earlier buffers to the allocator, resident).
fn read_exactly<T>(
    count: usize,
    mut read: impl FnMut() -> Result<T, Damaged>,
) -> Result<Vec<T>, Damaged> {
    let mut values = Vec::with_capacity(count);
    for _ in 0..count {
        values.push(read()?);
    }
    Ok(values)
}

fn damaged(what: &str) -> Damaged {
    Damaged(format!("{what} is damaged or cut short"))
}

fn write_owners<T>(out: &mut Out, table: &Table<T>) {
    out.len(table.owners.len());
    for owner in &table.owners {
        out.u32(*owner);
    }
}

fn read_owners(input: &mut In<'_>, players: usize, row_bytes: usize) -> Result<Vec<u32>, Damaged> {
    let rows = input.len(4 + row_bytes)?;
    read_exactly(rows, || {
        let owner = input.u32()?;
        if owner as usize >= players {
            return Err(damaged("a row's owner"));
        }
        Ok(owner)
    })
}

/// The modes' names: a count, then each name's length and bytes.
fn read_names(input: &mut In<'_>) -> Result<Vec<GameMode>, Damaged> {
    let count = input.len(2)?;
    if count > MODE_SLOTS {
        return Err(damaged("the modes' names"));
    }
    let mut names: Vec<GameMode> = Vec::with_capacity(count);
    for _ in 0..count {
        let length = input.len(1)?;
        if length > MODE_NAME_MAX_CHARS {
            return Err(damaged("a mode's name"));
        }
        let mut bytes = vec![0; length];
        input.fill(&mut bytes)?;
        let name = std::str::from_utf8(&bytes)
            .ok()
            .and_then(GameMode::parse)
            .filter(|name| !names.contains(name))
            .ok_or_else(|| damaged("a mode's name"))?;
        names.push(name);
    }
    Ok(names)
}

/// Checks that each owner's row in `mode` is the row that names it (`rows` holds `modes`
/// entries per player).
fn check_owners(
    owners: &[u32],
    (rows, modes): (&[u32], usize),
    mode: usize,
    table: u32,
) -> Result<(), Damaged> {
    for (index, owner) in owners.iter().enumerate() {
        if rows[*owner as usize * modes + mode] != ModeTotals::row_ref(table, index).to_bits() {
            return Err(damaged("a player's row"));
        }
    }
    Ok(())
}

fn write_place(out: &mut Out, (score, account, slot): &Place) {
    out.u64(score.0);
    out.i64(*account);
    out.u32(*slot);
}

fn read_place(input: &mut In<'_>, players: usize) -> Result<Place, Damaged> {
    let place = (Reverse(input.u64()?), input.i64()?, input.u32()?);
    if place.2 as usize >= players {
        return Err(damaged("a top list"));
    }
    Ok(place)
}

/// The bytes being written, in parts.
struct Out {
    parts: Vec<Vec<u8>>,
    part_size: usize,
}

impl Out {
    fn bytes(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self
                .parts
                .last()
                .is_none_or(|part| part.len() == self.part_size)
            {
                self.parts.push(Vec::with_capacity(self.part_size));
            }
            let part = self.parts.last_mut().expect("a part");
            let room = (self.part_size - part.len()).min(bytes.len());
            part.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
        }
    }

    fn u16(&mut self, value: u16) {
        self.bytes(&value.to_le_bytes());
    }

    fn u32(&mut self, value: u32) {
        self.bytes(&value.to_le_bytes());
    }

    fn u64(&mut self, value: u64) {
        self.bytes(&value.to_le_bytes());
    }

    fn i64(&mut self, value: i64) {
        self.bytes(&value.to_le_bytes());
    }

    fn len(&mut self, len: usize) {
        self.u64(len as u64);
    }
}

/// The bytes being read: the part at hand, and where the next ones come from.
struct In<'a> {
    chunk: Vec<u8>,
    at: usize,
    next: &'a mut dyn FnMut() -> Option<Vec<u8>>,
    /// At least the bytes still to read.
    left: usize,
}

impl In<'_> {
    /// Fills `out` with the next bytes, across parts.
    fn fill(&mut self, out: &mut [u8]) -> Result<(), Damaged> {
        let mut filled = 0;
        while filled < out.len() {
            if self.at == self.chunk.len() {
                self.chunk = (self.next)().ok_or_else(|| damaged("the snapshot"))?;
                self.at = 0;
                continue;
            }
            let count = (out.len() - filled).min(self.chunk.len() - self.at);
            out[filled..filled + count].copy_from_slice(&self.chunk[self.at..self.at + count]);
            filled += count;
            self.at += count;
        }
        self.left = self.left.saturating_sub(out.len());
        Ok(())
    }

    /// Whether every byte was read.
    fn at_end(&mut self) -> bool {
        while self.at == self.chunk.len() {
            match (self.next)() {
                Some(chunk) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                None => return true,
            }
        }
        false
    }

    /// The next `N` bytes: straight from the part at hand when it holds them (nearly always),
    /// else through [`In::fill`] across parts.
    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Damaged> {
        if let Some(bytes) = self.chunk.get(self.at..self.at + N) {
            let array: [u8; N] = bytes.try_into().expect("N bytes");
            self.at += N;
            self.left = self.left.saturating_sub(N);
            return Ok(array);
        }
        let mut array = [0; N];
        self.fill(&mut array)?;
        Ok(array)
    }

    fn u8(&mut self) -> Result<u8, Damaged> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, Damaged> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, Damaged> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, Damaged> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, Damaged> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A count of items of at least `item_bytes` each: refused when the bytes left cannot hold
    /// them (so a damaged count never allocates beyond the snapshot's size).
    fn len(&mut self, item_bytes: usize) -> Result<usize, Damaged> {
        let count = usize::try_from(self.u64()?).map_err(|_| damaged("a count"))?;
        if count.saturating_mul(item_bytes) > self.left {
            return Err(damaged("a count"));
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::domain::{FriendCode, GameMode};
    use crate::store::{AccountId, BoardPlayer, MatchLogEntry};

    fn small_index() -> BoardIndex {
        let now = datetime!(2026-11-22 12:00 UTC);
        let mut index = BoardIndex::loading(now);
        for account in 1..=30 {
            index.add_player(&BoardPlayer {
                account: AccountId(account),
                friend_code: FriendCode::new("Snapshot", account as u16).expect("a code"),
                is_banned: account == 3,
            });
            for round in 0..account {
                index.add_result(&MatchLogEntry {
                    seq: account * 100 + round,
                    account: AccountId(account),
                    mode: GameMode::parse(
                        ["solo", "duo", "squad", "limited"][(round % 4) as usize],
                    )
                    .expect("a mode"),
                    ended: now - time::Duration::hours(round * 7),
                    placement: 1 + round % 12,
                    kills: round % 5,
                    time_alive_secs: 60 * round,
                });
            }
        }
        index.finish_loading();
        index
    }

    #[test]
    fn bytes_cut_short_or_of_another_format_are_refused() {
        let covered = Covered {
            match_seq: 9,
            account_seq: 2,
        };
        let parts = write(&small_index(), covered, 100);
        assert!(
            parts.len() > 10
                && parts[..parts.len() - 1]
                    .iter()
                    .all(|part| part.len() == 100)
        );
        let mut given = parts.clone().into_iter();
        assert_eq!(
            read_parts(usize::MAX, &mut || given.next()).map(|(_, covered)| covered),
            Ok(covered)
        );
        let bytes = parts.concat();
        assert_eq!(read(&bytes).map(|(_, covered)| covered), Ok(covered));
        for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read(&longer).is_err());
        let mut other_format = bytes.clone();
        other_format[8] = 1;
        assert_eq!(
            read(&other_format).err(),
            Some(Damaged("format 1, this node reads formats 2 to 4".into()))
        );
        // The modes' names: a count, then each name's length and letters.
        let names_at = 8 + 4 + 16 + 32;
        let names_len = 8 + 4 * 8 + "soloduosquadlimited".len();
        // Format 3 held the four classic modes in their order, unnamed.
        let mut format_3 = bytes.clone();
        format_3.drain(names_at..names_at + names_len);
        format_3[8] = 3;
        let (from_format_3, read_covered) = read(&format_3).expect("format 3 reads");
        assert_eq!(read_covered, covered);
        let (from_format_4, _) = read(&bytes).expect("format 4 reads");
        assert_eq!(from_format_3.tables.names, from_format_4.tables.names);
        other_format[8] = 2;
        assert!(read(&other_format).is_err(), "format 2 has no names");
        // A row owner naming a slot that is no player's.
        let mut wrong_slot = bytes;
        let players_end = names_at + names_len + 8 + 30 * (8 + 18 + 1 + 16);
        wrong_slot[players_end + 8..players_end + 12].copy_from_slice(&999u32.to_le_bytes());
        assert!(read(&wrong_slot).is_err());
    }
}
