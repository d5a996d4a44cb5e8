//! The game being played: a rule set plus the boxes in play ([`Game`]), and what scoring a
//! roll in a box earns under it ([`Scoring`]): the Joker, the Extra Yahtzee Bonus, the
//! upper bonus and forced order, read from the [`Rules`].

use super::category::{Category, CategoryListError, CategorySet};
use super::dice::RollId;
use super::rules::{Joker, Rules};

/// What scoring a roll in a box earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scoring {
    /// Points written in the box (these count toward the upper total for an upper box).
    pub box_points: u32,
    /// Extra Yahtzee Bonus earned with it.
    pub yahtzee_bonus: u32,
}

/// A game: the rules and the boxes in play. Boxes not in play start scratched with 0,
/// as Glenn §III-B.2 views the upper-only and lower-only games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play (a subset of the rule set's card).
    pub categories: CategorySet,
}

impl Game {
    /// The whole card under `rules`.
    pub const fn full(rules: Rules) -> Game {
        Game { rules, categories: rules.boxes() }
    }

    /// The game of the first `n` boxes of the card.
    pub fn first(rules: Rules, n: usize) -> Result<Game, CategoryListError> {
        Ok(Game { rules, categories: rules.first(n)? })
    }

    /// The game a command or request names: the boxes in `categories` (a comma-separated
    /// list), else the first `first`, else the whole card.
    pub fn select(rules: Rules, categories: Option<&str>, first: Option<usize>) -> Result<Game, CategoryListError> {
        match (categories, first) {
            (Some(list), _) => Game::from_list(rules, list),
            (None, Some(n)) => Game::first(rules, n),
            (None, None) => Ok(Game::full(rules)),
        }
    }

    /// The game of the boxes named in `list` (comma-separated).
    pub fn from_list(rules: Rules, list: &str) -> Result<Game, CategoryListError> {
        Ok(Game { rules, categories: rules.parse_list(list)? })
    }

    /// Whether the boxes in play are boxes of the rules' card (a game built by hand may
    /// name others; the solvers refuse it).
    pub fn is_valid(self) -> bool {
        !self.categories.is_empty() && self.rules.boxes().is_superset(self.categories)
    }

    /// The one naming scheme of every file and directory made for this game:
    /// `KIND-RULES-MASK`, the mask of the boxes in play in four hex digits (e.g.
    /// `solo-official-1fff`, `duel-yatzy-7fff`).
    pub fn file_stem(self, kind: &str) -> String {
        format!("{kind}-{}-{:04x}", self.rules.name(), self.categories.0)
    }

    /// Boxes that start filled with 0: those of the vocabulary not in play.
    pub fn absent(self) -> CategorySet {
        self.categories.complement()
    }

    /// The boxes in play, in card order.
    pub fn card(self) -> impl Iterator<Item = Category> {
        self.rules.card().to_vec().into_iter().filter(move |&c| self.categories.contains(c))
    }

