//! The memory and disk a target table's solve takes, known before it starts, so that a
//! solve that cannot fit is refused up front instead of failing after minutes of work.
//!
//! Both grow with the game's score states and the length of their curves. The figures per
//! state are those of the full official game (310,656 states, 1.44 GB at peak, a file of
//! 275 MB, measured with `/usr/bin/time -v yz targets solve`), with a margin of 25% on top;
//! a rule set whose totals stay lower (Yatzy's) has shorter curves and is overestimated.

use crate::game::{Game, StateIndex};

/// Score states of the full official game, where the figures below were measured.
const STATES_MEASURED: u64 = 310_656;
/// Peak resident memory of `yz targets solve` on it, bytes.
const PEAK_MEASURED: u64 = 1_403_120 << 10;
/// Its table file's size, bytes.
const FILE_MEASURED: u64 = 274_562_712;
/// What the estimates add to the measured figures, in percent.
const MARGIN: u64 = 25;

/// What solving and writing the target table of a game takes at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildNeeds {
    /// Memory, bytes.
    pub memory: u64,
    /// Disk where the table is written, bytes.
    pub disk: u64,
}

/// Room a solve needs and does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShortOfRoom {
    /// Less memory than the solve needs.
    #[error(
        "building the target table takes about {} MB of memory, but only {} MB are available to this process \
         (its memory limit, or the machine's free memory); free some, or build it with `yz targets solve` \
         on a machine with more",
        mb(*.needed),
        mb(*.available)
    )]
    Memory {
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// Less free disk than the table takes.
    #[error(
        "the target table takes about {} MB of disk, but only {} MB are free in the data directory; free some \
         space there",
        mb(*.needed),
        mb(*.free)
    )]
    Disk {
        /// Bytes needed.
        needed: u64,
        /// Bytes free.
        free: u64,
    },
}

fn mb(bytes: u64) -> u64 {
    bytes.div_ceil(1_000_000)
}

impl BuildNeeds {
    /// The needs of `game`'s target table: the measured figures per state, times its
    /// states, with the margin.
    pub fn of(game: Game) -> BuildNeeds {
        let states = StateIndex::new(game).len() as u64;
        let scaled = |measured: u64| (measured as u128 * states as u128 * (100 + MARGIN) as u128 / 100) as u64;
        let per_state = |measured: u64| scaled(measured) / STATES_MEASURED;
        BuildNeeds { memory: per_state(PEAK_MEASURED), disk: per_state(FILE_MEASURED) }
    }

    /// Whether the solve fits `memory` bytes (`None`: unknown, taken to fit) and `disk` free
    /// bytes; the memory is checked first.
    pub fn check(&self, memory: Option<u64>, disk: u64) -> Result<(), ShortOfRoom> {
        if let Some(available) = memory.filter(|&m| m < self.memory) {
            return Err(ShortOfRoom::Memory { needed: self.memory, available });
        }
        if disk < self.disk {
            return Err(ShortOfRoom::Disk { needed: self.disk, free: disk });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    /// The full official game needs its measured figures with the margin; a game of
    /// fewer boxes less; a machine short of either is refused with both figures.
    #[test]
    fn a_solve_short_of_memory_or_disk_is_refused_with_the_figures() {
        let official = BuildNeeds::of(Game::full(Rules::OFFICIAL));
        assert_eq!(official.memory, PEAK_MEASURED * (100 + MARGIN) / 100);
        assert_eq!(official.disk, FILE_MEASURED * (100 + MARGIN) / 100);
        let small = BuildNeeds::of(Game::first(Rules::OFFICIAL, 5).unwrap());
        assert!(small.memory < official.memory / 100 && small.disk < official.disk / 100, "{small:?}");
        official.check(Some(official.memory), official.disk).unwrap();
        official.check(None, official.disk).unwrap();
        let short = official.check(Some(official.memory - 1), u64::MAX).unwrap_err();
        assert_eq!(short, ShortOfRoom::Memory { needed: official.memory, available: official.memory - 1 });
        let full = official.check(None, 1 << 20).unwrap_err();
        assert_eq!(full, ShortOfRoom::Disk { needed: official.disk, free: 1 << 20 });
        let message = full.to_string();
        assert!(message.contains("MB of disk") && message.contains("only 2 MB are free"), "{message}");
    }
}
