//! Score-distribution curves: for every score state, s ↦ max P(future points ≥ s), for all
//! thresholds s at once (Pawlewicz §3.3, App. C).
//!
//! One state is one turn of the kernel with lanes over the threshold s = 1..=H, H the most
//! points the state can still make. Scoring `p` points into successor `n` reads `n`'s curve
//! shifted by `p` ("at least s − p more"), with the curve equal to 1 at thresholds ≤ 0: the
//! weighted sums, maxima and shifts of App. C, nothing else. Each state is solved for its
//! own thresholds, so states of a layer run in parallel with results independent of the
//! thread count.

use rayon::prelude::*;

use crate::game::category::{Category, MAX_BOXES};
use crate::game::{Game, NUM_ROLLS, RollId, ScoreState, StateId, StateIndex};
use crate::turn::lanes::{BLOCK, Lane, lane_max, padded_lanes};
use crate::turn::simd::{self, SimdWork};
use crate::turn::{RollScorer, TurnBuffer};

/// A curve s ↦ P(future points ≥ s), stored compactly: 1 below `first`, `values` from
/// `first` on, 0 after them. Thresholds ≤ 0 always give 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curve<T> {
    /// Smallest threshold stored (≥ 1); every threshold below it has probability 1.
    pub first: u32,
    /// Probabilities for thresholds `first, first + 1, …`; beyond them 0.
    pub values: Vec<T>,
}

impl<T: Lane> Curve<T> {
    /// P(future points ≥ s).
    pub fn at(&self, s: i64) -> T {
        if s < self.first as i64 {
            return T::from_f64(1.0);
        }
        self.values.get((s - self.first as i64) as usize).copied().unwrap_or(T::ZERO)
    }

    /// The expected future points, Σ over s ≥ 1 of P(future ≥ s).
    pub fn mean(&self) -> f64 {
        (self.first as f64 - 1.0) + self.values.iter().map(|v| v.to_f64()).sum::<f64>()
    }

    /// Keeps the thresholds that are neither 1 nor 0 (`dense[i]` is threshold `i + 1`).
    fn from_dense(dense: &[T]) -> Curve<T> {
        let one = T::from_f64(1.0);
        let start = dense.iter().position(|&v| v < one).unwrap_or(dense.len());
        let end = dense.iter().rposition(|&v| v > T::ZERO).map_or(start, |e| (e + 1).max(start));
        Curve { first: start as u32 + 1, values: dense[start..end].to_vec() }
    }
}

/// Every state's curve, by [`StateId`].
#[derive(Clone, Debug)]
pub struct TargetCurves<T> {
    index: StateIndex,
    curves: Vec<Curve<T>>,
}

impl<T: Lane> TargetCurves<T> {
    /// The curve of `state` at the start of its turn.
    ///
    /// # Panics
    /// If the state is not part of the game.
    pub fn curve(&self, state: ScoreState) -> &Curve<T> {
        let id = self.index.id(state).unwrap_or_else(|| panic!("state {state:?} is not part of the game"));
        &self.curves[id.0 as usize]
    }

    /// The curve at the start of the game.
    pub fn start(&self) -> &Curve<T> {
        self.curve(ScoreState::start(self.index.game()))
    }

    /// The state index the curves follow.
    pub fn index(&self) -> &StateIndex {
        &self.index
    }

    /// All curves by state id.
    pub fn curves(&self) -> &[Curve<T>] {
        &self.curves
    }
}

/// Most points `state` can still make: every open box at its best, the upper bonus, and an
/// Extra Yahtzee Bonus in every turn but one. A bound, not the exact maximum.
pub fn max_future_points(game: Game, state: ScoreState) -> u32 {
    let open = state.filled.complement();
    let boxes: u32 = open.iter().map(|c| game.rules.best_points(c)).sum();
    let upper_open = open.iter().any(|c| c.upper_face().is_some());
    let bonus = if upper_open { game.rules.upper_bonus() } else { 0 };
    let yahtzee_possible = game.tracks_yahtzee_50() && (state.yahtzee_50 || open.contains(Category::Yahtzee));
    let extra = if yahtzee_possible { game.rules.extra_bonus() * open.len() as u32 } else { 0 };
    boxes + bonus + extra
}

