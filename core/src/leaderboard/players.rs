//! The players the boards know, in one table shared by every board: a player is a slot (its
//! position in the table), with its account id, friend code, state and its row in each mode,
//! stored column by column (47 bytes a player).
//!
//! An account is found by binary search in the slots sorted by account id, or, for the players
//! added since that list was last sorted, in a small map; the list is sorted again once the map
//! grows past a sixteenth of it.

use std::collections::HashMap;

use crate::domain::{FriendCode, NAME_MAX_CHARS};
use crate::store::AccountId;

/// Marks a mode a player has never played.
pub const NO_ROW: u32 = u32::MAX;

/// The fewest players added since the last sort that sort the list again.
const RESORT_MIN: usize = 1_024;

const HIDDEN: u8 = 1;
const DELETED: u8 = 2;

/// A friend code in 18 bytes: the name's ASCII bytes padded with zeros, and the digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedCode {
    /// The name's bytes, zero after its end.
    pub name: [u8; NAME_MAX_CHARS],
    /// The four digits as a number.
    pub digits: u16,
}

impl PackedCode {
    /// The code packed (names are at most [`NAME_MAX_CHARS`] ASCII letters and digits).
    pub fn of(code: &FriendCode) -> Self {
        let mut name = [0; NAME_MAX_CHARS];
        let bytes = code.name().as_bytes();
        name[..bytes.len()].copy_from_slice(bytes);
        Self {
            name,
            digits: code.digits(),
        }
    }

    /// The friend code again; `None` when the bytes are no friend code (a damaged snapshot).
    pub fn unpack(&self) -> Option<FriendCode> {
        let end = self
            .name
            .iter()
            .position(|b| *b == 0)
            .unwrap_or(NAME_MAX_CHARS);
        let name = std::str::from_utf8(&self.name[..end]).ok()?;
        FriendCode::new(name, self.digits).ok()
    }
}

/// Every player the boards know, deleted ones included (their slots stay taken).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Players {
    /// Each slot's account id.
    pub accounts: Vec<i64>,
    /// Each slot's friend code.
    pub codes: Vec<PackedCode>,
    /// Each slot's state: hidden (banned or deleted) and deleted.
    flags: Vec<u8>,
    /// Each slot's row in each mode's totals, or [`NO_ROW`]: `modes` entries per slot, in the
    /// order of the index's modes.
    rows: Vec<u32>,
    /// How many modes each slot has a row entry for.
    modes: usize,
    /// Slots sorted by account id (deleted ones may linger until the next sort).
    sorted: Vec<u32>,
    /// The live players added since the last sort.
    recent: HashMap<i64, u32>,
}

impl Players {
    /// How many slots are taken.
    pub fn len(&self) -> usize {
        self.accounts.len()
    }

