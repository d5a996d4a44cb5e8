//! Best play for any payoff on the final score: maximise E[g(final total)] for a given
//! g, such as the chance of beating an opponent whose score distribution is known
//! (Glenn 2007 §II-D).
//!
//! A position is a score state plus the points already scored, a. One state is one turn
//! of the kernel with lanes over a: scoring `p` points into successor `n` reads `n`'s
//! vector at `a + p`, and a terminal state is worth g(a). States are swept backward by
//! the number of filled boxes, holding two layers at once.
//!
//! **Lanes.** A state computes only the a that matter:
//!
//! - a forward pass first bounds, per state, the points the filled boxes can have produced
//!   (`[min, max]` over every way of reaching it);
//! - a is certain to end at g's minimum if even the most points to come leave the total
//!   below the smallest total where g exceeds its minimum, and certain to end at g's final
//!   constant if even the fewest points to come reach the total beyond which g is constant.
//!   The most and fewest points to come are exact, computed in the backward sweep itself.
//!
//! A read below a state's stored lanes gives g's minimum and a read above gives g's final
//! constant: every reachable a outside the lanes is one of those two cases. The constant
//! regions are found in the lane type, so `f32` lanes clip more than `f64` ones.
//!
//! States of a layer run in parallel on rayon, each on its own, so the result does not
//! depend on the number of threads.
//!
//! **Precision.** [`solve`] is generic over the lane type. In `f64` it agrees with the
//! solitaire solve (g(x) = x) and the target curves (g = 1[x ≥ s]) to 1e-12. `yz solo
//! beat` uses `f32`: on the full game, against the optimal player, it gives 0.5036228
//! against `f64`'s 0.5036225 (3e-7 apart, far below the three decimals published) in 27 s
//! instead of 60 s on two shared cores, with half the memory. The full game computes
//! 80 million lanes (a state's lanes times states, summed), 260 per state on average.

use std::fmt;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::solve::StateScratch;
use crate::game::category::MAX_BOXES;
use crate::game::{Game, Rules, ScoreState, StateId, StateIndex};
use crate::progress::{Cancelled, Progress, Silent};
use crate::solo::{OptimalPolicy, ScoreDistribution, SoloTable, analyze_with_progress};
use crate::turn::Shift;
use crate::turn::lanes::{Lane, padded_lanes};
use crate::turn::simd::{self, SimdWork};
use crate::turn::sweep::sweep_backward;

/// A payoff on the final total: `g(x)` for totals `x = 0, 1, …`, constant beyond the last
/// value given.
#[derive(Clone, Debug, PartialEq)]
pub struct Payoff {
    values: Vec<f64>,
}

impl Payoff {
    /// The payoff `g(x) = values[x]`, and `values[len − 1]` for every larger total.
    ///
    /// # Panics
    /// If `values` is empty or holds a number that is not finite.
    pub fn new(values: Vec<f64>) -> Payoff {
        assert!(!values.is_empty(), "a payoff needs at least one value");
        assert!(values.iter().all(|v| v.is_finite()), "a payoff must be finite");
        Payoff { values }
    }

    /// The chance of beating an opponent whose final score has the distribution
    /// `opponent`, ties counting half: `g(x) = P(O < x) + ½ P(O = x)`.
    pub fn beat(opponent: &ScoreDistribution) -> Payoff {
        let mut below = 0.0;
        let mut values = Vec::with_capacity(opponent.probabilities().len() + 1);
        for &p in opponent.probabilities() {
            values.push(below + 0.5 * p);
            below += p;
        }
        values.push(below);
        Payoff::new(values)
    }

    /// `g(total)`.
    pub fn at(&self, total: u32) -> f64 {
        self.values.get(total as usize).copied().unwrap_or(self.values[self.values.len() - 1])
    }
}

