//! Rule sets as data; the game being played (a rule set plus the boxes in play) is
//! [`super::scoring`]'s.
//!
//! A [`Rules`] value says which boxes the card has and in what order, how each one
//! scores ([`BoxRule`]), the upper threshold and bonus, the Extra Yahtzee Bonus and the
//! Joker, and whether boxes must be filled in card order. The four Yahtzee variants and
//! Scandinavian Yatzy (with its house rules) are values of it; every solver reads a game
//! through it and nothing else.

use std::fmt;
use std::str::FromStr;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

use super::category::{ALL_CATEGORIES, Category, CategoryListError, CategorySet, MAX_BOXES};
use super::dice::{FaceCounts, NUM_FACES, NUM_ROLLS, RollId};
use super::suggest;

/// How a box scores a roll: the data behind a box of a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoxRule {
    /// The sum of the dice showing `face` (an upper box).
    Upper {
        /// The face counted, 1..=6.
        face: u8,
    },
    /// At least `count` dice of one face.
    OfAKind {
        /// Dice needed.
        count: u8,
        /// `true`: the sum of all five dice (Yahtzee); `false`: the sum of the `count`
        /// matching dice (Yatzy).
        all_dice: bool,
    },
    /// `pairs` pairs, scored as the sum of their dice (the highest pairs).
    Pairs {
        /// Pairs needed.
        pairs: u8,
        /// Whether four dice of one face count as two pairs.
        four_of_a_kind_counts: bool,
        /// Whether fewer pairs than needed still score the pairs there are (a misreading,
        /// kept for reproducing published figures).
        fewer_score: bool,
    },
    /// Three of one face and two of another.
    FullHouse {
        /// Fixed points (Yahtzee's 25), or `None` for the sum of the dice (Yatzy).
        points: Option<u8>,
        /// Whether five of a kind counts as a full house.
        five_of_a_kind_counts: bool,
    },
    /// Dice in sequence.
    Straight {
        /// Consecutive faces needed.
        length: u8,
        /// The lowest face the run must start at, or `None` for any run of `length`.
        lowest: Option<u8>,
        /// Points for it.
        points: u8,
    },
    /// Five of a kind.
    FiveOfAKind {
        /// Points for it.
        points: u8,
    },
    /// The sum of the dice, whatever they show.
    Chance,
}

impl BoxRule {
    /// Points for scoring `roll` here by the printed pattern, without Joker or bonuses.
    pub fn points(self, roll: RollId) -> u32 {
        let counts = roll.counts();
        let sum = dice_sum(counts);
        let most = *counts.iter().max().unwrap_or(&0);
        match self {
            BoxRule::Upper { face } => counts[face as usize - 1] as u32 * face as u32,
            BoxRule::OfAKind { count, all_dice } => match highest_face_with(counts, count) {
                Some(_) if all_dice => sum,
                Some(face) => face * count as u32,
                None => 0,
            },
            BoxRule::Pairs { pairs, four_of_a_kind_counts, fewer_score } => {
                // The highest pairs first, a face giving two where four of a kind counts.
                let (mut found, mut sum) = (0u8, 0);
                for face in (1..=NUM_FACES as u32).rev() {
                    let n = counts[face as usize - 1];
                    let times = if n >= 4 && four_of_a_kind_counts { 2 } else { (n >= 2) as u8 };
                    let taken = times.min(pairs - found);
                    (found, sum) = (found + taken, sum + 2 * face * taken as u32);
                }
                if found < pairs && !fewer_score { 0 } else { sum }
            }
            BoxRule::FullHouse { points, five_of_a_kind_counts } => {
                let full = counts.contains(&3) && counts.contains(&2) || most == 5 && five_of_a_kind_counts;
                match (full, points) {
                    (false, _) => 0,
                    (true, Some(p)) => p as u32,
                    (true, None) => sum,
                }
            }
            BoxRule::Straight { length, lowest, points } => {
                let run = match lowest {
                    Some(low) => counts[low as usize - 1..].iter().take_while(|&&c| c > 0).count(),
                    None => longest_run(counts),
                };
                if run >= length as usize { points as u32 } else { 0 }
            }
            BoxRule::FiveOfAKind { points } => {
                if most == 5 {
                    points as u32
                } else {
                    0
                }
            }
            BoxRule::Chance => sum,
        }
    }

