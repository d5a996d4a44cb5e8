//! Score states (what of a card matters for the future) and score cards as a player writes them.

use std::fmt;

use serde::Serialize;

use super::category::{Category, CategorySet, MAX_BOXES};
use super::dice::{NUM_FACES, RollId};
use super::scoring::{Game, Scoring};

/// What of a card matters for the rest of the game (Glenn §II-A, Pawlewicz §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScoreState {
    /// Boxes already filled (boxes not in play count as filled with 0).
    pub filled: CategorySet,
    /// Upper-section total, capped at the rules' threshold (only it matters beyond).
    pub upper_total: u8,
    /// The five-of-a-kind box holds its points, so further ones earn the extra bonus
    /// (always `false` under rules without one).
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

/// What writing dice in a box earns now, the box's points apart from the bonuses that come
/// with them: a card shows the first in the box and the others elsewhere (the bonus line,
/// the upper bonus), so a page shows them apart too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Earned {
    /// Points written in the box.
    pub box_points: u32,
    /// Bonuses earned with them: the Extra Yahtzee Bonus, and the upper bonus where this
    /// box brings the upper total to the threshold.
    pub bonus_points: u32,
    /// Both together: what the card's total gains ([`Transition::points`]).
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

    /// Whether a game at `self` may come to `later` (or is there): boxes are only ever
    /// filled, the upper total only grows, and the five-of-a-kind box's 50 is kept once
    /// written, never written once the box is filled otherwise. Every successor of a state
    /// it holds for holds it too, so these states are a game of their own: the game below
    /// a position.
    pub fn may_lead_to(self, later: ScoreState) -> bool {
        let yahtzee_settled = self.filled.contains(Category::Yahtzee);
        later.filled.is_superset(self.filled)
            && later.upper_total >= self.upper_total
            && (later.yahtzee_50 || !self.yahtzee_50)
            && (!yahtzee_settled || later.yahtzee_50 == self.yahtzee_50)
    }

    /// Scores `roll` in `category`, or `None` if the box is filled or the rules forbid it.
    pub fn score(self, game: Game, category: Category, roll: RollId) -> Option<Transition> {
        game.score(category, roll, self.filled, self.yahtzee_50).map(|scoring| self.apply(game, category, scoring))
    }

    /// What scoring `roll` in `category` earns, box and bonuses apart, or `None` if the box is
    /// filled or the rules forbid it.
    pub fn earned(self, game: Game, category: Category, roll: RollId) -> Option<Earned> {
        let scoring = game.score(category, roll, self.filled, self.yahtzee_50)?;
        let points = self.apply(game, category, scoring).points;
        Some(Earned { box_points: scoring.box_points, bonus_points: points - scoring.box_points, points })
    }

    /// Writes `scoring` in `category`, an open box where [`Game::score`] gave it.
    pub fn apply(self, game: Game, category: Category, scoring: Scoring) -> Transition {
        let mut next = ScoreState { filled: self.filled.with(category), ..self };
        let mut points = scoring.box_points + scoring.yahtzee_bonus;
        if category.upper_face().is_some() {
            let threshold = game.rules.upper_threshold();
            let before = self.upper_total as u32;
            let after = (before + scoring.box_points).min(threshold);
            if before < threshold && after == threshold {
                points += game.rules.upper_bonus();
            }
            next.upper_total = after as u8;
        }
        if category == Category::Yahtzee && game.tracks_yahtzee_50() {
            next.yahtzee_50 = scoring.box_points > 0;
        }
        Transition { next, points }
    }
}

/// Why a score card was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// An entry not of the form `name=points`.
    #[error("card entry {} is not of the form box=points (e.g. ones=3,fh=25,bonus=100)", crate::quote::quote(.0))]
    Syntax(String),
    /// A box name that the rules do not have.
    #[error("unknown box {}{}; the {rules} rules have {expected}", crate::quote::quote(name), super::suggest::did_you_mean(name, expected.split(", ")))]
    UnknownBox {
        /// The name given.
        name: String,
        /// The rule set's name.
        rules: &'static str,
        /// Its box names and `bonus`, comma-separated.
        expected: String,
    },
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

/// A score card as written: the points in each filled box and the extra bonus earned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// The game the card is played in.
    pub game: Game,
    /// Points per box, by [`Category::index`]; `None` for an empty box.
    pub boxes: [Option<u32>; MAX_BOXES],
    /// Extra Yahtzee Bonus points earned so far (a multiple of the rules' extra bonus).
    pub bonus: u32,
}

