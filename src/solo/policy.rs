//! Deterministic solitaire strategies, as one turn plan per score state, and the optimal one.
//!
//! A strategy (Glenn's `o`, §II-C) decides three things in a turn: the dice to keep after
//! the first roll, the dice to keep after the second, and the box for the final roll. For a
//! fixed score state each decision depends only on the roll, so a whole turn is a table of
//! 3 × 252 choices, a [`TurnPlan`]. [`super::analysis::analyze`] asks for one plan per
//! score state it reaches and pushes the probabilities through it.

use std::sync::LazyLock;

use super::solve::SoloSolution;
use super::table::{FutureValue, SoloTable};
use crate::game::{Category, Game, KeepId, MAX_BOXES, NUM_KEEPS, NUM_ROLLS, RollId, ScoreState, Transition};
use crate::turn::TurnBuffer;

/// What a strategy does in every situation of one turn from one score state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnPlan {
    /// The dice kept after the first roll (two rerolls left), by [`RollId`]; the whole
    /// roll ([`RollId::as_keep`]) to stop rolling.
    pub keep_after_first: [KeepId; NUM_ROLLS],
    /// The dice kept after the second roll (one reroll left), by [`RollId`].
    pub keep_after_second: [KeepId; NUM_ROLLS],
    /// The box the final roll is scored in, by [`RollId`]: open, and allowed by the rules.
    pub box_for_roll: [Category; NUM_ROLLS],
}

impl TurnPlan {
    /// The plan that asks `keep(roll, rolls_left)` (`rolls_left` 2, then 1) and `score_box(roll)`
    /// for every roll.
    pub fn from_fn(
        mut keep: impl FnMut(RollId, u8) -> KeepId,
        mut score_box: impl FnMut(RollId) -> Category,
    ) -> TurnPlan {
        TurnPlan {
            keep_after_first: std::array::from_fn(|r| keep(RollId(r as u8), 2)),
            keep_after_second: std::array::from_fn(|r| keep(RollId(r as u8), 1)),
            box_for_roll: std::array::from_fn(|r| score_box(RollId(r as u8))),
        }
    }

    /// The plan of a strategy whose keep does not depend on the rerolls left: `keep(roll)`
    /// after both rolls (asked once per roll), `score_box(roll)` for the final one.
    pub fn same_keeps(
        mut keep: impl FnMut(RollId) -> KeepId,
        mut score_box: impl FnMut(RollId) -> Category,
    ) -> TurnPlan {
        let keeps: [KeepId; NUM_ROLLS] = std::array::from_fn(|r| keep(RollId(r as u8)));
        TurnPlan {
            keep_after_first: keeps,
            keep_after_second: keeps,
            box_for_roll: std::array::from_fn(|r| score_box(RollId(r as u8))),
        }
    }
}

/// A deterministic solitaire strategy: the same plan every time it meets a score state.
pub trait Policy: Sync {
    /// The plan for the turn played from `state`, a non-terminal state of the game analysed.
    /// Every keep must be within its roll and every box allowed (`state.score` is `Some`).
    fn plan(&self, state: ScoreState) -> TurnPlan;

    /// True if the policy plays alike any two upper totals that [`crate::game::StateIndex`]
    /// merges (their futures cannot be told apart), so that the analysis may visit one state
    /// per class: a third fewer states in the full game. The default, `false`, is always
    /// correct.
    fn plays_by_state_class(&self) -> bool {
        false
    }
}

/// Plays every turn to maximise the points of the turn plus `values` of the state after it:
/// the optimal strategy when `values` is a solved table, a one-turn lookahead otherwise.
///
/// Options worth the same are common (keeping a die or rerolling it often makes no
/// difference), and which one is played changes the box statistics, though not the
/// expected score. Values within [`TIE`] of the best count as equal, so that rounding never
/// decides, and ties go to the first option in a fixed order: the box first in card order,
/// the keep smallest in [`KeepId`] order (fewest dice, then lexicographic).
#[derive(Clone, Copy, Debug)]
pub struct OptimalPolicy<'a, V> {
    game: Game,
    values: &'a V,
    by_state_class: bool,
}

impl<'a, V: FutureValue + Sync> OptimalPolicy<'a, V> {
    /// Best play against `values` in `game`, each upper total analysed on its own.
    pub fn new(game: Game, values: &'a V) -> OptimalPolicy<'a, V> {
        OptimalPolicy { game, values, by_state_class: false }
    }
}

impl<'a, V: SolvedValues + Sync> OptimalPolicy<'a, V> {
    /// Optimal play from a solved table. Its merged upper totals hold one value (bit for
    /// bit), so they are played alike and [`Policy::plays_by_state_class`] is true.
    pub fn solved(game: Game, values: &'a V) -> OptimalPolicy<'a, V> {
        OptimalPolicy { game, values, by_state_class: true }
    }
}

/// Future values that are equal for the upper totals [`crate::game::StateIndex`] merges:
/// the solved tables.
pub trait SolvedValues: FutureValue {}

impl SolvedValues for SoloSolution {}

impl SolvedValues for SoloTable {}

impl<V: FutureValue + Sync> Policy for OptimalPolicy<'_, V> {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        let (best_value, box_for_roll) = self.best_boxes(state);
        plan_keeps(best_value, box_for_roll)
    }

