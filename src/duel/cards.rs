//! A player's card in a two-player game, and the bounds that shape its windows.
//!
//! A card is a single-player score state ([`StateId`] of the game's [`StateIndex`]): the
//! filled boxes, the upper total up to 63 (merged into classes that no future can tell
//! apart) and whether the Yahtzee box holds 50. What a card does not say is how many
//! points it holds; the two-player position keeps only the difference. To know which
//! differences can occur and which are already decided, every card carries four numbers
//! (Pawlewicz App. D, constraints 2 and 3):
//!
//! | bound | meaning | computed |
//! |---|---|---|
//! | `past_min`, `past_max` | points the filled boxes can hold, bonuses included | forward from the start |
//! | `future_min`, `future_max` | points still to come, over every roll and every choice | backward from the end |
//!
//! All four are exact over the state graph: each is attained by some sequence of rolls and
//! boxes (for merged upper totals, by some member of the class).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicI32};

use rayon::prelude::*;

use crate::game::Scoring;
use crate::game::{Category, Game, RollId, ScoreState, StateId, StateIndex};
use crate::turn::ScoringPlan;

/// Points bounds of one card; see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CardBounds {
    /// Fewest points the filled boxes can hold.
    pub past_min: i32,
    /// Most points the filled boxes can hold.
    pub past_max: i32,
    /// Fewest points the open boxes can still earn.
    pub future_min: i32,
    /// Most points the open boxes can still earn.
    pub future_max: i32,
}

/// Every card of a game with its bounds, grouped by the number of boxes in play filled.
#[derive(Clone, Debug)]
pub struct Cards {
    index: StateIndex,
    /// The state of each card (the smallest upper total of its class).
    states: Vec<ScoreState>,
    bounds: Vec<CardBounds>,
    /// Cards with `k` boxes in play filled, by ascending id.
    by_filled: Vec<Vec<StateId>>,
    /// Boxes in play.
    boxes: usize,
}

/// One way a turn can end: scoring `roll` in a box leads to `next` for `points`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The card after scoring.
    pub next: StateId,
    /// Points earned, bonuses included.
    pub points: u32,
}

/// Moves of one turn that lead to one card.
struct Successor {
    /// The card they lead to.
    next: StateId,
    /// Fewest and most points of those moves.
    points: (i32, i32),
}

impl Cards {
    /// Indexes the cards of `game` and computes their bounds.
    pub fn new(game: Game) -> Cards {
        let index = StateIndex::new(game);
        let boxes = game.categories.len();
        let absent = game.absent().len();
        let states: Vec<ScoreState> = (0..index.len() as u32).map(|id| index.state(StateId(id))).collect();
        let mut by_filled = vec![Vec::new(); boxes + 1];
        for (id, state) in states.iter().enumerate() {
            by_filled[state.filled.len() - absent].push(StateId(id as u32));
        }
        let mut cards = Cards { index, states, bounds: Vec::new(), by_filled, boxes };
        cards.bounds = cards.compute_bounds();
        cards
    }

