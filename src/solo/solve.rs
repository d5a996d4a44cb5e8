//! The optimal solitaire solve: expected future points of every score state.
//!
//! States are swept backward by the number of filled boxes. All states that share a
//! (filled set, Yahtzee flag) slot are solved by one turn with lanes over the upper
//! total (`DESIGN.md`): only scoring an upper box moves between lanes, as a shifted read
//! of the successor's vector, laid out once per count of the face with the bonus folded
//! in; every other box adds its points ([`Shift::Add`]). The slots run through the shared
//! layer driver ([`sweep_backward`]); every lane's arithmetic is in a fixed order, so the
//! result is bit-identical for any number of threads.

use crate::game::Game;
use crate::game::ScoreState;
use crate::game::category::{Category, CategorySet};
use crate::game::dice::NUM_FACES;
use crate::game::index::NUM_UPPER_TOTALS;
use crate::progress::{Progress, Silent};
use crate::turn::lanes::padded_lanes;
use crate::turn::simd::{self, SimdWork};
use crate::turn::sweep::sweep_backward;
use crate::turn::{ScoringPlan, Shift, TurnBuffer};

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
    solve_reporting(game, &Silent)
}

/// [`solve`], reporting to `progress` each slot (a turn over every upper total) solved:
/// for a page that draws a progress bar while the browser solves.
pub fn solve_reporting(game: Game, progress: &dyn Progress) -> SoloSolution {
    assert!(game.is_valid(), "{game:?} plays boxes its rules do not have");
    let mut values = vec![f64::NAN; game.num_slots() * LANES];
    let layers: Vec<_> =
        (0..=game.categories.len()).rev().map(|filled_in_play| game.layer_slots(filled_in_play)).collect();
    progress.start("solitaire table", layers.iter().map(|layer| layer.len() as u64).sum(), "slots");
    sweep_backward(
        &mut values,
        layers,
        progress,
        || SlotScratch { buffer: TurnBuffer::new(LANES), plan: ScoringPlan::new(Shift::Add), rows: Vec::new() },
        |values, scratch, &(filled, flag)| {
            if filled == CategorySet::ALL {
                [0.0; LANES]
            } else {
                simd::dispatch(SlotTurn { game, filled, flag, values, scratch })
            }
        },
        |values, slots, rows| {
            for (&(filled, flag), row) in slots.iter().zip(&rows) {
                let start = game.slot(filled, flag) * LANES;
                values[start..start + LANES].copy_from_slice(row);
            }
            tracing::debug!(slots = slots.len(), "layer solved");
        },
    );
    progress.finish();
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

/// A successor row of a slot's turn: the box scored and, for an upper box, the count of
/// its face (the upper total moves inside the row, the bonus folded in); for the
/// five-of-a-kind box where the game tracks it, 1 when it is scored with its points.
type SuccessorRow = (Category, u8);

/// Per-thread working memory of the solve.
struct SlotScratch {
    buffer: TurnBuffer<f64>,
    plan: ScoringPlan<SuccessorRow>,
    rows: Vec<Vec<f64>>,
}

/// One turn of one slot: all upper totals at once.
struct SlotTurn<'a> {
    game: Game,
    filled: CategorySet,
    flag: bool,
    /// Values of the layers solved so far.
    values: &'a [f64],
    scratch: &'a mut SlotScratch,
}

impl SimdWork for SlotTurn<'_> {
    type Output = [f64; LANES];

    #[inline(always)]
    fn run(self) -> [f64; LANES] {
        let SlotTurn { game, filled, flag, values, scratch } = self;
        let (lo, hi) = padded(lane_range(game, filled));
        let lanes = hi - lo + 1;
        let tracks_flag = game.tracks_yahtzee_50();
        scratch.plan.build(game.rules.roll_classes(), game.choices(filled).iter(), |c, roll| {
            let scoring = game.score(c, roll, filled, flag)?;
            Some(match c.upper_face() {
                Some(_) => ((c, roll.counts()[c.index()]), scoring.yahtzee_bonus),
                None => {
                    let with_points = c == Category::Yahtzee && tracks_flag && scoring.box_points > 0;
                    ((c, with_points as u8), scoring.box_points + scoring.yahtzee_bonus)
                }
            })
        });
        let next_row = |c: Category, next_flag: bool| {
            let start = game.slot(filled.with(c), next_flag) * LANES;
            &values[start..start + LANES]
        };
        let (threshold, upper_bonus) = (game.rules.upper_threshold(), game.rules.upper_bonus());
        let successors = scratch.plan.successors();
        scratch.rows.resize_with(scratch.rows.len().max(successors.len()), Vec::new);
        for (row, &(c, n)) in scratch.rows.iter_mut().zip(successors) {
            row.clear();
            match c.upper_face() {
                // Scoring `n` of the face: its points and the bonus if they reach the
                // threshold, then the successor at the new total.
                Some(face) => {
                    let next = next_row(c, flag);
                    let points = n as u32 * face as u32;
                    row.extend((lo..=hi).map(|u| {
                        let after = (u as u32 + points).min(threshold);
                        let bonus = if (u as u32) < threshold && after == threshold { upper_bonus } else { 0 };
                        (points + bonus) as f64 + next[after as usize]
                    }));
                }
                None => {
                    let next_flag = if c == Category::Yahtzee && tracks_flag { n == 1 } else { flag };
                    row.extend_from_slice(&next_row(c, next_flag)[lo..=hi]);
                }
            }
        }
        let scorer = scratch.plan.scorer(&scratch.rows[..successors.len()], 0, lanes);
        scratch.buffer.set_lanes(lanes);
        let mut out = [f64::NAN; LANES];
        scratch.buffer.solve(&scorer, &mut out[lo..=hi]);
        let dead = out[lo];
        out[..lo].fill(dead);
        out
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
