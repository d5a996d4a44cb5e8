//! A game played by a person, coached decision by decision: the dice dealt from a seed or
//! entered from real dice, an optional opponent that plays its own turns, and the game
//! kept as a [`Record`] for [`crate::coach::review`].
//!
//! The coach values every choice as an advisor does: expected final score
//! ([`crate::solo::advise()`]) or, playing for a target, P(final total ≥ target)
//! ([`crate::targets::advise`]). A decision's loss is the coach's gap for the choice made.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::coach::record::{Decision, Location, Record, RecordError, Turn};
use crate::coach::review::judge_checked;
use crate::game::{Card, Category, Game, KeepId, RollId};
use crate::game::{Choice, RollsLeft, Valued};
use crate::players::{MatchPlayer, Position, Seat};
use crate::simulate::roll_missing;
use crate::solo::{self, SoloTable};
use crate::store::TableError;
use crate::targets::advise::TargetAdviseError;
use crate::targets::{self, TargetTable};

/// How the coach values a choice.
#[derive(Clone, Copy)]
pub enum Coach<'t> {
    /// Expected final score, from the solitaire table.
    Expected(&'t SoloTable),
    /// P(final total ≥ `target`), from the target table.
    Target {
        /// The target table.
        table: &'t TargetTable,
        /// The total aimed at.
        target: i64,
    },
}

impl Coach<'_> {
    /// Every choice of `card` holding `roll` with `rolls_left` rerolls, valued, best first.
    pub fn rank(&self, game: Game, card: &Card, roll: RollId, rolls_left: RollsLeft) -> Result<Vec<Valued>, PlayError> {
        Ok(match *self {
            Coach::Expected(table) => solo::advise(table, game, card, roll, rolls_left)
                .map_err(|_| PlayError::Over)?
                .into_iter()
                .map(|r| Valued { choice: r.choice, points: r.points, value: r.expected_final })
                .collect(),
            Coach::Target { table, target } => targets::advise::advise(table, game, card, roll, rolls_left, target)?
                .into_iter()
                .map(|r| Valued { choice: r.choice, points: r.points, value: f64::from(r.probability) })
                .collect(),
        })
    }
}

/// What a decision was worth: the choice, the best one, and the loss between them.
#[derive(Clone, Copy, Debug)]
pub struct Feedback {
    /// The rerolls that were left.
    pub rolls_left: RollsLeft,
    /// The dice showing.
    pub roll: RollId,
    /// The choice made, valued.
    pub chosen: Valued,
    /// The best choice, valued.
    pub best: Valued,
    /// `best.value − chosen.value`.
    pub loss: f64,
}

/// Why a step of play was refused.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Every card is full.
    #[error("the game is over")]
    Over,
    /// The dice are dealt from a seed: none may be entered.
    #[error("the dice are dealt from the seed; none are entered")]
    Dealt,
    /// Dice to roll are entered by hand, and none were.
    #[error("enter the five dice as they lie, e.g. 13356")]
    DiceNeeded,
    /// Dice entered that lost some of those kept.
    #[error("the dice {roll} do not hold the {keep} kept")]
    LostKeep {
        /// The dice entered.
        roll: RollId,
        /// The dice kept.
        keep: KeepId,
    },
    /// A decision before the dice are rolled.
    #[error("roll the dice first")]
    NotRolled,
    /// Dice rolled twice.
    #[error("the dice are rolled; choose a keep or a box")]
    AlreadyRolled,
    /// A keep with dice that are not showing.
    #[error("keep {keep}: the dice showing are {roll}")]
    NotInRoll {
        /// The keep asked for.
        keep: KeepId,
        /// The dice showing.
        roll: RollId,
    },
    /// A keep with no reroll left.
    #[error("no reroll is left: choose a box")]
    NoRerollLeft,
    /// A box the rules do not allow for these dice now.
    #[error("{0} cannot take these dice now (filled, or not allowed by the rules)")]
    BoxNotAllowed(&'static str),
    /// The opponent's move asked on the player's turn, or the reverse.
    #[error("it is not {0}'s turn")]
    NotTheirTurn(String),
    /// The record refused the turn (a bug if it happens: the session checks first).
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A table could not be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The target advisor refused the position.
    #[error(transparent)]
    Target(#[from] TargetAdviseError),
}

/// The turn being played: its rolls, the keeps between them, and the keep the next roll
/// starts from (until the dice are rolled).
#[derive(Clone, Debug, Default)]
struct TurnInPlay {
    rolls: Vec<RollId>,
    keeps: Vec<KeepId>,
    pending: Option<KeepId>,
}

/// A game in play.
pub struct Session<'a> {
    record: Record,
    coach: Coach<'a>,
    opponent: Option<&'a dyn MatchPlayer>,
    rng: Option<ChaCha8Rng>,
    turn: TurnInPlay,
    feedback: Vec<Feedback>,
}

/// The seat of the person playing; an opponent sits in seat 1.
pub const PLAYER: usize = 0;

impl<'a> Session<'a> {
    /// A new game of `game` for the player `name`, coached by `coach`, against `opponent`
    /// (named `opponent_name`) if any; dice dealt from `seed`, or entered by hand (`None`).
    pub fn new(
        game: Game,
        name: &str,
        coach: Coach<'a>,
        opponent: Option<(&str, &'a dyn MatchPlayer)>,
        seed: Option<u64>,
    ) -> Result<Session<'a>, PlayError> {
        let mut names = vec![name.to_string()];
        names.extend(opponent.map(|(n, _)| n.to_string()));
        Ok(Session {
            record: Record::new(game, names)?,
            coach,
            opponent: opponent.map(|(_, p)| p),
            rng: seed.map(ChaCha8Rng::seed_from_u64),
            turn: TurnInPlay { pending: Some(KeepId(0)), ..TurnInPlay::default() },
            feedback: Vec::new(),
        })
    }