    fn compute_bounds(&self) -> Vec<CardBounds> {
        let n = self.index.len();
        // By layer, each slot's cards with their scorings; the last layer has no turn.
        let layers: Vec<Vec<_>> =
            self.by_filled[..self.boxes].iter().map(|layer| self.slots(layer).collect()).collect();
        let mut future = vec![(0, 0); n];
        for (layer, slots) in self.by_filled.iter().zip(&layers).rev() {
            let values: Vec<(i32, i32)> = slots
                .par_iter()
                .flat_map_iter(|(cards, scorings)| {
                    let future = &future;
                    cards.iter().map(move |&id| {
                        self.successors(id, scorings).fold((i32::MAX, i32::MIN), |(lo, hi), s| {
                            let (f_lo, f_hi) = future[s.next.0 as usize];
                            (lo.min(s.points.0 + f_lo), hi.max(s.points.1 + f_hi))
                        })
                    })
                })
                .collect();
            for (&id, value) in layer.iter().zip(values) {
                future[id.0 as usize] = value;
            }
        }
        let past: Vec<[AtomicI32; 2]> = (0..n).map(|_| [AtomicI32::new(i32::MAX), AtomicI32::new(i32::MIN)]).collect();
        let start = self.index.id(ScoreState::start(self.index.game())).expect("the start is a state");
        past[start.0 as usize].iter().for_each(|p| p.store(0, Relaxed));
        for slots in &layers {
            slots.par_iter().for_each(|(cards, scorings)| {
                for &id in *cards {
                    let [lo, hi] = past[id.0 as usize].each_ref().map(|p| p.load(Relaxed));
                    if lo > hi {
                        continue;
                    }
                    for s in self.successors(id, scorings) {
                        let [p_lo, p_hi] = &past[s.next.0 as usize];
                        let (lo, hi) = (lo + s.points.0, hi + s.points.1);
                        // Most improve nothing: a plain load spares them the atomic update.
                        if lo < p_lo.load(Relaxed) {
                            p_lo.fetch_min(lo, Relaxed);
                        }
                        if hi > p_hi.load(Relaxed) {
                            p_hi.fetch_max(hi, Relaxed);
                        }
                    }
                }
            });
        }
        past.into_iter()
            .zip(future)
            .map(|([past_min, past_max], (future_min, future_max))| CardBounds {
                past_min: past_min.into_inner(),
                past_max: past_max.into_inner(),
                future_min,
                future_max,
            })
            .collect()
    }

    /// `cards` (ascending) split into slots (same filled boxes and Yahtzee flag), in
    /// parallel, each with the [`scorings`] of its turns.
    fn slots<'a>(
        &'a self,
        cards: &'a [StateId],
    ) -> impl ParallelIterator<Item = (&'a [StateId], Vec<(Category, Scoring)>)> + 'a {
        let slot = |id: StateId| {
            let s = self.states[id.0 as usize];
            (s.filled, s.yahtzee_50)
        };
        cards
            .par_chunk_by(move |&a, &b| slot(a) == slot(b))
            .map(move |slot| (slot, scorings(self.game(), self.states[slot[0].0 as usize])))
    }

    /// The successors of `card`'s turn, given the [`scorings`] of its slot, each with the
    /// fewest and most points of the moves to it (a successor may come more than once).
    fn successors<'a>(
        &'a self,
        card: StateId,
        scorings: &'a [(Category, Scoring)],
    ) -> impl Iterator<Item = Successor> + 'a {
        let state = self.states[card.0 as usize];
        let mut ends = scorings.iter().map(move |&(c, scoring)| state.apply(self.game(), c, scoring)).peekable();
        // A box's scorings come together, and all but the Yahtzee box's and an upper box's
        // lead to one successor: merging neighbours spares most lookups.
        std::iter::from_fn(move || {
            let first = ends.next()?;
            let mut points = (first.points as i32, first.points as i32);
            while let Some(t) = ends.next_if(|t| t.next == first.next) {
                points = (points.0.min(t.points as i32), points.1.max(t.points as i32));
            }
            Some(Successor { next: self.index.id(first.next).expect("a successor of a state is a state"), points })
        })
    }

    /// Plans `card`'s turn ([`ScoringPlan::build`]), its successors by card id.
    pub fn plan_turn(&self, card: StateId, plan: &mut ScoringPlan<StateId>) {
        let game = self.index.game();
        let state = self.states[card.0 as usize];
        plan.build(game.rules.roll_classes(), game.choices(state.filled).iter(), |c, roll| {
            let t = state.score(game, c, roll)?;
            Some((self.index.id(t.next).expect("a successor of a state is a state"), t.points))
        });
    }

    /// Every (roll, box index, move) of `card`'s turn: the boxes open and allowed.
    pub fn moves(&self, card: StateId) -> impl Iterator<Item = (RollId, usize, Move)> + '_ {
        let game = self.index.game();
        let state = self.states[card.0 as usize];
        let open = state.filled.complement();
        RollId::all().flat_map(move |roll| {
            open.iter().filter_map(move |c| {
                let t = state.score(game, c, roll)?;
                let next = self.index.id(t.next).expect("a successor of a state is a state");
                Some((roll, c.index(), Move { next, points: t.points }))
            })
        })
    }

    /// The game.
    pub fn game(&self) -> Game {
        self.index.game()
    }

    /// The state index the cards are ids of.
    pub fn index(&self) -> &StateIndex {
        &self.index
    }

    /// Boxes in play per player.
    pub fn boxes(&self) -> usize {
        self.boxes
    }

    /// Bounds of `card`.
    pub fn bounds(&self, card: StateId) -> CardBounds {
        self.bounds[card.0 as usize]
    }

    /// Cards with `k` boxes in play filled, by ascending id (empty for `k` out of range).
    pub fn with_filled(&self, k: usize) -> &[StateId] {
        self.by_filled.get(k).map_or(&[], Vec::as_slice)
    }

    /// Boxes in play filled on `card`.
    pub fn filled(&self, card: StateId) -> usize {
        self.states[card.0 as usize].filled.len() - self.game().absent().len()
    }

    /// Whether a card can occur in a game at all (some sequence of turns reaches it).
    pub fn is_reachable(&self, card: StateId) -> bool {
        let b = self.bounds(card);
        b.past_min <= b.past_max
    }
}

