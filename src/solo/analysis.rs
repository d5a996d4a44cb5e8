//! Exact forward analysis of any deterministic solitaire strategy (Glenn 2007, §II-C,
//! Algorithm 3, and the score distribution of §II-D).
//!
//! The analysis pushes probability forward through the game, one layer of score states
//! (by the number of boxes filled) at a time. For each reached state it asks the policy for
//! its [`TurnPlan`] and plays the turn on distributions: the first roll, the keep, the
//! missing dice rerolled one at a time (a keep of `j` dice passes a sixth of its mass to
//! each keep of `j + 1`), the second keep and reroll, and the box. This gives the
//! probability of every (box, points) move out of the state, hence:
//!
//! - the distribution of the points written in each box (Glenn's `P_score(c, n)`, eq. 8),
//!   the chance of the upper bonus and the expected Extra Yahtzee Bonus;
//! - the exact distribution of the final score. Glenn adds the points scored so far to the
//!   state (his 123 million anchors); here each reached state carries a vector over the
//!   points scored so far, and a move adds its points by shifting that vector into the
//!   successor's.
//!
//! Only two layers are held at once. States of a layer are played in parallel, and each
//! state of the next layer gathers from its predecessors in a fixed order (box, then upper
//! total, then move), so the result does not depend on the number of threads. The optimal
//! strategy of the full game takes about 2.7 s on two cores and 175 MB, most of it in
//! planning the 188,153 turns it reaches.

use rayon::prelude::*;

use super::policy::{MAX_BOX_POINTS, Policy, SUB_KEEPS, TurnPlan};
use crate::game::dice::{NUM_PARTIAL_KEEPS, TABLES};
use crate::game::index::NUM_UPPER_TOTALS;
use crate::game::{
    ALL_CATEGORIES, Category, CategorySet, Game, KeepId, MAX_BOXES, NUM_KEEPS, NUM_ROLLS, RollId, ScoreState,
    StateIndex,
};
use crate::game::{Choice, RollsLeft};
use crate::progress::{Cancelled, Progress, Silent};

/// What a strategy scores, exactly: by box, bonuses, and in total.
#[derive(Clone, Debug)]
pub struct Analysis {
    game: Game,
    /// `boxes[c][n]`: probability that box `c` (card index) ends holding `n` points.
    boxes: Vec<[f64; MAX_BOX_POINTS + 1]>,
    upper_bonus_probability: f64,
    yahtzee_bonus_mean: f64,
    distribution: ScoreDistribution,
}

impl Analysis {
    /// The game analysed.
    pub fn game(&self) -> Game {
        self.game
    }

    /// Expected final score: the box means plus the bonus means.
    pub fn expected_score(&self) -> f64 {
        let boxes: f64 = ALL_CATEGORIES.iter().map(|&c| self.box_mean(c)).sum();
        boxes + self.upper_bonus_mean() + self.yahtzee_bonus_mean
    }

    /// `P(box c ends holding n points)` for `n` in `0..=50`. A box not in play holds 0.
    pub fn box_distribution(&self, category: Category) -> &[f64] {
        &self.boxes[category.index()]
    }

    /// Mean points written in a box.
    pub fn box_mean(&self, category: Category) -> f64 {
        self.box_distribution(category).iter().enumerate().map(|(n, p)| n as f64 * p).sum()
    }

    /// Variance of the points written in a box (of the exact distribution, not a sample).
    pub fn box_variance(&self, category: Category) -> f64 {
        let mean = self.box_mean(category);
        self.box_distribution(category).iter().enumerate().map(|(n, p)| (n as f64 - mean).powi(2) * p).sum()
    }

    /// Probability of earning the upper bonus.
    pub fn upper_bonus_probability(&self) -> f64 {
        self.upper_bonus_probability
    }

    /// Mean of the upper bonus: bonus · p (35 · p in Yahtzee).
    pub fn upper_bonus_mean(&self) -> f64 {
        self.game.rules.upper_bonus() as f64 * self.upper_bonus_probability
    }

    /// Variance of the upper bonus: bonus² · p · (1 − p).
    pub fn upper_bonus_variance(&self) -> f64 {
        let p = self.upper_bonus_probability;
        (self.game.rules.upper_bonus() as f64).powi(2) * p * (1.0 - p)
    }

