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

use rayon::prelude::*;

use crate::game::{Game, RollId, ScoreState, StateId, StateIndex};

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

impl Cards {
    /// Indexes the cards of `game` and computes their bounds.
    pub fn new(game: Game) -> Cards {
        let index = StateIndex::new(game);
        let boxes = game.categories.len();
        let absent = game.absent().len();
        let mut by_filled = vec![Vec::new(); boxes + 1];
        for id in 0..index.len() as u32 {
            let filled = index.state(StateId(id)).filled.len() - absent;
            by_filled[filled].push(StateId(id));
        }
        let mut cards = Cards { index, bounds: Vec::new(), by_filled, boxes };
        cards.bounds = cards.compute_bounds();
        cards
    }

    fn compute_bounds(&self) -> Vec<CardBounds> {
        let n = self.index.len();
        let moves: Vec<Vec<Move>> = (0..n as u32).into_par_iter().map(|id| self.distinct_moves(StateId(id))).collect();
        let mut future = vec![(0i32, 0i32); n];
        for layer in self.by_filled.iter().rev() {
            for &id in layer {
                let m = &moves[id.0 as usize];
                if m.is_empty() {
                    continue;
                }
                let each = m.iter().map(|mv| {
                    let (lo, hi) = future[mv.next.0 as usize];
                    (mv.points as i32 + lo, mv.points as i32 + hi)
                });
                future[id.0 as usize] = each.fold((i32::MAX, i32::MIN), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
            }
        }
        let mut past = vec![(i32::MAX, i32::MIN); n];
        let start = self.index.id(ScoreState::start(self.index.game())).expect("the start is a state");
        past[start.0 as usize] = (0, 0);
        for layer in &self.by_filled {
            for &id in layer {
                let (lo, hi) = past[id.0 as usize];
                if lo > hi {
                    continue;
                }
                for mv in &moves[id.0 as usize] {
                    let p = &mut past[mv.next.0 as usize];
                    *p = (p.0.min(lo + mv.points as i32), p.1.max(hi + mv.points as i32));
                }
            }
        }
        past.iter()
            .zip(&future)
            .map(|(&(past_min, past_max), &(future_min, future_max))| CardBounds {
                past_min,
                past_max,
                future_min,
                future_max,
            })
            .collect()
    }

    /// Every distinct (successor, points) of `card`'s turn, in no particular order.
    fn distinct_moves(&self, card: StateId) -> Vec<Move> {
        let mut moves: Vec<Move> = self.moves(card).map(|(_, _, mv)| mv).collect();
        moves.sort_unstable_by_key(|m| (m.next, m.points));
        moves.dedup();
        moves
    }

    /// Every (roll, box index, move) of `card`'s turn: the boxes open and allowed.
    pub fn moves(&self, card: StateId) -> impl Iterator<Item = (RollId, usize, Move)> + '_ {
        let game = self.index.game();
        let state = self.index.state(card);
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
        self.index.state(card).filled.len() - self.game().absent().len()
    }

    /// Whether a card can occur in a game at all (some sequence of turns reaches it).
    pub fn is_reachable(&self, card: StateId) -> bool {
        let b = self.bounds(card);
        b.past_min <= b.past_max
    }
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
        let mut member = vec![false; cards.index().len()];
        member[root.0 as usize] = true;
        for k in cards.filled(root)..cards.boxes() {
            for &id in cards.with_filled(k) {
                if member[id.0 as usize] {
                    for mv in cards.distinct_moves(id) {
                        member[mv.next.0 as usize] = true;
                    }
                }
            }
        }
        CardSet::from_members(cards, |id| member[id.0 as usize])
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
