//! Players: anything that plans a turn in a game of several players, each on its own card.
//!
//! A player is a [`MatchPlayer`]: it plans each of its turns seeing every card
//! ([`Position`]). Solitaire strategies ([`Policy`], which never look at the other cards)
//! take part through [`SolitairePlayer`]; the opponent-aware searchers EMP(d) and DynS(d)
//! ([`search`]) implement the trait directly.
//!
//! - [`eval`]: EvalEMP (expected match points) and EvalDynS (Eq. 1) of a position, from
//!   every player's target curve read as the distribution of its final score;
//! - [`search`]: the searchers, which plan a turn by searching d turns deep and applying
//!   the evaluation at the leaves (Pawlewicz §4.1 to §4.3);
//! - [`lineup`]: players named on the command line, built once;
//! - [`matchplay`]: many games of a line-up, tallied.

pub mod eval;
pub mod lineup;
pub mod matchplay;
pub mod search;

use std::sync::Arc;

use crate::game::{Game, ScoreState};
use crate::simulate::PlanCache;
use crate::solo::{Policy, TurnPlan};
use crate::store::TableError;

pub use eval::{Evaluation, FinalScore, dynamic_score, expected_match_points};
pub use lineup::{Lineup, LineupError, match_players};
pub use search::{PlayerName, Searcher};

/// One player's card in a match: its score state and the points written on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seat {
    /// What of the card matters for the future.
    pub state: ScoreState,
    /// Points on the card so far, bonuses included.
    pub points: u32,
}

/// A match between turns: every player's card and whose turn it is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The cards, in turn order.
    pub seats: Vec<Seat>,
    /// The player about to roll.
    pub mover: usize,
}

impl Position {
    /// The start of a game of `game` between `players` players, the first to move.
    pub fn start(game: Game, players: usize) -> Position {
        Position { seats: vec![Seat { state: ScoreState::start(game), points: 0 }; players], mover: 0 }
    }

    /// The position after the mover's turn ended with `points` more and state `next`: the
    /// next player (in turn order) to move.
    pub fn after(&self, next: ScoreState, points: u32) -> Position {
        let mut seats = self.seats.clone();
        let seat = &mut seats[self.mover];
        *seat = Seat { state: next, points: seat.points + points };
        Position { seats, mover: (self.mover + 1) % self.seats.len() }
    }

    /// The same cards with the turn passed on unplayed (for a mover whose card is full).
    pub fn passed(&self) -> Position {
        Position { seats: self.seats.clone(), mover: (self.mover + 1) % self.seats.len() }
    }

    /// Whether every card is full.
    pub fn is_over(&self) -> bool {
        self.seats.iter().all(|s| s.state.is_terminal())
    }
}

/// A match player: plans its turn seeing every card.
pub trait MatchPlayer: Sync {
    /// The plan of the mover's turn in `position` (the mover's card is not full). Every
    /// keep must be within its roll and every box allowed. Fails only where a table the
    /// player reads is unreadable.
    fn plan(&self, position: &Position) -> Result<Arc<TurnPlan>, TableError>;
}

/// A solitaire strategy as a match player: it looks at its own card only, and its plans are
/// kept per score state ([`PlanCache`]).
pub struct SolitairePlayer<'a> {
    plans: PlanCache<'a, dyn Policy + 'a>,
}

impl<'a> SolitairePlayer<'a> {
    /// `policy` as a match player.
    pub fn new(policy: &'a (dyn Policy + 'a)) -> SolitairePlayer<'a> {
        SolitairePlayer { plans: PlanCache::new(policy) }
    }
}

impl MatchPlayer for SolitairePlayer<'_> {
    fn plan(&self, position: &Position) -> Result<Arc<TurnPlan>, TableError> {
        Ok(self.plans.plan(position.seats[position.mover].state))
    }
}
