//! The rule-based strategy of Glenn 2007 §III-A: the keep rules of Table V and the scoring
//! rules of Table VI, the first rule that matches being followed, and for a roll no scoring
//! rule takes, the first open box in the order 1, C, 2, Y, 4K, LS, SS, 3, FH, 4, 3K, 5, 6.
//!
//! Glenn states the rules in words; where they leave a choice open, we read them so:
//!
//! - "A tripleton" and "a doubleton" are a face shown at least three, at least two times,
//!   and keeping one keeps every die of that face; "a singleton" keeps one die.
//! - "Any doubleton" without a stated preference prefers the higher face, as the other
//!   doubleton rules do; "[2 3 4] or [3 4 5]" keeps 2, 3, 4 when both are there.
//! - "Yahtzee" keeps a five of a kind; "Large Straight" keeps a straight of five;
//!   "Small Straight" keeps the four dice of a run of four and rerolls the fifth.
//! - "The Yahtzee Joker is applicable": the rules have a Joker, the Yahtzee box and the
//!   face's upper box are filled. "Yahtzee is non-zero": the Yahtzee box holds 50.
//! - The keep rules are the same with two rerolls left and with one.
//! - A scoring rule matches only if its box is open, the rules allow it (the forced Joker)
//!   and the roll scores more than 0 there; "it earns the bonus" means the upper total
//!   reaches 63 with it. "Four 5's or four 6's" and "three 5's or three 6's" are at least
//!   that many.
//! - The fallback order skips boxes the forced Joker forbids.

use std::sync::LazyLock;

use crate::game::dice::{FaceCounts, NUM_FACES};
use crate::game::{ALL_CATEGORIES, Category, Game, KeepId, RollId, ScoreState};
use crate::solo::{Policy, TurnPlan};

use Category::*;

/// The order of Glenn's fallback when no scoring rule matches.
pub const FALLBACK_ORDER: &[Category] = &[
    Ones,
    Chance,
    Twos,
    Yahtzee,
    FourOfAKind,
    LargeStraight,
    SmallStraight,
    Threes,
    FullHouse,
    Fours,
    ThreeOfAKind,
    Fives,
    Sixes,
];

/// The Table V and VI strategy.
#[derive(Clone, Copy, Debug)]
pub struct RuleLists {
    game: Game,
}

impl RuleLists {
    /// The rule lists playing `game`.
    pub fn new(game: Game) -> RuleLists {
        RuleLists { game }
    }

    /// The dice kept from `roll` (Table V).
    pub fn keep(&self, state: ScoreState, roll: RollId) -> KeepId {
        KeepId::from_counts(self.keep_counts(state, roll))
    }

    fn keep_counts(&self, state: ScoreState, roll: RollId) -> FaceCounts {
        let open = |c: Category| !state.filled.contains(c);
        let RollFaces { counts, at_least, run } = ROLL_FACES[roll.0 as usize];
        let all_of = |face: usize| one_face(face, counts[face]);
        // Bit f: the upper box of face f + 1 is open.
        let upper_open = !state.filled.upper_mask() as u8 & 0b11_1111;
        let straight_wanted = open(SmallStraight) || open(LargeStraight) && open(Chance);

        if at_least[5] != 0 {
            let joker =
                self.game.rules.joker() != crate::game::Joker::None && !open(Yahtzee) && at_least[5] & upper_open == 0;
            if open(Yahtzee) || joker {
                return counts;
            }
        }
        if run.1 == 5 && (open(LargeStraight) || open(SmallStraight)) {
            return counts;
        }
        if run.1 >= 4 && straight_wanted {
            return run_counts(run);
        }
        if at_least[3] & upper_open != 0 {
            return all_of(lowest(at_least[3] & upper_open));
        }
        if at_least[3] != 0 && [ThreeOfAKind, FourOfAKind, FullHouse, Chance].into_iter().any(open) {
            return all_of(lowest(at_least[3]));
        }
        if at_least[2] & upper_open != 0 {
            return all_of(highest(at_least[2] & upper_open));
        }
        if straight_wanted {
            for low in [1, 2] {
                if (low..low + 3).all(|f| counts[f] > 0) {
                    return run_counts((low, 3));
                }
            }
        }
        if at_least[2] != 0 && (open(ThreeOfAKind) || open(Chance)) {
            return all_of(highest(at_least[2]));
        }
        if at_least[3] != 0 && (open(Yahtzee) || state.yahtzee_50) {
            return all_of(highest(at_least[3]));
        }
        if upper_open.count_ones() <= 4 && at_least[1] & upper_open != 0 {
            return one_face(lowest(at_least[1] & upper_open), 1);
        }
        if at_least[2] != 0 {
            return all_of(highest(at_least[2]));
        }
        let high_singles = at_least[1] & 0b11_1000;
        if high_singles != 0 && [ThreeOfAKind, FourOfAKind, Chance].into_iter().any(open) {
            return one_face(highest(high_singles), 1);
        }
        [0; NUM_FACES]
    }

