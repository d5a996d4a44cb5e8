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
use crate::game::index::NUM_UPPER_TOTALS;
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

/// Every state's curve, by [`StateId`]: of the whole game, or of the game below one
/// position ([`solve_below`]), the other curves then left empty.
#[derive(Clone, Debug)]
pub struct TargetCurves<T> {
    index: StateIndex,
    curves: Vec<Curve<T>>,
    /// The position the curves were solved below, and which states that solved (by
    /// [`StateId`]); `None` for the whole game.
    below: Option<(ScoreState, Vec<bool>)>,
}

impl<T: Lane> TargetCurves<T> {
    /// The curve of `state` at the start of its turn.
    ///
    /// # Panics
    /// If the state is not part of the game, or not below the position of a [`solve_below`].
    pub fn curve(&self, state: ScoreState) -> &Curve<T> {
        let id = self.index.id(state).unwrap_or_else(|| panic!("state {state:?} is not part of the game"));
        assert!(self.covers(state), "state {state:?} is not below {:?}, where the curves were solved", self.below());
        &self.curves[id.0 as usize]
    }

    /// The position the curves were solved below ([`solve_below`]); `None` when every
    /// state's curve is solved.
    pub fn below(&self) -> Option<ScoreState> {
        self.below.as_ref().map(|&(position, _)| position)
    }

    /// The curve at the start of the game.
    pub fn start(&self) -> &Curve<T> {
        self.curve(ScoreState::start(self.index.game()))
    }

    /// Whether the curve of `state` was solved: every state of the game, or of the game
    /// below the position of a [`solve_below`].
    pub fn covers(&self, state: ScoreState) -> bool {
        let id = self.index.id(state);
        id.is_some_and(|id| self.below.as_ref().is_none_or(|(_, solved)| solved[id.0 as usize]))
    }

    /// The state index the curves follow.
    pub fn index(&self) -> &StateIndex {
        &self.index
    }

    /// All curves by state id (empty where not [covered](TargetCurves::covers)).
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
    solve_states(game, None, progress)
}

/// Solves the curves of `position` and of every state the game may come to from it
/// ([`ScoreState::may_lead_to`]): all that advice on this position and the rest of its game
/// reads, a small part of the table once a few boxes are filled. The other states' curves
/// are left empty; each solved curve is the whole table's, bit for bit.
pub fn solve_below<T: Lane>(game: Game, position: ScoreState, progress: &dyn Progress) -> TargetCurves<T> {
    solve_states(game, Some(position), progress)
}

/// The curve values a [`solve_below`] `position` computes at most (one per state and
/// threshold it can still reach, [`max_future_points`]): its size, known before solving.
pub fn values_below(game: Game, position: ScoreState) -> u64 {
    let index = StateIndex::new(game);
    let solved = states_below(&index, position);
    (0..index.len() as u32)
        .filter(|&id| solved[id as usize])
        .map(|id| index.state(StateId(id)))
        .filter(|state| !state.is_terminal())
        .map(|state| u64::from(max_future_points(game, state)))
        .sum()
}

/// Which states `position` may lead to, by [`StateId`]. An id stands for a class of upper
/// totals with one future ([`StateIndex`]), such as the totals that earn no bonus whatever
/// follows, 63 among them: it is kept where any of its totals may follow `position`.
fn states_below(index: &StateIndex, position: ScoreState) -> Vec<bool> {
    (0..index.len() as u32)
        .map(|id| {
            let state = index.state(StateId(id));
            let member = |upper_total: u8| ScoreState { upper_total, ..state };
            state.filled.is_superset(position.filled)
                && (state.upper_total..NUM_UPPER_TOTALS as u8)
                    .any(|u| position.may_lead_to(member(u)) && index.id(member(u)) == Some(StateId(id)))
        })
        .collect()
}

/// The curves of every state of `game`, or of those `below` may lead to.
fn solve_states<T: Lane>(game: Game, below: Option<ScoreState>, progress: &dyn Progress) -> TargetCurves<T> {
    let index = StateIndex::new(game);
    let below = below.map(|position| (position, states_below(&index, position)));
    let mut curves: Vec<Curve<T>> = vec![Curve::default(); index.len()];
    let mut layers: Vec<Vec<StateId>> = vec![Vec::new(); MAX_BOXES + 1];
    for id in 0..index.len() as u32 {
        if below.as_ref().is_none_or(|(_, solved)| solved[id as usize]) {
            layers[index.state(StateId(id)).filled.len()].push(StateId(id));
        }
    }
    progress.start("target table", layers.iter().map(|l| l.len() as u64).sum(), "states");
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
            let curve_of = |s: ScoreState| {
                let id = index.id(s).expect("successor is a state").0 as usize;
                assert!(below.as_ref().is_none_or(|(_, solved)| solved[id]), "successor {s:?} of {state:?} not solved");
                &curves[id]
            };
            simd::dispatch(StateTurn { game, state, curve_of: &curve_of, scratch })
        },
        |curves, ids, solved| {
            for (&id, curve) in ids.iter().zip(solved) {
                curves[id.0 as usize] = curve;
            }
        },
    );
    progress.finish();
    TargetCurves { index, curves, below }
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

    /// The curves solved below a position are the whole table's, bit for bit, for every
    /// state the position may lead to (upper totals merged into classes included: a bonus
    /// already earned, a bonus out of reach), and only those are solved.
    #[test]
    fn curves_below_a_position_are_the_whole_tables() {
        let rules = Rules::OFFICIAL;
        let game = Game { rules, categories: rules.first(4).unwrap().with(Category::Sixes).with(Category::Yahtzee) };
        let whole = solve::<f32>(game);
        for card in
            ["", "ones=3", "ones=0,twos=8", "fours=16,sixes=30", "ones=3,twos=6,threes=9,fours=12", "yahtzee=50"]
        {
            let position = crate::game::Card::parse(card, game).unwrap().state();
            let below = solve_below::<f32>(game, position, &Silent);
            assert_eq!(below.below(), Some(position));
            let mut solved = 0;
            let mut values = 0;
            for id in 0..whole.index().len() as u32 {
                let state = whole.index().state(StateId(id));
                let members: Vec<ScoreState> = (0..64).map(|upper_total| ScoreState { upper_total, ..state }).collect();
                let reachable =
                    members.iter().any(|&m| position.may_lead_to(m) && whole.index().id(m) == Some(StateId(id)));
                assert_eq!(below.covers(state) || reachable, reachable, "{card}: {state:?}");
                if reachable {
                    let (a, b) = (whole.curve(state), below.curves()[id as usize].clone());
                    assert_eq!(a.first, b.first, "{card}: {state:?}");
                    assert!(a.values.iter().zip(&b.values).all(|(x, y)| x.to_bits() == y.to_bits()), "{card}");
                    assert_eq!(a.values.len(), b.values.len());
                    solved += 1;
                    values += a.values.len() as u64;
                }
            }
            assert!(solved > 0 && values <= values_below(game, position), "{card}: {solved} states");
            assert!(below.covers(position));
        }
        // Nothing below a position is solved where the game cannot come back to it.
        let later = solve_below::<f32>(game, crate::game::Card::parse("ones=3", game).unwrap().state(), &Silent);
        assert!(!later.covers(ScoreState::start(game)));
    }
}
