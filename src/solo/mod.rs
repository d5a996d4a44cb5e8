//! Single-player Yahtzee: maximum expected score, its table on disk, and the advisor.

pub mod advise;
pub mod solve;
pub mod table;

pub use advise::{Choice, Ranked, advise};
pub use solve::{SoloSolution, solve};
pub use table::{FutureValue, SoloTable, TableError, open_or_solve};