/// Solves every state's curve, layer by layer backward.
pub fn solve<T: Lane>(game: Game) -> TargetCurves<T> {
    let index = StateIndex::new(game);
    let mut curves: Vec<Curve<T>> = vec![Curve::default(); index.len()];
    let mut layers: Vec<Vec<StateId>> = vec![Vec::new(); MAX_BOXES + 1];
    for id in 0..index.len() as u32 {
        layers[index.state(StateId(id)).filled.len()].push(StateId(id));
    }
    for layer in layers.iter().rev() {
        let solved: Vec<Curve<T>> = layer
            .par_iter()
            .map_init(
                || TurnBuffer::new(BLOCK),
                |buffer, &id| {
                    let state = index.state(id);
                    if state.is_terminal() {
                        return Curve { first: 1, values: Vec::new() };
                    }
                    let curve_of = |s: ScoreState| &curves[index.id(s).expect("successor is a state").0 as usize];
                    simd::dispatch(StateTurn { game, state, curve_of: &curve_of, buffer })
                },
            )
            .collect();
        for (&id, curve) in layer.iter().zip(solved) {
            curves[id.0 as usize] = curve;
        }
    }
    TargetCurves { index, curves }
}

/// One state's turn with lanes over thresholds 1..=H, H the most points the state can
/// still make (the largest threshold any successor leaves within reach).
struct StateTurn<'a, T, F> {
    game: Game,
    state: ScoreState,
    curve_of: &'a F,
    buffer: &'a mut TurnBuffer<T>,
}

impl<'a, T: Lane, F: Fn(ScoreState) -> &'a Curve<T>> SimdWork for StateTurn<'a, T, F> {
    type Output = Curve<T>;

    #[inline(always)]
    fn run(self) -> Curve<T> {
        let StateTurn { game, state, curve_of, buffer } = self;
        // A successor is known by its box, upper total and Yahtzee flag.
        let successor_key =
            |c: Category, next: ScoreState| c.index() * 128 + next.upper_total as usize * 2 + next.yahtzee_50 as usize;
        let mut slot_of_key = [u16::MAX; MAX_BOXES * 128];
        let mut successors: Vec<&Curve<T>> = Vec::new();
        let mut plan = [[(u16::MAX, 0u16); MAX_BOXES]; NUM_ROLLS];
        let mut horizon = 0;
        for roll in RollId::all() {
            for c in state.filled.complement().iter() {
                let Some(t) = state.score(game, c, roll) else { continue };
                let key = successor_key(c, t.next);
                if slot_of_key[key] == u16::MAX {
                    slot_of_key[key] = successors.len() as u16;
                    successors.push(curve_of(t.next));
                }
                let next = successors[slot_of_key[key] as usize];
                horizon = horizon.max(t.points as usize + next.first as usize - 1 + next.values.len());
                plan[roll.0 as usize][c.index()] = (slot_of_key[key], t.points as u16);
            }
        }
        // Beyond the horizon every lane would be 0, the value the curve leaves implicit.
        let lanes = padded_lanes(horizon);
        let stride = MAX_POINTS + lanes;
        let mut rows = vec![T::ZERO; successors.len() * stride];
        for (row, curve) in rows.chunks_exact_mut(stride).zip(&successors) {
            pad(curve, row);
        }
        let scorer = CurveScorer { rows: &rows, stride, plan: &plan, lanes };
        let mut dense = vec![T::ZERO; lanes];
        buffer.set_lanes(lanes);
        buffer.solve(&scorer, &mut dense);
        dense.truncate(horizon);
        Curve::from_dense(&dense)
    }
}

/// Points one scoring can earn at most: 40 in a box plus the 100 Extra Yahtzee Bonus plus
/// the upper bonus, rounded up.
const MAX_POINTS: usize = 256;

/// Writes `curve` at thresholds `1 − MAX_POINTS, 2 − MAX_POINTS, …` to `row`: ones, the
/// stored values, zeros, so that a shift by `p` points is the slice from `MAX_POINTS − p`.
fn pad<T: Lane>(curve: &Curve<T>, row: &mut [T]) {
    let ones = (MAX_POINTS + curve.first as usize - 1).min(row.len());
    row[..ones].fill(T::from_f64(1.0));
    let values = &curve.values[..curve.values.len().min(row.len() - ones)];
    row[ones..ones + values.len()].copy_from_slice(values);
    row[ones + values.len()..].fill(T::ZERO);
}

