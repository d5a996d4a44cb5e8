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
//! exactly below the two cards ([`Space::below`]: milliseconds up to D = 8, about 2 s at
//! D = 10 on one core). Each decision's choices are then valued by the turn kernel
//! ([`choice::rank`]); the error of a strategy's choice is v(best) − v(choice) in winning
//! chance (P(win) + ½ P(draw)). Every tested strategy is asked at every decision the typical
//! game meets, including those its own earlier choices would not have led to.

use std::convert::Infallible;
use std::ops::RangeInclusive;
use std::sync::Arc;

use indicatif::ProgressBar;
use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

use super::search::Searcher;
use crate::duel::advise::{Solved, TurnEndings};
use crate::duel::shard::ShardError;
use crate::duel::{Cards, Space, SpaceError, solve};
use crate::game::{KeepId, RollId, Transition};
use crate::simulate::matchplay::{MatchPlayer, Position};
use crate::simulate::{Z_95, game_rng, roll_missing};
use crate::solo::TurnPlan;
use crate::solo::policy::plan_by;
use crate::targets::TargetTableError;
use crate::turn::choice::{self, Choice, Valued};

/// How sharply the typical player prefers better moves: Pawlewicz's 100 in
/// exp(100 · (v_i − max_j v_j)).
pub const TYPICAL_SHARPNESS: f64 = 100.0;

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
    /// The target table of the typical player (or of a tested searcher) is unreadable.
    #[error(transparent)]
    Targets(#[from] TargetTableError),
    /// An exact value could not be read.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A position broke the turn order (a bug: typical games alternate turns).
    #[error(transparent)]
    Space(#[from] SpaceError),
}

/// A strategy whose moves are scored.
pub enum Tested<'p> {
    /// The exact two-player strategy, playing by the very values that score the moves: its
    /// error is zero up to the planner's tie tolerance ([`crate::solo::policy::TIE`]), a
    /// check of the measurement itself.
    Exact,
    /// Any match player: a searcher, `E`, a strategy of the zoo.
    Player(&'p dyn MatchPlayer),
}

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

/// A turn being measured: its exact values, the tested strategies' plans, their errors.
struct MeasuredTurn<'c> {
    exact: TurnEndings<'c>,
    plans: Vec<Arc<TurnPlan>>,
    errors: Vec<TurnErrors>,
}

/// The mover's value after each way its turn in `position` can end, solved exactly below
/// the two cards: the values every error is measured with.
pub fn exact_endings<'c>(cards: &'c Cards, position: &Position) -> Result<TurnEndings<'c>, MoveErrorsError> {
    let (me, other) = (&position.seats[position.mover], &position.seats[1 - position.mover]);
    let card = |state| cards.index().id(state).expect("a reachable score state is a card");
    let (mover, opponent) = (card(me.state), card(other.state));
    let d = me.points as i32 - other.points as i32;
    let after = cards.filled(mover) + cards.filled(opponent) + 1;
    let space = Space::below(cards, mover, opponent)?;
    let next = (after < space.end_layer()).then(|| {
        let Ok(layer) = solve::<f64, Infallible>(&space, after, |_| Ok(()));
        layer
    });
    Ok(TurnEndings::new(&Solved { space: &space, layer: next.as_ref() }, cards, mover, opponent, d)?)
}

/// Typical two-player games and the exact errors of some strategies in them.
pub struct MoveErrors<'a> {
    cards: &'a Cards,
    typical: &'a Searcher<'a>,
    tested: Vec<Tested<'a>>,
    depths: RangeInclusive<usize>,
}