    /// Expected Extra Yahtzee Bonus points in a game.
    pub fn yahtzee_bonus_mean(&self) -> f64 {
        self.yahtzee_bonus_mean
    }

    /// The distribution of the final score.
    pub fn distribution(&self) -> &ScoreDistribution {
        &self.distribution
    }
}

/// The exact distribution of a final score.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreDistribution {
    /// `probabilities[n]`: P(final score = n), up to the highest score with any probability.
    probabilities: Vec<f64>,
}

impl ScoreDistribution {
    /// `P(score = n)` for `n` in `0..len`, the last entry the highest score possible.
    pub fn probabilities(&self) -> &[f64] {
        &self.probabilities
    }

    /// Mean score.
    pub fn mean(&self) -> f64 {
        self.probabilities.iter().enumerate().map(|(n, p)| n as f64 * p).sum()
    }

    /// Variance of the score.
    pub fn variance(&self) -> f64 {
        let mean = self.mean();
        self.probabilities.iter().enumerate().map(|(n, p)| (n as f64 - mean).powi(2) * p).sum()
    }

    /// Standard deviation of the score.
    pub fn standard_deviation(&self) -> f64 {
        self.variance().sqrt()
    }

    /// `P(score ≥ n)`, summed over the scores at least `n` (accurate for tiny tails).
    pub fn at_least(&self, n: u32) -> f64 {
        // A fold from +0.0: an empty `sum()` of f64 is −0.0, which prints as "-0".
        self.probabilities.iter().skip(n as usize).fold(0.0, |total, p| total + p)
    }

    /// `P(score < n)`, summed over the scores below `n`: `1 − at_least(n)` without the
    /// cancellation when it is tiny.
    pub fn below(&self, n: u32) -> f64 {
        self.probabilities.iter().take(n as usize).fold(0.0, |total, p| total + p)
    }

    /// The `q`-th percentile (`q` in `0..=100`): the smallest possible score `n` with
    /// `P(score ≤ n) ≥ q / 100`.
    ///
    /// # Panics
    /// If `q` is outside `0..=100`.
    pub fn percentile(&self, q: f64) -> u32 {
        assert!((0.0..=100.0).contains(&q), "percentile {q} is not in 0..=100");
        let target = q / 100.0;
        let mut cumulative = 0.0;
        for (n, p) in self.probabilities.iter().enumerate() {
            cumulative += p;
            if *p > 0.0 && cumulative >= target {
                return n as u32;
            }
        }
        // Rounding left the total a hair below `target` (q = 100).
        self.probabilities.iter().rposition(|&p| p > 0.0).unwrap_or(0) as u32
    }

    /// The median: the 50th percentile.
    pub fn median(&self) -> u32 {
        self.percentile(50.0)
    }
}

/// Analyses `policy` playing `game` from the start: every box's score distribution, the
/// bonuses and the final-score distribution, exactly.
///
/// # Panics
/// If the policy keeps dice that are not in the roll or scores in a box that is filled or
/// that the rules forbid.
pub fn analyze<P: Policy + ?Sized>(game: Game, policy: &P) -> Analysis {
    analyze_with_progress(game, policy, &Silent).expect("progress reported to nobody is never cancelled")
}

/// [`analyze`], reporting each layer of filled boxes played to `progress`, and stopping
/// early where it is cancelled ([`analyze_from`]).
pub fn analyze_with_progress<P: Policy + ?Sized>(
    game: Game,
    policy: &P,
    progress: &dyn Progress,
) -> Result<Analysis, Cancelled> {
    analyze_from(game, policy, Start { state: ScoreState::start(game), points: 0, within: None }, progress)
}

/// A point within a turn: the dice showing, the rerolls still allowed, and the choice made
/// there (a keep, or a box to score the dice in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WithinTurn {
    /// The dice showing.
    pub roll: RollId,
    /// Rerolls still allowed.
    pub rolls_left: RollsLeft,
    /// The choice made.
    pub choice: Choice,
}

/// Where an analysis starts: a score state with the points already on the card, at the
/// start of a turn or at a point within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The score state.
    pub state: ScoreState,
    /// Points on the card so far, bonuses included.
    pub points: u32,
    /// Where the turn stands, if it has begun; the policy plays the rest of it.
    pub within: Option<WithinTurn>,
}

