//! Single-player Yahtzee: maximum expected score.

pub mod solve;

pub use solve::{SoloSolution, solve};