/// Every distinct (box, scoring) that can end a turn from `state`. A turn's move depends on
/// the roll only through the [`Scoring`] of [`Game::score`] ([`ScoreState::score`] applies
/// it), which reads the filled boxes and the Yahtzee flag but not the upper total: these
/// give the moves of every card of `state`'s slot.
fn scorings(game: Game, state: ScoreState) -> Vec<(Category, Scoring)> {
    let mut scorings = Vec::new();
    // One roll per class stands for all 252 ([`crate::game::RollClasses`]).
    let classes = game.rules.roll_classes();
    for c in state.filled.complement().iter() {
        let first = scorings.len();
        for &roll in &classes.representatives[c.index()] {
            if let Some(scoring) = game.score(c, roll, state.filled, state.yahtzee_50)
                && !scorings[first..].contains(&(c, scoring))
            {
                scorings.push((c, scoring));
            }
        }
    }
    scorings
}

/// The differences `d` (mover's points minus opponent's) that are positions for a mover
/// card with bounds `mover` against `opponent`, as an inclusive range `lo..=hi` (empty when
/// `lo > hi`).
///
/// Outside `fmin_B − fmax_A ..= fmax_B − fmin_A` the game is decided whatever happens
/// (`d` above: the mover wins; below: loses); outside
/// `pmin_A − pmax_B ..= pmax_A − pmin_B` the difference cannot occur (App. D).
pub fn window(mover: CardBounds, opponent: CardBounds) -> (i32, i32) {
    let lo = (opponent.future_min - mover.future_max).max(mover.past_min - opponent.past_max);
    let hi = (opponent.future_max - mover.future_min).min(mover.past_max - opponent.past_min);
    (lo, hi)
}

/// Whether `d` is decided for the mover: `Some(true)` won whatever happens, `Some(false)`
/// lost, `None` still open (which says nothing about whether `d` can occur).
pub fn decided(mover: CardBounds, opponent: CardBounds, d: i32) -> Option<bool> {
    if d > opponent.future_max - mover.future_min {
        Some(true)
    } else if d < opponent.future_min - mover.future_max {
        Some(false)
    } else {
        None
    }
}

