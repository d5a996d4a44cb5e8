//! Move errors summed per depth and per game, the estimates (means with 95% intervals) per
//! move, turn and game, and the merge of measurements over disjoint games.

use crate::simulate::Z_95;
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;

/// The errors of one strategy in one turn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TurnErrors {
    /// Decisions met.
    pub moves: u32,
    /// Sum of their errors.
    pub error: f64,
}

/// The errors of one game: by tested strategy, then by depth (from the first measured).
pub type GameErrors = Vec<Vec<TurnErrors>>;

/// A mean with the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95% normal confidence interval.
    pub half_width_95: f64,
}

/// Sums over games of one sample per game (the errors of one turn, or of a game's measured
/// turns, with the moves they span), from which the estimates follow. Sums of disjoint
/// sets of games add up, so runs on several machines merge ([`MoveErrorReport::merge`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorSums {
    /// Games summed.
    pub games: u64,
    /// Σ moves.
    pub moves: u64,
    /// Σ moves².
    pub moves_squared: u64,
    /// Σ error.
    pub error: f64,
    /// Σ error².
    pub error_squared: f64,
    /// Σ error · moves.
    pub error_times_moves: f64,
}

impl ErrorSums {
    /// Adds one game's sample.
    fn add(&mut self, error: f64, moves: u64) {
        self.games += 1;
        self.moves += moves;
        self.moves_squared += moves * moves;
        self.error += error;
        self.error_squared += error * error;
        self.error_times_moves += error * moves as f64;
    }

    /// The sums of two disjoint sets of games together.
    fn merge(self, other: ErrorSums) -> ErrorSums {
        ErrorSums {
            games: self.games + other.games,
            moves: self.moves + other.moves,
            moves_squared: self.moves_squared + other.moves_squared,
            error: self.error + other.error,
            error_squared: self.error_squared + other.error_squared,
            error_times_moves: self.error_times_moves + other.error_times_moves,
        }
    }

    /// The mean error of a sample (a turn, a game) with its interval.
    pub fn per_sample(&self) -> Estimate {
        let n = self.games as f64;
        let mean = self.error / n;
        let variance = (self.error_squared - self.error * mean).max(0.0) / (n - 1.0).max(1.0);
        Estimate { mean, half_width_95: Z_95 * (variance / n).sqrt() }
    }

    /// The mean error of a move, Σ error / Σ moves, with the delta-method interval of a ratio.
    pub fn per_move(&self) -> Estimate {
        if self.moves == 0 {
            return Estimate { mean: 0.0, half_width_95: 0.0 };
        }
        let (n, moves) = (self.games as f64, self.moves as f64);
        let ratio = self.error / moves;
        // Σ (error − ratio · moves)², expanded.
        let residual =
            self.error_squared - 2.0 * ratio * self.error_times_moves + ratio * ratio * self.moves_squared as f64;
        let variance = residual.max(0.0) / (n - 1.0).max(1.0);
        Estimate { mean: ratio, half_width_95: Z_95 * (variance / n).sqrt() / (moves / n) }
    }
}

/// One strategy's errors at one depth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthErrors {
    /// Open boxes on both cards together.
    pub empty: usize,
    /// Average error of a decision.
    pub per_move: Estimate,
    /// Average error summed over the turn.
    pub per_turn: Estimate,
    /// What both follow from.
    pub sums: ErrorSums,
}

impl DepthErrors {
    fn new(empty: usize, sums: ErrorSums) -> DepthErrors {
        DepthErrors { empty, per_move: sums.per_move(), per_turn: sums.per_sample(), sums }
    }
}

/// One strategy's errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyErrors {
    /// By depth, as measured.
    pub depths: Vec<DepthErrors>,
    /// Average error summed over a game's measured turns (both players').
    pub per_game: Estimate,
    /// What it follows from.
    pub game_sums: ErrorSums,
}

impl StrategyErrors {
    fn new(depths: Vec<DepthErrors>, game_sums: ErrorSums) -> StrategyErrors {
        StrategyErrors { depths, per_game: game_sums.per_sample(), game_sums }
    }
}