/// Analyses `policy` playing the rest of `game` from `start`. Boxes filled before the start
/// are not in [`Analysis::box_distribution`] (they hold no probability), and a bonus earned
/// before it is not in [`Analysis::upper_bonus_probability`] or the extra-bonus mean; the
/// score distribution is of the final total, the points before included. Once `progress`
/// is cancelled, the analysis stops within a state's turn and answers [`Cancelled`].
///
/// # Panics
/// As [`analyze`]; also if `start.within` keeps dice not in its roll, keeps with no reroll
/// left, or scores in a box the rules do not allow.
pub fn analyze_from<P: Policy + ?Sized>(
    game: Game,
    policy: &P,
    start: Start,
    progress: &dyn Progress,
) -> Result<Analysis, Cancelled> {
    let filled_before = start.state.filled.minus(game.absent()).len();
    progress.start("analysis", (game.categories.len() - filled_before) as u64, "turns");
    let upper = UpperTotals::new(game, policy.plays_by_state_class());
    let mut first = SlotStates::empty(start.state.filled, start.state.yahtzee_50);
    let u = upper.canonical(start.state.filled, start.state.upper_total) as usize;
    first.by_upper[u] = Some(Reached { probability: 1.0, lo: start.points, points: vec![1.0] });
    let mut layer = Layer::new(game, vec![first]);
    let mut within = start.within;
    let mut tally = Tally::default();
    for filled_in_play in filled_before..game.categories.len() {
        let tallies: Vec<Tally> = layer
            .slots
            .par_iter_mut()
            .map(
                |s| if progress.cancelled() { Tally::default() } else { s.play(game, policy, &upper, within.as_ref()) },
            )
            .collect();
        if progress.cancelled() {
            return Err(Cancelled);
        }
        within = None;
        for t in &tallies {
            tally.add(t);
        }
        let targets = game.layer_slots(filled_in_play + 1);
        let next: Vec<SlotStates> =
            targets.par_iter().filter_map(|&(filled, flag)| layer.gather(game, filled, flag)).collect();
        layer = Layer::new(game, next);
        tracing::debug!(filled_in_play, slots = layer.slots.len(), "layer analysed");
        progress.advance(1);
    }
    progress.finish();

    let hi = layer.states().map(|r| r.lo as usize + r.points.len()).max().unwrap_or(0);
    let mut probabilities = vec![0.0; hi];
    for reached in layer.states() {
        add_shifted(&mut probabilities[reached.lo as usize..], &reached.points, 1.0);
    }
    let mut boxes = tally.boxes;
    for c in game.absent().iter() {
        boxes[c.index()][0] = 1.0;
    }
    Ok(Analysis {
        game,
        boxes,
        upper_bonus_probability: tally.upper_bonus,
        yahtzee_bonus_mean: tally.yahtzee_bonus,
        distribution: ScoreDistribution { probabilities },
    })
}

/// Which upper total stands for each: itself, or the representative of its
/// [`StateIndex`] class when the policy plays by class.
struct UpperTotals {
    /// `canonical[m][u]` for the filled upper mask `m`; `None` for the identity.
    canonical: Option<Vec<[u8; NUM_UPPER_TOTALS]>>,
}

impl UpperTotals {
    fn new(game: Game, by_class: bool) -> UpperTotals {
        let canonical = by_class.then(|| {
            let index = StateIndex::new(game);
            (0..1u16 << 6)
                .map(|mask| {
                    let filled = CategorySet(mask).union(game.absent());
                    std::array::from_fn(|u| {
                        let state = ScoreState { filled, upper_total: u as u8, yahtzee_50: false };
                        index.id(state).map_or(u as u8, |id| index.state(id).upper_total)
                    })
                })
                .collect()
        });
        UpperTotals { canonical }
    }

    fn canonical(&self, filled: CategorySet, upper_total: u8) -> u8 {
        match &self.canonical {
            Some(table) => table[filled.upper_mask()][upper_total as usize],
            None => upper_total,
        }
    }
}

/// A reached score state: the probability of reaching it, and `points[i]`, the probability
/// of reaching it with `lo + i` points on the card.
#[derive(Debug)]
struct Reached {
    probability: f64,
    lo: u32,
    points: Vec<f64>,
}