impl<'a> MoveErrors<'a> {
    /// Measures `tested` at the turns with `depths` open boxes of games between two
    /// `typical` players (an EMP(1) searcher on the game of `cards`).
    pub fn new(
        cards: &'a Cards,
        typical: &'a Searcher<'a>,
        tested: Vec<Tested<'a>>,
        depths: RangeInclusive<usize>,
    ) -> Result<MoveErrors<'a>, MoveErrorsError> {
        let most = 2 * cards.boxes();
        if *depths.start() == 0 || depths.start() > depths.end() || *depths.end() > most {
            return Err(MoveErrorsError::Depths { first: *depths.start(), last: *depths.end(), most });
        }
        Ok(MoveErrors { cards, typical, tested, depths })
    }

    /// Plays game `game` of `seed` from the start to the last measured turn and returns the
    /// errors of each tested strategy at each measured depth.
    pub fn game(&self, seed: u64, game: u64) -> Result<GameErrors, MoveErrorsError> {
        let mut rng = game_rng(seed, game);
        let mut errors = vec![vec![TurnErrors::default(); self.depths.clone().count()]; self.tested.len()];
        let mut position = Position::start(self.cards.game(), 2);
        loop {
            let open: usize = position.seats.iter().map(|s| s.state.filled.complement().len()).sum();
            if open < *self.depths.start() {
                return Ok(errors);
            }
            let t = if self.depths.contains(&open) {
                let exact = exact_endings(self.cards, &position)?;
                let plans = self.tested_plans(&position, &exact)?;
                let mut measured =
                    MeasuredTurn { exact, plans, errors: vec![TurnErrors::default(); self.tested.len()] };
                let t = self.play_turn(&position, &mut rng, Some(&mut measured))?;
                for (strategy, turn) in errors.iter_mut().zip(measured.errors) {
                    strategy[open - self.depths.start()] = turn;
                }
                t
            } else {
                self.play_turn(&position, &mut rng, None)?
            };
            position = position.after(t.next, t.points);
        }
    }

    /// Each tested strategy's plan of the mover's turn in `position`.
    fn tested_plans(&self, position: &Position, exact: &TurnEndings) -> Result<Vec<Arc<TurnPlan>>, MoveErrorsError> {
        let state = position.seats[position.mover].state;
        self.tested
            .iter()
            .map(|tested| match tested {
                Tested::Exact => Ok(Arc::new(plan_by(self.cards.game(), state, |t| exact.value(t)))),
                Tested::Player(player) => Ok(player.plan(position)?),
            })
            .collect()
    }

    /// Plays the mover's turn in `position` as the typical player; where the turn is
    /// `measured`, scores each tested plan's choice at every decision met.
    fn play_turn(
        &self,
        position: &Position,
        rng: &mut impl rand::Rng,
        mut measured: Option<&mut MeasuredTurn>,
    ) -> Result<Transition, MoveErrorsError> {
        let game = self.cards.game();
        let state = position.seats[position.mover].state;
        let typical = self.typical.ending_values(position)?;
        let mut roll = roll_missing(KeepId(0), rng);
        let mut rolls_left = 2u8;
        loop {
            let ranked = choice::rank(game, state, roll, rolls_left, |t| typical[&(t.next, t.points)]);
            let chosen = sample(&ranked, rng);
            if let Some(turn) = measured.as_mut() {
                let exact_ranked = choice::rank(game, state, roll, rolls_left, |t| turn.exact.value(t));
                let best = exact_ranked[0].value;
                for (plan, errors) in turn.plans.iter().zip(turn.errors.iter_mut()) {
                    let planned = planned_choice(plan, roll, rolls_left);
                    let value = exact_ranked
                        .iter()
                        .find(|v| v.choice == planned)
                        .expect("a plan chooses among the choices of the roll")
                        .value;
                    errors.moves += 1;
                    errors.error += best - value;
                }
            }
            match chosen {
                Choice::Score(category) => {
                    return Ok(state.score(game, category, roll).expect("a ranked box takes the roll"));
                }
                Choice::Keep(keep) if keep == roll.as_keep() => rolls_left = 0,
                Choice::Keep(keep) => {
                    roll = roll_missing(keep, rng);
                    rolls_left -= 1;
                }
            }
        }
    }

    /// Plays games `0..games` of `seed` in parallel and sums up the errors; the result is
    /// the same on any number of threads.
    pub fn measure(&self, games: u64, seed: u64, progress: &ProgressBar) -> Result<MoveErrorReport, MoveErrorsError> {
        let per_game = (0..games)
            .into_par_iter()
            .map(|g| {
                let errors = self.game(seed, g);
                progress.inc(1);
                errors
            })
            .collect::<Result<Vec<GameErrors>, MoveErrorsError>>();
        progress.finish_and_clear();
        Ok(MoveErrorReport::new(self.depths.clone(), self.tested.len(), &per_game?))
    }
}

/// What `plan` does holding `roll` with `rolls_left` rerolls.
fn planned_choice(plan: &TurnPlan, roll: RollId, rolls_left: u8) -> Choice {
    let r = roll.0 as usize;
    match rolls_left {
        2 => Choice::Keep(plan.keep_after_first[r]),
        1 => Choice::Keep(plan.keep_after_second[r]),
        _ => Choice::Score(plan.box_for_roll[r]),
    }
}

/// A choice drawn with weight exp([`TYPICAL_SHARPNESS`] · (v − best)) from `ranked` (best first).
fn sample(ranked: &[Valued], rng: &mut impl rand::Rng) -> Choice {
    let best = ranked[0].value;
    let weights: Vec<f64> = ranked.iter().map(|v| (TYPICAL_SHARPNESS * (v.value - best)).exp()).collect();
    let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
    for (v, w) in ranked.iter().zip(&weights) {
        if x < *w {
            return v.choice;
        }
        x -= w;
    }
    ranked[0].choice
}