/// The payoff in the lane type, with the two regions where it is constant.
struct LanePayoff<T> {
    /// `g(x)` for `x < values.len()`; `high_value` beyond.
    values: Vec<T>,
    /// The smallest value of g.
    low_value: T,
    /// Every total below `low` is worth `low_value`.
    low: i64,
    /// The value of g from `high` on.
    high_value: T,
    /// Every total from `high` on is worth `high_value`.
    high: i64,
}

impl<T: Lane> LanePayoff<T> {
    fn new(payoff: &Payoff) -> LanePayoff<T> {
        let values: Vec<T> = payoff.values.iter().map(|&v| T::from_f64(v)).collect();
        let high_value = values[values.len() - 1];
        let low_value = values.iter().copied().fold(high_value, |m, v| if v < m { v } else { m });
        let high = values.iter().rposition(|&v| v != high_value).map_or(0, |i| i + 1);
        // A constant payoff has no region between the two: `low = high = 0`.
        let low = values.iter().position(|&v| v > low_value).unwrap_or(0);
        LanePayoff { values, low_value, low: low as i64, high_value, high: high as i64 }
    }

    fn at(&self, total: i64) -> T {
        if total < self.low {
            self.low_value
        } else {
            self.values.get(total as usize).copied().unwrap_or(self.high_value)
        }
    }
}

/// One state's values over the points already scored: `values[i]` for `a = lo + i`; below
/// `lo` the payoff's minimum, from `lo + values.len()` on its final constant.
#[derive(Clone, Debug, Default)]
struct Window<T> {
    lo: i64,
    values: Vec<T>,
}

impl<T: Lane> Window<T> {
    fn at(&self, a: i64, payoff: &LanePayoff<T>) -> T {
        if a < self.lo {
            return payoff.low_value;
        }
        self.values.get((a - self.lo) as usize).copied().unwrap_or(payoff.high_value)
    }
}

/// The fewest and the most points a state can still make, over every roll and choice.
#[derive(Clone, Copy, Debug, Default)]
struct Future {
    least: u32,
    most: u32,
}

/// The best expected payoff `E[g(final total)]` from the start of `game`, over every
/// strategy, computed in lanes of `T` (`f32` for speed, `f64` for agreement to 1e-12).
pub fn solve<T: Lane>(game: Game, payoff: &Payoff) -> f64 {
    match solve_with_progress::<T>(game, payoff, &Silent) {
        Ok(value) => value,
        Err(Cancelled) => unreachable!("silent progress is never cancelled"),
    }
}

/// [`solve`], reporting the states solved to `progress`; stops within a state's work once
/// `progress` is cancelled (the states left are passed over, and the sweep ends at once).
pub fn solve_with_progress<T: Lane>(game: Game, payoff: &Payoff, progress: &dyn Progress) -> Result<f64, Cancelled> {
    let index = StateIndex::new(game);
    let payoff = LanePayoff::<T>::new(payoff);
    let mut layers: Vec<Vec<StateId>> = vec![Vec::new(); MAX_BOXES + 1];
    for id in 0..index.len() as u32 {
        layers[index.state(StateId(id)).filled.len()].push(StateId(id));
    }
    let reach = reached_points(game, &index, &layers);
    progress.start("best reply", layers[game.absent().len()..].iter().map(|l| l.len() as u64).sum(), "states");
    let mut solved =
        Solved { windows: vec![Window::default(); index.len()], futures: vec![Future::default(); index.len()] };
    let mut lanes_solved = 0usize;
    let mut previous: Vec<StateId> = Vec::new();
    // Layers below the start's are empty.
    sweep_backward(
        &mut solved,
        layers[game.absent().len()..].iter().rev(),
        progress,
        || StateScratch::new(Shift::Up),
        |solved, scratch, &id| {
            let state = index.state(id);
            let (reach_lo, reach_hi) = reach[id.0 as usize];
            if reach_lo > reach_hi || progress.cancelled() {
                // Not reached from the start, or no one waits for the answer any more.
                return (Window::default(), Future::default());
            }
            if state.is_terminal() {
                let (lo, hi) = lane_range(reach[id.0 as usize], Future::default(), &payoff);
                return (Window { lo, values: (lo..hi).map(|a| payoff.at(a)).collect() }, Future::default());
            }
            let successor = |next: ScoreState| {
                let id = index.id(next).expect("successor is a state").0 as usize;
                (&solved.windows[id], solved.futures[id])
            };
            simd::dispatch(StateTurn {
                game,
                state,
                reach: reach[id.0 as usize],
                payoff: &payoff,
                successor: &successor,
                scratch,
            })
        },
        |solved, ids, results| {
            lanes_solved += results.iter().map(|(w, _)| w.values.len()).sum::<usize>();
            for (&id, (window, future)) in ids.iter().zip(results) {
                solved.windows[id.0 as usize] = window;
                solved.futures[id.0 as usize] = future;
            }
            // The layer after this one has been read for the last time.
            for &id in &previous {
                solved.windows[id.0 as usize] = Window::default();
            }
            previous = ids.to_vec();
            tracing::debug!(states = ids.len(), lanes_solved, "payoff layer solved");
        },
    );
    progress.finish();
    if progress.cancelled() {
        return Err(Cancelled);
    }
    let windows = solved.windows;
    let start = index.id(ScoreState::start(game)).expect("the start is a state");
    Ok(windows[start.0 as usize].at(0, &payoff).to_f64())
}

