//! Single-player Yahtzee: maximum expected score, its table on disk, the advisor, and the
//! exact analysis of any strategy.

pub mod advise;
pub mod analysis;
pub mod policy;
pub mod report;
pub mod solve;
pub mod table;

pub use advise::{Choice, Ranked, advise};
pub use analysis::{Analysis, ScoreDistribution, Start, WithinTurn, analyze, analyze_from, analyze_with_progress};
pub use policy::{OptimalPolicy, Policy, SolvedValues, TurnPlan};
pub use report::{SolveReport, StatsReport, ValueReport};
pub use solve::{SoloSolution, solve, solve_reporting};
pub use table::{FutureValue, SoloTable};
