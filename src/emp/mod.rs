//! Near-optimal multi-player play from the target curves (Pawlewicz §4.1 to §4.3).
//!
//! - [`eval`]: EvalEMP (expected match points) and EvalDynS (Eq. 1) of a position, from
//!   every player's target curve read as the distribution of its final score;
//! - [`search`]: the players EMP(d) and DynS(d), which plan a turn by searching d turns
//!   deep and applying the evaluation at the leaves;
//! - [`move_errors`]: exact move errors of any strategy in typical two-player endgames
//!   (Pawlewicz §4.2), against the exact values of [`crate::duel`];
//! - [`report`]: the JSON report of a measurement, and the merge of runs over disjoint games.

pub mod eval;
pub mod move_errors;
pub mod report;
pub mod search;

pub use eval::{Evaluation, FinalScore, dynamic_score, expected_match_points};
pub use search::{PlayerName, Searcher};