/// A way out of a state: the box scored, the points earned (bonuses included), the
/// successor's upper total and Yahtzee flag, and its probability given the state.
#[derive(Clone, Copy, Debug)]
struct Move {
    category: Category,
    points: u32,
    next_upper: u8,
    next_flag: bool,
    probability: f64,
}

/// Box and bonus probabilities, summed over part of the analysis.
#[derive(Clone, Debug)]
struct Tally {
    boxes: Vec<[f64; MAX_BOX_POINTS + 1]>,
    upper_bonus: f64,
    yahtzee_bonus: f64,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally { boxes: vec![[0.0; MAX_BOX_POINTS + 1]; MAX_BOXES], upper_bonus: 0.0, yahtzee_bonus: 0.0 }
    }
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        for (mine, theirs) in self.boxes.iter_mut().zip(&other.boxes) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self.upper_bonus += other.upper_bonus;
        self.yahtzee_bonus += other.yahtzee_bonus;
    }
}

/// The reached states of one slot, by upper total, and after [`SlotStates::play`] their moves.
#[derive(Debug)]
struct SlotStates {
    filled: CategorySet,
    yahtzee_50: bool,
    by_upper: Vec<Option<Reached>>,
    moves: Vec<Vec<Move>>,
}

impl SlotStates {
    fn empty(filled: CategorySet, yahtzee_50: bool) -> SlotStates {
        SlotStates {
            filled,
            yahtzee_50,
            by_upper: (0..NUM_UPPER_TOTALS).map(|_| None).collect(),
            moves: vec![Vec::new(); NUM_UPPER_TOTALS],
        }
    }

    /// Plays the turn of every reached state, from `within` it where given (the start of
    /// an analysis), recording its moves; returns their tally.
    fn play<P: Policy + ?Sized>(
        &mut self,
        game: Game,
        policy: &P,
        upper: &UpperTotals,
        within: Option<&WithinTurn>,
    ) -> Tally {
        let mut tally = Tally::default();
        for (u, reached) in self.by_upper.iter().enumerate() {
            let Some(reached) = reached else { continue };
            let state = ScoreState { filled: self.filled, upper_total: u as u8, yahtzee_50: self.yahtzee_50 };
            let (plan, last) = planned_turn(policy, state, within);
            self.moves[u] = play_state(game, &plan, &last, state, reached.probability, upper, &mut tally);
        }
        tally
    }

    /// The moves of the state at upper total `u` that fill `category`.
    fn moves_into(&self, u: usize, category: Category) -> &[Move] {
        let moves = &self.moves[u];
        let start = moves.partition_point(|m| m.category < category);
        let end = moves.partition_point(|m| m.category <= category);
        &moves[start..end]
    }
}

/// One layer's slots, in slot order, with a lookup by slot.
struct Layer {
    game: Game,
    slots: Vec<SlotStates>,
    position: Vec<u32>,
}

impl Layer {
    fn new(game: Game, slots: Vec<SlotStates>) -> Layer {
        let mut position = vec![u32::MAX; game.num_slots()];
        for (i, s) in slots.iter().enumerate() {
            position[game.slot(s.filled, s.yahtzee_50)] = i as u32;
        }
        Layer { game, slots, position }
    }

    fn get(&self, filled: CategorySet, yahtzee_50: bool) -> Option<&SlotStates> {
        self.slots.get(self.position[self.game.slot(filled, yahtzee_50)] as usize)
    }

    fn states(&self) -> impl Iterator<Item = &Reached> {
        self.slots.iter().flat_map(|s| s.by_upper.iter().flatten())
    }

