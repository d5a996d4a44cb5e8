//! The novice's Yahtzee-bonus strategy (Glenn 2007 §III-A): keep the face shown most, score
//! the most points this turn, and zero the hard boxes first, saving Yahtzee for last.
//!
//! Glenn describes it in words; our reading of what they leave open:
//!
//! - Of faces shown equally often, the higher is kept, every die of it (one die when all
//!   five differ); the keep is the same with two rerolls left and with one.
//! - The points of a turn are what the card gains: the box, the upper bonus if the turn
//!   crosses 63, and an Extra Yahtzee Bonus.
//! - Boxes from hardest to easiest to fill with a score: Yahtzee, Large Straight, Small
//!   Straight, Four of a Kind, Full House, Three of a Kind, the upper boxes (equally hard;
//!   from Ones up, where a zero costs least), Chance ([`HARDEST_FIRST`]). Equal points go to
//!   the harder box; with no points anywhere, the hardest box other than Yahtzee is zeroed,
//!   Yahtzee only when it is all that is left (or all the forced Joker allows). Taking the
//!   upper boxes from Sixes down instead averages 165.62 rather than 166.92 (Glenn:
//!   170.45); breaking ties between faces toward the lower, 154.20.

use super::rule_lists::one_face;
use crate::game::dice::NUM_FACES;
use crate::game::{Category, Game, KeepId, RollId, ScoreState};
use crate::solo::{Policy, TurnPlan};

use Category::*;

/// The boxes from the hardest to fill with a score to the easiest.
pub const HARDEST_FIRST: &[Category] = &[
    Yahtzee,
    LargeStraight,
    SmallStraight,
    FourOfAKind,
    FullHouse,
    ThreeOfAKind,
    Ones,
    Twos,
    Threes,
    Fours,
    Fives,
    Sixes,
    Chance,
];

/// The novice's strategy.
#[derive(Clone, Copy, Debug)]
pub struct Novice {
    game: Game,
}

impl Novice {
    /// The novice playing `game`.
    pub fn new(game: Game) -> Novice {
        Novice { game }
    }

    /// Every die of the face shown most, the higher of equals.
    pub fn keep(roll: RollId) -> KeepId {
        let counts = roll.counts();
        let face = (0..NUM_FACES).rev().max_by_key(|&f| (counts[f], f)).unwrap_or(0);
        KeepId::from_counts(one_face(face, counts[face]))
    }

    /// The box for `roll`: the most points, ties to the harder box; with no points, the
    /// hardest box, Yahtzee last.
    pub fn score_box(&self, state: ScoreState, roll: RollId) -> Category {
        let allowed = HARDEST_FIRST.iter().copied().filter_map(|c| Some((c, state.score(self.game, c, roll)?.points)));
        let (best, points) = allowed
            .clone()
            .fold(None, |best: Option<(Category, u32)>, (c, p)| match best {
                Some((_, q)) if q >= p => best,
                _ => Some((c, p)),
            })
            .expect("a non-terminal state has an open box the rules allow");
        if points > 0 {
            return best;
        }
        allowed.map(|(c, _)| c).find(|&c| c != Yahtzee).unwrap_or(best)
    }
}

impl Policy for Novice {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        TurnPlan::same_keeps(Novice::keep, |roll| self.score_box(state, roll))
    }

    fn plays_by_state_class(&self) -> bool {
        // The upper total matters only to the bonus crossed this turn, which merged totals share.
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{CategorySet, Rules, parse_dice};

    #[test]
    fn keeps_the_face_shown_most_and_scores_hard_boxes_first() {
        let keep = |dice: &str| Novice::keep(parse_dice(dice).unwrap()).to_string();
        assert_eq!(keep("1,1,2,2,3"), "2,2");
        assert_eq!(keep("1,2,3,4,6"), "6");
        assert_eq!(keep("5,5,5,6,6"), "5,5,5");
        let game = Game::full(Rules::OFFICIAL);
        let novice = Novice::new(game);
        let start = ScoreState::start(game);
        let score = |state: ScoreState, dice: &str| novice.score_box(state, parse_dice(dice).unwrap());
        assert_eq!(score(start, "6,6,6,6,1"), FourOfAKind);
        assert_eq!(score(start, "2,2,2,5,5"), FullHouse);
        let only = |boxes: &[Category]| ScoreState {
            filled: boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c)).complement(),
            ..start
        };
        assert_eq!(score(only(&[Ones, Yahtzee, FullHouse]), "2,3,4,5,5"), FullHouse);
        assert_eq!(score(only(&[Ones, Yahtzee]), "2,3,4,5,5"), Ones);
        assert_eq!(score(only(&[Yahtzee]), "2,3,4,5,5"), Yahtzee);
    }
}