    /// Whether no slot is taken.
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty()
    }

    /// The live (not deleted) slot of an account.
    pub fn slot_of(&self, account: AccountId) -> Option<u32> {
        if let Some(slot) = self.recent.get(&account.0) {
            return Some(*slot);
        }
        let at = self
            .sorted
            .partition_point(|slot| self.accounts[*slot as usize] < account.0);
        self.sorted[at..]
            .iter()
            .take_while(|slot| self.accounts[**slot as usize] == account.0)
            .find(|slot| !self.is_deleted(**slot))
            .copied()
    }

    /// Adds a player in a new slot, answering it.
    pub fn push(&mut self, account: AccountId, code: &FriendCode, hidden: bool) -> u32 {
        let slot = u32::try_from(self.accounts.len()).expect("fewer than 2^32 players");
        self.accounts.push(account.0);
        self.codes.push(PackedCode::of(code));
        self.flags.push(if hidden { HIDDEN } else { 0 });
        self.rows.extend(std::iter::repeat_n(NO_ROW, self.modes));
        let in_order = self.recent.is_empty()
            && self
                .sorted
                .last()
                .is_none_or(|last| self.accounts[*last as usize] < account.0);
        if in_order {
            self.sorted.push(slot);
        } else {
            self.recent.insert(account.0, slot);
            if self.recent.len() > RESORT_MIN.max(self.sorted.len() / 16) {
                self.sort();
            }
        }
        slot
    }

    /// Sorts every live slot by account id again, emptying the map of recent ones.
    pub fn sort(&mut self) {
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.extend(self.recent.drain().map(|(_, slot)| slot));
        sorted.retain(|slot| !self.is_deleted(*slot));
        sorted.sort_unstable_by_key(|slot| self.accounts[*slot as usize]);
        sorted.shrink_to_fit();
        self.sorted = sorted;
    }

    /// The slot's account.
    pub fn account(&self, slot: u32) -> AccountId {
        AccountId(self.accounts[slot as usize])
    }

    /// The slot's friend code.
    pub fn friend_code(&self, slot: u32) -> FriendCode {
        self.codes[slot as usize]
            .unpack()
            .expect("a packed friend code unpacks")
    }

    /// Whether the slot's friend code is `code`.
    pub fn has_code(&self, slot: u32, code: &FriendCode) -> bool {
        self.codes[slot as usize] == PackedCode::of(code)
    }

    /// Gives the slot a new friend code.
    pub fn set_code(&mut self, slot: u32, code: &FriendCode) {
        self.codes[slot as usize] = PackedCode::of(code);
    }

    /// Whether the slot is kept off every board (banned or deleted).
    pub fn is_hidden(&self, slot: u32) -> bool {
        self.flags[slot as usize] & HIDDEN != 0
    }

    /// Puts the slot on or off the boards.
    pub fn set_hidden(&mut self, slot: u32, hidden: bool) {
        let flags = &mut self.flags[slot as usize];
        *flags = if hidden {
            *flags | HIDDEN
        } else {
            *flags & !HIDDEN
        };
    }

    /// Whether the slot's player was deleted (or its results removed): the slot is retired.
    pub fn is_deleted(&self, slot: u32) -> bool {
        self.flags[slot as usize] & DELETED != 0
    }

    /// Retires the slot: hidden, and its account no longer found.
    pub fn retire(&mut self, slot: u32) {
        self.flags[slot as usize] |= HIDDEN | DELETED;
        let account = self.accounts[slot as usize];
        if self.recent.get(&account) == Some(&slot) {
            self.recent.remove(&account);
        }
    }

    /// The slot's row in the mode at `mode` among the index's modes, or [`NO_ROW`].
    pub fn row(&self, slot: u32, mode: usize) -> u32 {
        self.rows[slot as usize * self.modes + mode]
    }

    /// Sets the slot's row in the mode at `mode`.
    pub fn set_row(&mut self, slot: u32, mode: usize, row: u32) {
        self.rows[slot as usize * self.modes + mode] = row;
    }

    /// Every slot's rows, slot after slot, for a snapshot.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Gives every slot a row entry for one more mode, holding none; answers the new mode's
    /// position. One pass over the players: a content publication adding a mode, not a request.
    pub fn add_mode(&mut self) -> usize {
        let modes = self.modes;
        let mut rows = Vec::with_capacity(self.accounts.len() * (modes + 1));
        for slot in 0..self.accounts.len() {
            rows.extend_from_slice(&self.rows[slot * modes..(slot + 1) * modes]);
            rows.push(NO_ROW);
        }
        self.rows = rows;
        self.modes = modes + 1;
        modes
    }

    /// The slots' state bytes, for a snapshot.
    pub fn flags(&self) -> &[u8] {
        &self.flags
    }

    /// A table from a snapshot's columns (all of one length); sorted for look-ups.
    pub fn from_columns(
        accounts: Vec<i64>,
        codes: Vec<PackedCode>,
        flags: Vec<u8>,
        rows: Vec<u32>,
        modes: usize,
    ) -> Self {
        let mut players = Self {
            sorted: (0..u32::try_from(accounts.len()).expect("fewer than 2^32 players")).collect(),
            accounts,
            codes,
            flags,
            rows,
            modes,
            recent: HashMap::new(),
        };
        players.sort();
        players
    }

    /// The heap bytes the columns hold (their capacities), for the metrics.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.accounts.capacity() * size_of::<i64>()
            + self.codes.capacity() * size_of::<PackedCode>()
            + self.flags.capacity()
            + self.rows.capacity() * size_of::<u32>()
            + self.sorted.capacity() * size_of::<u32>()
            // A hash map entry and its control byte.
            + self.recent.capacity() * (size_of::<(i64, u32)>() + 1)
    }

    /// Gives back the room the columns grew into.
    pub fn shrink(&mut self) {
        self.accounts.shrink_to_fit();
        self.codes.shrink_to_fit();
        self.flags.shrink_to_fit();
        self.rows.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> FriendCode {
        FriendCode::parse(text).expect("a friend code")
    }

    #[test]
    fn accounts_are_found_in_and_out_of_order_and_retired_ones_are_not() {
        let mut players = Players::default();
        for account in [5, 9, 12] {
            players.push(AccountId(account), &code("Abc#0001"), false);
        }
        // Out of order: kept aside until sorted.
        let late = players.push(AccountId(7), &code("LongestNameHere1#9999"), true);
        assert_eq!(players.slot_of(AccountId(7)), Some(late));
        assert_eq!(players.slot_of(AccountId(9)), Some(1));
        assert_eq!(players.slot_of(AccountId(8)), None);
        assert!(players.is_hidden(late));
        assert_eq!(players.friend_code(late), code("LongestNameHere1#9999"));
        players.retire(1);
        assert_eq!(players.slot_of(AccountId(9)), None);
        let again = players.push(AccountId(9), &code("Abc#0002"), false);
        assert_eq!(players.slot_of(AccountId(9)), Some(again));
        players.sort();
        for (account, slot) in [
            (5, Some(0)),
            (7, Some(late)),
            (9, Some(again)),
            (12, Some(2)),
        ] {
            assert_eq!(players.slot_of(AccountId(account)), slot);
        }
        assert_eq!(players.sorted.len(), 4);
    }
}