    /// The states of slot (`filled`, `yahtzee_50`) of the next layer, from this layer's
    /// moves into it: by box, then upper total, then move. `None` if none is reached.
    fn gather(&self, game: Game, filled: CategorySet, yahtzee_50: bool) -> Option<SlotStates> {
        // Each box just filled, with the slot it was filled from.
        let sources: Vec<(Category, &SlotStates)> = filled
            .minus(game.absent())
            .iter()
            .filter_map(|c| {
                let flag_before = yahtzee_50 && c != Category::Yahtzee;
                Some((c, self.get(CategorySet(filled.0 & !(1 << c.index())), flag_before)?))
            })
            .collect();
        let incoming = || {
            sources.iter().flat_map(move |&(c, source)| {
                let reached = source.by_upper.iter().enumerate().filter_map(|(u, r)| Some((u, r.as_ref()?)));
                reached.flat_map(move |(u, reached)| {
                    source.moves_into(u, c).iter().filter(move |m| m.next_flag == yahtzee_50).map(move |m| (reached, m))
                })
            })
        };
        let mut range = [(u32::MAX, 0u32); NUM_UPPER_TOTALS];
        for (reached, m) in incoming() {
            let (lo, hi) = &mut range[m.next_upper as usize];
            *lo = (*lo).min(reached.lo + m.points);
            *hi = (*hi).max(reached.lo + m.points + reached.points.len() as u32 - 1);
        }
        if range.iter().all(|&(lo, _)| lo == u32::MAX) {
            return None;
        }
        let mut states = SlotStates::empty(filled, yahtzee_50);
        for (slot, &(lo, hi)) in states.by_upper.iter_mut().zip(&range) {
            if lo != u32::MAX {
                *slot = Some(Reached { probability: 0.0, lo, points: vec![0.0; (hi - lo + 1) as usize] });
            }
        }
        for (reached, m) in incoming() {
            let target = states.by_upper[m.next_upper as usize].as_mut().expect("allocated in the range pass");
            target.probability += reached.probability * m.probability;
            let offset = (reached.lo + m.points - target.lo) as usize;
            add_shifted(&mut target.points[offset..], &reached.points, m.probability);
        }
        Some(states)
    }
}

/// `dst[i] += weight · src[i]` over `src`.
fn add_shifted(dst: &mut [f64], src: &[f64], weight: f64) {
    for (d, &s) in dst[..src.len()].iter_mut().zip(src) {
        *d += weight * s;
    }
}

/// The policy's plan of the turn from `state` and the probability of each final roll, for
/// the whole turn or for its rest from `within`.
fn planned_turn<P: Policy + ?Sized>(
    policy: &P,
    state: ScoreState,
    within: Option<&WithinTurn>,
) -> (TurnPlan, [f64; NUM_ROLLS]) {
    let mut plan = policy.plan(state);
    let Some(w) = within else {
        let last = final_rolls(&plan, state);
        return (plan, last);
    };
    let last = match w.choice {
        Choice::Score(category) => {
            plan.box_for_roll[w.roll.0 as usize] = category;
            std::array::from_fn(|r| if r == w.roll.0 as usize { 1.0 } else { 0.0 })
        }
        Choice::Keep(keep) => {
            let rolls_left = w.rolls_left.get();
            assert!(rolls_left > 0, "a keep with no reroll left in {state:?}");
            let mut mass = [0.0; NUM_KEEPS];
            mass[checked_keep(keep, w.roll, rolls_left, state)] = 1.0;
            reroll(&mut mass);
            if rolls_left == 2 {
                last_rolls(&plan, state, &mass)
            } else {
                std::array::from_fn(|r| mass[NUM_PARTIAL_KEEPS + r])
            }
        }
    };
    (plan, last)
}

/// Plays one turn by `plan` from `state`, reached with probability `reach` and ending in
/// the final rolls `last`: adds the box and bonus probabilities to `tally` and returns the
/// moves, ordered by box.
fn play_state(
    game: Game,
    plan: &TurnPlan,
    last: &[f64; NUM_ROLLS],
    state: ScoreState,
    reach: f64,
    upper: &UpperTotals,
    tally: &mut Tally,
) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut scored = |category: Category, roll: RollId, probability: f64| {
        let (Some(scoring), Some(t)) =
            (game.score(category, roll, state.filled, state.yahtzee_50), state.score(game, category, roll))
        else {
            panic!("the policy scores {roll} in {category} from {state:?}, which is filled or not allowed");
        };
        let weight = reach * probability;
        tally.boxes[category.index()][scoring.box_points as usize] += weight;
        if t.points > scoring.box_points + scoring.yahtzee_bonus {
            tally.upper_bonus += weight;
        }
        tally.yahtzee_bonus += weight * scoring.yahtzee_bonus as f64;
        let next_upper = upper.canonical(t.next.filled, t.next.upper_total);
        moves.push(Move { category, points: t.points, next_upper, next_flag: t.next.yahtzee_50, probability });
    };
    // Outside an extra Yahtzee a move depends only on the box and its printed points: such
    // rolls are grouped first, with one roll of each group to score.
    let extra_yahtzee_possible = game.extra_yahtzee_matters(state.filled);
    let points_table = game.rules.points_table();
    let mut groups = [[(0.0f64, RollId(0)); MAX_BOX_POINTS + 1]; MAX_BOXES];
    for roll in RollId::all() {
        let (r, probability) = (roll.0 as usize, last[roll.0 as usize]);
        if probability == 0.0 {
            continue;
        }
        let category = plan.box_for_roll[r];
        if extra_yahtzee_possible && roll.is_yahtzee() {
            scored(category, roll, probability);
        } else {
            let group = &mut groups[category.index()][points_table[category.index()][r] as usize];
            *group = (group.0 + probability, roll);
        }
    }
    for (c, by_points) in groups.iter().enumerate() {
        for &(probability, roll) in by_points.iter().filter(|g| g.0 > 0.0) {
            scored(Category::from_index(c), roll, probability);
        }
    }
    moves.sort_by_key(|m| m.category);
    moves
}