/// For every state, the fewest and most points the filled boxes can have produced on the
/// way from the start (`(u32::MAX, 0)` if it is not reached): a forward pass over the layers.
fn reached_points(game: Game, index: &StateIndex, layers: &[Vec<StateId>]) -> Vec<(u32, u32)> {
    let mut reach = vec![(u32::MAX, 0u32); index.len()];
    let start = index.id(ScoreState::start(game)).expect("the start is a state");
    reach[start.0 as usize] = (0, 0);
    let classes = game.rules.roll_classes();
    for layer in layers {
        let moves: Vec<Vec<(StateId, u32, u32)>> = layer
            .par_iter()
            .map(|&id| {
                let state = index.state(id);
                if state.is_terminal() || reach[id.0 as usize].0 == u32::MAX {
                    return Vec::new();
                }
                // The fewest and most points into each successor.
                let mut by_next: Vec<(StateId, u32, u32)> = Vec::new();
                for c in state.filled.complement().iter() {
                    for &roll in &classes.representatives[c.index()] {
                        let Some(t) = state.score(game, c, roll) else { continue };
                        let next = index.id(t.next).expect("successor is a state");
                        match by_next.iter_mut().find(|m| m.0 == next) {
                            Some(m) => (m.1, m.2) = (m.1.min(t.points), m.2.max(t.points)),
                            None => by_next.push((next, t.points, t.points)),
                        }
                    }
                }
                by_next
            })
            .collect();
        for (&id, moves) in layer.iter().zip(moves) {
            let (lo, hi) = reach[id.0 as usize];
            for (next, least, most) in moves {
                let r = &mut reach[next.0 as usize];
                *r = (r.0.min(lo + least), r.1.max(hi + most));
            }
        }
    }
    reach
}

/// The points already scored that a state must compute, `lo..hi`: those it can be reached
/// with and whose outcome is not yet certain. Empty (`hi <= lo`) if every one is certain.
fn lane_range<T: Lane>((reach_lo, reach_hi): (u32, u32), future: Future, payoff: &LanePayoff<T>) -> (i64, i64) {
    let lo = (reach_lo as i64).max(payoff.low - future.most as i64);
    let hi = (reach_hi as i64 + 1).min(payoff.high - future.least as i64);
    (lo, hi.max(lo))
}

/// What the solved layers left: each state's window and the points it can still make.
struct Solved<T> {
    windows: Vec<Window<T>>,
    futures: Vec<Future>,
}

/// One state's turn with lanes over the points already scored.
struct StateTurn<'a, T: Lane, F> {
    game: Game,
    state: ScoreState,
    reach: (u32, u32),
    payoff: &'a LanePayoff<T>,
    successor: &'a F,
    scratch: &'a mut StateScratch<T>,
}

