//! Score states (what of a card matters for the future) and score cards as a player writes them.

use std::fmt;

use serde::Serialize;

use super::category::{ALL_CATEGORIES, Category, CategorySet};
use super::dice::{NUM_FACES, RollId};
use super::rules::{Game, Scoring, UPPER_BONUS, UPPER_THRESHOLD, YAHTZEE_BONUS};

/// What of a card matters for the rest of the game (Glenn §II-A, Pawlewicz §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScoreState {
    /// Boxes already filled (boxes not in play count as filled with 0).
    pub filled: CategorySet,
    /// Upper-section total, capped at 63 (only the threshold matters beyond it).
    pub upper_total: u8,
    /// The Yahtzee box holds 50, so further Yahtzees earn the Extra Yahtzee Bonus.
    pub yahtzee_50: bool,
}

/// A state's successor and the points earned on the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The state after scoring.
    pub next: ScoreState,
    /// Box points plus the upper bonus (if the threshold was crossed) plus any Extra Yahtzee Bonus.
    pub points: u32,
}

impl ScoreState {
    /// The start of `game`: absent boxes filled with 0, nothing else.
    pub fn start(game: Game) -> ScoreState {
        ScoreState { filled: game.absent(), upper_total: 0, yahtzee_50: false }
    }

    /// Whether every box is filled.
    pub fn is_terminal(self) -> bool {
        self.filled == CategorySet::ALL
    }

    /// Scores `roll` in `category`, or `None` if the box is filled or the rules forbid it.
    pub fn score(self, game: Game, category: Category, roll: RollId) -> Option<Transition> {
        game.score(category, roll, self.filled, self.yahtzee_50).map(|scoring| self.apply(category, scoring))
    }

    /// Writes `scoring` in `category`, an open box where [`Game::score`] gave it.
    pub fn apply(self, category: Category, scoring: Scoring) -> Transition {
        let mut next = ScoreState { filled: self.filled.with(category), ..self };
        let mut points = scoring.box_points + scoring.yahtzee_bonus;
        if category.upper_face().is_some() {
            let before = self.upper_total as u32;
            let after = (before + scoring.box_points).min(UPPER_THRESHOLD);
            if before < UPPER_THRESHOLD && after == UPPER_THRESHOLD {
                points += UPPER_BONUS;
            }
            next.upper_total = after as u8;
        }
        if category == Category::Yahtzee {
            next.yahtzee_50 = scoring.box_points == 50;
        }
        Transition { next, points }
    }
}

/// Why a score card was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// An entry not of the form `name=points`.
    #[error("card entry {0:?} is not of the form box=points (e.g. ones=3,fh=25,bonus=100)")]
    Syntax(String),
    /// A box name that does not exist.
    #[error(
        "unknown box {0:?}; expected one of ones, twos, threes, fours, fives, sixes, 3k, 4k, fh, ss, ls, yahtzee, chance, bonus"
    )]
    UnknownBox(String),
    /// The same box twice.
    #[error("box {0} appears more than once on the card")]
    Repeated(&'static str),
    /// A box that is not part of the game being played.
    #[error("box {0} is not in play in this game (its categories are {1})")]
    NotInGame(&'static str, String),
    /// A score that box cannot hold.
    #[error("{category}={points} is impossible: {category} can hold {expected}")]
    ImpossibleScore {
        /// The box.
        category: &'static str,
        /// The score given.
        points: u32,
        /// The scores it can hold, in words.
        expected: String,
    },
    /// An Extra Yahtzee Bonus that cannot have been earned.
    #[error("bonus={0} is impossible: {1}")]
    ImpossibleBonus(u32, String),
}

/// A score card as written: the points in each filled box and the Extra Yahtzee Bonus earned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Card {
    /// Points per box, by card index; `None` for an empty box.
    pub boxes: [Option<u32>; 13],
    /// Extra Yahtzee Bonus points earned so far (a multiple of 100).
    pub bonus: u32,
}