    /// Points a Joker earns here: a full house or a straight in full, else the pattern's.
    pub(super) fn joker_points(self, roll: RollId) -> u32 {
        match self {
            BoxRule::FullHouse { points: Some(p), .. } => p as u32,
            BoxRule::FullHouse { points: None, .. } => dice_sum(roll.counts()),
            BoxRule::Straight { points, .. } => points as u32,
            other => other.points(roll),
        }
    }
}

fn dice_sum(counts: FaceCounts) -> u32 {
    counts.iter().enumerate().map(|(f, &c)| (f as u32 + 1) * c as u32).sum()
}

fn highest_face_with(counts: FaceCounts, count: u8) -> Option<u32> {
    (1..=NUM_FACES as u32).rev().find(|&f| counts[f as usize - 1] >= count)
}

fn longest_run(counts: FaceCounts) -> usize {
    let (mut best, mut run) = (0, 0);
    for &c in &counts {
        run = if c > 0 { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// Values built once per rule set and kept for the process.
type RulesCache<T> = RwLock<Vec<(Rules, &'static T)>>;

/// The value `cache` holds for `rules`, built by `build` on first use.
fn cached<T: Sync>(cache: &'static RulesCache<T>, rules: Rules, build: impl FnOnce() -> T) -> &'static T {
    let find = |entries: &[(Rules, &'static T)]| entries.iter().find(|e| e.0 == rules).map(|e| e.1);
    if let Some(value) = find(&cache.read().unwrap_or_else(|e| e.into_inner())) {
        return value;
    }
    let mut entries = cache.write().unwrap_or_else(|e| e.into_inner());
    if let Some(value) = find(&entries) {
        return value;
    }
    let value: &'static T = Box::leak(Box::new(build()));
    entries.push((rules, value));
    value
}

/// Rolls that score alike in each box. Outside an extra five of a kind (one rolled with
/// its box filled, under rules with a bonus or a Joker), what a roll earns in a box and
/// where it leads depend only on the box's printed points for it ([`super::Game::score`]). So a
/// class is either the rolls other than five of a kinds with the same printed points, or
/// one five of a kind; scoring one roll per class gives every transition.
#[derive(Debug)]
pub struct RollClasses {
    /// `class[c][r]`: the class of roll `r` in box `c` (by [`Category::index`]).
    pub class: Vec<[u8; NUM_ROLLS]>,
    /// `representatives[c][k]`: a roll of class `k` in box `c`; the first roll of each class.
    pub representatives: Vec<Vec<RollId>>,
}

/// Printed-pattern points by [`Category::index`], then [`RollId`].
pub type PointsTable = [[u8; NUM_ROLLS]; MAX_BOXES];

/// How an extra five of a kind may be played once the five-of-a-kind box is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Joker {
    /// No Joker: every box scores by its pattern.
    None,
    /// Verhoeff's free choice: once the face's upper box is filled, full house and
    /// straights score in full.
    FreeChoice,
    /// Hasbro's forced Joker: the face's upper box first, then any lower box (full house
    /// and straights in full), else an upper box with 0.
    Forced,
}

/// A rule set: the card (which boxes, in which order, scoring how) and the bonuses.
///
/// Boxes are [`Category`] values; the six upper boxes come first in every card, so the
/// upper total and its lanes mean the same in every rule set.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    name: &'static str,
    /// The card's boxes in card order; only the first `len` are used.
    order: [Category; MAX_BOXES],
    len: u8,
    /// Each box's pattern, by [`Category::index`]; `None` for boxes not on the card.
    patterns: [Option<BoxRule>; MAX_BOXES],
    /// The five-of-a-kind box's name on this card (`yahtzee`, `yatzy`).
    five_of_a_kind_name: &'static str,
    /// Its full name on this card (`Yahtzee`, `Yatzy`).
    five_of_a_kind_label: &'static str,
    upper_threshold: u8,
    upper_bonus: u8,
    extra_bonus: u8,
    joker: Joker,
    forced_order: bool,
}

/// The four Yahtzee variants.
pub const YAHTZEE_RULES: [Rules; 4] = [Rules::OFFICIAL, Rules::FORCED_JOKER, Rules::NO_JOKER, Rules::NO_BONUS];

/// The house rules a Yatzy table may play by, in the order their names are written.
const YATZY_SWITCHES: [&str; 3] = ["forced-order", "five-kind-full-house", "four-kind-two-pairs"];

/// The names of the Yatzy rule sets, by switch bits (bit `i`: `YATZY_SWITCHES[i]` on).
const YATZY_NAMES: [&str; 8] = [
    "yatzy",
    "yatzy+forced-order",
    "yatzy+five-kind-full-house",
    "yatzy+forced-order+five-kind-full-house",
    "yatzy+four-kind-two-pairs",
    "yatzy+forced-order+four-kind-two-pairs",
    "yatzy+five-kind-full-house+four-kind-two-pairs",
    "yatzy+forced-order+five-kind-full-house+four-kind-two-pairs",
];

/// A card: the six upper boxes, then the `lower` boxes in card order, each with its
/// pattern. Returns the order, the number of boxes and the patterns by box index.
const fn card(lower: &[(Category, BoxRule)]) -> ([Category; MAX_BOXES], u8, [Option<BoxRule>; MAX_BOXES]) {
    let mut order = [Category::Ones; MAX_BOXES];
    let mut patterns = [None; MAX_BOXES];
    let mut i = 0;
    while i < NUM_FACES {
        order[i] = ALL_CATEGORIES[i];
        patterns[i] = Some(BoxRule::Upper { face: i as u8 + 1 });
        i += 1;
    }
    let mut j = 0;
    while j < lower.len() {
        order[NUM_FACES + j] = lower[j].0;
        patterns[lower[j].0 as usize] = Some(lower[j].1);
        j += 1;
    }
    (order, (NUM_FACES + lower.len()) as u8, patterns)
}

impl Rules {
    /// Verhoeff's official Yahtzee rules: bonus 35 at 63, Extra Yahtzee Bonus 100 and the
    /// free-choice Joker.
    pub const OFFICIAL: Rules = Rules::yahtzee("official", 100, Joker::FreeChoice);
    /// Hasbro's printed rules: the Extra Yahtzee Bonus and the forced Joker.
    pub const FORCED_JOKER: Rules = Rules::yahtzee("forced-joker", 100, Joker::Forced);
    /// The Extra Yahtzee Bonus but no Joker.
    pub const NO_JOKER: Rules = Rules::yahtzee("no-joker", 100, Joker::None);
    /// Neither bonus nor Joker (Brown et al.).
    pub const NO_BONUS: Rules = Rules::yahtzee("no-bonus", 0, Joker::None);

    const fn yahtzee(name: &'static str, extra_bonus: u8, joker: Joker) -> Rules {
        use Category::*;
        let (order, len, patterns) = card(&[
            (ThreeOfAKind, BoxRule::OfAKind { count: 3, all_dice: true }),
            (FourOfAKind, BoxRule::OfAKind { count: 4, all_dice: true }),
            (FullHouse, BoxRule::FullHouse { points: Some(25), five_of_a_kind_counts: false }),
            (SmallStraight, BoxRule::Straight { length: 4, lowest: None, points: 30 }),
            (LargeStraight, BoxRule::Straight { length: 5, lowest: None, points: 40 }),
            (Yahtzee, BoxRule::FiveOfAKind { points: 50 }),
            (Chance, BoxRule::Chance),
        ]);
        Rules {
            name,
            order,
            len,
            patterns,
            five_of_a_kind_name: "yahtzee",
            five_of_a_kind_label: "Yahtzee",
            upper_threshold: 63,
            upper_bonus: 35,
            extra_bonus,
            joker,
            forced_order: false,
        }
    }

    /// Scandinavian Yatzy: fifteen boxes (ones … sixes, one pair, two pairs, three and four
    /// of a kind, small straight 1-5 for 15, large straight 2-6 for 20, full house, chance,
    /// yatzy 50), bonus 50 at 63, no Joker, no extra bonus.
    pub const fn yatzy() -> Rules {
        use Category::*;
        let (order, len, patterns) = card(&[
            (OnePair, BoxRule::Pairs { pairs: 1, four_of_a_kind_counts: false, fewer_score: false }),
            (TwoPairs, BoxRule::Pairs { pairs: 2, four_of_a_kind_counts: false, fewer_score: false }),
            (ThreeOfAKind, BoxRule::OfAKind { count: 3, all_dice: false }),
            (FourOfAKind, BoxRule::OfAKind { count: 4, all_dice: false }),
            (SmallStraight, BoxRule::Straight { length: 5, lowest: Some(1), points: 15 }),
            (LargeStraight, BoxRule::Straight { length: 5, lowest: Some(2), points: 20 }),
            (FullHouse, BoxRule::FullHouse { points: None, five_of_a_kind_counts: false }),
            (Chance, BoxRule::Chance),
            (Yahtzee, BoxRule::FiveOfAKind { points: 50 }),
        ]);
        Rules {
            name: YATZY_NAMES[0],
            order,
            len,
            patterns,
            five_of_a_kind_name: "yatzy",
            five_of_a_kind_label: "Yatzy",
            upper_threshold: 63,
            upper_bonus: 50,
            extra_bonus: 0,
            joker: Joker::None,
            forced_order: false,
        }
    }

    /// Yatzy with house rules: boxes filled top to bottom, five of a kind as a full house,
    /// four of a kind as two pairs.
    pub fn yatzy_with(forced_order: bool, five_kind_full_house: bool, four_kind_two_pairs: bool) -> Rules {
        let mut rules = Rules::yatzy();
        rules.forced_order = forced_order;
        rules.patterns[Category::FullHouse.index()] =
            Some(BoxRule::FullHouse { points: None, five_of_a_kind_counts: five_kind_full_house });
        rules.patterns[Category::TwoPairs.index()] =
            Some(BoxRule::Pairs { pairs: 2, four_of_a_kind_counts: four_kind_two_pairs, fewer_score: false });
        let bits = forced_order as usize | (five_kind_full_house as usize) << 1 | (four_kind_two_pairs as usize) << 2;
        rules.name = YATZY_NAMES[bits];
        rules
    }

    /// The same rules with `category` scoring by `pattern` and a new name: for rule
    /// readings that only tests and studies need (the box must be on the card).
    ///
    /// # Panics
    /// If `category` is not on the card, or `pattern` is an upper pattern for a lower box
    /// or the other way round (the upper boxes must stay the six faces).
    pub fn with_pattern(mut self, category: Category, pattern: BoxRule, name: &'static str) -> Rules {
        let upper = matches!(pattern, BoxRule::Upper { face } if category.upper_face() == Some(face));
        assert!(self.patterns[category.index()].is_some(), "{category} is not on the {} card", self.name);
        assert_eq!(upper, category.upper_face().is_some(), "upper boxes score their own face");
        self.patterns[category.index()] = Some(pattern);
        self.name = name;
        self
    }

    /// Every named rule set: the Yahtzee variants, then Yatzy with each set of house rules.
    pub fn all() -> Vec<Rules> {
        let yahtzee = YAHTZEE_RULES;
        let yatzy = (0..8).map(|b| Rules::yatzy_with(b & 1 != 0, b & 2 != 0, b & 4 != 0));
        yahtzee.into_iter().chain(yatzy).collect()
    }

    /// Whether the card is Yahtzee's: its thirteen boxes, scoring as printed on it (the
    /// bonuses and the Joker may differ). Strategies written for Yahtzee's boxes need it.
    pub fn has_yahtzee_card(self) -> bool {
        self.order == Rules::OFFICIAL.order
            && self.len == Rules::OFFICIAL.len
            && self.patterns == Rules::OFFICIAL.patterns
    }

    /// The name: on the command line, in file names and table headers.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The card's boxes in card order.
    pub fn card(&self) -> &[Category] {
        &self.order[..self.len as usize]
    }

    /// The card's boxes as a set.
    pub const fn boxes(self) -> CategorySet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < self.len as usize {
            bits |= 1 << self.order[i] as u16;
            i += 1;
        }
        CategorySet(bits)
    }

    /// The name of `category` on this card: the vocabulary's ([`Category::name`]) but for
    /// the five-of-a-kind box, which each game names its own way.
    pub fn box_name(self, category: Category) -> &'static str {
        if category == Category::Yahtzee { self.five_of_a_kind_name } else { category.name() }
    }

    /// The full name of `category` on this card ([`Category::label`]), the five-of-a-kind
    /// box named as this game names it (`Yatzy`).
    pub fn box_label(self, category: Category) -> &'static str {
        if category == Category::Yahtzee { self.five_of_a_kind_label } else { category.label() }
    }

    /// The card's box names in card order, comma-separated (for messages).
    pub fn box_names(self) -> String {
        self.card().iter().map(|&c| self.box_name(c)).collect::<Vec<_>>().join(", ")
    }

    /// How `category` scores, or `None` if it is not on the card.
    pub fn pattern(self, category: Category) -> Option<BoxRule> {
        self.patterns[category.index()]
    }

    /// Printed-pattern points of `roll` in `category` (0 for a box not on the card).
    pub fn points(self, category: Category, roll: RollId) -> u32 {
        self.pattern(category).map_or(0, |p| p.points(roll))
    }

    /// Printed-pattern points of every (box, roll), by [`Category::index`] then [`RollId`]:
    /// the table the solvers score from. Built once per rule set and kept for the process
    /// (a few KiB for each of the few rule sets a process meets).
    pub fn points_table(self) -> &'static PointsTable {
        static TABLES: RulesCache<PointsTable> = RwLock::new(Vec::new());
        cached(&TABLES, self, || {
            std::array::from_fn(|c| {
                std::array::from_fn(|r| self.points(Category::from_index(c), RollId(r as u8)) as u8)
            })
        })
    }

    /// The rolls that score alike in each box ([`RollClasses`]), built once per rule set.
    pub fn roll_classes(self) -> &'static RollClasses {
        static TABLES: RulesCache<RollClasses> = RwLock::new(Vec::new());
        cached(&TABLES, self, || {
            let points = self.points_table();
            let mut classes = RollClasses { class: Vec::new(), representatives: Vec::new() };
            for box_points in points {
                let mut representatives: Vec<RollId> = Vec::new();
                let class = std::array::from_fn(|r| {
                    let roll = RollId(r as u8);
                    let alike = |other: &RollId| {
                        !roll.is_yahtzee() && !other.is_yahtzee() && box_points[other.0 as usize] == box_points[r]
                    };
                    let k = representatives.iter().position(alike).unwrap_or_else(|| {
                        representatives.push(roll);
                        representatives.len() - 1
                    });
                    k as u8
                });
                classes.class.push(class);
                classes.representatives.push(representatives);
            }
            classes
        })
    }

    /// Upper total that earns [`Rules::upper_bonus`]; upper totals are capped here (1..=63).
    pub fn upper_threshold(self) -> u32 {
        self.upper_threshold as u32
    }

    /// Points for reaching the upper threshold.
    pub fn upper_bonus(self) -> u32 {
        self.upper_bonus as u32
    }

    /// Points per further five of a kind while the five-of-a-kind box holds its points
    /// (0: no extra bonus).
    pub fn extra_bonus(self) -> u32 {
        self.extra_bonus as u32
    }

    /// Whether an extra five of a kind earns a bonus; states then remember whether the
    /// five-of-a-kind box holds its points.
    pub fn has_extra_bonus(self) -> bool {
        self.extra_bonus > 0
    }

    /// The Joker policy.
    pub fn joker(self) -> Joker {
        self.joker
    }

    /// Whether boxes must be filled in card order.
    pub fn forced_order(self) -> bool {
        self.forced_order
    }

    /// The first `n` boxes in card order (Brown et al.'s truncated games), checking that
    /// `n` is 1..=(the number of boxes).
    pub fn first(self, n: usize) -> Result<CategorySet, CategoryListError> {
        if (1..=self.card().len()).contains(&n) {
            Ok(self.card()[..n].iter().fold(CategorySet::EMPTY, |s, &c| s.with(c)))
        } else {
            Err(CategoryListError::FirstOutOfRange { n, max: self.card().len(), rules: self.name.into() })
        }
    }

    /// Parses a comma-separated list of this card's box names, e.g. `ones,fh,yahtzee`.
    pub fn parse_list(self, list: &str) -> Result<CategorySet, CategoryListError> {
        let mut set = CategorySet::EMPTY;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let category = self.parse_box(name)?;
            if set.contains(category) {
                return Err(CategoryListError::Repeated(self.box_name(category)));
            }
            set = set.with(category);
        }
        if set.is_empty() { Err(CategoryListError::Empty) } else { Ok(set) }
    }

    /// Parses one box name of this card.
    pub fn parse_box(self, name: &str) -> Result<Category, CategoryListError> {
        Category::parse(name).filter(|&c| self.pattern(c).is_some()).ok_or_else(|| CategoryListError::Unknown {
            name: name.trim().to_string(),
            rules: self.name.into(),
            expected: self.box_names(),
        })
    }

    /// Every score `category` can hold (0..=255 as bits of a 256-bit set), Joker included.
    fn possible_scores(self, category: Category) -> [bool; 256] {
        let mut possible = [false; 256];
        if let Some(pattern) = self.pattern(category) {
            for roll in RollId::all() {
                possible[pattern.points(roll) as usize] = true;
                if self.joker != Joker::None && roll.is_yahtzee() {
                    possible[pattern.joker_points(roll) as usize] = true;
                }
            }
            // A box can always be scratched unless every roll scores in it.
            if !matches!(pattern, BoxRule::Chance) {
                possible[0] = true;
            }
        }
        possible
    }

    /// The most points `category` can hold (0 for a box not on the card).
    pub fn best_points(self, category: Category) -> u32 {
        self.possible_scores(category).iter().rposition(|&p| p).unwrap_or(0) as u32
    }

    /// A bound on the points a game of `boxes` boxes can earn: every box at the best any
    /// box holds, an extra bonus with each, and the upper bonus.
    pub fn most_points(self, boxes: usize) -> u32 {
        let best_box = self.card().iter().map(|&c| self.best_points(c)).max().unwrap_or(0);
        boxes as u32 * (best_box + self.extra_bonus()) + self.upper_bonus()
    }

    /// Whether `points` is a score `category` can hold in this game.
    pub fn can_hold(self, category: Category, points: u32) -> bool {
        points < 256 && self.possible_scores(category)[points as usize]
    }

    /// The scores `category` can hold, in words (for error messages).
    pub fn describe_scores(self, category: Category) -> String {
        if let Some(face) = category.upper_face() {
            return match face {
                1 => "a whole number from 0 to 5".to_owned(),
                _ => format!("a multiple of {face} from 0 to {}", 5 * face),
            };
        }
        let values: Vec<u32> = (0..256u32).filter(|&p| self.can_hold(category, p)).collect();
        let nonzero: Vec<u32> = values.iter().copied().filter(|&p| p > 0).collect();
        let contiguous = nonzero.windows(2).all(|w| w[1] == w[0] + 1);
        let zero = if values.first() == Some(&0) { "0 or " } else { "" };
        match nonzero.as_slice() {
            [] => "0".into(),
            [only] => format!("{zero}{only}"),
            [low, .., high] if contiguous => format!("{zero}a dice sum from {low} to {high}"),
            many => {
                let list: Vec<String> = many.iter().map(u32::to_string).collect();
                format!("{zero}one of {}", list.join(", "))
            }
        }
    }
}

