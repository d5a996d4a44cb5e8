//! Exact move errors (Pawlewicz §4.2): how much winning chance a strategy gives away, move
//! by move, in typical two-player endgames.
//!
//! **Typical games.** Both players are "typical players": EMP(1) with noise. At each
//! decision (the keep after the first roll, after the second, the box after the last) the
//! typical player values every choice by its EMP(1) search and plays choice i with weight
//! exp(100 · (v_i − max_j v_j)): the best is the likeliest, near-equal choices are about
//! equally likely, weak ones are almost never played. Keeping all five dice ends the
//! rolling (the next decision is the box), as at a real table. Games start from empty cards.
//!
//! **Depth.** D is the number of open boxes on both cards together at the start of a turn.
//! It falls by one each turn, so every game meets each D once, at a position typical play
//! led to: game g's turn at D is a sample of depth D. Samples of one depth are independent
//! across games; the depths of one game are not, which is what the per-game total needs.
//!
//! **Exact values.** At a turn of a measured depth, the positions after the turn are solved
//! exactly below the two cards ([`crate::duel::Space::below`]: milliseconds up to D = 8, about 2 s at
//! D = 10 on one core). Each decision's choices are then valued by the turn kernel
//! ([`crate::turn::choice::rank`]); the error of a strategy's choice is v(best) − v(choice) in winning
//! chance (P(win) + ½ P(draw)). Every tested strategy is asked at every decision the typical
//! game meets, including those its own earlier choices would not have led to.
//!
//! [`report`] writes a measurement's JSON report and merges runs over disjoint games.
//!
//! - [`measure`]: the typical games played and each tested strategy's errors measured;
//! - [`stats`]: the errors summed and estimated per move, turn and game, and merged;
//! - [`report`]: a measurement's report (JSON and text), and the merge of runs over
//!   disjoint games.

pub mod measure;
pub mod report;
pub mod stats;

use std::num::ParseIntError;

use crate::duel::SpaceError;
use crate::duel::shard::ShardError;
use crate::store::TableError;
use crate::strategy::StrategyError;

pub use measure::{
    Depths, MAX_MOVE_ERROR_GAMES, MoveErrors, TYPICAL_SHARPNESS, Tested, TestedName, TestedNames, exact_endings,
    game_range,
};
pub use stats::{
    DepthErrors, ErrorSums, Estimate, GameErrors, MergeError, MoveErrorReport, StrategyErrors, TurnErrors,
};

/// Why a measurement failed.
#[derive(Debug, thiserror::Error)]
pub enum MoveErrorsError {
    /// The depths asked for are not those of the game.
    #[error("--empty {first}..{last} is not a range of open boxes of this game: expected 1 ≤ first ≤ last ≤ {most}")]
    Depths {
        /// First depth asked.
        first: usize,
        /// Last depth asked.
        last: usize,
        /// Open boxes on both cards at the start.
        most: usize,
    },
    /// The depths asked for are not `D` or `A..B` in whole numbers.
    #[error("--empty {}: expected D or A..B with whole numbers", crate::quote::quote(text))]
    DepthsText {
        /// The text given.
        text: String,
        /// Why a number did not parse.
        #[source]
        source: ParseIntError,
    },
    /// No strategy to test.
    #[error("--strategy needs at least one name (e.g. emp1,E)")]
    NoStrategy,
    /// A name that is no strategy.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    /// The games asked for are none, too many, or numbered past the last one.
    #[error(
        "--games {games} from --first-game {first}: expected 1 to {MAX_MOVE_ERROR_GAMES} games numbered below 2^64"
    )]
    Games {
        /// The first game's number.
        first: u64,
        /// How many.
        games: u64,
    },
    /// The target table of the typical player (or of a tested searcher) is unreadable.
    #[error(transparent)]
    Targets(#[from] TableError),
    /// An exact value could not be read.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A position broke the turn order (a bug: typical games alternate turns).
    #[error(transparent)]
    Space(#[from] SpaceError),
}
