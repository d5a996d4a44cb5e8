//! The boxes a score card can hold, and sets of them.
//!
//! [`Category`] names every box any rule set uses (the vocabulary); a rule set
//! ([`crate::game::Rules`]) picks its boxes from it, in its own card order, and says how
//! each one scores. Sets of boxes are bit sets over this vocabulary, so a box keeps one
//! bit whatever the rules: Yahtzee's thirteen boxes hold bits 0..13 and Scandinavian
//! Yatzy adds One pair and Two pairs as bits 13 and 14.

use std::fmt;

use super::dice::NUM_FACES;

/// Number of boxes in the vocabulary: the most a rule set can have, and the bits of a
/// [`CategorySet`].
pub const MAX_BOXES: usize = 15;

/// A box of the score card. The index is its bit in a [`CategorySet`]; Yahtzee's boxes
/// come first, in Brown et al.'s card order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Category {
    /// Sum of the ones.
    Ones,
    /// Sum of the twos.
    Twos,
    /// Sum of the threes.
    Threes,
    /// Sum of the fours.
    Fours,
    /// Sum of the fives.
    Fives,
    /// Sum of the sixes.
    Sixes,
    /// Three of a kind.
    ThreeOfAKind,
    /// Four of a kind.
    FourOfAKind,
    /// Full house.
    FullHouse,
    /// Small straight.
    SmallStraight,
    /// Large straight.
    LargeStraight,
    /// Five of a kind (Yahtzee, or Yatzy).
    Yahtzee,
    /// Any dice.
    Chance,
    /// One pair (Yatzy).
    OnePair,
    /// Two pairs (Yatzy).
    TwoPairs,
}

/// Every box of the vocabulary, in index order.
pub const ALL_CATEGORIES: [Category; MAX_BOXES] = [
    Category::Ones,
    Category::Twos,
    Category::Threes,
    Category::Fours,
    Category::Fives,
    Category::Sixes,
    Category::ThreeOfAKind,
    Category::FourOfAKind,
    Category::FullHouse,
    Category::SmallStraight,
    Category::LargeStraight,
    Category::Yahtzee,
    Category::Chance,
    Category::OnePair,
    Category::TwoPairs,
];

/// Command-line names, by index.
const NAMES: [&str; MAX_BOXES] = [
    "ones", "twos", "threes", "fours", "fives", "sixes", "3k", "4k", "fh", "ss", "ls", "yahtzee", "chance", "pair",
    "2pairs",
];

/// Full names, by index, as a printed card writes them (the five-of-a-kind box under
/// Yahtzee's name: a rule set names its own, [`crate::game::Rules::box_label`]).
const LABELS: [&str; MAX_BOXES] = [
    "Ones",
    "Twos",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Three of a kind",
    "Four of a kind",
    "Full house",
    "Small straight",
    "Large straight",
    "Yahtzee",
    "Chance",
    "One pair",
    "Two pairs",
];

/// Other names a box answers to on the command line.
const ALIASES: [(&str, Category); 1] = [("yatzy", Category::Yahtzee)];

impl Category {
    /// Its index in [`ALL_CATEGORIES`] and its bit in a [`CategorySet`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The box at an index.
    ///
    /// # Panics
    /// If `index >= MAX_BOXES`.
    pub fn from_index(index: usize) -> Category {
        ALL_CATEGORIES[index]
    }

