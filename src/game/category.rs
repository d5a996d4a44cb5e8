//! The thirteen boxes of the score card and sets of them.

use std::fmt;

use super::dice::{FaceCounts, NUM_FACES, RollId};

/// Number of boxes on a full score card.
pub const NUM_CATEGORIES: usize = 13;

/// A box of the score card, in Brown et al.'s order (the order of `--first N`).
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
    /// Three of a kind: sum of all dice.
    ThreeOfAKind,
    /// Four of a kind: sum of all dice.
    FourOfAKind,
    /// Full house: 25.
    FullHouse,
    /// Small straight (four in sequence): 30.
    SmallStraight,
    /// Large straight (five in sequence): 40.
    LargeStraight,
    /// Five of a kind: 50.
    Yahtzee,
    /// Sum of all dice.
    Chance,
}

/// Every category, in index order.
pub const ALL_CATEGORIES: [Category; NUM_CATEGORIES] = [
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
];

/// Command-line names, by category index.
const NAMES: [&str; NUM_CATEGORIES] =
    ["ones", "twos", "threes", "fours", "fives", "sixes", "3k", "4k", "fh", "ss", "ls", "yahtzee", "chance"];

impl Category {
    /// Index 0..13 in card order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The category at a card index.
    ///
    /// # Panics
    /// If `index >= 13`.
    pub fn from_index(index: usize) -> Category {
        ALL_CATEGORIES[index]
    }

    /// The short name used on the command line (`ones` … `chance`).
    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    /// Parses a command-line name.
    pub fn parse(name: &str) -> Option<Category> {
        let name = name.trim().to_ascii_lowercase();
        NAMES.iter().position(|&n| n == name).map(Category::from_index)
    }

    /// For an upper box, the face it counts (1..=6).
    pub fn upper_face(self) -> Option<u8> {
        (self.index() < NUM_FACES).then_some(self.index() as u8 + 1)
    }

    /// The upper box counting a face 1..=6.
    pub fn upper_for_face(face: u8) -> Category {
        Category::from_index(face as usize - 1)
    }