    /// Command-line names of the boxes in play, in card order.
    pub fn box_names(self) -> Vec<&'static str> {
        self.card().map(|c| self.rules.box_name(c)).collect()
    }

    /// Whether states of this game remember that the five-of-a-kind box holds its points
    /// (only an extra bonus makes it matter).
    pub fn tracks_yahtzee_50(self) -> bool {
        self.rules.has_extra_bonus() && self.categories.contains(Category::Yahtzee)
    }

    /// Every filled set a state of this game can have (absent boxes always in it), in
    /// ascending bit order.
    pub fn filled_sets(self) -> impl Iterator<Item = CategorySet> {
        let play = self.categories.0;
        let absent = self.absent();
        // Submasks of `play` in ascending order.
        let mut next = Some(0u16);
        std::iter::from_fn(move || {
            let current = next?;
            next = if current == play { None } else { Some(current.wrapping_sub(play) & play) };
            Some(CategorySet(current).union(absent))
        })
    }

    /// The (filled set, five-of-a-kind flag) slots with `filled_in_play` boxes in play
    /// filled, in slot order: one layer of a backward solve.
    pub fn layer_slots(self, filled_in_play: usize) -> Vec<(CategorySet, bool)> {
        let absent = self.absent();
        self.filled_sets()
            .filter(|f| f.minus(absent).len() == filled_in_play)
            .flat_map(|f| {
                let flag_possible = f.contains(Category::Yahtzee) && self.tracks_yahtzee_50();
                [(f, false)].into_iter().chain(flag_possible.then_some((f, true)))
            })
            .collect()
    }

    /// Number of slots ([`Game::slot`] ranges over `0..num_slots()`).
    pub fn num_slots(self) -> usize {
        let bits = 16 - self.categories.0.leading_zeros() as usize;
        1 << (bits + self.tracks_yahtzee_50() as usize)
    }

    /// The slot of a (filled set, five-of-a-kind flag) pair: the boxes in play filled,
    /// then the flag where the game tracks it. Every state of a slot shares one turn
    /// computation, with lanes over the upper total.
    pub fn slot(self, filled: CategorySet, yahtzee_50: bool) -> usize {
        let filled = filled.minus(self.absent()).0 as usize;
        if self.tracks_yahtzee_50() { filled << 1 | yahtzee_50 as usize } else { filled }
    }

    /// The (filled set, flag) pair of a slot: the inverse of [`Game::slot`] on the slots
    /// it gives (a number with bits of boxes not in play is no slot of the game).
    pub fn slot_key(self, slot: usize) -> (CategorySet, bool) {
        let flag_bits = self.tracks_yahtzee_50() as usize;
        (CategorySet((slot >> flag_bits) as u16).union(self.absent()), slot & flag_bits == 1)
    }

    /// The boxes a player may fill next from `filled`: every open box, or under forced
    /// order only the first open one in card order.
    pub fn choices(self, filled: CategorySet) -> CategorySet {
        let open = filled.complement();
        if !self.rules.forced_order() {
            return open;
        }
        self.rules
            .card()
            .iter()
            .find(|&&c| open.contains(c))
            .map_or(CategorySet::EMPTY, |&c| CategorySet::EMPTY.with(c))
    }

    /// Whether a five of a kind rolled with the boxes `filled` filled can score other than
    /// by the printed patterns (a bonus or a Joker): only then need a solver ask
    /// [`Game::score`] rather than [`Rules::points_table`].
    pub fn extra_yahtzee_matters(self, filled: CategorySet) -> bool {
        let extras = self.rules.has_extra_bonus() || self.rules.joker() != Joker::None;
        extras && filled.contains(Category::Yahtzee)
    }

    /// [`Game::choices`] in card order: the order ties are broken in.
    pub fn choices_in_card_order(self, filled: CategorySet) -> Vec<Category> {
        let choices = self.choices(filled);
        self.rules.card().iter().copied().filter(|&c| choices.contains(c)).collect()
    }

    /// How `roll` scores in `category` when the boxes `filled` are filled and the
    /// five-of-a-kind box holds its points iff `yahtzee_50`; `None` when the rules forbid
    /// that box (forced order, the forced Joker) or it is already filled.
    pub fn score(self, category: Category, roll: RollId, filled: CategorySet, yahtzee_50: bool) -> Option<Scoring> {
        if !self.choices(filled).contains(category) {
            return None;
        }
        let pattern = self.rules.pattern(category)?;
        let base = pattern.points(roll);
        if !(roll.is_yahtzee() && self.extra_yahtzee_matters(filled)) {
            return Some(Scoring { box_points: base, yahtzee_bonus: 0 });
        }
        let face = roll.counts().iter().position(|&c| c == 5).unwrap_or(0) as u8 + 1;
        let face_box = Category::upper_for_face(face);
        if self.rules.joker() == Joker::Forced {
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
        let joker = self.rules.joker() != Joker::None && filled.contains(face_box);
        let box_points = if joker { pattern.joker_points(roll) } else { base };
        let yahtzee_bonus = if yahtzee_50 { self.rules.extra_bonus() } else { 0 };
        Some(Scoring { box_points, yahtzee_bonus })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(names: &[Category]) -> CategorySet {
        names.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c)).union(Game::full(Rules::OFFICIAL).absent())
    }

    #[test]
    fn joker_needs_the_yahtzee_box_and_the_face_box() {
        let fives = RollId::from_faces([5; 5]);
        let official = Game::full(Rules::OFFICIAL);
        let yahtzee_only = filled(&[Category::Yahtzee]);
        let both = filled(&[Category::Yahtzee, Category::Fives]);
        let fh = |g: Game, f, y| g.score(Category::FullHouse, fives, f, y);
        assert_eq!(fh(official, yahtzee_only, true), Some(Scoring { box_points: 0, yahtzee_bonus: 100 }));
        assert_eq!(fh(official, both, true), Some(Scoring { box_points: 25, yahtzee_bonus: 100 }));
        assert_eq!(fh(official, both, false), Some(Scoring { box_points: 25, yahtzee_bonus: 0 }));
        assert_eq!(fh(Game::full(Rules::NO_JOKER), both, true), Some(Scoring { box_points: 0, yahtzee_bonus: 100 }));
        assert_eq!(fh(Game::full(Rules::NO_BONUS), both, true), Some(Scoring { box_points: 0, yahtzee_bonus: 0 }));
        assert_eq!(fh(official, filled(&[]), false), Some(Scoring { box_points: 0, yahtzee_bonus: 0 }));
    }

    #[test]
    fn forced_joker_takes_the_face_box_first_then_a_lower_box() {
        let forced = Game::full(Rules::FORCED_JOKER);
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

    #[test]
    fn forced_order_allows_only_the_first_open_box() {
        let game = Game::full(Rules::yatzy_with(true, false, false));
        let roll = RollId::from_faces([6; 5]);
        let start = game.absent();
        assert!(game.score(Category::Ones, roll, start, false).is_some());
        assert!(game.score(Category::Yahtzee, roll, start, false).is_none());
        let after = start.union(CategorySet::UPPER);
        assert_eq!(game.choices(after).iter().collect::<Vec<_>>(), vec![Category::OnePair]);
    }

    #[test]
    fn card_order_and_first_n() {
        let y = Rules::yatzy();
        assert_eq!(y.card().len(), 15);
        assert_eq!(
            Game::first(y, 8).unwrap().box_names(),
            ["ones", "twos", "threes", "fours", "fives", "sixes", "pair", "2pairs"]
        );
        let err = y.first(16).unwrap_err().to_string();
        assert!(err.contains("1 to 15") && err.contains("yatzy"), "{err}");
        assert!(Rules::OFFICIAL.parse_list("pair").unwrap_err().to_string().contains("official rules have ones"));
        assert_eq!(Rules::OFFICIAL.first(13).unwrap(), Rules::OFFICIAL.boxes());
    }

    #[test]
    fn layer_slots_count_filled_sets() {
        let game = Game::full(Rules::OFFICIAL);
        // C(13, 1) sets, the Yahtzee box alone with both flags.
        assert_eq!(game.layer_slots(1).len(), 14);
        assert_eq!(game.layer_slots(13).len(), 2);
        // Yatzy tracks no five-of-a-kind flag: C(15, 1) sets, one slot each.
        assert_eq!(Game::full(Rules::yatzy()).layer_slots(1).len(), 15);
    }

    #[test]

    fn filled_sets_are_every_subset_of_the_boxes_in_play() {
        let game = Game::first(Rules::yatzy(), 3).unwrap();
        let sets: Vec<CategorySet> = game.filled_sets().collect();
        assert_eq!(sets.len(), 8);
        assert!(sets.iter().all(|s| s.is_superset(game.absent())));
        assert!(sets.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(game.num_slots(), 8);
        assert_eq!(Game::full(Rules::OFFICIAL).num_slots(), 1 << 14);
        assert_eq!(Game::full(Rules::yatzy()).num_slots(), 1 << 15);
        for slot in 0..game.num_slots() {
            let (filled, flag) = game.slot_key(slot);
            assert_eq!(game.slot(filled, flag), slot);
        }
    }
}