/// Cards of a set with the ids that belong to it, for sub-games below a position.
#[derive(Clone, Debug)]
pub struct CardSet {
    /// Members with `k` boxes in play filled, ascending.
    by_filled: Vec<Vec<StateId>>,
    /// Position of each member within its `by_filled` list; `u32::MAX` for non-members.
    position: Vec<u32>,
}

impl CardSet {
    /// Every reachable card of the game.
    pub fn all(cards: &Cards) -> CardSet {
        CardSet::from_members(cards, |id| cards.is_reachable(id))
    }

    /// `root` and every card reachable from it.
    pub fn below(cards: &Cards, root: StateId) -> CardSet {
        let member: Vec<AtomicBool> =
            (0..cards.index().len()).map(|id| AtomicBool::new(id == root.0 as usize)).collect();
        for k in cards.filled(root)..cards.boxes() {
            let layer: Vec<StateId> =
                cards.with_filled(k).iter().copied().filter(|&id| member[id.0 as usize].load(Relaxed)).collect();
            cards.slots(&layer).for_each(|(slot, scorings)| {
                for &id in slot {
                    cards.successors(id, &scorings).for_each(|s| member[s.next.0 as usize].store(true, Relaxed));
                }
            });
        }
        CardSet::from_members(cards, |id| member[id.0 as usize].load(Relaxed))
    }

    fn from_members(cards: &Cards, is_member: impl Fn(StateId) -> bool) -> CardSet {
        let mut position = vec![u32::MAX; cards.index().len()];
        let by_filled = (0..=cards.boxes())
            .map(|k| {
                let members: Vec<StateId> = cards.with_filled(k).iter().copied().filter(|&id| is_member(id)).collect();
                for (i, id) in members.iter().enumerate() {
                    position[id.0 as usize] = i as u32;
                }
                members
            })
            .collect();
        CardSet { by_filled, position }
    }

    /// Members with `k` boxes in play filled.
    pub fn with_filled(&self, k: usize) -> &[StateId] {
        self.by_filled.get(k).map_or(&[], Vec::as_slice)
    }

