//! The optimal solitaire solve: expected future points of every score state.
//!
//! States are swept backward by the number of filled boxes. All states that share a
//! (filled set, Yahtzee flag) slot are solved by one turn with lanes over the upper
//! total (`DESIGN.md`): only scoring an upper box moves between lanes, as a shifted read
//! of the successor's vector. Slots of one layer are independent and run on rayon; every
//! lane's arithmetic is in a fixed order, so the result is bit-identical for any number
//! of threads.

use rayon::prelude::*;

use crate::game::category::{Category, CategorySet, MAX_BOXES};
use crate::game::dice::NUM_FACES;
use crate::game::index::NUM_UPPER_TOTALS;
use crate::game::rules::Game;
use crate::game::{PointsTable, RollId, ScoreState};
use crate::turn::lanes::{max_of_plus, padded_lanes};
use crate::turn::simd::{self, SimdWork};
use crate::turn::{RollScorer, TurnBuffer};

const LANES: usize = NUM_UPPER_TOTALS;

/// Expected future points of every state of a game, as a lane vector over the upper
/// total per slot (64 numbers per slot: 8 MiB for Yahtzee, 16 MiB for Yatzy).
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
        let start = self.game.slot(filled, yahtzee_50) * LANES;
        &self.values[start..start + LANES]
    }
}

/// Solves every state of `game` by backward induction over filled-box layers.
///
/// # Panics
/// If the game plays a box its rules do not have ([`Game::is_valid`]).
pub fn solve(game: Game) -> SoloSolution {
    assert!(game.is_valid(), "{game:?} plays boxes its rules do not have");
    let mut values = vec![f64::NAN; game.num_slots() * LANES];
    let points = game.rules.points_table();
    for filled_in_play in (0..=game.categories.len()).rev() {
        let slots = game.layer_slots(filled_in_play);
        let rows: Vec<[f64; LANES]> = slots
            .par_iter()
            .map_init(
                || TurnBuffer::new(LANES),
                |buffer, &(filled, flag)| {
                    if filled == CategorySet::ALL {
                        [0.0; LANES]
                    } else {
                        simd::dispatch(SlotTurn { game, points, filled, flag, values: &values, buffer })
                    }
                },
            )
            .collect();
        for (&(filled, flag), row) in slots.iter().zip(&rows) {
            let start = game.slot(filled, flag) * LANES;
            values[start..start + LANES].copy_from_slice(row);
        }
        tracing::debug!(filled_in_play, slots = slots.len(), "layer solved");
    }
    SoloSolution { game, values }
}

/// The upper totals one slot must compute: `lo..=hi`. Totals above `hi` cannot occur;
/// totals below `lo` can no longer reach the bonus and share the value at `lo`.
fn lane_range(game: Game, filled: CategorySet) -> (usize, usize) {
    let threshold = game.rules.upper_threshold();
    let filled_upper = filled.minus(game.absent()).upper_mask();
    let max_made: u32 = (0..NUM_FACES).filter(|f| filled_upper & (1 << f) != 0).map(|f| 5 * (f as u32 + 1)).sum();
    let max_left: u32 =
        (0..NUM_FACES).filter(|f| filled.upper_mask() & (1 << f) == 0).map(|f| 5 * (f as u32 + 1)).sum();
    let hi = max_made.min(threshold) as usize;
    let highest_dead = (threshold as i64 - 1 - max_left as i64).max(0) as usize;
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
    /// [`crate::game::Rules::points_table`].
    points: &'a PointsTable,
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
        let SlotTurn { game, points, filled, flag, values, buffer } = self;
        solve_slot(game, points, filled, flag, values, buffer)
    }
}