    fn plays_by_state_class(&self) -> bool {
        self.by_state_class
    }
}

impl<V: FutureValue> OptimalPolicy<'_, V> {
    /// For each final roll from `state`, the best value of scoring it (points plus future
    /// value) and the first box in card order within [`TIE`] of it.
    fn best_boxes(&self, state: ScoreState) -> ([f64; NUM_ROLLS], [Category; NUM_ROLLS]) {
        let value_of = |c: Category, roll: RollId| {
            state
                .score(self.game, c, roll)
                .map_or(f64::NEG_INFINITY, |t| t.points as f64 + self.values.future_value(t.next))
        };
        // Outside an extra Yahtzee, a box's value depends only on its printed points, so it
        // is computed once per (box, points).
        let extra_yahtzee_matters = self.game.extra_yahtzee_matters(state.filled);
        let extra_yahtzee = |roll: RollId| extra_yahtzee_matters && roll.is_yahtzee();
        let open = self.game.choices_in_card_order(state.filled);
        let points_table = self.game.rules.points_table();
        let mut columns = [[f64::NEG_INFINITY; NUM_ROLLS]; MAX_BOXES];
        for (column, &c) in columns.iter_mut().zip(&open) {
            let mut by_points = [f64::NAN; MAX_BOX_POINTS + 1];
            for (roll, &points) in RollId::all().zip(&points_table[c.index()]) {
                let cached = &mut by_points[points as usize];
                column[roll.0 as usize] = if extra_yahtzee(roll) {
                    value_of(c, roll)
                } else {
                    if cached.is_nan() {
                        *cached = value_of(c, roll);
                    }
                    *cached
                };
            }
        }
        let columns = &columns[..open.len()];
        let mut best_value = [f64::NEG_INFINITY; NUM_ROLLS];
        let mut box_for_roll = [Category::Ones; NUM_ROLLS];
        for r in 0..NUM_ROLLS {
            let best = columns.iter().map(|column| column[r]).fold(f64::NEG_INFINITY, f64::max);
            let first = columns.iter().position(|column| column[r] >= best - TIE).expect("some box takes any roll");
            (best_value[r], box_for_roll[r]) = (best, open[first]);
        }
        (best_value, box_for_roll)
    }
}

/// Plays the turn from `state` to maximise `finish`, the value of ending it with a
/// transition: for any rule of valuing the end of a turn, as [`OptimalPolicy`] does for
/// points plus a future value, with the same tie rules ([`TIE`], first box in card order,
/// smallest keep).
///
/// # Panics
/// If `state` is terminal.
pub fn plan_by(game: Game, state: ScoreState, finish: impl Fn(Transition) -> f64) -> TurnPlan {
    assert!(!state.is_terminal(), "no turn to plan from the finished card {state:?}");
    let open = game.choices_in_card_order(state.filled);
    let mut best_value = [f64::NEG_INFINITY; NUM_ROLLS];
    let mut box_for_roll = [Category::Ones; NUM_ROLLS];
    for roll in RollId::all() {
        let values: Vec<(Category, f64)> =
            open.iter().filter_map(|&c| state.score(game, c, roll).map(|t| (c, finish(t)))).collect();
        let best = values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
        let first = values.iter().find(|v| v.1 >= best - TIE).expect("some box takes any roll");
        (best_value[roll.0 as usize], box_for_roll[roll.0 as usize]) = (best, first.0);
    }
    plan_keeps(best_value, box_for_roll)
}

/// The plan that scores each final roll in `box_for_roll`, worth `best_value`, and keeps
/// the dice that maximise its expected value.
fn plan_keeps(best_value: [f64; NUM_ROLLS], box_for_roll: [Category; NUM_ROLLS]) -> TurnPlan {
    let mut turn = TurnBuffer::<f64>::new(1);
    turn.score_rolls(&|roll: RollId, out: &mut [f64]| out[0] = best_value[roll.0 as usize]);
    let keep_after_second = best_keeps(&mut turn);
    let keep_after_first = best_keeps(&mut turn);
    TurnPlan { keep_after_first, keep_after_second, box_for_roll }
}