    /// Position of `card` in its `with_filled` list, if a member.
    pub fn position(&self, card: StateId) -> Option<usize> {
        let p = self.position[card.0 as usize];
        (p != u32::MAX).then_some(p as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{CategorySet, Rules, YAHTZEE_RULES};

    /// The former `distinct_moves`: every (roll, box), sorted and deduplicated.
    fn brute_moves(cards: &Cards, card: StateId) -> Vec<Move> {
        let mut moves: Vec<Move> = cards.moves(card).map(|(_, _, mv)| mv).collect();
        moves.sort_unstable_by_key(|m| (m.next, m.points));
        moves.dedup();
        moves
    }

    /// The moves the slot's [`scorings`] give, sorted and deduplicated.
    fn fast_moves(cards: &Cards, card: StateId) -> Vec<Move> {
        let state = cards.states[card.0 as usize];
        let mut moves: Vec<Move> = scorings(cards.game(), state)
            .into_iter()
            .map(|(c, scoring)| {
                let t = state.apply(cards.game(), c, scoring);
                Move { next: cards.index.id(t.next).unwrap(), points: t.points }
            })
            .collect();
        moves.sort_unstable_by_key(|m| (m.next, m.points));
        moves.dedup();
        moves
    }

    /// The former bound computation over [`brute_moves`], without holding them all.
    fn brute_bounds(cards: &Cards) -> Vec<CardBounds> {
        let n = cards.index.len();
        let mut future = vec![(0, 0); n];
        for layer in cards.by_filled.iter().rev() {
            let values: Vec<Option<(i32, i32)>> = layer
                .par_iter()
                .map(|&id| {
                    let each = brute_moves(cards, id).into_iter().map(|mv| {
                        let (lo, hi) = future[mv.next.0 as usize];
                        (mv.points as i32 + lo, mv.points as i32 + hi)
                    });
                    each.reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
                })
                .collect();
            for (&id, value) in layer.iter().zip(values) {
                future[id.0 as usize] = value.unwrap_or((0, 0));
            }
        }
        let mut past = vec![(i32::MAX, i32::MIN); n];
        past[cards.index.id(ScoreState::start(cards.game())).unwrap().0 as usize] = (0, 0);
        for &id in cards.by_filled.iter().flatten() {
            let (lo, hi) = past[id.0 as usize];
            if lo <= hi {
                for mv in brute_moves(cards, id) {
                    let p = &mut past[mv.next.0 as usize];
                    *p = (p.0.min(lo + mv.points as i32), p.1.max(hi + mv.points as i32));
                }
            }
        }
        past.into_iter()
            .zip(future)
            .map(|((past_min, past_max), (future_min, future_max))| CardBounds {
                past_min,
                past_max,
                future_min,
                future_max,
            })
            .collect()
    }

    /// Small games under every rule: upper boxes only, and mixes with the Yahtzee box, Joker
    /// boxes and an upper bonus within reach.
    fn small_games() -> impl Iterator<Item = Game> {
        let set = |boxes: &[Category]| boxes.iter().fold(CategorySet::EMPTY, |s, &c| s.with(c));
        let sets = [
            Rules::OFFICIAL.first(4).unwrap(),
            set(&[Category::Twos, Category::FullHouse, Category::Yahtzee, Category::Chance]),
            set(&[Category::Fours, Category::Fives, Category::Sixes, Category::LargeStraight, Category::Yahtzee]),
            set(&[Category::Ones, Category::Sixes, Category::ThreeOfAKind, Category::SmallStraight, Category::Yahtzee]),
        ];
        YAHTZEE_RULES.into_iter().flat_map(move |rules| sets.map(|categories| Game { rules, categories }))
    }

    #[test]
    fn scorings_give_every_move() {
        for game in small_games() {
            let cards = Cards::new(game);
            for id in (0..cards.index.len() as u32).map(StateId) {
                assert_eq!(
                    fast_moves(&cards, id),
                    brute_moves(&cards, id),
                    "{game:?}, {:?}",
                    cards.states[id.0 as usize]
                );
            }
        }
        for rules in YAHTZEE_RULES {
            let cards = Cards::new(Game::full(rules));
            for id in (0..cards.index.len() as u32).step_by(97).map(StateId) {
                assert_eq!(
                    fast_moves(&cards, id),
                    brute_moves(&cards, id),
                    "{rules}, {:?}",
                    cards.states[id.0 as usize]
                );
            }
        }
    }

    #[test]
    fn bounds_equal_brute_force() {
        for game in small_games() {
            let cards = Cards::new(game);
            assert_eq!(cards.bounds, brute_bounds(&cards), "{game:?}");
        }
    }

    #[test]
    #[ignore = "the full game by brute force: about 30 s on two cores; run scripts/long-tests"]
    fn full_game_bounds_equal_brute_force() {
        let cards = Cards::new(Game::full(Rules::OFFICIAL));
        assert_eq!(cards.bounds, brute_bounds(&cards));
    }

    #[test]
    fn below_holds_what_brute_force_reaches() {
        for game in small_games() {
            let cards = Cards::new(game);
            for root in (0..cards.index.len() as u32).step_by(7).map(StateId) {
                let mut member = vec![false; cards.index.len()];
                member[root.0 as usize] = true;
                // A successor fills one more box, so its slot and id come later.
                for id in (root.0..cards.index.len() as u32).map(StateId) {
                    if member[id.0 as usize] {
                        brute_moves(&cards, id).iter().for_each(|mv| member[mv.next.0 as usize] = true);
                    }
                }
                let below = CardSet::below(&cards, root);
                let members: Vec<bool> =
                    (0..cards.index.len() as u32).map(|id| below.position(StateId(id)).is_some()).collect();
                assert_eq!(members, member, "{game:?}, root {root:?}");
            }
        }
    }
}
