//! Score-distribution tables: per state, the maximum probability of reaching every score.

pub mod advise;
pub mod payoff;
pub mod report;
pub mod room;
pub mod solve;
pub mod table;

pub use solve::{Curve, TargetCurves, solve, solve_with_progress};
pub use table::TargetTable;
