//! How many players have each score on a board: enough to rank any player without an ordered
//! list of all of them.
//!
//! The distinct scores are kept in ascending order, cut into blocks of at most
//! `BLOCK_MAX` with each block's player count, so that counting the players above a score
//! reads one count per block and then one block. Memory grows with the distinct scores (12
//! bytes each), not with the players.

/// The most distinct scores a block holds before it splits in two.
const BLOCK_MAX: usize = 512;

/// The distinct scores a block gets when a histogram is built from a list.
const BLOCK_FILL: usize = 384;

/// Players per score, in ascending score order.
#[derive(Debug, Default)]
pub struct ScoreHistogram {
    blocks: Vec<Block>,
    players: u64,
}

#[derive(Debug, Default)]
struct Block {
    scores: Vec<u64>,
    counts: Vec<u32>,
    players: u64,
}

impl ScoreHistogram {
    /// A histogram of `scores`, which must be sorted in ascending order.
    pub fn from_sorted(scores: &[u64]) -> Self {
        let mut histogram = Self::default();
        let mut block = Block::default();
        for chunk in scores.chunk_by(|a, b| a == b) {
            if block.scores.len() == BLOCK_FILL {
                histogram.blocks.push(std::mem::take(&mut block));
            }
            let count = u32::try_from(chunk.len()).unwrap_or(u32::MAX);
            block.scores.push(chunk[0]);
            block.counts.push(count);
            block.players += u64::from(count);
        }
        if !block.scores.is_empty() {
            histogram.blocks.push(block);
        }
        for block in &mut histogram.blocks {
            block.scores.shrink_to_fit();
            block.counts.shrink_to_fit();
        }
        histogram.players = scores.len() as u64;
        histogram
    }

    /// The heap bytes the histogram holds (its capacities), for the metrics.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.blocks.capacity() * size_of::<Block>()
            + self
                .blocks
                .iter()
                .map(|block| {
                    block.scores.capacity() * size_of::<u64>()
                        + block.counts.capacity() * size_of::<u32>()
                })
                .sum::<usize>()
    }

    /// Every distinct score with its players, in ascending score order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.blocks.iter().flat_map(|block| {
            block
                .scores
                .iter()
                .copied()
                .zip(block.counts.iter().copied())
        })
    }

    /// A histogram of these distinct scores (ascending) and their players, as
    /// [`ScoreHistogram::entries`] told them.
    pub fn from_entries(entries: impl IntoIterator<Item = (u64, u32)>) -> Self {
        let mut histogram = Self::default();
        let mut block = Block::default();
        for (score, count) in entries {
            if block.scores.len() == BLOCK_FILL {
                histogram.blocks.push(std::mem::take(&mut block));
            }
            block.scores.push(score);
            block.counts.push(count);
            block.players += u64::from(count);
            histogram.players += u64::from(count);
        }
        if !block.scores.is_empty() {
            histogram.blocks.push(block);
        }
        histogram
    }

    /// How many players the board holds.
    pub fn players(&self) -> u64 {
        self.players
    }

    /// Counts one more player with `score`.
    pub fn add(&mut self, score: u64) {
        if self.blocks.is_empty() {
            self.blocks.push(Block::default());
        }
        let index = self.block_for(score).min(self.blocks.len() - 1);
        let block = &mut self.blocks[index];
        match block.scores.binary_search(&score) {
            Ok(found) => block.counts[found] += 1,
            Err(at) => {
                block.scores.insert(at, score);
                block.counts.insert(at, 1);
            }
        }
        block.players += 1;
        self.players += 1;
        if block.scores.len() > BLOCK_MAX {
            let half = block.scores.len() / 2;
            let scores = block.scores.split_off(half);
            let counts = block.counts.split_off(half);
            let moved: u64 = counts.iter().map(|count| u64::from(*count)).sum();
            block.players -= moved;
            self.blocks.insert(
                index + 1,
                Block {
                    scores,
                    counts,
                    players: moved,
                },
            );
        }
    }

    /// Counts one player with `score` less. A score nobody has is left alone.
    pub fn remove(&mut self, score: u64) {
        let index = self.block_for(score);
        let Some(block) = self.blocks.get_mut(index) else {
            return;
        };
        let Ok(found) = block.scores.binary_search(&score) else {
            return;
        };
        block.counts[found] -= 1;
        block.players -= 1;
        self.players -= 1;
        if block.counts[found] == 0 {
            block.scores.remove(found);
            block.counts.remove(found);
            if block.scores.is_empty() {
                self.blocks.remove(index);
            }
        }
    }

    /// How many players have a score strictly greater than `score`.
    pub fn players_above(&self, score: u64) -> u64 {
        let index = self.block_for(score);
        let Some(block) = self.blocks.get(index) else {
            return 0;
        };
        let within = block
            .scores
            .partition_point(|candidate| *candidate <= score);
        let in_block: u64 = block.counts[within..]
            .iter()
            .map(|count| u64::from(*count))
            .sum();
        let beyond: u64 = self.blocks[index + 1..]
            .iter()
            .map(|block| block.players)
            .sum();
        in_block + beyond
    }

    /// The first block whose largest score is at least `score` (`blocks.len()` when none).
    fn block_for(&self, score: u64) -> usize {
        self.blocks
            .partition_point(|block| block.scores.last().is_some_and(|last| *last < score))
    }

    /// The distinct scores held, for memory accounting.
    pub fn distinct_scores(&self) -> usize {
        self.blocks.iter().map(|block| block.scores.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Players above `score`, counted the slow way.
    fn counted_above(scores: &[u64], score: u64) -> u64 {
        scores
            .iter()
            .filter(|candidate| **candidate > score)
            .count() as u64
    }

    #[test]
    fn counts_players_above_a_score() {
        let mut scores = vec![5, 1, 5, 9, 0, 5, 3];
        scores.sort_unstable();
        let histogram = ScoreHistogram::from_sorted(&scores);
        assert_eq!(histogram.players(), 7);
        for score in 0..=10 {
            assert_eq!(
                histogram.players_above(score),
                counted_above(&scores, score)
            );
        }
    }

    #[test]
    fn stays_exact_through_many_adds_and_removes_across_blocks() {
        // A fixed pseudo-random walk (SplitMix-like) over a few thousand distinct scores.
        let mut state: u64 = 7;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut mixed = state;
            mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            mixed ^ (mixed >> 27)
        };
        let mut histogram = ScoreHistogram::default();
        let mut held: Vec<u64> = Vec::new();
        for step in 0..20_000 {
            if step % 3 == 2 && !held.is_empty() {
                let at = (next() % held.len() as u64) as usize;
                histogram.remove(held.swap_remove(at));
            } else {
                let score = next() % 4_000;
                histogram.add(score);
                held.push(score);
            }
        }
        assert!(histogram.blocks.len() > 4, "the walk spans several blocks");
        assert_eq!(histogram.players(), held.len() as u64);
        for score in (0..4_100).step_by(37) {
            assert_eq!(histogram.players_above(score), counted_above(&held, score));
        }
        for score in held.clone() {
            histogram.remove(score);
        }
        assert_eq!(histogram.players(), 0);
        assert_eq!(histogram.distinct_scores(), 0);
    }

    #[test]
    fn removing_an_absent_score_changes_nothing() {
        let mut histogram = ScoreHistogram::from_sorted(&[2, 4]);
        histogram.remove(3);
        histogram.remove(9);
        assert_eq!(histogram.players(), 2);
        assert_eq!(histogram.players_above(0), 2);
    }
}