    /// The game so far.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The player's decisions so far with what each was worth.
    pub fn feedback(&self) -> &[Feedback] {
        &self.feedback
    }

    /// Whether the dice come from a seed.
    pub fn deals(&self) -> bool {
        self.rng.is_some()
    }

    /// Who moves (0 the player, 1 the opponent).
    pub fn mover(&self) -> usize {
        self.record.mover()
    }

    /// Whether every card is full.
    pub fn is_over(&self) -> bool {
        self.record.is_over()
    }

    /// The dice showing and the rerolls left, once rolled.
    pub fn dice(&self) -> Option<(RollId, RollsLeft)> {
        if self.turn.pending.is_some() {
            return None;
        }
        let roll = *self.turn.rolls.last()?;
        Some((roll, RollsLeft::new(3 - self.turn.rolls.len() as u8).expect("1 to 3 rolls")))
    }

    /// The dice kept for the next roll, while the dice are to be rolled.
    pub fn kept(&self) -> Option<KeepId> {
        self.turn.pending
    }

    /// Rolls the dice not kept: dealt from the seed (`entered` is `None`), or as entered.
    pub fn roll(&mut self, entered: Option<RollId>) -> Result<RollId, PlayError> {
        if self.is_over() {
            return Err(PlayError::Over);
        }
        let keep = self.turn.pending.ok_or(PlayError::AlreadyRolled)?;
        let roll = match (&mut self.rng, entered) {
            (Some(rng), None) => roll_missing(keep, rng),
            (Some(_), Some(_)) => return Err(PlayError::Dealt),
            (None, None) => return Err(PlayError::DiceNeeded),
            (None, Some(roll)) if !keep.is_within(roll) => return Err(PlayError::LostKeep { roll, keep }),
            (None, Some(roll)) => roll,
        };
        self.turn.rolls.push(roll);
        self.turn.pending = None;
        Ok(roll)
    }

    /// The coach's ranking of the mover's choices now, best first.
    pub fn options(&self) -> Result<Vec<Valued>, PlayError> {
        let (roll, rolls_left) = self.dice().ok_or(PlayError::NotRolled)?;
        self.coach.rank(self.record.game(), &self.record.cards()[self.mover()], roll, rolls_left)
    }

    /// The opponent's choice now, by its own plan.
    pub fn opponent_choice(&self) -> Result<Choice, PlayError> {
        let opponent = match (self.opponent, self.mover()) {
            (Some(opponent), 1) => opponent,
            _ => return Err(PlayError::NotTheirTurn(self.record.players().get(1).cloned().unwrap_or_default())),
        };
        let (roll, rolls_left) = self.dice().ok_or(PlayError::NotRolled)?;
        let cards = self.record.cards();
        let seats = cards.iter().map(|c| Seat { state: c.state(), points: c.points() }).collect();
        let plan = opponent.plan(&Position { seats, mover: 1 })?;
        let r = roll.0 as usize;
        Ok(match rolls_left.get() {
            2 => Choice::Keep(plan.keep_after_first[r]),
            1 => Choice::Keep(plan.keep_after_second[r]),
            _ => Choice::Score(plan.box_for_roll[r]),
        })
    }

    /// Makes the mover's `choice`: a keep (the dice not kept are rolled next) or a box (the
    /// turn ends; a box with rerolls left stops rolling). The player's decision comes back
    /// valued as `yz review` values it (a box with rerolls left against the best option
    /// there); the opponent's come back empty.
    pub fn decide(&mut self, choice: Choice) -> Result<Option<Feedback>, PlayError> {
        let (roll, rolls_left) = self.dice().ok_or(PlayError::NotRolled)?;
        let game = self.record.game();
        let card = self.record.cards()[self.mover()].clone();
        match choice {
            Choice::Keep(keep) => {
                if rolls_left == RollsLeft::NONE {
                    return Err(PlayError::NoRerollLeft);
                }
                if !keep.is_within(roll) {
                    return Err(PlayError::NotInRoll { keep, roll });
                }
            }
            Choice::Score(category) => {
                let state = card.state();
                if game.score(category, roll, state.filled, state.yahtzee_50).is_none() {
                    return Err(PlayError::BoxNotAllowed(game.rules.box_name(category)));
                }
            }
        }
        let mut feedback = None;
        if self.mover() == PLAYER {
            let decision = Decision { roll, rolls_left, choice };
            let (chosen, best, loss) = judge_checked(&decision, |left| self.coach.rank(game, &card, roll, left))?;
            self.feedback.push(Feedback { rolls_left, roll, chosen, best, loss });
            feedback = self.feedback.last().copied();
        }
        match choice {
            Choice::Keep(keep) => {
                self.turn.keeps.push(keep);
                self.turn.pending = Some(keep);
            }
            Choice::Score(category) => self.end_turn(category, roll)?,
        }
        Ok(feedback)
    }

    fn end_turn(&mut self, category: Category, roll: RollId) -> Result<(), PlayError> {
        let game = self.record.game();
        let player = self.mover();
        let state = self.record.cards()[player].state();
        let scoring = game.score(category, roll, state.filled, state.yahtzee_50).expect("checked by decide");
        let turn = std::mem::take(&mut self.turn);
        let at = Location::Turn(self.record.turns().len() + 1);
        let points = scoring.box_points;
        self.record.push(Turn { player, rolls: turn.rolls, keeps: turn.keeps, category, points, at })?;
        self.turn.pending = Some(KeepId(0));
        Ok(())
    }
}