#[inline(always)]
fn solve_slot(
    game: Game,
    points: &PointsTable,
    filled: CategorySet,
    flag: bool,
    values: &[f64],
    buffer: &mut TurnBuffer<f64>,
) -> [f64; LANES] {
    let (lo, hi) = padded(lane_range(game, filled));
    let lanes = hi - lo + 1;
    buffer.set_lanes(lanes);
    let next_row = |c: Category, next_flag: bool| {
        let start = game.slot(filled.with(c), next_flag) * LANES;
        &values[start..start + LANES]
    };
    let (threshold, upper_bonus) = (game.rules.upper_threshold(), game.rules.upper_bonus());

    // Successor vectors per box the player may fill, already shifted to this slot's lanes.
    // Upper boxes get one vector per count of their face (0..=5), with the points and the
    // upper bonus folded in; other boxes one vector each, by box index (the
    // five-of-a-kind box a second one, at `MAX_BOXES`, for scoring it with its points
    // where the game tracks that).
    let open: Vec<Category> = game.choices(filled).iter().collect();
    let mut upper_rows = vec![[0.0f64; LANES]; 6 * NUM_FACES];
    let mut lower_rows = vec![[0.0f64; LANES]; MAX_BOXES + 1];
    for &c in &open {
        if let Some(face) = c.upper_face() {
            let next = next_row(c, flag);
            for count in 0..=5u32 {
                let points = count * face as u32;
                let row = &mut upper_rows[c.index() * 6 + count as usize];
                for (i, u) in (lo..=hi).enumerate() {
                    let after = (u as u32 + points).min(threshold);
                    let bonus = if (u as u32) < threshold && after == threshold { upper_bonus } else { 0 };
                    row[i] = (points + bonus) as f64 + next[after as usize];
                }
            }
        } else if c == Category::Yahtzee && game.tracks_yahtzee_50() {
            lower_rows[c.index()][..lanes].copy_from_slice(&next_row(c, false)[lo..=hi]);
            lower_rows[MAX_BOXES][..lanes].copy_from_slice(&next_row(c, true)[lo..=hi]);
        } else {
            lower_rows[c.index()][..lanes].copy_from_slice(&next_row(c, flag)[lo..=hi]);
        }
    }

    let scorer = SlotScorer {
        game,
        points,
        filled,
        flag,
        extra_yahtzee_matters: game.extra_yahtzee_matters(filled),
        open: &open,
        upper_rows: &upper_rows,
        lower_rows: &lower_rows,
        lanes,
    };
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
    points: &'a PointsTable,
    filled: CategorySet,
    flag: bool,
    extra_yahtzee_matters: bool,
    open: &'a [Category],
    upper_rows: &'a [[f64; LANES]],
    lower_rows: &'a [[f64; LANES]],
    lanes: usize,
}

impl RollScorer<f64> for SlotScorer<'_> {
    #[inline(always)]
    fn score(&self, roll: RollId, dst: &mut [f64]) {
        let counts = roll.counts();
        let extra_yahtzee = self.extra_yahtzee_matters && roll.is_yahtzee();
        let mut terms: [(&[f64], f64); MAX_BOXES] = [(&[], 0.0); MAX_BOXES];
        let mut count = 0;
        for &c in self.open {
            let (box_points, extra) = if extra_yahtzee {
                match self.game.score(c, roll, self.filled, self.flag) {
                    Some(s) => (s.box_points, s.yahtzee_bonus),
                    None => continue,
                }
            } else {
                (self.points[c.index()][roll.0 as usize] as u32, 0)
            };
            terms[count] = if c.upper_face().is_some() {
                (&self.upper_rows[c.index() * 6 + counts[c.index()] as usize][..self.lanes], extra as f64)
            } else {
                let scored_flag_row = c == Category::Yahtzee && box_points > 0 && self.game.tracks_yahtzee_50();
                let row = &self.lower_rows[if scored_flag_row { MAX_BOXES } else { c.index() }];
                (&row[..self.lanes], (box_points + extra) as f64)
            };
            count += 1;
        }
        max_of_plus(dst, &terms[..count]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;
    use crate::game::index::StateIndex;

    #[test]
    fn aces_alone_is_five_times_91_over_216() {
        let game = Game { rules: Rules::OFFICIAL, categories: CategorySet(1) };
        let value = solve(game).start_value();
        assert!((value - 5.0 * 91.0 / 216.0).abs() < 1e-12, "{value}");
    }

    #[test]
    fn merged_totals_share_one_value() {
        let game = Game { rules: Rules::OFFICIAL, categories: CategorySet::UPPER.with(Category::Yahtzee) };
        let solution = solve(game);
        let index = StateIndex::new(game);
        for filled in game.filled_sets() {
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