    /// Points for scoring `roll` here by the printed pattern, without Joker or bonuses.
    pub fn base_points(self, roll: RollId) -> u32 {
        let counts = roll.counts();
        let sum = dice_sum(counts);
        let most = *counts.iter().max().unwrap_or(&0);
        match self {
            Category::ThreeOfAKind => {
                if most >= 3 {
                    sum
                } else {
                    0
                }
            }
            Category::FourOfAKind => {
                if most >= 4 {
                    sum
                } else {
                    0
                }
            }
            Category::FullHouse => {
                if counts.contains(&3) && counts.contains(&2) {
                    25
                } else {
                    0
                }
            }
            Category::SmallStraight => {
                if longest_run(counts) >= 4 {
                    30
                } else {
                    0
                }
            }
            Category::LargeStraight => {
                if longest_run(counts) == 5 {
                    40
                } else {
                    0
                }
            }
            Category::Yahtzee => {
                if most == 5 {
                    50
                } else {
                    0
                }
            }
            Category::Chance => sum,
            upper => {
                let face = upper.index();
                counts[face] as u32 * (face as u32 + 1)
            }
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn dice_sum(counts: FaceCounts) -> u32 {
    counts.iter().enumerate().map(|(f, &c)| (f as u32 + 1) * c as u32).sum()
}

fn longest_run(counts: FaceCounts) -> usize {
    let (mut best, mut run) = (0, 0);
    for &c in &counts {
        run = if c > 0 { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A set of boxes, bit `i` for [`Category::from_index`]`(i)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CategorySet(pub u16);

impl CategorySet {
    /// No box.
    pub const EMPTY: CategorySet = CategorySet(0);
    /// All thirteen boxes.
    pub const ALL: CategorySet = CategorySet((1 << NUM_CATEGORIES) - 1);
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

    /// The boxes of the full card not in the set.
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

    /// The boxes in card order.
    pub fn iter(self) -> impl Iterator<Item = Category> {
        ALL_CATEGORIES.into_iter().filter(move |&c| self.contains(c))
    }

    /// The first `n` boxes in card order (Brown et al.'s truncated games).
    pub fn first(n: usize) -> CategorySet {
        CategorySet((1u16 << n.min(NUM_CATEGORIES)) - 1)
    }

    /// Command-line names, comma-separated.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Category::name).collect()
    }
}

/// Why a list of boxes was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CategoryListError {
    /// A name that is no box.
    #[error(
        "unknown box {0:?} in the category list; expected names from ones, twos, threes, fours, fives, sixes, 3k, 4k, fh, ss, ls, yahtzee, chance"
    )]
    Unknown(String),
    /// A box named twice.
    #[error("box {0} is listed twice")]
    Repeated(&'static str),
    /// No box at all.
    #[error("a game needs at least one box")]
    Empty,
    /// `--first N` outside 1..=13.
    #[error("--first takes 1 to 13 boxes; got {0}")]
    FirstOutOfRange(usize),
}

impl CategorySet {
    /// Parses a comma-separated list of box names, e.g. `ones,fh,yahtzee`.
    pub fn parse_list(list: &str) -> Result<CategorySet, CategoryListError> {
        let mut set = CategorySet::EMPTY;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let category = Category::parse(name).ok_or_else(|| CategoryListError::Unknown(name.to_string()))?;
            if set.contains(category) {
                return Err(CategoryListError::Repeated(category.name()));
            }
            set = set.with(category);
        }
        if set.is_empty() { Err(CategoryListError::Empty) } else { Ok(set) }
    }

    /// The first `n` boxes, checking that `n` is 1..=13.
    pub fn parse_first(n: usize) -> Result<CategorySet, CategoryListError> {
        if (1..=NUM_CATEGORIES).contains(&n) {
            Ok(CategorySet::first(n))
        } else {
            Err(CategoryListError::FirstOutOfRange(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_lists_parse_and_reject() {
        assert_eq!(CategorySet::parse_list("ones, fh,Yahtzee").unwrap().names(), vec!["ones", "fh", "yahtzee"]);
        assert_eq!(CategorySet::parse_list("ones,ones"), Err(CategoryListError::Repeated("ones")));
        assert_eq!(CategorySet::parse_list("one"), Err(CategoryListError::Unknown("one".into())));
        assert_eq!(CategorySet::parse_list(""), Err(CategoryListError::Empty));
        assert_eq!(CategorySet::parse_first(14), Err(CategoryListError::FirstOutOfRange(14)));
    }

    #[test]
    fn names_round_trip() {
        for c in ALL_CATEGORIES {
            assert_eq!(Category::parse(c.name()), Some(c));
        }
        assert_eq!(Category::parse("FH"), Some(Category::FullHouse));
        assert_eq!(Category::parse("sevens"), None);
    }

    #[test]
    fn printed_patterns_score() {
        let p = |c: Category, f| c.base_points(RollId::from_faces(f));
        assert_eq!(p(Category::Threes, [3, 3, 1, 3, 6]), 9);
        assert_eq!(p(Category::ThreeOfAKind, [3, 3, 1, 3, 6]), 16);
        assert_eq!(p(Category::FourOfAKind, [3, 3, 1, 3, 6]), 0);
        assert_eq!(p(Category::FullHouse, [2, 2, 5, 5, 5]), 25);
        assert_eq!(p(Category::FullHouse, [5, 5, 5, 5, 5]), 0);
        assert_eq!(p(Category::SmallStraight, [1, 2, 3, 4, 6]), 30);
        assert_eq!(p(Category::SmallStraight, [1, 2, 3, 5, 6]), 0);
        assert_eq!(p(Category::LargeStraight, [2, 3, 4, 5, 6]), 40);
        assert_eq!(p(Category::Yahtzee, [4; 5]), 50);
        assert_eq!(p(Category::Chance, [6, 6, 6, 6, 5]), 29);
    }
}