    /// The box `roll` is scored in (Table VI, then the fallback order).
    pub fn score_box(&self, state: ScoreState, roll: RollId) -> Category {
        let counts = roll.counts();
        let box_points = ALL_CATEGORIES.map(|c| self.game.score(c, roll, state.filled, state.yahtzee_50));
        let points = |c: Category| box_points[c.index()].map(|s| s.box_points);
        let scores = |c: Category| points(c).is_some_and(|p| p > 0);
        let sum: u32 = counts.iter().enumerate().map(|(f, &n)| (f as u32 + 1) * n as u32).sum();
        let upper_with =
            |n: u8| (0..NUM_FACES).filter(move |&f| counts[f] >= n).map(|f| Category::upper_for_face(f as u8 + 1));
        let threshold = self.game.rules.upper_threshold();
        let earns_bonus = |c: Category| {
            let total = state.upper_total as u32;
            total < threshold && points(c).is_some_and(|p| total + p >= threshold)
        };
        let high_upper = |n: u8| upper_with(n).filter(|c| matches!(c, Fives | Sixes)).find(|&c| scores(c));
        let rules = [
            Some(Yahtzee),
            Some(LargeStraight),
            Some(SmallStraight),
            upper_with(3).find(|&c| scores(c) && earns_bonus(c)),
            high_upper(4),
            Some(FourOfAKind),
            high_upper(3),
            Some(FullHouse),
            (sum >= 22).then_some(ThreeOfAKind),
            upper_with(3).find(|&c| scores(c)),
            Some(ThreeOfAKind),
            (sum >= 22).then_some(Chance),
            upper_with(2).find(|&c| scores(c)),
        ];
        rules
            .into_iter()
            .flatten()
            .find(|&c| scores(c))
            .or_else(|| FALLBACK_ORDER.iter().copied().find(|&c| points(c).is_some()))
            .expect("a non-terminal state has an open box the rules allow")
    }
}

impl Policy for RuleLists {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        // The keep rules do not depend on the rerolls left.
        TurnPlan::same_keeps(|roll| self.keep(state, roll), |roll| self.score_box(state, roll))
    }

    fn plays_by_state_class(&self) -> bool {
        // The upper total matters only to "it earns the bonus", which merged totals share.
        true
    }
}

/// What the keep rules read of a roll.
#[derive(Clone, Copy, Debug)]
struct RollFaces {
    counts: FaceCounts,
    /// `at_least[n]`, bit `f`: face index `f` shows at least `n` dice (`n` in 1..=5).
    at_least: [u8; 6],
    /// The longest run of consecutive faces (see [`longest_run`]).
    run: (usize, usize),
}

/// [`RollFaces`] of every roll, by [`RollId`].
static ROLL_FACES: LazyLock<Vec<RollFaces>> = LazyLock::new(|| {
    RollId::all()
        .map(|roll| {
            let counts = roll.counts();
            let at_least =
                std::array::from_fn(|n| (0..NUM_FACES).filter(|&f| counts[f] as usize >= n).map(|f| 1 << f).sum());
            RollFaces { counts, at_least, run: longest_run(counts) }
        })
        .collect()
});

/// The lowest face index in a non-empty mask.
fn lowest(mask: u8) -> usize {
    mask.trailing_zeros() as usize
}

/// The highest face index in a non-empty mask.
fn highest(mask: u8) -> usize {
    7 - mask.leading_zeros() as usize
}

/// `n` dice of face index `face`.
pub(super) fn one_face(face: usize, n: u8) -> FaceCounts {
    let mut counts = [0; NUM_FACES];
    counts[face] = n;
    counts
}

/// The longest run of consecutive faces, as (lowest face index, length); the lowest such run.
fn longest_run(counts: FaceCounts) -> (usize, usize) {
    let (mut best, mut start) = ((0, 0), 0);
    for (f, &count) in counts.iter().enumerate() {
        if count == 0 {
            start = f + 1;
        } else if f + 1 - start > best.1 {
            best = (start, f + 1 - start);
        }
    }
    best
}

/// One die of each face of a run (lowest face index, length).
fn run_counts((low, length): (usize, usize)) -> FaceCounts {
    std::array::from_fn(|f| (low..low + length).contains(&f) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{CategorySet, Rules, parse_dice};

    fn keep(filled: &[Category], dice: &str) -> String {
        let game = Game::full(Rules::OFFICIAL);
        let filled = filled.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c));
        let state = ScoreState { filled, upper_total: 0, yahtzee_50: false };
        RuleLists::new(game).keep(state, parse_dice(dice).unwrap()).to_string()
    }

    #[test]
    fn table_v_keeps() {
        assert_eq!(keep(&[], "3,3,3,3,3"), "3,3,3,3,3");
        assert_eq!(keep(&[], "2,3,4,5,6"), "2,3,4,5,6");
        assert_eq!(keep(&[], "1,2,3,4,6"), "1,2,3,4");
        assert_eq!(keep(&[], "2,5,5,5,6"), "5,5,5");
        assert_eq!(keep(&[], "2,2,5,5,6"), "5,5");
        assert_eq!(keep(&[Fives], "2,2,5,5,6"), "2,2");
        assert_eq!(keep(&[], "2,3,4,6,6"), "6,6");
        assert_eq!(keep(&[Sixes], "2,3,4,6,6"), "2,3,4");
        // Five upper boxes open: no singleton for them; a high singleton for 3K.
        assert_eq!(keep(&[Ones], "1,2,3,5,6"), "6");
        assert_eq!(keep(&[Ones, Twos], "1,2,3,5,6"), "3");
    }

    #[test]
    fn table_vi_scores() {
        let game = Game::full(Rules::OFFICIAL);
        let rules = RuleLists::new(game);
        let start = ScoreState::start(game);
        let score = |dice: &str| rules.score_box(start, parse_dice(dice).unwrap());
        assert_eq!(score("4,4,4,4,4"), Yahtzee);
        assert_eq!(score("5,5,5,5,2"), Fives);
        assert_eq!(score("4,4,4,4,2"), FourOfAKind);
        assert_eq!(score("2,2,2,5,5"), FullHouse);
        assert_eq!(score("2,2,2,6,5"), Twos);
        assert_eq!(score("6,6,1,2,4"), Sixes);
        assert_eq!(score("1,2,4,5,6"), Ones);
        let late = ScoreState { upper_total: 55, ..start };
        assert_eq!(rules.score_box(late, parse_dice("3,3,3,6,5").unwrap()), Threes);
    }
}
