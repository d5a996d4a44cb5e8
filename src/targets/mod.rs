//! Score-distribution tables: per state, the maximum probability of reaching every score.

pub mod solve;

pub use solve::{Curve, TargetCurves, solve};
