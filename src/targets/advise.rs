//! Play for a target: every keep or box of a position ranked by the probability of ending
//! the game with at least a given final total.
//!
//! The turn runs on one `f32` lane, the threshold still needed, through the same kernel and
//! in the same order of operations as the solve, so the numbers are the ones the table was
//! built from: the best keep of each first roll, weighted by its probability, sums to the
//! table's value at the start of the turn.

use serde::Serialize;

use super::solve::{Curve, TargetCurves};
use super::table::{CurveReader, TargetTable};
use crate::game::{Card, Category, Game, KeepId, NUM_ROLLS, RollId, ScoreState};
use crate::game::{ChoiceJson, RollsLeft};
use crate::solo::Choice;
use crate::store::IdentityError;
use crate::store::TableError;
use crate::turn::TurnBuffer;
use crate::turn::lanes::lane_max;

/// One ranked choice.
#[derive(Clone, Copy, Debug)]
pub struct TargetRanked {
    /// The choice.
    pub choice: Choice,
    /// Points the box earns now, bonuses included (for [`Choice::Score`]).
    pub points: Option<u32>,
    /// Probability of a final total of at least the target after this choice, playing for
    /// the target from then on.
    pub probability: f32,
    /// How much less likely than the best choice (0 for the best).
    pub gap: f32,
}

/// A ranking in JSON form.
#[derive(Clone, Debug, Serialize)]
pub struct TargetRankedJson {
    /// The choice.
    #[serde(flatten)]
    pub choice: ChoiceJson,
    /// Probability of reaching the target.
    pub probability: f32,
    /// Gap to the best.
    pub gap: f32,
}

impl TargetRanked {
    /// The JSON form of this choice on `card` holding `roll`.
    pub fn to_json(&self, card: &Card, roll: RollId) -> TargetRankedJson {
        TargetRankedJson {
            choice: ChoiceJson::new(self.choice, card, roll),
            probability: self.probability,
            gap: self.gap,
        }
    }
}

/// The advice on one position as `yz --json targets advise` prints it and `yz serve`
/// answers.
#[derive(Clone, Debug, Serialize)]
pub struct TargetAdviceJson {
    /// The rule set.
    pub rules: &'static str,
    /// The card.
    pub card: String,
    /// The dice.
    pub dice: String,
    /// Rerolls left.
    pub rolls_left: u8,
    /// The total aimed at.
    pub target: i64,
    /// Every choice, best first.
    pub options: Vec<TargetRankedJson>,
}

impl TargetAdviceJson {
    /// The advice `ranked` on `card` holding `roll` with `rolls_left` rerolls, for `target`.
    pub fn new(
        card: &Card,
        roll: RollId,
        rolls_left: RollsLeft,
        target: i64,
        ranked: &[TargetRanked],
    ) -> TargetAdviceJson {
        let rules = card.game.rules;
        TargetAdviceJson {
            rules: rules.name(),
            card: card.to_string(),
            dice: roll.to_string(),
            rolls_left: rolls_left.get(),
            target,
            options: ranked.iter().map(|r| r.to_json(card, roll)).collect(),
        }
    }
}

/// Why a position cannot be advised or valued.
#[derive(Debug, thiserror::Error)]
pub enum TargetAdviseError {
    /// Nothing left to play.
    #[error("every box of the card is filled: the game is over")]
    GameOver,
    /// The table is not for this game.
    #[error(transparent)]
    WrongGame(#[from] IdentityError),
    /// The table could not be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Curves solved below another position lack this state's.
    #[error("the curves held were solved below another position, not before the state {0:?}")]
    NotSolved(ScoreState),
}

/// The points the future must still bring for a final total of at least `target` from
/// `card`: the threshold to look up in a curve. Saturates at the ends of `i64`, where every
/// threshold beyond is as certain (or as impossible) as the end itself.
pub fn needed(card: &Card, target: i64) -> i64 {
    target.saturating_sub(i64::from(card.points()))
}

/// P(final total ≥ `target`) from the start of a turn with `card`, playing for the target:
/// the curve of the card's state at `target` minus the points on the card. A finished card
/// gives 1 or 0.
pub fn probability(table: &TargetTable, game: Game, card: &Card, target: i64) -> Result<f32, TargetAdviseError> {
    table.check_game(game)?;
    Ok(table.probability(card.state(), needed(card, target))?)
}

/// Where advice reads the curves of the states after a turn: a target table on disk
/// ([`CurveReader`]) or curves solved in memory ([`TargetCurves`], the browser's, solved
/// below the position).
pub trait CurveSource {
    /// The curve of `state` at the start of its turn.
    fn curve_of(&mut self, state: ScoreState) -> Result<Curve<f32>, TargetAdviseError>;
}

impl CurveSource for CurveReader<'_> {
    fn curve_of(&mut self, state: ScoreState) -> Result<Curve<f32>, TargetAdviseError> {
        Ok(self.curve(state)?)
    }
}