impl Card {
    /// A new card of `game`.
    pub fn new(game: Game) -> Card {
        Card { game, boxes: [None; MAX_BOXES], bonus: 0 }
    }

    /// Parses `ones=3,twos=6,fh=25,yahtzee=50,bonus=100` (empty text for a new card) and
    /// checks each score against what its box can hold in `game`.
    pub fn parse(text: &str, game: Game) -> Result<Card, CardError> {
        let mut card = Card::new(game);
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
            let category = game.rules.parse_box(name).map_err(|_| CardError::UnknownBox {
                name: name.trim().into(),
                rules: game.rules.name(),
                expected: format!("{}, bonus", game.rules.box_names()),
            })?;
            if !game.categories.contains(category) {
                return Err(CardError::NotInGame(game.rules.box_name(category), game.box_names().join(",")));
            }
            let slot = &mut card.boxes[category.index()];
            if slot.is_some() {
                return Err(CardError::Repeated(game.rules.box_name(category)));
            }
            if !game.rules.can_hold(category, points) {
                let expected = game.rules.describe_scores(category);
                return Err(CardError::ImpossibleScore { category: game.rules.box_name(category), points, expected });
            }
            *slot = Some(points);
        }
        card.check_bonus()?;
        Ok(card)
    }

    fn check_bonus(&self) -> Result<(), CardError> {
        let (bonus, rules) = (self.bonus, self.game.rules);
        if bonus == 0 {
            return Ok(());
        }
        let five_of_a_kind = rules.pattern(Category::Yahtzee).map_or(0, |p| p.points(RollId::from_faces([1; 5])));
        let why = if !rules.has_extra_bonus() {
            format!("the {rules} rules have no Extra Yahtzee Bonus")
        } else if !bonus.is_multiple_of(rules.extra_bonus()) {
            format!("it must be a multiple of {}", rules.extra_bonus())
        } else if self.boxes[Category::Yahtzee.index()] != Some(five_of_a_kind) {
            format!("it is earned only while the Yahtzee box holds {five_of_a_kind}")
        } else {
            let later_boxes = self.boxes.iter().flatten().count() as u32 - 1;
            if bonus / rules.extra_bonus() <= later_boxes {
                return Ok(());
            }
            format!("only {later_boxes} box(es) were filled after the Yahtzee box")
        };
        Err(CardError::ImpossibleBonus(bonus, why))
    }

    /// The boxes filled in play (absent boxes are not listed here).
    pub fn filled_in_play(&self) -> CategorySet {
        self.game.card().filter(|c| self.boxes[c.index()].is_some()).fold(CategorySet::EMPTY, |s, c| s.with(c))
    }

    /// Sum of the upper boxes, uncapped.
    pub fn upper_sum(&self) -> u32 {
        self.boxes[..NUM_FACES].iter().flatten().sum()
    }

    /// The upper bonus earned so far: the rules' bonus once the upper boxes reach the
    /// threshold, else 0.
    pub fn upper_bonus(&self) -> u32 {
        let rules = self.game.rules;
        if self.upper_sum() >= rules.upper_threshold() { rules.upper_bonus() } else { 0 }
    }

    /// Points on the card: boxes, upper bonus if earned, extra bonus.
    pub fn points(&self) -> u32 {
        let boxes: u32 = self.boxes.iter().flatten().sum();
        boxes + self.upper_bonus() + self.bonus
    }

    /// Writes `scoring` in the open box `category`, as [`Game::score`] gave it for this
    /// card: its points in the box and any Extra Yahtzee Bonus added to the bonus.
    pub fn write(&mut self, category: Category, scoring: Scoring) {
        debug_assert!(self.boxes[category.index()].is_none(), "{category} is already filled");
        self.boxes[category.index()] = Some(scoring.box_points);
        self.bonus += scoring.yahtzee_bonus;
    }

    /// The score state of this card.
    pub fn state(&self) -> ScoreState {
        let game = self.game;
        ScoreState {
            filled: self.filled_in_play().union(game.absent()),
            upper_total: self.upper_sum().min(game.rules.upper_threshold()) as u8,
            yahtzee_50: game.tracks_yahtzee_50() && self.boxes[Category::Yahtzee.index()].is_some_and(|p| p > 0),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut entries: Vec<String> = self
            .game
            .card()
            .filter_map(|c| self.boxes[c.index()].map(|p| format!("{}={p}", self.game.rules.box_name(c))))
            .collect();
        if self.bonus > 0 {
            entries.push(format!("bonus={}", self.bonus));
        }
        f.write_str(&entries.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::Rules;

    fn official() -> Game {
        Game::full(Rules::OFFICIAL)
    }

    /// Every successor of every state of the full game is a state it may lead to, and a
    /// state leads to itself; a box emptied, a lower upper total or a lost 50 do not.
    #[test]
    fn a_state_leads_to_its_successors() {
        let game = official();
        let index = crate::game::StateIndex::new(game);
        for id in (0..index.len() as u32).step_by(7) {
            let state = index.state(crate::game::StateId(id));
            assert!(state.may_lead_to(state));
            for c in state.filled.complement().iter() {
                for roll in RollId::all() {
                    if let Some(t) = state.score(game, c, roll) {
                        assert!(state.may_lead_to(t.next), "{state:?} to {:?}", t.next);
                        assert!(!t.next.may_lead_to(state), "{:?} back to {state:?}", t.next);
                    }
                }
            }
        }
        let card = |text| Card::parse(text, game).unwrap().state();
        assert!(!card("yahtzee=0").may_lead_to(ScoreState { yahtzee_50: true, ..card("yahtzee=0,ones=1") }));
        assert!(!card("sixes=18").may_lead_to(ScoreState { upper_total: 12, ..card("sixes=18,ones=0") }));
        assert!(card("yahtzee=50").may_lead_to(card("yahtzee=50,fh=25")));
    }

    #[test]
    fn card_gives_state_and_points() {
        let card = Card::parse("ones=3,twos=6,sixes=30,fives=25,fh=25,yahtzee=50,bonus=100", official()).unwrap();
        let state = card.state();
        assert_eq!(state.upper_total, 63);
        assert!(state.yahtzee_50);
        assert_eq!(card.points(), 3 + 6 + 30 + 25 + 25 + 50 + 35 + 100);
    }

    #[test]
    fn impossible_cards_are_named() {
        let err = |text| Card::parse(text, official()).unwrap_err().to_string();
        assert!(err("ones=7").contains("ones=7 is impossible"));
        assert!(err("fh=20").contains("0 or 25"));
        assert!(err("sixes=4").contains("multiple of 6"));
        assert!(err("sevens=1").contains("unknown box"));
        assert!(err("ones=1,ones=2").contains("more than once"));
        assert!(err("chance=0").contains("dice sum"));
        assert!(err("yahtzee=0,bonus=100").contains("holds 50"));
        assert!(err("yahtzee=50,bonus=100").contains("only 0 box"));
        assert!(err("ones").contains("box=points"));
        let first_six = Game::first(Rules::OFFICIAL, 6).unwrap();
        assert!(Card::parse("fh=25", first_six).unwrap_err().to_string().contains("not in play"));
    }

    #[test]
    fn upper_bonus_is_paid_once_on_crossing() {
        let game = official();
        let state = ScoreState { upper_total: 60, ..ScoreState::start(game) };
        let sixes = RollId::from_faces([6, 6, 1, 2, 3]);
        let t = state.score(game, Category::Sixes, sixes).unwrap();
        assert_eq!((t.points, t.next.upper_total), (12 + 35, 63));
        let t2 = t.next.score(game, Category::Ones, sixes).unwrap();
        assert_eq!((t2.points, t2.next.upper_total), (1, 63));
        let earned = state.earned(game, Category::Sixes, sixes).unwrap();
        assert_eq!((earned.box_points, earned.bonus_points, earned.points), (12, 35, 47));
    }

    #[test]
    fn the_extra_bonus_is_earned_apart_from_the_box() {
        let card = Card::parse("ones=3,fh=25,yahtzee=50", official()).unwrap();
        let sixes = RollId::from_faces([6; 5]);
        let earned = |c| card.state().earned(official(), c, sixes);
        assert_eq!(earned(Category::Sixes), Some(Earned { box_points: 30, bonus_points: 100, points: 130 }));
        // The Joker: a large straight for 40, and the bonus beside it.
        let no_joker = Earned { box_points: 0, bonus_points: 100, points: 100 };
        assert_eq!(earned(Category::LargeStraight), Some(no_joker), "sixes open: no Joker, but the bonus");
        let joker = Card::parse("ones=3,sixes=24,fh=25,yahtzee=50", official()).unwrap();
        let earned = joker.state().earned(official(), Category::LargeStraight, sixes);
        assert_eq!(earned, Some(Earned { box_points: 40, bonus_points: 100, points: 140 }));
        assert_eq!(card.state().earned(official(), Category::Ones, sixes), None, "ones is filled");
    }
}
