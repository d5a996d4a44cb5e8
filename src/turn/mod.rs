//! The one turn dynamic program, generic over what a state's value is.
//!
//! - [`kernel`]: the turn itself over lane vectors (score, two rerolls, the start value).
//! - [`tiled`]: the same turn over many lanes in tiles that each fit the L1 data cache, its
//!   keep graph generated as straight-line code (`keep_graph`).
//! - [`plan`]: how a state's turn can end and the best-box scoring every solver shares.
//! - [`sweep`]: the backward layer loop around the turn.
//! - [`lanes`], [`simd`], [`register`]: the lane-wise loops, the instruction set they run
//!   with, and the vector registers the keep graph is written in.
//! - [`choice`]: one decision (a keep or a box) ranked for the advisors.

pub mod choice;
mod keep_graph;
pub mod kernel;
pub mod lanes;
pub mod plan;
pub mod register;
pub mod simd;
pub mod sweep;
pub mod tiled;

pub use kernel::{RollScorer, TurnBuffer};
pub use lanes::Lane;
pub use plan::{ScoringPlan, Shift};