struct CurveScorer<'a, T> {
    /// The successors' padded curves, `stride` lanes each.
    rows: &'a [T],
    stride: usize,
    /// Per roll and box: (successor row, points), row `u16::MAX` where the box is closed.
    plan: &'a [[(u16, u16); MAX_BOXES]; NUM_ROLLS],
    lanes: usize,
}

impl<T: Lane> RollScorer<T> for CurveScorer<'_, T> {
    #[inline(always)]
    fn score(&self, roll: RollId, out: &mut [T]) {
        let mut sources: [&[T]; MAX_BOXES] = [&[]; MAX_BOXES];
        let mut count = 0;
        for &(row, points) in &self.plan[roll.0 as usize] {
            if row != u16::MAX {
                let start = row as usize * self.stride + MAX_POINTS - points as usize;
                sources[count] = &self.rows[start..start + self.lanes];
                count += 1;
            }
        }
        max_of_rows(out, &sources[..count]);
    }
}

/// Lanes the scoring maximum keeps in registers at once: four AVX2 vectors of `f32`, so
/// that four independent chains of maxima hide the instruction latency.
const WIDE: usize = 4 * BLOCK;

/// `dst[i] = max over rows of row[i]`, in row order, `WIDE` lanes at a time.
///
/// # Panics
/// If `rows` is empty or a row is shorter than `dst`.
#[inline(always)]
fn max_of_rows<T: Lane>(dst: &mut [T], rows: &[&[T]]) {
    let mut start = 0;
    while start + WIDE <= dst.len() {
        let mut acc = [T::ZERO; WIDE];
        acc.copy_from_slice(&rows[0][start..start + WIDE]);
        for row in &rows[1..] {
            let row = &row[start..start + WIDE];
            for k in 0..WIDE {
                acc[k] = lane_max(acc[k], row[k]);
            }
        }
        dst[start..start + WIDE].copy_from_slice(&acc);
        start += WIDE;
    }
    for (i, out) in dst.iter_mut().enumerate().skip(start) {
        *out = rows[1..].iter().fold(rows[0][i], |best, row| lane_max(best, row[i]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;

    #[test]
    fn aces_alone_is_a_binomial_tail() {
        // Keeping every one is best for every threshold: each die ends a one with p = 91/216.
        let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(1).unwrap() };
        let curves = solve::<f64>(game);
        let p: f64 = 91.0 / 216.0;
        let choose = |n: u32, k: u32| (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64);
        for s in -2..=6i64 {
            let tail: f64 =
                (s.max(0) as u32..=5).map(|k| choose(5, k) * p.powi(k as i32) * (1.0 - p).powi(5 - k as i32)).sum();
            assert!((curves.start().at(s) - tail).abs() < 1e-12, "s = {s}: {} vs {tail}", curves.start().at(s));
        }
        assert!((curves.start().mean() - 5.0 * p).abs() < 1e-12);
    }

    #[test]
    fn curves_fall_from_one_and_dominate_the_expected_score() {
        let game =
            Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(4).unwrap().with(Category::Yahtzee) };
        let curves = solve::<f64>(game);
        for curve in curves.curves() {
            assert!(curve.first >= 1);
            assert!(curve.values.windows(2).all(|w| w[0] >= w[1]));
            assert!(curve.values.iter().all(|&v| (0.0..1.0).contains(&v)));
        }
        let solo = crate::solo::solve(game);
        assert!(curves.start().mean() >= solo.start_value());
        let as_f32 = solve::<f32>(game);
        assert!((as_f32.start().mean() - curves.start().mean()).abs() < 1e-4);
    }

    #[test]
    fn wide_maximum_matches_the_scalar_one_on_odd_lengths() {
        for len in [0, 5, WIDE - 1, WIDE, 2 * WIDE + 3, 77] {
            let rows: Vec<Vec<f32>> =
                (0..5).map(|r| (0..len).map(|i| ((i * 7 + r * 13) % 11) as f32 * 0.1).collect()).collect();
            let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
            let mut wide = vec![0.0; len];
            max_of_rows(&mut wide, &refs);
            let scalar: Vec<f32> = (0..len).map(|i| rows.iter().map(|r| r[i]).fold(f32::MIN, f32::max)).collect();
            assert_eq!(wide, scalar, "length {len}");
        }
    }
}
