//! The positions a solve covers: the cards each player can hold, layer by layer, from a
//! first layer on (the whole game, an endgame, or the game below one position).
//!
//! Layer `t` holds the positions with `t` boxes filled on both cards together; the mover
//! has `⌊t/2⌋` of them ([`layer_split`]).

use super::cards::{CardSet, Cards};
use crate::game::StateId;

/// Why a set of positions cannot be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// The fill counts break the turn order.
    #[error(
        "the player to move has {mover} boxes filled and the opponent {opponent}: the player to move must have as many \
         filled boxes as the opponent (moving first this round) or one fewer (moving second)"
    )]
    TurnOrder {
        /// Mover's filled boxes in play.
        mover: usize,
        /// Opponent's filled boxes in play.
        opponent: usize,
    },
    /// An endgame bound that leaves no position to solve, or exceeds the game.
    #[error(
        "--max-empty {max_empty}: the boxes open on both cards together, 1 to {most} for this game of {boxes} boxes a player"
    )]
    MaxEmpty {
        /// The bound asked for.
        max_empty: usize,
        /// The most boxes open at once: both cards empty.
        most: usize,
        /// Boxes a player.
        boxes: usize,
    },
}

/// The positions a solve covers: the cards each player can hold and the layers.
#[derive(Clone, Debug)]
pub struct Space<'a> {
    cards: &'a Cards,
    /// Cards of the player to move in `first_layer`, and of the other player.
    sides: [CardSet; 2],
    first_layer: usize,
}

impl<'a> Space<'a> {
    /// Every position of the game, from its start.
    pub fn whole_game(cards: &'a Cards) -> Space<'a> {
        let all = CardSet::all(cards);
        Space { cards, sides: [all.clone(), all], first_layer: 0 }
    }

    /// Every position with at most `max_empty` boxes open on both cards together
    /// (Pawlewicz's endgame tables, §4.2).
    pub fn endgame(cards: &'a Cards, max_empty: usize) -> Space<'a> {
        let all = CardSet::all(cards);
        let first_layer = (2 * cards.boxes()).saturating_sub(max_empty);
        Space { cards, sides: [all.clone(), all], first_layer }
    }

    /// [`Space::endgame`] for a bound given from outside (`None`: the whole game), refused
    /// unless it leaves a position to solve and fits the game.
    pub fn with_max_empty(cards: &'a Cards, max_empty: Option<usize>) -> Result<Space<'a>, SpaceError> {
        let most = 2 * cards.boxes();
        match max_empty {
            None => Ok(Space::whole_game(cards)),
            Some(k) if (1..=most).contains(&k) => Ok(Space::endgame(cards, k)),
            Some(max_empty) => Err(SpaceError::MaxEmpty { max_empty, most, boxes: cards.boxes() }),
        }
    }

    /// Every position that can follow the cards `mover` (to move) and `opponent`.
    pub fn below(cards: &'a Cards, mover: StateId, opponent: StateId) -> Result<Space<'a>, SpaceError> {
        let (m, o) = (cards.filled(mover), cards.filled(opponent));
        if o != m && o != m + 1 {
            return Err(SpaceError::TurnOrder { mover: m, opponent: o });
        }
        Ok(Space { cards, sides: [CardSet::below(cards, mover), CardSet::below(cards, opponent)], first_layer: m + o })
    }

    /// The cards and their bounds.
    pub fn cards(&self) -> &'a Cards {
        self.cards
    }

    /// The first layer covered.
    pub fn first_layer(&self) -> usize {
        self.first_layer
    }

    /// One past the last layer in which someone moves: `2n` for `n` boxes per player.
    pub fn end_layer(&self) -> usize {
        2 * self.cards.boxes()
    }

    /// How many cards the player not to move can hold in `layer` (a shard's rows' width).
    pub fn opponent_count(&self, layer: usize) -> usize {
        self.opponents(layer).with_filled(layer_split(layer).1).len()
    }

    /// The cards of the player to move in `layer`.
    pub fn movers(&self, layer: usize) -> &CardSet {
        &self.sides[(layer - self.first_layer) % 2]
    }

    /// The cards of the player waiting in `layer`.
    pub fn opponents(&self, layer: usize) -> &CardSet {
        &self.sides[(layer - self.first_layer + 1) % 2]
    }
}

/// Which boxes of a layer the mover and the opponent have filled.
pub fn layer_split(layer: usize) -> (usize, usize) {
    (layer / 2, layer - layer / 2)
}