impl Card {
    /// Parses `ones=3,twos=6,fh=25,yahtzee=50,bonus=100` (empty text for a new card) and
    /// checks each score against what its box can hold in `game`.
    pub fn parse(text: &str, game: Game) -> Result<Card, CardError> {
        let mut card = Card::default();
        let mut bonus_seen = false;
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, value) = entry.split_once('=').ok_or_else(|| CardError::Syntax(entry.into()))?;
            let points: u32 = value.trim().parse().map_err(|_| CardError::Syntax(entry.into()))?;
            if name.trim().eq_ignore_ascii_case("bonus") {
                if std::mem::replace(&mut bonus_seen, true) {
                    return Err(CardError::Repeated("bonus"));
                }
                card.bonus = points;
                continue;
            }
            let category = Category::parse(name).ok_or_else(|| CardError::UnknownBox(name.trim().into()))?;
            if !game.categories.contains(category) {
                return Err(CardError::NotInGame(category.name(), game.categories.names().join(",")));
            }
            let slot = &mut card.boxes[category.index()];
            if slot.is_some() {
                return Err(CardError::Repeated(category.name()));
            }
            check_box_score(category, points)?;
            *slot = Some(points);
        }
        card.check_bonus(game)?;
        Ok(card)
    }

    fn check_bonus(&self, game: Game) -> Result<(), CardError> {
        let bonus = self.bonus;
        if bonus == 0 {
            return Ok(());
        }
        let why = if !game.rules.has_yahtzee_bonus() {
            format!("the {} rules have no Extra Yahtzee Bonus", game.rules)
        } else if !bonus.is_multiple_of(YAHTZEE_BONUS) {
            "it must be a multiple of 100".to_string()
        } else if self.boxes[Category::Yahtzee.index()] != Some(50) {
            "it is earned only while the Yahtzee box holds 50".to_string()
        } else {
            let later_boxes = self.boxes.iter().flatten().count() as u32 - 1;
            if bonus / YAHTZEE_BONUS <= later_boxes {
                return Ok(());
            }
            format!("only {later_boxes} box(es) were filled after the Yahtzee box")
        };
        Err(CardError::ImpossibleBonus(bonus, why))
    }

    /// The boxes filled in play (absent boxes are not listed here).
    pub fn filled_in_play(&self) -> CategorySet {
        ALL_CATEGORIES.iter().filter(|c| self.boxes[c.index()].is_some()).fold(CategorySet::EMPTY, |s, &c| s.with(c))
    }

    /// Sum of the upper boxes, uncapped.
    pub fn upper_sum(&self) -> u32 {
        self.boxes[..NUM_FACES].iter().flatten().sum()
    }

    /// Points on the card: boxes, upper bonus if earned, Extra Yahtzee Bonus.
    pub fn points(&self) -> u32 {
        let boxes: u32 = self.boxes.iter().flatten().sum();
        let upper_bonus = if self.upper_sum() >= UPPER_THRESHOLD { UPPER_BONUS } else { 0 };
        boxes + upper_bonus + self.bonus
    }

    /// The score state of this card in `game`.
    pub fn state(&self, game: Game) -> ScoreState {
        ScoreState {
            filled: self.filled_in_play().union(game.absent()),
            upper_total: self.upper_sum().min(UPPER_THRESHOLD) as u8,
            yahtzee_50: self.boxes[Category::Yahtzee.index()] == Some(50),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut entries: Vec<String> =
            ALL_CATEGORIES.iter().filter_map(|c| self.boxes[c.index()].map(|p| format!("{c}={p}"))).collect();
        if self.bonus > 0 {
            entries.push(format!("bonus={}", self.bonus));
        }
        f.write_str(&entries.join(","))
    }
}

/// Rejects a score that no roll (Joker included) can put in `category`.
fn check_box_score(category: Category, points: u32) -> Result<(), CardError> {
    let joker = match category {
        Category::FullHouse => Some(25),
        Category::SmallStraight => Some(30),
        Category::LargeStraight => Some(40),
        _ => None,
    };
    let possible = |p: u32| {
        p == 0 && category != Category::Chance
            || joker == Some(p)
            || RollId::all().any(|r| category.base_points(r) == p)
    };
    if possible(points) {
        return Ok(());
    }
    let expected = match category.upper_face() {
        Some(face) => format!("a multiple of {face} from 0 to {}", 5 * face),
        None => match category {
            Category::ThreeOfAKind | Category::FourOfAKind => "0 or a dice sum from 5 to 30".into(),
            Category::Chance => "a dice sum from 5 to 30".into(),
            _ => format!("0 or {}", joker.unwrap_or(50)),
        },
    };
    Err(CardError::ImpossibleScore { category: category.name(), points, expected })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::Rules;

    const OFFICIAL: Game = Game { rules: Rules::Official, categories: CategorySet::ALL };

    #[test]
    fn card_gives_state_and_points() {
        let card = Card::parse("ones=3,twos=6,sixes=30,fives=25,fh=25,yahtzee=50,bonus=100", OFFICIAL).unwrap();
        let state = card.state(OFFICIAL);
        assert_eq!(state.upper_total, 63);
        assert!(state.yahtzee_50);
        assert_eq!(card.points(), 3 + 6 + 30 + 25 + 25 + 50 + 35 + 100);
    }

    #[test]
    fn impossible_cards_are_named() {
        let err = |text| Card::parse(text, OFFICIAL).unwrap_err().to_string();
        assert!(err("ones=7").contains("ones=7 is impossible"));
        assert!(err("fh=20").contains("0 or 25"));
        assert!(err("sixes=4").contains("multiple of 6"));
        assert!(err("sevens=1").contains("unknown box"));
        assert!(err("ones=1,ones=2").contains("more than once"));
        assert!(err("chance=0").contains("dice sum"));
        assert!(err("yahtzee=0,bonus=100").contains("holds 50"));
        assert!(err("yahtzee=50,bonus=100").contains("only 0 box"));
        assert!(err("ones").contains("box=points"));
        let first_six = Game { rules: Rules::Official, categories: CategorySet::first(6) };
        assert!(Card::parse("fh=25", first_six).unwrap_err().to_string().contains("not in play"));
    }

    #[test]
    fn upper_bonus_is_paid_once_on_crossing() {
        let game = OFFICIAL;
        let state = ScoreState { upper_total: 60, ..ScoreState::start(game) };
        let sixes = RollId::from_faces([6, 6, 1, 2, 3]);
        let t = state.score(game, Category::Sixes, sixes).unwrap();
        assert_eq!((t.points, t.next.upper_total), (12 + 35, 63));
        let t2 = t.next.score(game, Category::Ones, sixes).unwrap();
        assert_eq!((t2.points, t2.next.upper_total), (1, 63));
    }
}
