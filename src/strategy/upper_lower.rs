//! Glenn's upper and lower heuristic (2007, §III-B.2, Eq. 14): a state is worth the optimal
//! value of the upper-only game at its upper boxes and upper total plus that of the
//! lower-only game at its lower boxes and Yahtzee box, `2^6 · 64 + 2^6 · 3 = 4,288` numbers
//! in all for Yahtzee (`2^6 · 64 + 2^8 · 3` for Yatzy's eight other lower boxes).
//!
//! The two sub-games are the game's boxes split in two, each solved on its own by
//! [`crate::solo::solve()`] (the others count as filled, as Glenn views them). In a truncated
//! game a half with no box in play is worth 0.

use super::anchors::Anchored;
use crate::game::index::NUM_UPPER_TOTALS;
use crate::game::{Category, CategorySet, Game, ScoreState};
use crate::solo::{FutureValue, SolvedValues, solve};

/// Upper totals 0..=63.
const UPPER_TOTALS: usize = NUM_UPPER_TOTALS;

/// The values of Glenn's Eq. 14.
#[derive(Clone, Debug)]
pub struct UpperLowerValues {
    /// `upper[m][u]`: the upper-only game with the upper boxes of mask `m` filled and upper
    /// total `u`; NaN where that cannot occur. 64 · 64 numbers.
    upper: Vec<[f64; UPPER_TOTALS]>,
    /// `lower[m][y]`: the lower-only game with the boxes of `lower_boxes` in mask `m`
    /// filled and the Yahtzee box open (`y = 0`), holding 0 (`y = 1`) or 50 (`y = 2`);
    /// NaN where that cannot occur. 64 · 3 numbers for Yahtzee.
    lower: Vec<[f64; 3]>,
    /// The card's lower boxes other than the five-of-a-kind box, in card order: bit `i` of
    /// a lower mask.
    lower_boxes: Vec<Category>,
}

impl UpperLowerValues {
    /// Solves the upper-only and lower-only parts of `game`.
    pub fn solve(game: Game) -> UpperLowerValues {
        let upper_game = Game { rules: game.rules, categories: CategorySet(game.categories.0 & CategorySet::UPPER.0) };
        let lower_game = Game { rules: game.rules, categories: game.categories.minus(CategorySet::UPPER) };
        let solved = |part: Game| (!part.categories.is_empty()).then(|| solve(part));
        let lower_boxes: Vec<Category> =
            game.rules.card().iter().copied().filter(|c| c.upper_face().is_none() && *c != Category::Yahtzee).collect();
        let (upper_solution, lower_solution) = (solved(upper_game), solved(lower_game));
        let value = |solution: &Option<crate::solo::SoloSolution>, part: Game, state: ScoreState| {
            if !state.filled.is_superset(part.absent()) {
                f64::NAN
            } else {
                solution.as_ref().map_or(0.0, |s| s.value(state))
            }
        };
        let upper = (0..1u16 << 6)
            .map(|mask| {
                let filled = CategorySet(mask).union(upper_game.absent());
                // The most the filled upper boxes in play can hold; higher totals cannot occur.
                let highest = filled
                    .minus(upper_game.absent())
                    .iter()
                    .filter_map(|c| c.upper_face())
                    .map(|face| 5 * face as u32)
                    .sum::<u32>()
                    .min(game.rules.upper_threshold());
                std::array::from_fn(|u| {
                    let state = ScoreState { filled, upper_total: u as u8, yahtzee_50: false };
                    if u as u32 > highest { f64::NAN } else { value(&upper_solution, upper_game, state) }
                })
            })
            .collect();
        let lower = (0..1usize << lower_boxes.len())
            .map(|mask| {
                let boxes = boxes_of(&lower_boxes, mask).union(lower_game.absent());
                std::array::from_fn(|y| {
                    let filled = if y == 0 { boxes } else { boxes.with(Category::Yahtzee) };
                    let yahtzee_50 = y == 2;
                    if yahtzee_50 && !lower_game.categories.contains(Category::Yahtzee)
                        || y == 0 && lower_game.absent().contains(Category::Yahtzee)
                    {
                        return f64::NAN;
                    }
                    value(&lower_solution, lower_game, ScoreState { filled, upper_total: 0, yahtzee_50 })
                })
            })
            .collect();
        UpperLowerValues { upper, lower, lower_boxes }
    }

    /// How many numbers the heuristic keeps: Glenn's 4,288.
    pub fn count(&self) -> usize {
        self.upper.len() * UPPER_TOTALS + self.lower.len() * 3
    }
}

/// The set of the boxes of `boxes` in `mask` (bit `i` for `boxes[i]`).
fn boxes_of(boxes: &[Category], mask: usize) -> CategorySet {
    boxes.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).fold(CategorySet::EMPTY, |s, (_, &c)| s.with(c))
}

/// The mask of `boxes` (bit `i` for `boxes[i]`) filled in `filled`.
fn mask_of(boxes: &[Category], filled: CategorySet) -> usize {
    boxes.iter().enumerate().filter(|(_, c)| filled.contains(**c)).map(|(i, _)| 1 << i).sum()
}

impl FutureValue for UpperLowerValues {
    fn future_value(&self, state: ScoreState) -> f64 {
        let y = match (state.filled.contains(Category::Yahtzee), state.yahtzee_50) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        };
        self.upper[state.filled.upper_mask()][state.upper_total as usize]
            + self.lower[mask_of(&self.lower_boxes, state.filled)][y]
    }
}

/// The upper values of merged totals are the upper game's solved values, equal bit for
/// bit; the lower values do not depend on the upper total.
impl SolvedValues for UpperLowerValues {}

/// Glenn's upper and lower heuristic for `game`.
pub fn upper_lower(game: Game) -> Anchored<UpperLowerValues> {
    Anchored::solved(game, UpperLowerValues::solve(game))
}