/// A mean with the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95% normal confidence interval.
    pub half_width_95: f64,
}

impl Estimate {
    /// The mean of `samples` and its interval.
    fn of_mean(samples: &[f64]) -> Estimate {
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        Estimate { mean, half_width_95: Z_95 * (variance / n).sqrt() }
    }

    /// The ratio Σ errors / Σ moves over games, with the delta-method interval.
    fn of_ratio(pairs: &[(f64, f64)]) -> Estimate {
        let n = pairs.len() as f64;
        let (errors, moves) = pairs.iter().fold((0.0, 0.0), |(e, m), &(x, y)| (e + x, m + y));
        if moves == 0.0 {
            return Estimate { mean: 0.0, half_width_95: 0.0 };
        }
        let ratio = errors / moves;
        let residual = pairs.iter().map(|&(x, y)| (x - ratio * y).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        let mean_moves = moves / n;
        Estimate { mean: ratio, half_width_95: Z_95 * (residual / n).sqrt() / mean_moves }
    }
}

/// One strategy's errors at one depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DepthErrors {
    /// Open boxes on both cards together.
    pub empty: usize,
    /// Decisions scored, over all games.
    pub moves: u64,
    /// Average error of a decision.
    pub per_move: Estimate,
    /// Average error summed over the turn.
    pub per_turn: Estimate,
}

/// One strategy's errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrategyErrors {
    /// By depth, as measured.
    pub depths: Vec<DepthErrors>,
    /// Average error summed over a game's measured turns (both players').
    pub per_game: Estimate,
}

/// The errors of every tested strategy over a number of games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveErrorReport {
    /// Games played.
    pub games: u64,
    /// By tested strategy.
    pub strategies: Vec<StrategyErrors>,
}

impl MoveErrorReport {
    /// Sums up `per_game` (each game's errors, in game order) for `strategies` strategies.
    fn new(depths: RangeInclusive<usize>, strategies: usize, per_game: &[GameErrors]) -> MoveErrorReport {
        let strategies = (0..strategies)
            .map(|s| {
                let depths: Vec<DepthErrors> = depths
                    .clone()
                    .enumerate()
                    .map(|(i, empty)| {
                        let turns: Vec<TurnErrors> = per_game.iter().map(|g| g[s][i]).collect();
                        let errors: Vec<f64> = turns.iter().map(|t| t.error).collect();
                        let pairs: Vec<(f64, f64)> = turns.iter().map(|t| (t.error, f64::from(t.moves))).collect();
                        DepthErrors {
                            empty,
                            moves: turns.iter().map(|t| u64::from(t.moves)).sum(),
                            per_move: Estimate::of_ratio(&pairs),
                            per_turn: Estimate::of_mean(&errors),
                        }
                    })
                    .collect();
                let totals: Vec<f64> = per_game.iter().map(|g| g[s].iter().map(|t| t.error).sum()).collect();
                StrategyErrors { depths, per_game: Estimate::of_mean(&totals) }
            })
            .collect();
        MoveErrorReport { games: per_game.len() as u64, strategies }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_estimate_is_errors_over_moves() {
        let e = Estimate::of_ratio(&[(0.3, 3.0), (0.1, 2.0), (0.0, 3.0)]);
        assert!((e.mean - 0.05).abs() < 1e-15);
        // Residuals 0.15, 0.0, −0.15: variance 0.0225, over n = 3 and mean moves 8/3.
        let expected = Z_95 * (0.0225f64 / 3.0).sqrt() / (8.0 / 3.0);
        assert!((e.half_width_95 - expected).abs() < 1e-15);
    }

    #[test]
    fn sampling_prefers_the_best_sharply() {
        let keep = |k| Choice::Keep(KeepId(k));
        let ranked = [
            Valued { choice: keep(1), points: None, value: 0.50 },
            Valued { choice: keep(2), points: None, value: 0.50 },
            Valued { choice: keep(3), points: None, value: 0.40 },
        ];
        let mut rng = game_rng(7, 0);
        let mut counts = [0u32; 4];
        for _ in 0..20_000 {
            match sample(&ranked, &mut rng) {
                Choice::Keep(k) => counts[k.0 as usize] += 1,
                Choice::Score(_) => unreachable!(),
            }
        }
        // Weights 1, 1, e^−10 ≈ 4.5e−5: the two best about evenly, the third about never.
        assert!((9_500..10_500).contains(&counts[1]) && (9_500..10_500).contains(&counts[2]), "{counts:?}");
        assert!(counts[3] <= 5, "{counts:?}");
    }
}
