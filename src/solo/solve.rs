//! The optimal solitaire solve: expected future points of every score state.
//!
//! States are swept backward by the number of filled boxes. All states that share a
//! (filled set, Yahtzee flag) slot are solved by one turn with lanes over the upper
//! total (`DESIGN.md`): only scoring an upper box moves between lanes, as a shifted read
//! of the successor's vector. Slots of one layer are independent and run on rayon; every
//! lane's arithmetic is in a fixed order, so the result is bit-identical for any number
//! of threads.

use rayon::prelude::*;

use crate::game::category::{Category, CategorySet};
use crate::game::dice::NUM_FACES;
use crate::game::index::{NUM_SLOTS, NUM_UPPER_TOTALS, slot};
use crate::game::rules::{Game, UPPER_BONUS, UPPER_THRESHOLD};
use crate::game::{RollId, ScoreState};
use crate::turn::lanes::{max_of_plus, padded_lanes};
use crate::turn::simd::{self, SimdWork};
use crate::turn::{RollScorer, TurnBuffer};

const LANES: usize = NUM_UPPER_TOTALS;

/// Expected future points of every state of a game, as a lane vector over the upper
/// total per slot (`NUM_SLOTS × 64` numbers, 8 MiB).
#[derive(Clone, Debug)]
pub struct SoloSolution {
    game: Game,
    values: Vec<f64>,
}

impl SoloSolution {
    /// The game solved.
    pub fn game(&self) -> Game {
        self.game
    }

    /// Expected future points from `state` at the start of a turn under optimal play.
    ///
    /// # Panics
    /// If the state is not part of the game (see [`crate::game::StateIndex::id`]).
    pub fn value(&self, state: ScoreState) -> f64 {
        let v = self.row(state.filled, state.yahtzee_50)[state.upper_total as usize];
        assert!(!v.is_nan(), "state {state:?} is not part of the game");
        v
    }

    /// Expected final score from the start of the game.
    pub fn start_value(&self) -> f64 {
        self.value(ScoreState::start(self.game))
    }

    fn row(&self, filled: CategorySet, yahtzee_50: bool) -> &[f64] {
        let start = slot(filled, yahtzee_50) * LANES;
        &self.values[start..start + LANES]
    }
}

/// Solves every state of `game` by backward induction over filled-box layers.
pub fn solve(game: Game) -> SoloSolution {
    let mut values = vec![f64::NAN; NUM_SLOTS * LANES];
    let absent = game.absent();
    let open_at_start = game.categories.len();
    for filled_in_play in (0..=open_at_start).rev() {
        let slots: Vec<(CategorySet, bool)> = (0..1u32 << 13)
            .map(|m| CategorySet(m as u16))
            .filter(|f| f.is_superset(absent) && f.minus(absent).len() == filled_in_play)
            .flat_map(|f| {
                let flag_possible = f.contains(Category::Yahtzee) && game.categories.contains(Category::Yahtzee);
                [(f, false)].into_iter().chain(flag_possible.then_some((f, true)))
            })
            .collect();
        let rows: Vec<[f64; LANES]> = slots
            .par_iter()
            .map_init(
                || TurnBuffer::new(LANES),
                |buffer, &(filled, flag)| {
                    if filled == CategorySet::ALL {
                        [0.0; LANES]
                    } else {
                        simd::dispatch(SlotTurn { game, filled, flag, values: &values, buffer })
                    }
                },
            )
            .collect();
        for (&(filled, flag), row) in slots.iter().zip(&rows) {
            let start = slot(filled, flag) * LANES;
            values[start..start + LANES].copy_from_slice(row);
        }
        tracing::debug!(filled_in_play, slots = slots.len(), "layer solved");
    }
    SoloSolution { game, values }
}

/// The upper totals one slot must compute: `lo..=hi`. Totals above `hi` cannot occur;
/// totals below `lo` can no longer reach the bonus and share the value at `lo`.
fn lane_range(game: Game, filled: CategorySet) -> (usize, usize) {
    let filled_upper = filled.minus(game.absent()).upper_mask();
    let max_made: u32 = (0..NUM_FACES).filter(|f| filled_upper & (1 << f) != 0).map(|f| 5 * (f as u32 + 1)).sum();
    let max_left: u32 =
        (0..NUM_FACES).filter(|f| filled.upper_mask() & (1 << f) == 0).map(|f| 5 * (f as u32 + 1)).sum();
    let hi = max_made.min(UPPER_THRESHOLD) as usize;
    let highest_dead = (UPPER_THRESHOLD as i64 - 1 - max_left as i64).max(0) as usize;
    (highest_dead.min(hi), hi)
}

/// Widens `lo..=hi` to a multiple of [`BLOCK`](crate::turn::lanes::BLOCK) lanes, downward into totals that share
/// `lo`'s value where it can, else upward into totals that cannot occur (whose lanes hold
/// NaN and never mix with the others).
fn padded((lo, hi): (usize, usize)) -> (usize, usize) {
    let lanes = padded_lanes(hi - lo + 1);
    let lo = (hi + 1).saturating_sub(lanes).min(lo);
    (lo, lo + lanes - 1)
}

/// One turn of one slot: all upper totals at once.
struct SlotTurn<'a> {
    game: Game,
    filled: CategorySet,
    flag: bool,
    /// Values of the layers solved so far.
    values: &'a [f64],
    buffer: &'a mut TurnBuffer<f64>,
}