/// Probability of each final roll of a turn played by `plan` from `state`.
///
/// # Panics
/// If a keep the plan reaches is not within its roll.
pub(crate) fn final_rolls(plan: &TurnPlan, state: ScoreState) -> [f64; NUM_ROLLS] {
    let mut after_first = [0.0; NUM_KEEPS];
    for roll in RollId::all() {
        after_first[checked_keep(plan.keep_after_first[roll.0 as usize], roll, 2, state)] += roll.probability();
    }
    reroll(&mut after_first);
    last_rolls(plan, state, &after_first)
}

/// Probability of each final roll from the probability of each second roll (`second`, on
/// the rolls' entries): the plan's second keep and the last reroll.
fn last_rolls(plan: &TurnPlan, state: ScoreState, second: &[f64; NUM_KEEPS]) -> [f64; NUM_ROLLS] {
    let mut mass = [0.0; NUM_KEEPS];
    for roll in RollId::all() {
        let p = second[roll.as_keep().0 as usize];
        if p > 0.0 {
            mass[checked_keep(plan.keep_after_second[roll.0 as usize], roll, 1, state)] += p;
        }
    }
    reroll(&mut mass);
    std::array::from_fn(|r| mass[NUM_PARTIAL_KEEPS + r])
}

fn checked_keep(keep: KeepId, roll: RollId, rolls_left: u8, state: ScoreState) -> usize {
    assert!(
        SUB_KEEPS.contains(roll, keep),
        "the policy keeps {keep} from {roll} ({rolls_left} rolls left) in {state:?}"
    );
    keep.0 as usize
}

/// Rolls the missing dice of every keep, one die at a time: smallest keeps first, each
/// keep of fewer than five dice passes a sixth of its mass to each keep with one more die,
/// until only the rolls hold mass (Glenn §II-B's one-die-at-a-time keeps, run forward).
fn reroll(mass: &mut [f64; NUM_KEEPS]) {
    for keep in 0..NUM_PARTIAL_KEEPS {
        let m = std::mem::take(&mut mass[keep]);
        if m != 0.0 {
            let sixth = m / 6.0;
            for &next in &TABLES.add_die[keep] {
                mass[next as usize] += sixth;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerolling_everything_gives_the_roll_probabilities() {
        let mut mass = [0.0; NUM_KEEPS];
        mass[0] = 1.0;
        reroll(&mut mass);
        for roll in RollId::all() {
            let p = mass[roll.as_keep().0 as usize];
            assert!((p - roll.probability()).abs() < 1e-16, "{roll}: {p}");
        }
    }

    #[test]
    fn percentiles_of_a_small_distribution() {
        let d = ScoreDistribution { probabilities: vec![0.0, 0.25, 0.25, 0.5] };
        assert_eq!((d.percentile(0.0), d.percentile(25.0), d.median(), d.percentile(51.0)), (1, 1, 2, 3));
        assert_eq!(d.percentile(100.0), 3);
        assert_eq!((d.at_least(2), d.below(2)), (0.75, 0.25));
        assert!((d.mean() - 2.25).abs() < 1e-15);
        // Beyond the highest score the tail is +0, not the −0 an empty float sum gives.
        assert!(d.at_least(10).is_sign_positive() && d.below(0).is_sign_positive());
    }
}
