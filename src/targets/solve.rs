//! Score-distribution curves: for every score state, s ↦ max P(future points ≥ s), for all
//! thresholds s at once (Pawlewicz §3.3, App. C).
//!
//! One state is one turn of the kernel with lanes over the threshold s = 1..=H, H the most
//! points the state can still make. Scoring `p` points into successor `n` reads `n`'s curve
//! shifted by `p` ("at least s − p more"), with the curve equal to 1 at thresholds ≤ 0: the
//! weighted sums, maxima and shifts of App. C, nothing else. Each state is solved for its
//! own thresholds, so states of a layer run in parallel with results independent of the
//! thread count.

use crate::game::category::{Category, MAX_BOXES};
use crate::game::{Game, ScoreState, StateId, StateIndex};
use crate::progress::{Progress, Silent};
use crate::turn::lanes::{BLOCK, Lane, padded_lanes};
use crate::turn::simd::{self, SimdWork};
use crate::turn::sweep::sweep_backward;
use crate::turn::{ScoringPlan, Shift, TurnBuffer};

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
    solve_with_progress(game, &Silent)
}

/// [`solve`], reporting the states solved to `progress`.
pub fn solve_with_progress<T: Lane>(game: Game, progress: &dyn Progress) -> TargetCurves<T> {
    let index = StateIndex::new(game);
    progress.start("target table", index.len() as u64, "states");
    let mut curves: Vec<Curve<T>> = vec![Curve::default(); index.len()];
    let mut layers: Vec<Vec<StateId>> = vec![Vec::new(); MAX_BOXES + 1];
    for id in 0..index.len() as u32 {
        layers[index.state(StateId(id)).filled.len()].push(StateId(id));
    }
    sweep_backward(
        &mut curves,
        layers.iter().rev(),
        progress,
        || StateScratch::new(Shift::Down),
        |curves, scratch, &id| {
            let state = index.state(id);
            if state.is_terminal() {
                return Curve { first: 1, values: Vec::new() };
            }
            let curve_of = |s: ScoreState| &curves[index.id(s).expect("successor is a state").0 as usize];
            simd::dispatch(StateTurn { game, state, curve_of: &curve_of, scratch })
        },
        |curves, ids, solved| {
            for (&id, curve) in ids.iter().zip(solved) {
                curves[id.0 as usize] = curve;
            }
        },
    );
    progress.finish();
    TargetCurves { index, curves }
}

/// Per-thread working memory of a solve over score states with lanes (the target curves,
/// and the payoffs of [`super::payoff`]): the turn's buffers, the scoring plan, and the
/// successors' rows laid out for it.
pub(super) struct StateScratch<T: Lane> {
    pub(super) buffer: TurnBuffer<T>,
    pub(super) plan: ScoringPlan<ScoreState>,
    pub(super) rows: Vec<Vec<T>>,
}

impl<T: Lane> StateScratch<T> {
    /// Empty scratch whose plan scores by shifting lanes `shift`.
    pub(super) fn new(shift: Shift) -> StateScratch<T> {
        StateScratch { buffer: TurnBuffer::new(BLOCK), plan: ScoringPlan::new(shift), rows: Vec::new() }
    }
}

/// One state's turn with lanes over thresholds 1..=H, H the most points the state can
/// still make (the largest threshold any successor leaves within reach).
struct StateTurn<'a, T: Lane, F> {
    game: Game,
    state: ScoreState,
    curve_of: &'a F,
    scratch: &'a mut StateScratch<T>,
}

impl<'a, T: Lane, F: Fn(ScoreState) -> &'a Curve<T>> SimdWork for StateTurn<'a, T, F> {
    type Output = Curve<T>;

    #[inline(always)]
    fn run(self) -> Curve<T> {
        let StateTurn { game, state, curve_of, scratch } = self;
        let plan = &mut scratch.plan;
        plan.build(game.rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
            state.score(game, c, roll).map(|t| (t.next, t.points))
        });
        let successors: Vec<&Curve<T>> = plan.successors().iter().map(|&next| curve_of(next)).collect();
        // Beyond the horizon every lane would be 0, the value the curve leaves implicit.
        let horizon = (0..successors.len())
            .map(|k| plan.points(k).1 as usize + successors[k].first as usize - 1 + successors[k].values.len())
            .max()
            .unwrap_or(0);
        let lanes = padded_lanes(horizon);
        scratch.rows.resize_with(scratch.rows.len().max(successors.len()), Vec::new);
        for (k, (row, curve)) in scratch.rows.iter_mut().zip(&successors).enumerate() {
            // Lane 0 is threshold 1.
            let (start, len) = plan.row_span(k, lanes);
            fill_row(curve, 1 + start, len, row);
        }
        let scorer = plan.scorer(&scratch.rows[..successors.len()], 0, lanes);
        let mut dense = vec![T::ZERO; lanes];
        scratch.buffer.set_lanes(lanes);
        scratch.buffer.solve(&scorer, &mut dense);
        dense.truncate(horizon);
        Curve::from_dense(&dense)
    }
}

/// Sets `row` to `curve` at the `len` thresholds from `first_threshold` on: ones, the
/// stored values, zeros.
fn fill_row<T: Lane>(curve: &Curve<T>, first_threshold: i64, len: usize, row: &mut Vec<T>) {
    row.clear();
    let ones = (curve.first as i64 - first_threshold).clamp(0, len as i64) as usize;
    row.resize(ones, T::from_f64(1.0));
    let skip = (first_threshold - curve.first as i64).max(0) as usize;
    let values = curve.values.get(skip..).unwrap_or(&[]);
    row.extend_from_slice(&values[..values.len().min(len - ones)]);
    row.resize(len, T::ZERO);
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
}
