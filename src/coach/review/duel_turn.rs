//! One two-player turn's choices, valued as a review judges them and the web app advises:
//! exact where the values can be had (tables that hold the positions after the turn, the
//! final scores, or a solve of the game below when it is small enough), otherwise EMP(1)'s
//! estimate from the target table. Every legal position is answered.

use std::ops::Deref;
use std::sync::Arc;

use serde::Serialize;

use super::{ReviewError, Source};
use crate::duel::advise::advise as exact_advise;
use crate::duel::cards::Cards;
use crate::duel::source::{self, DuelAdviceJson, Position, SourceError, TableLookup, Values};
use crate::game::{Game, RollId, RollsLeft, ScoreState, StateId, Valued};
use crate::players::search::EndingValues;
use crate::players::{Evaluation, Position as MatchPosition, Searcher, Seat};
use crate::progress::Progress;
use crate::targets::TargetTable;
use crate::turn::choice;

/// Most boxes open on both cards together for which a two-player review asks for the exact
/// values: above it the game below a position has far more than
/// [`crate::duel::source::ON_THE_FLY_POSITIONS`] positions (the official game with 6 and 6
/// upper boxes open has 264 million; 6 and 5 open, 96 million, solved in 5 s), and even
/// counting them takes seconds, so such positions go straight to EMP(1) unless tables
/// hold them.
pub const EXACT_MAX_OPEN: usize = 12;

/// EMP(1)'s measured error: the winning chance its own moves give away, per move, over
/// 1,024 typical games of the full official game at 1 to 6 open boxes (docs/commands.md,
/// "Move errors"); its values label the decisions they judge.
pub const EMP1_ERROR_PER_MOVE: f64 = 1.1e-5;

/// The values of one two-player turn: where they come from, and the ranking of the turn's
/// choices at any dice.
pub struct DuelTurn<'a> {
    source: Source,
    values: TurnValues<'a>,
}

/// What ranks a turn's choices.
enum TurnValues<'a> {
    /// The exact values of the positions after the turn.
    Exact { values: Values<'a>, cards: &'a Cards, mover: StateId, opponent: StateId, diff: i32 },
    /// EMP(1)'s value of each way the turn can end.
    Estimate { game: Game, state: ScoreState, endings: Arc<EndingValues> },
}

impl<'a> DuelTurn<'a> {
    /// The values of the mover's turn in `p`: exact where tables (`lookup`) hold the
    /// positions after it, where those are the final scores, or where at most
    /// [`EXACT_MAX_OPEN`] boxes are open and the game below is no larger than
    /// `lookup.on_the_fly` (its solve reported to `progress`); otherwise EMP(1) on the
    /// target table `targets` gives, asked for only then.
    pub fn new<T, E>(
        cards: &'a Cards,
        p: &Position,
        lookup: TableLookup,
        targets: impl FnOnce() -> Result<T, E>,
        progress: &dyn Progress,
    ) -> Result<DuelTurn<'a>, E>
    where
        T: Deref<Target = TargetTable>,
        E: From<ReviewError>,
    {
        if p.layer == 2 * cards.boxes() {
            return Err(ReviewError::Duel(SourceError::GameOver).into());
        }
        if let Some(values) = exact(cards, p, lookup, progress).map_err(ReviewError::Duel)? {
            let source = Source::Exact(values.origin().to_string());
            let values = TurnValues::Exact { values, cards, mover: p.mover, opponent: p.opponent, diff: p.diff };
            return Ok(DuelTurn { source, values });
        }
        let table = targets()?;
        let searcher = Searcher::new(&table, Evaluation::ExpectedMatchPoints, 1);
        let endings = searcher.ending_values(&match_position(p)).map_err(ReviewError::Targets)?;
        let values = TurnValues::Estimate { game: cards.game(), state: p.me.state(), endings };
        Ok(DuelTurn { source: Source::Emp1 { error_per_move: EMP1_ERROR_PER_MOVE }, values })
    }

    /// Where the values come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Every choice of the turn holding `roll` with `rolls_left` rerolls, valued by the
    /// mover's winning chance as the source gives it (exact values unrounded to 0..1), best
    /// first.
    pub fn rank(&self, roll: RollId, rolls_left: RollsLeft) -> Result<Vec<Valued>, SourceError> {
        match &self.values {
            TurnValues::Exact { values, cards, mover, opponent, diff } => {
                Ok(exact_advise(values, cards, *mover, *opponent, *diff, roll, rolls_left)?)
            }
            TurnValues::Estimate { game, state, endings } => {
                Ok(choice::rank(*game, *state, roll, rolls_left, |t| endings[&(t.next, t.points)]))
            }
        }
    }
}

/// The exact values of the positions after the mover's turn in `p`, where they can be had
/// (see [`DuelTurn::new`]).
fn exact<'a>(
    cards: &'a Cards,
    p: &Position,
    lookup: TableLookup,
    progress: &dyn Progress,
) -> Result<Option<Values<'a>>, SourceError> {
    if 2 * cards.boxes() - p.layer > EXACT_MAX_OPEN {
        return Ok(lookup.find(cards, p.layer + 1)?.map(|tables| Values::Tables(Box::new(tables))));
    }
    match Values::find(cards, p, p.layer + 1, lookup, progress) {
        Ok(values) => Ok(Some(values)),
        Err(SourceError::TooLarge { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The match of `p` as EMP(1) sees it: the mover first, each card's points such that their
/// difference is `p.diff` (the cards' own points where the difference is theirs).
fn match_position(p: &Position) -> MatchPosition {
    let opp = i64::from(p.opp.points());
    let me = opp + i64::from(p.diff);
    let lift = (-me).max(0);
    let seat = |card: &crate::game::Card, points: i64| Seat { state: card.state(), points: (points + lift) as u32 };
    MatchPosition { seats: vec![seat(&p.me, me), seat(&p.opp, opp)], mover: 0 }
}

/// The advice on one two-player position as `yz serve` answers it: the command line's
/// ([`DuelAdviceJson`]), where its values come from, and the points on each card.
#[derive(Clone, Debug, Serialize)]
pub struct DuelTurnJson {
    /// The ranking, as `yz --json duel advise` prints it.
    #[serde(flatten)]
    pub advice: DuelAdviceJson,
    /// Where the values come from.
    pub source: Source,
    /// The same in words ([`Source::describe`]).
    pub source_text: String,
    /// Points on the mover's card, bonuses included.
    pub me_total: u32,
    /// Points on the opponent's card, bonuses included.
    pub opp_total: u32,
}

impl DuelTurnJson {
    /// The advice `ranked` (from `turn`) on `p` holding `roll` with `rolls_left` rerolls,
    /// values reported as chances ([`source::chance`]).
    pub fn new(turn: &DuelTurn, p: &Position, roll: RollId, rolls_left: RollsLeft, ranked: &[Valued]) -> DuelTurnJson {
        DuelTurnJson {
            advice: DuelAdviceJson::new(p, roll, rolls_left, &source::reported(ranked)),
            source: turn.source.clone(),
            source_text: turn.source.describe(),
            me_total: p.me.points(),
            opp_total: p.opp.points(),
        }
    }
}