impl<'a, T: Lane, F: Fn(ScoreState) -> (&'a Window<T>, Future)> SimdWork for StateTurn<'a, T, F> {
    type Output = (Window<T>, Future);

    #[inline(always)]
    fn run(self) -> (Window<T>, Future) {
        let StateTurn { game, state, reach, payoff, successor, scratch } = self;
        let plan = &mut scratch.plan;
        plan.build(game.rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
            state.score(game, c, roll).map(|t| (t.next, t.points))
        });
        let successors: Vec<(&Window<T>, Future)> = plan.successors().iter().map(|&next| successor(next)).collect();
        let mut future = Future { least: u32::MAX, most: 0 };
        for (k, (_, next)) in successors.iter().enumerate() {
            let (least, most) = plan.points(k);
            future.least = future.least.min(least + next.least);
            future.most = future.most.max(most + next.most);
        }
        let (lo, hi) = lane_range(reach, future, payoff);
        if hi == lo {
            return (Window { lo, values: Vec::new() }, future);
        }
        let width = (hi - lo) as usize;
        let lanes = padded_lanes(width);
        scratch.rows.resize_with(scratch.rows.len().max(successors.len()), Vec::new);
        for (k, (row, (window, _))) in scratch.rows.iter_mut().zip(&successors).enumerate() {
            // Lane 0 is `a = lo`.
            let (start, len) = plan.row_span(k, lanes);
            row.clear();
            row.extend((lo + start..lo + start + len as i64).map(|a| window.at(a, payoff)));
        }
        let scorer = plan.scorer(&scratch.rows[..successors.len()], 0, lanes);
        let mut values = vec![T::ZERO; lanes];
        scratch.buffer.set_lanes(lanes);
        scratch.buffer.solve(&scorer, &mut values);
        values.truncate(width);
        (Window { lo, values }, future)
    }
}
/// The best reply to a known solitaire opponent (`yz solo beat`): the strategy that
/// maximises the chance of beating the optimal solitaire strategy's final score, ties
/// counting half.
#[derive(Clone, Debug, Serialize)]
pub struct BeatReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// The opponent (`optimal`).
    pub opponent: &'static str,
    /// The opponent's mean final score.
    pub opponent_mean: f64,
    /// The best reply's chance of winning, ties counting half.
    pub win_probability: f64,
    /// Seconds the analysis and the solve took.
    pub seconds: f64,
}

impl fmt::Display for BeatReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules           {}", self.rules)?;
        writeln!(f, "categories      {}", self.categories.join(","))?;
        writeln!(f, "opponent        {}, mean score {:.4}", self.opponent, self.opponent_mean)?;
        writeln!(f, "best reply wins {:.6} (ties count half)", self.win_probability)?;
        write!(f, "time            {:.1} s", self.seconds)
    }
}

/// The chance that the best reply beats the optimal solitaire strategy of `game` (read from
/// `table`), whose final-score distribution is computed exactly first. Each player plays
/// on its own card; the reply sees nothing of the opponent's game but knows its
/// distribution, so the reply's value is a payoff over its own final score. Stops early
/// where `progress` is cancelled, in either phase.
pub fn beat(game: Game, table: &SoloTable, progress: &dyn Progress) -> Result<BeatReport, Cancelled> {
    let started = Instant::now();
    let opponent = analyze_with_progress(game, &OptimalPolicy::solved(game, table), progress)?;
    let distribution = opponent.distribution();
    // f32 lanes: on the full game 2.2 times as fast as f64, and 3e-7 away from it.
    let win = solve_with_progress::<f32>(game, &Payoff::beat(distribution), progress)?;
    Ok(BeatReport {
        rules: game.rules,
        categories: game.box_names(),
        opponent: "optimal",
        opponent_mean: distribution.mean(),
        win_probability: win,
        seconds: started.elapsed().as_secs_f64(),
    })
}