    /// The short name used on the command line (`ones` … `2pairs`).
    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    /// The full name a printed card gives it (`Three of a kind`), for people rather than
    /// the command line.
    pub fn label(self) -> &'static str {
        LABELS[self.index()]
    }

    /// Parses a command-line name (or an alias such as `yatzy`).
    pub fn parse(name: &str) -> Option<Category> {
        let name = name.trim().to_ascii_lowercase();
        NAMES
            .iter()
            .position(|&n| n == name)
            .map(Category::from_index)
            .or_else(|| ALIASES.iter().find(|(alias, _)| *alias == name).map(|&(_, c)| c))
    }

    /// For an upper box, the face it counts (1..=6).
    pub fn upper_face(self) -> Option<u8> {
        (self.index() < NUM_FACES).then_some(self.index() as u8 + 1)
    }

    /// The upper box counting a face 1..=6.
    pub fn upper_for_face(face: u8) -> Category {
        Category::from_index(face as usize - 1)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of boxes, bit `i` for [`Category::from_index`]`(i)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CategorySet(pub u16);

impl CategorySet {
    /// No box.
    pub const EMPTY: CategorySet = CategorySet(0);
    /// Every box of the vocabulary. A finished card is this set: boxes a game does not
    /// play count as filled from its start.
    pub const ALL: CategorySet = CategorySet((1 << MAX_BOXES) - 1);
    /// The six upper boxes.
    pub const UPPER: CategorySet = CategorySet(0b11_1111);

    /// Whether `category` is in the set.
    pub fn contains(self, category: Category) -> bool {
        self.0 & (1 << category.index()) != 0
    }

    /// The set with `category` added.
    pub fn with(self, category: Category) -> CategorySet {
        CategorySet(self.0 | (1 << category.index()))
    }

    /// Boxes in either set.
    pub fn union(self, other: CategorySet) -> CategorySet {
        CategorySet(self.0 | other.0)
    }

    /// Boxes of `self` not in `other`.
    pub fn minus(self, other: CategorySet) -> CategorySet {
        CategorySet(self.0 & !other.0)
    }

    /// Whether every box of `other` is in `self`.
    pub fn is_superset(self, other: CategorySet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The boxes of the vocabulary not in the set.
    pub fn complement(self) -> CategorySet {
        CategorySet::ALL.minus(self)
    }

    /// Number of boxes.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True for the empty set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The upper-section part as a 6-bit mask.
    pub fn upper_mask(self) -> usize {
        (self.0 & Self::UPPER.0) as usize
    }

    /// The boxes in index order.
    pub fn iter(self) -> impl Iterator<Item = Category> {
        ALL_CATEGORIES.into_iter().filter(move |&c| self.contains(c))
    }

    /// Command-line names, in index order.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Category::name).collect()
    }
}

/// Why a list of boxes was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CategoryListError {
    /// A name that is no box of the rules.
    #[error(
        "unknown box {}{} in the category list; the {rules} rules have {expected}",
        crate::quote::quote(name),
        super::suggest::did_you_mean(name, expected.split(", "))
    )]
    Unknown {
        /// The name given.
        name: String,
        /// The rule set's name.
        rules: String,
        /// Its box names, comma-separated.
        expected: String,
    },
    /// A box named twice.
    #[error("box {0} is listed twice")]
    Repeated(&'static str),
    /// No box at all.
    #[error("a game needs at least one box")]
    Empty,
    /// `--first N` outside 1..=(the rule set's box count).
    #[error("--first takes 1 to {max} boxes under the {rules} rules; got {n}")]
    FirstOutOfRange {
        /// The count given.
        n: usize,
        /// The rule set's box count.
        max: usize,
        /// The rule set's name.
        rules: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in ALL_CATEGORIES {
            assert_eq!(Category::parse(c.name()), Some(c));
        }
        assert_eq!(Category::parse("FH"), Some(Category::FullHouse));
        assert_eq!(Category::parse("sevens"), None);
        assert_eq!(Category::parse("Yatzy"), Some(Category::Yahtzee));
    }

    #[test]
    fn every_box_has_its_own_label() {
        let labels: std::collections::HashSet<&str> = ALL_CATEGORIES.iter().map(|c| c.label()).collect();
        assert_eq!(labels.len(), MAX_BOXES);
        assert_eq!(Category::ThreeOfAKind.label(), "Three of a kind");
        assert_eq!(Category::TwoPairs.label(), "Two pairs");
    }
}