/// Runs an average phase (rerolling) and a choose phase on `turn`, and returns for each
/// roll the first sub-keep in [`KeepId`] order worth within [`TIE`] of the best.
fn best_keeps(turn: &mut TurnBuffer<f64>) -> [KeepId; NUM_ROLLS] {
    turn.average_keeps();
    let values: [f64; NUM_KEEPS] = std::array::from_fn(|k| turn.keep(KeepId(k as u16))[0]);
    // After the choose phase a roll holds the value of its best keep.
    turn.choose_keeps();
    std::array::from_fn(|r| {
        let best = turn.roll(RollId(r as u8))[0];
        let mut keeps = SUB_KEEPS.of(RollId(r as u8)).iter();
        *keeps.find(|k| values[k.0 as usize] >= best - TIE).expect("the best keep is within the roll")
    })
}

/// Values closer than this are tied. In the full official game the values of mathematically
/// equal options differ by less than 1e-13 (rounding), while the closest distinct options
/// differ by 4.4e-9.
pub const TIE: f64 = 1e-10;

/// The most points a box holds (a five of a kind's 50).
pub(super) const MAX_BOX_POINTS: usize = 50;

/// The distinct keeps within each roll, all in one list: roll by roll, each roll's keeps in
/// increasing [`KeepId`] order. A position in that list names a (roll, keep) pair, which
/// tables over the decisions of a turn can use as an index.
pub(crate) struct SubKeeps {
    /// `keeps[start[r]..start[r + 1]]`: the keeps within roll `r`, in increasing [`KeepId`] order.
    start: Vec<usize>,
    keeps: Vec<KeepId>,
    /// Bit `k` of `within[r]`: keep `k` is within roll `r`.
    within: Vec<[u64; NUM_KEEPS.div_ceil(64)]>,
}

impl SubKeeps {
    /// The keeps within `roll`, in increasing [`KeepId`] order.
    pub(crate) fn of(&self, roll: RollId) -> &[KeepId] {
        &self.keeps[self.positions(roll)]
    }

    /// The positions of `roll`'s keeps in the list of every roll's.
    pub(crate) fn positions(&self, roll: RollId) -> std::ops::Range<usize> {
        self.start[roll.0 as usize]..self.start[roll.0 as usize + 1]
    }

    /// The keep at `position` in the list of every roll's.
    pub(crate) fn at(&self, position: usize) -> KeepId {
        self.keeps[position]
    }

    /// The (roll, keep) pairs of all rolls: 4,368.
    pub(crate) fn len(&self) -> usize {
        self.keeps.len()
    }

    /// Whether `keep` can be taken from `roll`: [`KeepId::is_within`] by table.
    pub(super) fn contains(&self, roll: RollId, keep: KeepId) -> bool {
        let k = keep.0 as usize;
        self.within[roll.0 as usize].get(k / 64).is_some_and(|word| word >> (k % 64) & 1 == 1)
    }
}

/// The sub-keeps of every roll, built once.
pub(crate) static SUB_KEEPS: LazyLock<SubKeeps> = LazyLock::new(|| {
    let mut sub_keeps = SubKeeps { start: vec![0], keeps: Vec::new(), within: Vec::new() };
    for roll in RollId::all() {
        let mut within = [0u64; NUM_KEEPS.div_ceil(64)];
        for keep in KeepId::all().filter(|k| k.is_within(roll)) {
            sub_keeps.keeps.push(keep);
            within[keep.0 as usize / 64] |= 1 << (keep.0 % 64);
        }
        sub_keeps.start.push(sub_keeps.keeps.len());
        sub_keeps.within.push(within);
    }
    sub_keeps
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, parse_dice};
    use crate::solo::solve;

    #[test]
    fn optimal_plan_keeps_sixes_and_scores_them() {
        let game = Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() };
        let solution = solve(game);
        let plan = OptimalPolicy::solved(game, &solution).plan(ScoreState::start(game));
        let roll = parse_dice("6,6,6,2,1").unwrap();
        assert_eq!(plan.keep_after_first[roll.0 as usize].to_string(), "6,6,6");
        assert_eq!(plan.keep_after_second[roll.0 as usize].to_string(), "6,6,6");
        assert_eq!(plan.box_for_roll[roll.0 as usize], Category::Sixes);
        for roll in RollId::all() {
            let r = roll.0 as usize;
            assert!(plan.keep_after_first[r].is_within(roll) && plan.keep_after_second[r].is_within(roll));
        }
    }

    #[test]
    fn sub_keeps_count_the_multisets_within_a_roll() {
        // A roll with face counts c_i has Π (c_i + 1) distinct sub-multisets.
        for roll in RollId::all() {
            let expected: usize = roll.counts().iter().map(|&c| c as usize + 1).product();
            assert_eq!(SUB_KEEPS.of(roll).len(), expected, "{roll}");
            for keep in KeepId::all() {
                assert_eq!(SUB_KEEPS.contains(roll, keep), keep.is_within(roll), "{keep} in {roll}");
            }
        }
    }
}