impl fmt::Debug for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rules({})", self.name)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::OFFICIAL
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl FromStr for Rules {
    type Err = String;

    /// Parses a rule set name: `official`, `forced-joker`, `no-joker`, `no-bonus`, or
    /// `yatzy` followed by any of `+forced-order`, `+five-kind-full-house`,
    /// `+four-kind-two-pairs` (in any order).
    fn from_str(s: &str) -> Result<Rules, String> {
        let expected = || {
            let suggestion = rules_meant(s).map_or_else(String::new, |name| format!(" (did you mean {name}?)"));
            format!(
                "unknown rules {}{suggestion}; expected official, forced-joker, no-joker, no-bonus, or yatzy with \
                 any of +{}",
                crate::quote::quote(s),
                YATZY_SWITCHES.join(", +")
            )
        };
        let mut parts = s.trim().split('+');
        let base = parts.next().unwrap_or_default();
        if base != "yatzy" {
            return YAHTZEE_RULES.into_iter().find(|r| r.name == s.trim()).ok_or_else(expected);
        }
        let mut bits = 0usize;
        for switch in parts {
            let bit = YATZY_SWITCHES.iter().position(|&w| w == switch).ok_or_else(expected)?;
            if bits & (1 << bit) != 0 {
                return Err(format!("house rule {switch} is named twice in {}", crate::quote::quote(s)));
            }
            bits |= 1 << bit;
        }
        Ok(Rules::yatzy_with(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0))
    }
}

