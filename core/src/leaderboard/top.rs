//! The best players of a board, in order: the only ordered list a board keeps.
//!
//! The list always holds a prefix of the board's order (score descending, then account id
//! ascending): every player whose place is at or before its `boundary`, or every player of the
//! board when it is `complete`. It keeps between [`TOP_ROWS`] and [`TOP_KEPT`] players; when
//! removals leave it shorter than [`TOP_ROWS`], the index refills it from the players' totals.

use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The rows a leaderboard answer lists.
pub const TOP_ROWS: usize = 100;

/// The most players a top list keeps: the slack above [`TOP_ROWS`] spares refills.
pub const TOP_KEPT: usize = 2 * TOP_ROWS;

/// A player's place in a board's order: higher scores first, then older accounts.
pub type Place = (Reverse<u64>, i64, u32);

/// The place of the player in slot `slot`, of account `account`, with `score`.
pub fn place(score: u64, account: i64, slot: u32) -> Place {
    (Reverse(score), account, slot)
}

/// The first players of a board, in order.
#[derive(Debug, Default)]
pub struct TopList {
    places: BTreeSet<Place>,
    /// The last place the list is sure to cover; `None` when the list holds the whole board.
    boundary: Option<Place>,
}

/// What an update did to a top list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touched {
    /// The list changed (a player entered, left or moved within it).
    pub changed: bool,
    /// The list is shorter than [`TOP_ROWS`] while the board has more players: refill it.
    pub needs_refill: bool,
}

impl TopList {
    /// A list of the board's first `places` (sorted or not); `whole_board` when they are every
    /// player of the board.
    pub fn from_places(mut places: Vec<Place>, whole_board: bool) -> Self {
        places.sort_unstable();
        let boundary = if whole_board {
            None
        } else {
            places.last().copied()
        };
        Self {
            places: places.into_iter().collect(),
            boundary,
        }
    }

    /// A list of these places (sorted or not) covering the board up to `boundary` (`None`: the
    /// whole board), as [`TopList::places`] and [`TopList::boundary`] told them.
    pub fn from_parts(places: Vec<Place>, boundary: Option<Place>) -> Self {
        Self {
            places: places.into_iter().collect(),
            boundary,
        }
    }

    /// The last place the list is sure to cover; `None` when it holds the whole board.
    pub fn boundary(&self) -> Option<Place> {
        self.boundary
    }

    /// Whether `place` is within the part of the board the list covers.
    pub fn covers(&self, place: &Place) -> bool {
        self.boundary.is_none_or(|boundary| *place <= boundary)
    }

    /// Whether the player at `place` is in the list.
    pub fn holds(&self, place: &Place) -> bool {
        self.places.contains(place)
    }

    /// Moves a player from `before` to `after` (`None`: not on the board).
    pub fn update(&mut self, before: Option<Place>, after: Option<Place>) -> Touched {
        let mut changed = false;
        if let Some(before) = before {
            changed |= self.places.remove(&before);
        }
        if let Some(after) = after
            && self.covers(&after)
        {
            changed |= self.places.insert(after);
        }
        if self.places.len() > TOP_KEPT {
            self.places.pop_last();
            self.boundary = self.places.last().copied();
        }
        Touched {
            changed,
            needs_refill: self.boundary.is_some() && self.places.len() < TOP_ROWS,
        }
    }

    /// The list's places, best first.
    pub fn places(&self) -> impl Iterator<Item = &Place> {
        self.places.iter()
    }

    /// About the heap bytes the list holds: its places, and a third more for the tree's
    /// nodes, for the metrics.
    pub fn heap_bytes(&self) -> usize {
        self.places.len() * std::mem::size_of::<Place>() * 4 / 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_board_takes_everyone_until_it_overflows() {
        let mut top = TopList::from_places(vec![place(3, 1, 0)], true);
        for account in 2..=(TOP_KEPT as i64 + 1) {
            top.update(None, Some(place(1, account, 0)));
        }
        assert_eq!(top.places().count(), TOP_KEPT);
        assert_eq!(top.places().next(), Some(&place(3, 1, 0)));
        // The last player fell off: a later player with the same score stays out.
        let last = *top.places().last().expect("a last place");
        assert_eq!(last, place(1, TOP_KEPT as i64, 0));
        let touched = top.update(None, Some(place(1, 10_000, 0)));
        assert!(!touched.changed);
        // A better one comes in.
        assert!(top.update(None, Some(place(2, 10_001, 0))).changed);
    }

    #[test]
    fn a_member_moving_past_the_boundary_leaves_and_asks_for_a_refill() {
        let places: Vec<Place> = (0..TOP_ROWS as i64)
            .map(|account| place(1_000 - account as u64, account, 0))
            .collect();
        let mut top = TopList::from_places(places, false);
        let touched = top.update(Some(place(1_000, 0, 0)), Some(place(1, 0, 0)));
        assert!(touched.changed);
        assert!(touched.needs_refill);
        assert!(!top.holds(&place(1, 0, 0)));
        // Moving up inside the covered part keeps the player in.
        let touched = top.update(Some(place(950, 50, 0)), Some(place(2_000, 50, 0)));
        assert!(touched.changed);
        assert_eq!(top.places().next(), Some(&place(2_000, 50, 0)));
    }
}
