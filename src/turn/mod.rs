//! The one turn dynamic program, generic over what a state's value is.

pub mod choice;
pub mod kernel;
pub mod lanes;
pub mod simd;

pub use kernel::{RollScorer, TurnBuffer};
pub use lanes::Lane;
