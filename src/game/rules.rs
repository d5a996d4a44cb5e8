//! Rule variants and the game being played (rules plus the boxes in play).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::category::{Category, CategorySet};
use super::dice::RollId;

/// Points for reaching the upper-section threshold.
pub const UPPER_BONUS: u32 = 35;
/// Upper total that earns [`UPPER_BONUS`]; upper totals are capped here.
pub const UPPER_THRESHOLD: u32 = 63;
/// Extra Yahtzee Bonus per further Yahtzee while the Yahtzee box holds 50.
pub const YAHTZEE_BONUS: u32 = 100;

/// How extra Yahtzees are scored. All variants pay 35 for an upper total of 63.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// Verhoeff's official rules: Extra Yahtzee Bonus and free-choice Joker.
    #[default]
    Official,
    /// Hasbro's printed rules: bonus, and a forced Joker (upper box of the face first,
    /// then any lower box with FH/SS/LS in full, else an upper box zeroed).
    ForcedJoker,
    /// The Extra Yahtzee Bonus but no Joker.
    NoJoker,
    /// Neither bonus nor Joker (Brown et al.).
    NoBonus,
}

/// Every variant, for tests and help texts.
pub const ALL_RULES: [Rules; 4] = [Rules::Official, Rules::ForcedJoker, Rules::NoJoker, Rules::NoBonus];

impl Rules {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Official => "official",
            Rules::ForcedJoker => "forced-joker",
            Rules::NoJoker => "no-joker",
            Rules::NoBonus => "no-bonus",
        }
    }

    /// Whether extra Yahtzees earn [`YAHTZEE_BONUS`].
    pub fn has_yahtzee_bonus(self) -> bool {
        self != Rules::NoBonus
    }

    /// Whether an extra Yahtzee may be played as a Joker (Full House, Small and Large
    /// Straight in full) once its face's upper box is filled.
    pub fn has_joker(self) -> bool {
        matches!(self, Rules::Official | Rules::ForcedJoker)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rules {
    type Err = String;

    fn from_str(s: &str) -> Result<Rules, String> {
        ALL_RULES
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown rules {s:?}; expected one of official, forced-joker, no-joker, no-bonus"))
    }
}

/// What scoring a roll in a box earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scoring {
    /// Points written in the box (these count toward the upper total for an upper box).
    pub box_points: u32,
    /// Extra Yahtzee Bonus earned with it (0 or 100).
    pub yahtzee_bonus: u32,
}

/// A game: the rules and the boxes in play. Boxes not in play start scratched with 0,
/// as Glenn §III-B.2 views the upper-only and lower-only games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    /// How extra Yahtzees score.
    pub rules: Rules,
    /// The boxes in play.
    pub categories: CategorySet,
}

impl Game {
    /// The full thirteen-box game under `rules`.
    pub fn full(rules: Rules) -> Game {
        Game { rules, categories: CategorySet::ALL }
    }

    /// Boxes that start filled with 0 because they are not in play.
    pub fn absent(self) -> CategorySet {
        self.categories.complement()
    }

    /// How `roll` scores in `category` when the boxes `filled` are filled and the
    /// Yahtzee box holds 50 iff `yahtzee_50`; `None` when the rules forbid that box
    /// (the forced Joker) or it is already filled.
    pub fn score(self, category: Category, roll: RollId, filled: CategorySet, yahtzee_50: bool) -> Option<Scoring> {
        if filled.contains(category) {
            return None;
        }
        let base = category.base_points(roll);
        let extra_yahtzee = roll.is_yahtzee() && filled.contains(Category::Yahtzee);
        if !extra_yahtzee {
            return Some(Scoring { box_points: base, yahtzee_bonus: 0 });
        }
        let face = roll.counts().iter().position(|&c| c == 5).unwrap_or(0) as u8 + 1;
        let face_box = Category::upper_for_face(face);
        if self.rules == Rules::ForcedJoker {
            let lower_open = filled.complement().iter().any(|c| c.upper_face().is_none());
            let allowed = if !filled.contains(face_box) {
                category == face_box
            } else if lower_open {
                category.upper_face().is_none()
            } else {
                true
            };
            if !allowed {
                return None;
            }
        }
        let joker = self.rules.has_joker() && filled.contains(face_box);
        let box_points = match category {
            Category::FullHouse if joker => 25,
            Category::SmallStraight if joker => 30,
            Category::LargeStraight if joker => 40,
            _ => base,
        };
        let yahtzee_bonus = if self.rules.has_yahtzee_bonus() && yahtzee_50 { YAHTZEE_BONUS } else { 0 };
        Some(Scoring { box_points, yahtzee_bonus })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(names: &[Category]) -> CategorySet {
        names.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c))
    }

    #[test]
    fn joker_needs_the_yahtzee_box_and_the_face_box() {
        let fives = RollId::from_faces([5; 5]);
        let official = Game::full(Rules::Official);
        let yahtzee_only = filled(&[Category::Yahtzee]);
        let both = filled(&[Category::Yahtzee, Category::Fives]);
        let fh = |g: Game, f, y| g.score(Category::FullHouse, fives, f, y);
        assert_eq!(fh(official, yahtzee_only, true), Some(Scoring { box_points: 0, yahtzee_bonus: 100 }));
        assert_eq!(fh(official, both, true), Some(Scoring { box_points: 25, yahtzee_bonus: 100 }));
        assert_eq!(fh(official, both, false), Some(Scoring { box_points: 25, yahtzee_bonus: 0 }));
        assert_eq!(fh(Game::full(Rules::NoJoker), both, true), Some(Scoring { box_points: 0, yahtzee_bonus: 100 }));
        assert_eq!(fh(Game::full(Rules::NoBonus), both, true), Some(Scoring { box_points: 0, yahtzee_bonus: 0 }));
        assert_eq!(fh(official, CategorySet::EMPTY, false), Some(Scoring { box_points: 0, yahtzee_bonus: 0 }));
    }

    #[test]
    fn forced_joker_takes_the_face_box_first_then_a_lower_box() {
        let forced = Game::full(Rules::ForcedJoker);
        let fives = RollId::from_faces([5; 5]);
        let y = filled(&[Category::Yahtzee]);
        assert!(forced.score(Category::FullHouse, fives, y, true).is_none());
        assert!(forced.score(Category::Fives, fives, y, true).is_some());
        let y5 = y.with(Category::Fives);
        assert!(forced.score(Category::Ones, fives, y5, true).is_none());
        assert_eq!(forced.score(Category::LargeStraight, fives, y5, true).map(|s| s.box_points), Some(40));
        let all_lower = CategorySet::ALL.minus(CategorySet::UPPER).with(Category::Fives);
        assert_eq!(forced.score(Category::Ones, fives, all_lower, true).map(|s| s.box_points), Some(0));
    }
}