impl CurveSource for &TargetCurves<f32> {
    fn curve_of(&mut self, state: ScoreState) -> Result<Curve<f32>, TargetAdviseError> {
        if !self.covers(state) {
            return Err(TargetAdviseError::NotSolved(state));
        }
        Ok(self.curve(state).clone())
    }
}

/// Ranks every choice of the position `card`, `roll`, `rolls_left` rerolls still allowed,
/// by the probability of a final total of at least `target`: every distinct keep when
/// rerolls are left, every open box when none is. Best first; ties keep card order
/// (boxes) or keep order.
pub fn advise(
    table: &TargetTable,
    game: Game,
    card: &Card,
    roll: RollId,
    rolls_left: RollsLeft,
    target: i64,
) -> Result<Vec<TargetRanked>, TargetAdviseError> {
    table.check_game(game)?;
    advise_from(&mut table.reader(), card, roll, rolls_left, target)
}

/// [`advise`] from the curves of `source`, which must be those of the card's game.
pub fn advise_from(
    source: &mut impl CurveSource,
    card: &Card,
    roll: RollId,
    rolls_left: RollsLeft,
    target: i64,
) -> Result<Vec<TargetRanked>, TargetAdviseError> {
    let game = card.game;
    let state = card.state();
    if state.is_terminal() {
        return Err(TargetAdviseError::GameOver);
    }
    let need = needed(card, target);
    // The probability after scoring `r` in `c`, by box and roll; a turn has a few dozen
    // distinct successors, each looked up once.
    let mut curves: Vec<(ScoreState, Curve<f32>)> = Vec::new();
    let mut after_scoring = |c: Category, r: RollId| -> Result<Option<(u32, f32)>, TargetAdviseError> {
        let Some(t) = state.score(game, c, r) else { return Ok(None) };
        let position = match curves.iter().position(|(s, _)| *s == t.next) {
            Some(position) => position,
            None => {
                curves.push((t.next, source.curve_of(t.next)?));
                curves.len() - 1
            }
        };
        Ok(Some((t.points, curves[position].1.at(need.saturating_sub(i64::from(t.points))))))
    };
    let mut options: Vec<(Choice, Option<u32>, f32)> = Vec::new();
    if rolls_left == RollsLeft::NONE {
        for c in state.filled.complement().iter() {
            if let Some((points, p)) = after_scoring(c, roll)? {
                options.push((Choice::Score(c), Some(points), p));
            }
        }
    } else {
        let mut best = [0f32; NUM_ROLLS];
        for r in RollId::all() {
            let mut found: Option<f32> = None;
            for c in state.filled.complement().iter() {
                if let Some((_, p)) = after_scoring(c, r)? {
                    found = Some(found.map_or(p, |best| lane_max(best, p)));
                }
            }
            best[r.0 as usize] = found.unwrap_or(0.0);
        }
        let mut turn = TurnBuffer::<f32>::new(1);
        turn.score_rolls(&|r: RollId, out: &mut [f32]| out[0] = best[r.0 as usize]);
        turn.average_keeps();
        if rolls_left == RollsLeft::TWO {
            turn.choose_keeps();
            turn.average_keeps();
        }
        options.extend(KeepId::all().filter(|k| k.is_within(roll)).map(|k| (Choice::Keep(k), None, turn.keep(k)[0])));
    }
    let mut ranked: Vec<TargetRanked> = options
        .into_iter()
        .map(|(choice, points, probability)| TargetRanked { choice, points, probability, gap: 0.0 })
        .collect();
    ranked.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    let best = ranked.first().map_or(0.0, |r| r.probability);
    for r in &mut ranked {
        r.gap = best - r.probability;
    }
    Ok(ranked)
}