/// Why reports cannot be merged.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no reports to merge")]
    Empty,
    /// The reports measured different things.
    #[error("the reports differ in {0}: only runs of the same measurement (seed, depths, strategies) merge")]
    Differ(&'static str),
    /// A report that measures no strategy, a strategy at no depth, or its strategies at
    /// different depths: no run writes one.
    #[error("a report {0}; a run measures every strategy it names at the same depths, at least one")]
    Unmeasured(&'static str),
    /// A game range that ends before it starts.
    #[error("a report lists games {start}..{end}, a range that ends before it starts")]
    BackwardRange {
        /// Its first game.
        start: u64,
        /// One past its last game.
        end: u64,
    },
    /// Two reports share games.
    #[error("games {first}..{end} are in two reports: give each run its own --first-game range")]
    Overlap {
        /// First game counted twice.
        first: u64,
        /// One past the last.
        end: u64,
    },
}

/// The errors of every tested strategy over a number of games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveErrorReport {
    /// Seed of the games.
    pub seed: u64,
    /// The games played, as ranges of game numbers.
    pub game_ranges: Vec<std::ops::Range<u64>>,
    /// By tested strategy.
    pub strategies: Vec<StrategyErrors>,
}

impl MoveErrorReport {
    /// Sums up `per_game` (the errors of games `first_game..`, in order) for `strategies`
    /// strategies.
    pub(super) fn new(
        seed: u64,
        first_game: u64,
        depths: RangeInclusive<usize>,
        strategies: usize,
        per_game: &[GameErrors],
    ) -> MoveErrorReport {
        let strategies = (0..strategies)
            .map(|s| {
                let mut by_depth = vec![ErrorSums::default(); depths.clone().count()];
                let mut by_game = ErrorSums::default();
                for game in per_game {
                    for (sums, turn) in by_depth.iter_mut().zip(&game[s]) {
                        sums.add(turn.error, u64::from(turn.moves));
                    }
                    let (error, moves) =
                        game[s].iter().fold((0.0, 0), |(e, m), t| (e + t.error, m + u64::from(t.moves)));
                    by_game.add(error, moves);
                }
                let depths = depths.clone().zip(by_depth).map(|(empty, sums)| DepthErrors::new(empty, sums)).collect();
                StrategyErrors::new(depths, by_game)
            })
            .collect();
        let games = first_game..first_game + per_game.len() as u64;
        MoveErrorReport { seed, game_ranges: vec![games], strategies }
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.game_ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// The reports of runs over disjoint games of the same measurement as one report.
    pub fn merge(reports: &[MoveErrorReport]) -> Result<MoveErrorReport, MergeError> {
        let first = reports.first().ok_or(MergeError::Empty)?;
        let depths_of = |r: &MoveErrorReport| -> Vec<Vec<usize>> {
            r.strategies.iter().map(|s| s.depths.iter().map(|d| d.empty).collect()).collect()
        };
        for report in reports {
            let depths = depths_of(report);
            if depths.is_empty() {
                return Err(MergeError::Unmeasured("lists no strategies"));
            } else if depths[0].is_empty() {
                return Err(MergeError::Unmeasured("lists a strategy measured at no depth"));
            } else if depths.iter().any(|d| *d != depths[0]) {
                return Err(MergeError::Unmeasured("lists strategies measured at different depths"));
            }
            if let Some(r) = report.game_ranges.iter().find(|r| r.start > r.end) {
                return Err(MergeError::BackwardRange { start: r.start, end: r.end });
            }
        }
        for other in &reports[1..] {
            if other.seed != first.seed {
                return Err(MergeError::Differ("seed"));
            }
            if depths_of(other) != depths_of(first) {
                return Err(MergeError::Differ("strategies or depths"));
            }
        }
        let mut ranges: Vec<std::ops::Range<u64>> = reports.iter().flat_map(|r| r.game_ranges.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        for pair in ranges.windows(2) {
            if pair[1].start < pair[0].end {
                return Err(MergeError::Overlap { first: pair[1].start, end: pair[0].end.min(pair[1].end) });
            }
        }
        let strategies = (0..first.strategies.len())
            .map(|s| {
                let depths = (0..first.strategies[s].depths.len())
                    .map(|i| {
                        let sums = reports
                            .iter()
                            .map(|r| r.strategies[s].depths[i].sums)
                            .fold(ErrorSums::default(), ErrorSums::merge);
                        DepthErrors::new(first.strategies[s].depths[i].empty, sums)
                    })
                    .collect();
                let game_sums =
                    reports.iter().map(|r| r.strategies[s].game_sums).fold(ErrorSums::default(), ErrorSums::merge);
                StrategyErrors::new(depths, game_sums)
            })
            .collect();
        Ok(MoveErrorReport { seed: first.seed, game_ranges: ranges, strategies })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_from_sums_are_the_textbook_ones() {
        let mut sums = ErrorSums::default();
        for (error, moves) in [(0.3, 3), (0.1, 2), (0.0, 3)] {
            sums.add(error, moves);
        }
        let per_move = sums.per_move();
        assert!((per_move.mean - 0.05).abs() < 1e-15);
        // Residuals 0.15, 0.0, −0.15: variance 0.0225, over n = 3 and mean moves 8/3.
        let expected = Z_95 * (0.0225f64 / 3.0).sqrt() / (8.0 / 3.0);
        assert!((per_move.half_width_95 - expected).abs() < 1e-12);
        // Errors 0.3, 0.1, 0.0: mean 4/30, sample variance 7/300.
        let per_sample = sums.per_sample();
        assert!((per_sample.mean - 4.0 / 30.0).abs() < 1e-15);
        assert!((per_sample.half_width_95 - Z_95 * (7.0f64 / 300.0 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn reports_of_disjoint_games_merge_into_the_whole() {
        let turn = |error, moves| TurnErrors { moves, error };
        let games: Vec<GameErrors> =
            (0..6).map(|g| vec![vec![turn(0.01 * g as f64, 3), turn(0.0, 2 + g % 2)]]).collect();
        let whole = MoveErrorReport::new(9, 0, 1..=2, 1, &games);
        let parts =
            [MoveErrorReport::new(9, 0, 1..=2, 1, &games[..4]), MoveErrorReport::new(9, 4, 1..=2, 1, &games[4..])];
        let merged = MoveErrorReport::merge(&parts).unwrap();
        assert_eq!(merged.games(), 6);
        assert_eq!(merged.game_ranges, vec![0..4, 4..6]);
        for (a, b) in merged.strategies[0].depths.iter().zip(&whole.strategies[0].depths) {
            assert_eq!(a.sums.moves, b.sums.moves);
            assert!((a.per_move.mean - b.per_move.mean).abs() < 1e-15);
            assert!((a.per_turn.half_width_95 - b.per_turn.half_width_95).abs() < 1e-15);
        }
        assert!((merged.strategies[0].per_game.mean - whole.strategies[0].per_game.mean).abs() < 1e-15);
        let overlapping = [parts[0].clone(), parts[0].clone()];
        assert_eq!(MoveErrorReport::merge(&overlapping), Err(MergeError::Overlap { first: 0, end: 4 }));
        let other_seed = MoveErrorReport { seed: 8, ..parts[1].clone() };
        assert_eq!(MoveErrorReport::merge(&[parts[0].clone(), other_seed]), Err(MergeError::Differ("seed")));
    }

    #[test]
    fn reports_no_run_writes_are_refused() {
        let games: Vec<GameErrors> = vec![vec![vec![TurnErrors { moves: 2, error: 0.1 }; 2]; 2]];
        let report = MoveErrorReport::new(9, 0, 1..=2, 2, &games);
        let merge = |edit: &dyn Fn(&mut MoveErrorReport)| {
            let mut forged = report.clone();
            edit(&mut forged);
            MoveErrorReport::merge(&[forged])
        };
        assert!(merge(&|_| {}).is_ok());
        assert_eq!(merge(&|r| r.strategies.clear()), Err(MergeError::Unmeasured("lists no strategies")));
        let no_depth = merge(&|r| r.strategies.iter_mut().for_each(|s| s.depths.clear()));
        assert_eq!(no_depth, Err(MergeError::Unmeasured("lists a strategy measured at no depth")));
        let fewer = merge(&|r| r.strategies[1].depths.truncate(1));
        assert_eq!(fewer, Err(MergeError::Unmeasured("lists strategies measured at different depths")));
        let backward = merge(&|r| r.game_ranges[0] = std::ops::Range { start: 5, end: 2 });
        assert_eq!(backward, Err(MergeError::BackwardRange { start: 5, end: 2 }));
    }
}
