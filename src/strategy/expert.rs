//! Brown et al.'s expert system (`003_…`, §IV-B): a few rules an expert player follows.
//!
//! The paper gives the core rule and one refinement, and says more rules were added from
//! game logs without listing them. Our reading, every rule applied in this order:
//!
//! **Keeping** (the same after the first and the second roll):
//! 1. A Yahtzee is kept.
//! 2. Straights (the paper's "cornerstone" case, \[2,3,4,5,5\] with Large Straight open): with
//!    Large Straight open, five in a row are kept, and four in a row are kept with the fifth
//!    die rerolled; with only Small Straight open, four or five in a row are kept.
//! 3. A full house is kept while Full House is open.
//! 4. The core rule: keep every die of the most frequent face, ties to the higher face
//!    (\[3,3,5,6,6\] keeps the sixes). Only faces that can still pay count: every face while
//!    3K, 4K, Full House or Yahtzee is open, else only faces whose upper box is open.
//! 5. With no such face (only straights and Chance left): keep the longest run of distinct
//!    faces while a straight box is open, else the fours, fives and sixes for Chance.
//!
//! **Scoring**: the open box that earns the most points now (upper bonus and Extra Yahtzee
//! Bonus included), ties to the first in card order, Chance only when no other box earns
//! anything; when nothing earns points and Chance is filled, a zero goes in the first open
//! box of Glenn's fallback order (§III-A: 1, C, 2, Y, 4K, LS, SS, 3, FH, 4, 3K, 5, 6).
//!
//! Published: about 212 on the full game (1,000 simulated games) and 58.1735 on the
//! 6-round game (10,000), without Extra Yahtzee Bonus or Joker.

use super::rule_lists::FALLBACK_ORDER;
use crate::game::{Category, CategorySet, Game, KeepId, RollId, ScoreState};
use crate::solo::{Policy, TurnPlan};

/// Brown et al.'s expert system for one game.
#[derive(Clone, Copy, Debug)]
pub struct ExpertPolicy {
    game: Game,
}

impl ExpertPolicy {
    /// The expert for `game`.
    pub fn new(game: Game) -> ExpertPolicy {
        ExpertPolicy { game }
    }

    /// The dice kept from `roll` with boxes `open` open.
    pub fn keep(open: CategorySet, roll: RollId) -> KeepId {
        let counts = roll.counts();
        let (run_start, run) = longest_run(counts);
        let run_keep =
            |len: usize| KeepId::from_counts(std::array::from_fn(|f| u8::from(f >= run_start && f < run_start + len)));
        if roll.is_yahtzee() {
            return roll.as_keep();
        }
        if open.contains(Category::LargeStraight) && run >= 4 {
            return if run == 5 { roll.as_keep() } else { run_keep(4) };
        }
        if open.contains(Category::SmallStraight) && run >= 4 {
            return roll.as_keep();
        }
        if open.contains(Category::FullHouse) && counts.contains(&3) && counts.contains(&2) {
            return roll.as_keep();
        }
        let of_a_kind = [Category::ThreeOfAKind, Category::FourOfAKind, Category::FullHouse, Category::Yahtzee];
        let any_face = of_a_kind.iter().any(|&c| open.contains(c));
        let best_face = (0..6)
            .filter(|&f| counts[f] > 0 && (any_face || open.contains(Category::from_index(f))))
            .max_by_key(|&f| (counts[f], f));
        if let Some(face) = best_face {
            return KeepId::from_counts(std::array::from_fn(|f| if f == face { counts[f] } else { 0 }));
        }
        if open.contains(Category::LargeStraight) || open.contains(Category::SmallStraight) {
            return run_keep(run);
        }
        KeepId::from_counts(std::array::from_fn(|f| if f >= 3 { counts[f] } else { 0 }))
    }

    /// The box `roll` is scored in from `state`.
    pub fn score_box(&self, state: ScoreState, roll: RollId) -> Category {
        let points = |c: Category| state.score(self.game, c, roll).map(|t| t.points);
        let open = state.filled.complement();
        let best = open
            .iter()
            .filter(|&c| c != Category::Chance)
            .filter_map(|c| Some((points(c)?, c)))
            .filter(|&(p, _)| p > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        if let Some((_, c)) = best {
            return c;
        }
        if points(Category::Chance).is_some() {
            return Category::Chance;
        }
        // Chance is filled here, so the fallback order skips it.
        FALLBACK_ORDER.iter().copied().find(|&c| points(c).is_some()).expect("a non-terminal state has an allowed box")
    }
}

/// The first face (0-based) and length of the longest run of faces present in `counts`.
fn longest_run(counts: [u8; 6]) -> (usize, usize) {
    let (mut best, mut run) = ((0, 0), 0);
    for (f, &count) in counts.iter().enumerate() {
        run = if count > 0 { run + 1 } else { 0 };
        if run > best.1 {
            best = (f + 1 - run, run);
        }
    }
    best
}

impl Policy for ExpertPolicy {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        let open = state.filled.complement();
        TurnPlan::from_fn(|roll, _| ExpertPolicy::keep(open, roll), |roll| self.score_box(state, roll))
    }

    /// Play depends on the upper total only through the points of a move, and upper totals
    /// that [`crate::game::StateIndex`] merges earn the same points on every move.
    fn plays_by_state_class(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, parse_dice};

    fn keep(open: CategorySet, dice: &str) -> String {
        ExpertPolicy::keep(open, parse_dice(dice).unwrap()).to_string()
    }

    #[test]
    fn keeps_follow_the_papers_examples() {
        let all = CategorySet::ALL;
        // §IV-B: [3,3,3,5,6] rerolls the 5 and 6; [3,3,5,6,6] keeps the sixes.
        assert_eq!(keep(all, "3,3,3,5,6"), "3,3,3");
        assert_eq!(keep(all, "3,3,5,6,6"), "6,6");
        // The cornerstone case: [2,3,4,5,5] with Large Straight open rerolls a 5.
        assert_eq!(keep(all, "2,3,4,5,5"), "2,3,4,5");
        let ls_filled = CategorySet::EMPTY.with(Category::LargeStraight).complement();
        assert_eq!(keep(ls_filled, "2,3,4,5,5"), "2,3,4,5,5");
        // Upper boxes only: a filled box's face is not pursued.
        let no_sixes = CategorySet(0b01_1111);
        assert_eq!(keep(no_sixes, "1,6,6,6,2"), "2");
    }

    #[test]
    fn scores_the_most_points_and_scratches_in_order() {
        let game = Game::full(Rules::NO_BONUS);
        let expert = ExpertPolicy::new(game);
        let start = ScoreState::start(game);
        assert_eq!(expert.score_box(start, parse_dice("5,5,5,2,2").unwrap()), Category::FullHouse);
        assert_eq!(expert.score_box(start, parse_dice("1,2,3,4,6").unwrap()), Category::SmallStraight);
        let only = |c: &[Category]| ScoreState {
            filled: c.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c)).complement(),
            ..start
        };
        let zero = parse_dice("1,1,2,2,3").unwrap();
        assert_eq!(expert.score_box(only(&[Category::Sixes, Category::Chance]), zero), Category::Chance);
        assert_eq!(expert.score_box(only(&[Category::Sixes, Category::Yahtzee]), zero), Category::Yahtzee);
    }
}