impl SimdWork for SlotTurn<'_> {
    type Output = [f64; LANES];

    #[inline(always)]
    fn run(self) -> [f64; LANES] {
        let SlotTurn { game, filled, flag, values, buffer } = self;
        solve_slot(game, filled, flag, values, buffer)
    }
}

#[inline(always)]
fn solve_slot(
    game: Game,
    filled: CategorySet,
    flag: bool,
    values: &[f64],
    buffer: &mut TurnBuffer<f64>,
) -> [f64; LANES] {
    let (lo, hi) = padded(lane_range(game, filled));
    let lanes = hi - lo + 1;
    buffer.set_lanes(lanes);
    let next_row = |c: Category, next_flag: bool| {
        let start = slot(filled.with(c), next_flag) * LANES;
        &values[start..start + LANES]
    };

    // Successor vectors per open box, already shifted to this slot's lanes. Upper boxes
    // get one vector per count of their face (0..=5), with the points and the upper bonus
    // folded in; lower boxes one vector each, by index − 6 (the Yahtzee box two, 7 and 8:
    // scored 0 or 50).
    let open: Vec<Category> = filled.complement().iter().collect();
    let mut upper_rows = vec![[0.0f64; LANES]; 6 * NUM_FACES];
    let mut lower_rows = vec![[0.0f64; LANES]; 9];
    for &c in &open {
        if let Some(face) = c.upper_face() {
            let next = next_row(c, flag);
            for count in 0..=5u32 {
                let points = count * face as u32;
                let row = &mut upper_rows[c.index() * 6 + count as usize];
                for (i, u) in (lo..=hi).enumerate() {
                    let after = (u as u32 + points).min(UPPER_THRESHOLD);
                    let bonus = if (u as u32) < UPPER_THRESHOLD && after == UPPER_THRESHOLD { UPPER_BONUS } else { 0 };
                    row[i] = (points + bonus) as f64 + next[after as usize];
                }
            }
        } else if c == Category::Yahtzee {
            lower_rows[7][..lanes].copy_from_slice(&next_row(c, false)[lo..=hi]);
            lower_rows[8][..lanes].copy_from_slice(&next_row(c, true)[lo..=hi]);
        } else {
            lower_rows[c.index() - NUM_FACES][..lanes].copy_from_slice(&next_row(c, flag)[lo..=hi]);
        }
    }

    let scorer =
        SlotScorer { game, filled, flag, open: &open, upper_rows: &upper_rows, lower_rows: &lower_rows, lanes };
    let mut out = [f64::NAN; LANES];
    buffer.solve(&scorer, &mut out[lo..=hi]);
    let dead = out[lo];
    out[..lo].fill(dead);
    out
}

/// Scores a roll in every open box of one slot, from the successor vectors prepared by
/// [`solve_slot`].
struct SlotScorer<'a> {
    game: Game,
    filled: CategorySet,
    flag: bool,
    open: &'a [Category],
    upper_rows: &'a [[f64; LANES]],
    lower_rows: &'a [[f64; LANES]],
    lanes: usize,
}

impl RollScorer<f64> for SlotScorer<'_> {
    #[inline(always)]
    fn score(&self, roll: RollId, dst: &mut [f64]) {
        let counts = roll.counts();
        let extra_yahtzee = roll.is_yahtzee() && self.filled.contains(Category::Yahtzee);
        let mut terms: [(&[f64], f64); 13] = [(&[], 0.0); 13];
        let mut count = 0;
        for &c in self.open {
            let (box_points, extra) = if extra_yahtzee {
                match self.game.score(c, roll, self.filled, self.flag) {
                    Some(s) => (s.box_points, s.yahtzee_bonus),
                    None => continue,
                }
            } else {
                (BASE_POINTS[c.index()][roll.0 as usize] as u32, 0)
            };
            terms[count] = if c.upper_face().is_some() {
                (&self.upper_rows[c.index() * 6 + counts[c.index()] as usize][..self.lanes], extra as f64)
            } else {
                let row = match c {
                    Category::Yahtzee => &self.lower_rows[7 + (box_points == 50) as usize],
                    _ => &self.lower_rows[c.index() - NUM_FACES],
                };
                (&row[..self.lanes], (box_points + extra) as f64)
            };
            count += 1;
        }
        max_of_plus(dst, &terms[..count]);
    }
}

/// Printed-pattern points of every (box, roll), built once.
static BASE_POINTS: std::sync::LazyLock<Vec<Vec<u8>>> = std::sync::LazyLock::new(|| {
    crate::game::ALL_CATEGORIES.iter().map(|c| RollId::all().map(|r| c.base_points(r) as u8).collect()).collect()
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;
    use crate::game::index::StateIndex;

    #[test]
    fn aces_alone_is_five_times_91_over_216() {
        let game = Game { rules: Rules::Official, categories: CategorySet(1) };
        let value = solve(game).start_value();
        assert!((value - 5.0 * 91.0 / 216.0).abs() < 1e-12, "{value}");
    }

    #[test]
    fn merged_totals_share_one_value() {
        let game = Game { rules: Rules::Official, categories: CategorySet::first(6).with(Category::Yahtzee) };
        let solution = solve(game);
        let index = StateIndex::new(game);
        for filled in (0..1u16 << 13).map(CategorySet).filter(|f| f.is_superset(game.absent())) {
            for u in 0..64u8 {
                let state = ScoreState { filled, upper_total: u, yahtzee_50: false };
                if let Some(id) = index.id(state) {
                    let representative = index.state(id);
                    assert_eq!(solution.value(state).to_bits(), solution.value(representative).to_bits());
                }
            }
        }
    }
}