/// The rule set name a mistyped one stands for: its base and each house rule as typed or
/// as [`suggest::closest`] reads it, where every part reads as one.
fn rules_meant(typed: &str) -> Option<String> {
    let mut parts = typed.trim().split('+');
    let exact_or_closest = |part: &str, accepted: &[&'static str]| {
        accepted
            .iter()
            .find(|&&name| name == part)
            .copied()
            .or_else(|| suggest::closest(part, accepted.iter().copied()))
    };
    let bases: Vec<&'static str> = YAHTZEE_RULES.iter().map(|r| r.name).chain(["yatzy"]).collect();
    let base = exact_or_closest(parts.next().unwrap_or_default(), &bases)?;
    let switches: Option<Vec<&str>> = parts.map(|part| exact_or_closest(part, &YATZY_SWITCHES)).collect();
    let switches = switches.filter(|s| s.is_empty() || base == "yatzy")?;
    Some(std::iter::once(base).chain(switches).collect::<Vec<_>>().join("+"))
}

impl Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Rules, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_patterns_score() {
        let p = |c: Category, f| Rules::OFFICIAL.points(c, RollId::from_faces(f));
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

    #[test]
    fn yatzy_patterns_score() {
        let p = |rules: Rules, c: Category, f| rules.points(c, RollId::from_faces(f));
        let y = Rules::yatzy();
        assert_eq!(p(y, Category::OnePair, [3, 3, 5, 5, 1]), 10);
        assert_eq!(p(y, Category::OnePair, [1, 2, 3, 4, 6]), 0);
        assert_eq!(p(y, Category::TwoPairs, [3, 3, 5, 5, 1]), 16);
        assert_eq!(p(y, Category::TwoPairs, [3, 3, 3, 5, 5]), 16);
        assert_eq!(p(y, Category::TwoPairs, [4, 4, 4, 4, 1]), 0);
        assert_eq!(p(y, Category::TwoPairs, [4, 4, 1, 2, 3]), 0);
        assert_eq!(p(y, Category::ThreeOfAKind, [4, 4, 4, 4, 1]), 12);
        assert_eq!(p(y, Category::FourOfAKind, [4, 4, 4, 4, 1]), 16);
        assert_eq!(p(y, Category::FourOfAKind, [6; 5]), 24);
        assert_eq!(p(y, Category::SmallStraight, [5, 4, 3, 2, 1]), 15);
        assert_eq!(p(y, Category::SmallStraight, [2, 3, 4, 5, 6]), 0);
        assert_eq!(p(y, Category::LargeStraight, [2, 3, 4, 5, 6]), 20);
        assert_eq!(p(y, Category::LargeStraight, [1, 2, 3, 4, 5]), 0);
        assert_eq!(p(y, Category::FullHouse, [2, 2, 6, 6, 6]), 22);
        assert_eq!(p(y, Category::FullHouse, [6; 5]), 0);
        assert_eq!(p(y, Category::Yahtzee, [2; 5]), 50);
        let house = Rules::yatzy_with(false, true, true);
        assert_eq!(p(house, Category::FullHouse, [6; 5]), 30);
        assert_eq!(p(house, Category::TwoPairs, [4, 4, 4, 4, 1]), 16);
        assert_eq!(y.box_name(Category::Yahtzee), "yatzy");
        assert_eq!(y.parse_box("yatzy"), Ok(Category::Yahtzee));
    }

    #[test]
    fn rule_names_round_trip() {
        for rules in Rules::all() {
            assert_eq!(rules.name().parse::<Rules>(), Ok(rules));
        }
        let r: Rules = "yatzy+four-kind-two-pairs+forced-order".parse().unwrap();
        assert_eq!(r.name(), "yatzy+forced-order+four-kind-two-pairs");
        assert!("yatzy+forced-order+forced-order".parse::<Rules>().unwrap_err().contains("twice"));
        assert!("yahtzee".parse::<Rules>().unwrap_err().contains("expected official"));
        assert!("official+forced-order".parse::<Rules>().is_err());
    }
}
