//! Live leaderboards: for each game mode of the content, 5 rolling windows × 7 categories
//! (the content chooses which of them it serves), held in memory
//! by every node and kept current from the store's append-only logs.
//!
//! - [`kinds`]: the board coordinates (window, category).
//! - [`totals`]: a player's counters in one mode and window, and the scores derived from them.
//! - [`histogram`]: players per score, which ranks anyone.
//! - [`top`]: the ordered first players of a board.
//! - [`expiry`]: the results still due to leave a window.
//! - [`index`]: all of it together for one node.
//! - [`live`]: loading at start, following the logs, answering requests.

pub mod expiry;
pub mod histogram;
pub mod index;
pub mod kinds;
pub mod live;
pub mod packed;
pub mod players;
pub mod snapshot;
pub mod top;
pub mod totals;

pub use index::{BoardIndex, Standing};
pub use kinds::{BoardId, Category, TimeWindow};
pub use live::{BoardAnswer, BoardsError, Leaderboards, TopRows};
pub use packed::WindowTotals;
pub use top::TOP_ROWS;
pub use totals::{RATIO_MIN_ROUNDS, Totals};

#[cfg(test)]
mod index_tests;
