//! Reviews of recorded games: every decision's value against the best choice's, the
//! worst mistakes with what each costs box by box, and the mean loss per decision and per
//! game (Verhoeff's proficiency measure).
//!
//! A decision is valued as the advisors value it, so its loss is exactly the advisor's gap
//! for the choice made:
//!
//! - one player: expected final score, from the solitaire table ([`crate::solo::advise()`]);
//! - two players: the mover's winning chance, P(win) + ½ P(draw), exact
//!   ([`crate::duel::source`]: the final scores, tables on disk, or a solve of the game
//!   below the position) where tables hold it or the game below is small enough, otherwise
//!   EMP(1)'s estimate ([`crate::players::search`]), labelled as such: [`DuelTurn`], which
//!   the web app's two-player advice uses too.
//!
//! The breakdown of a mistake compares the choice made with the best one by the exact
//! analysis of the rest of the game under optimal solitaire play
//! ([`crate::solo::analyze_from`]): P(upper bonus), P(five of a kind scored), and the
//! expected points of every box and of the whole card.

pub mod duel_turn;

use std::path::Path;

use serde::Serialize;

pub use crate::coach::why::Aspects;
pub use duel_turn::{DuelTurn, DuelTurnJson, EMP1_ERROR_PER_MOVE, EXACT_MAX_OPEN};

use crate::coach::record::{Decision, Location, Record};
use crate::duel::cards::Cards;
use crate::duel::source::{Position, SourceError, TableLookup};
use crate::game::{Card, Game, RollId};
use crate::game::{Choice, ChoiceJson, RollsLeft, Valued};
use crate::progress::Progress;
use crate::progress::Silent;
use crate::solo::{self, SoloTable, SolvedValues};
use crate::store::TableError;
use crate::store::open_or_solve;
use crate::targets::TargetTable;

/// How decisions are valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Expected final score (one player).
    ExpectedPoints,
    /// The mover's winning chance, P(win) + ½ P(draw) (two players).
    WinningChance,
}

/// Where a decision's values come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Source {
    /// The solitaire table: exact.
    SoloTable,
    /// The exact two-player values: the final scores, tables, or a solve below.
    Exact(String),
    /// EMP(1)'s estimate, with its measured error per move.
    Emp1 {
        /// [`EMP1_ERROR_PER_MOVE`].
        error_per_move: f64,
    },
}

impl Source {
    /// The source in words.
    pub fn describe(&self) -> String {
        match self {
            Source::SoloTable => "exact (solitaire table)".into(),
            Source::Exact(origin) => format!("exact ({origin})"),
            Source::Emp1 { error_per_move } => {
                format!("EMP(1) estimate (its moves lose {error_per_move:.1e} winning chance each on average)")
            }
        }
    }
}

/// One decision of a record, judged.
#[derive(Clone, Debug)]
pub struct DecisionReview {
    /// The turn, from 1.
    pub turn: usize,
    /// Where the turn is in the record.
    pub at: Location,
    /// The player deciding.
    pub player: usize,
    /// The mover's card before the turn.
    pub card: Card,
    /// The dice showing.
    pub roll: RollId,
    /// Rerolls still allowed.
    pub rolls_left: RollsLeft,
    /// The choice made, its points (a box), and its value.
    pub chosen: Valued,
    /// The best choice, its points and value.
    pub best: Valued,
    /// `best.value − chosen.value`: what the choice gave away (0 for a best choice).
    pub loss: f64,
    /// Where the values come from.
    pub source: Source,
}

/// A player's totals.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerTotals {
    /// The player's name.
    pub name: String,
    /// Decisions reviewed (one per action: up to three per turn).
    pub decisions: usize,
    /// Their losses summed: the loss of the game.
    pub total_loss: f64,
    /// The mean loss per decision.
    pub mean_loss: f64,
    /// Points on the card at the end of the record.
    pub points: u32,
}

/// A whole review.
#[derive(Clone, Debug)]
pub struct Review {
    /// The game.
    pub game: Game,
    /// How decisions are valued.
    pub measure: Measure,
    /// Every decision, in order.
    pub decisions: Vec<DecisionReview>,
    /// Each player's totals.
    pub players: Vec<PlayerTotals>,
    /// The worst mistakes, worst first: indices into `decisions` with their breakdowns.
    pub mistakes: Vec<(usize, Breakdown)>,
}

/// What a review is asked for.
#[derive(Clone, Copy, Debug)]
pub struct ReviewOptions<'p> {
    /// Where tables are (solitaire, target, two-player), and written when solved.
    pub data: &'p Path,
    /// How many of the worst mistakes to rank and break down.
    pub top: usize,
    /// Losses at most this are not mistakes (rounding between equal choices).
    pub tolerance: f64,
    /// Most positions solved below a two-player position that no tables hold
    /// ([`crate::duel::source::ON_THE_FLY_POSITIONS`] for the command line).
    pub on_the_fly: u64,
}

/// The tolerance of [`ReviewOptions::tolerance`] by default: far below any real mistake,
/// far above the rounding of two equal values.
pub const DEFAULT_TOLERANCE: f64 = 1e-9;

/// Why a record could not be reviewed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The solitaire table.
    #[error("solitaire table: {0}")]
    Solo(#[source] TableError),
    /// The target table EMP(1) reads.
    #[error("target table: {0}")]
    Targets(#[source] TableError),
    /// The two-player values.
    #[error(transparent)]
    Duel(#[from] SourceError),
    /// Whoever asked for the review has gone ([`Progress::cancelled`]).
    #[error("the review was cancelled: whoever asked for it has gone")]
    Cancelled,
}

impl Review {
    /// The decisions worth reporting as mistakes, worst first.
    pub fn worst(&self) -> impl Iterator<Item = (&DecisionReview, &Breakdown)> {
        self.mistakes.iter().map(|(i, b)| (&self.decisions[*i], b))
    }
}

/// Reviews every decision of `record`; the solves it needs (tables, the game below a
/// two-player position) are reported to `progress`.
pub fn review(record: &Record, options: ReviewOptions, progress: &dyn Progress) -> Result<Review, ReviewError> {
    let table = open_or_solve::<SoloTable>(options.data, record.game(), &Silent).map_err(ReviewError::Solo)?;
    review_against(record, &table, options, progress)
}

/// [`review`] with the game's solitaire table given (read from a file, or solved in
/// memory as the browser does).
pub fn review_against<V: SolvedValues + Sync>(
    record: &Record,
    table: &V,
    options: ReviewOptions,
    progress: &dyn Progress,
) -> Result<Review, ReviewError> {
    let game = record.game();
    let (measure, decisions) = if record.players().len() == 1 {
        (Measure::ExpectedPoints, solo_decisions(record, table))
    } else {
        (Measure::WinningChance, duel_decisions(record, options, progress)?)
    };
    let players = record
        .players()
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let mine: Vec<&DecisionReview> = decisions.iter().filter(|d| d.player == p).collect();
            let total_loss: f64 = mine.iter().map(|d| d.loss).sum();
            PlayerTotals {
                name: name.clone(),
                decisions: mine.len(),
                total_loss,
                mean_loss: if mine.is_empty() { 0.0 } else { total_loss / mine.len() as f64 },
                points: record.cards()[p].points(),
            }
        })
        .collect();
    let mut worst: Vec<usize> = (0..decisions.len()).filter(|&i| decisions[i].loss > options.tolerance).collect();
    worst.sort_by(|&a, &b| decisions[b].loss.total_cmp(&decisions[a].loss).then(a.cmp(&b)));
    worst.truncate(options.top);
    let policy = solo::OptimalPolicy::solved(game, table);
    let explain = crate::coach::why::Explainer::new(game, &policy);
    let mistakes = worst
        .into_iter()
        .map(|i| Ok((i, Breakdown::of(&explain, &decisions[i], progress).map_err(|_| ReviewError::Cancelled)?)))
        .collect::<Result<_, ReviewError>>()?;
    Ok(Review { game, measure, decisions, players, mistakes })
}

/// A mistake's breakdown: the aspects after the choice made and after the best one.
#[derive(Clone, Debug, Serialize)]
pub struct Breakdown {
    /// After the choice made.
    pub chosen: Aspects,
    /// After the best choice.
    pub best: Aspects,
}

impl Breakdown {
    /// The breakdown of decision `d` by `explain`: two analyses of the rest of the game,
    /// which stop once `progress` is cancelled.
    fn of<V: solo::SolvedValues + Sync>(
        explain: &crate::coach::why::Explainer<'_, '_, V>,
        d: &DecisionReview,
        progress: &dyn Progress,
    ) -> Result<Breakdown, crate::progress::Cancelled> {
        let aspects = |choice| {
            explain.aspects(&d.card, solo::WithinTurn { roll: d.roll, rolls_left: d.rolls_left, choice }, progress)
        };
        Ok(Breakdown { chosen: aspects(d.chosen.choice)?, best: aspects(d.best.choice)? })
    }
}

/// The choice made in `d` and the best one, from `rank` (the options at some rerolls
/// left, best first), and what the choice lost: the one rule by which reviews, `yz play`
/// and the web app's game judge a decision. A box scored with rerolls left is worth what
/// it is worth with none, against the best option where it was chosen. `None` where the
/// choice is not among the options (never for a checked record's).
pub(crate) fn judge<E>(
    d: &Decision,
    mut rank: impl FnMut(RollsLeft) -> Result<Vec<Valued>, E>,
) -> Result<Option<(Valued, Valued, f64)>, E> {
    let ranked = rank(d.rolls_left)?;
    let best = ranked[0];
    let chosen_among = match d.choice {
        Choice::Score(_) if d.rolls_left != RollsLeft::NONE => rank(RollsLeft::NONE)?,
        _ => ranked,
    };
    let chosen = chosen_among.iter().find(|v| v.choice == d.choice);
    Ok(chosen.map(|&chosen| (chosen, best, best.value - chosen.value)))
}

/// [`judge`] for a decision whose choice was checked to be among the options (a checked
/// record's, or one a coached game checked).
pub(crate) fn judge_checked<E>(
    d: &Decision,
    rank: impl FnMut(RollsLeft) -> Result<Vec<Valued>, E>,
) -> Result<(Valued, Valued, f64), E> {
    Ok(judge(d, rank)?.expect("a checked choice is among the options"))
}

fn solo_decisions(record: &Record, table: &impl solo::FutureValue) -> Vec<DecisionReview> {
    let game = record.game();
    let mut out = Vec::new();
    for (i, (turn, cards)) in record.replay().into_iter().enumerate() {
        let card = &cards[0];
        for d in turn.decisions() {
            let rank = |rolls_left| -> Result<Vec<Valued>, std::convert::Infallible> {
                let ranked = solo::advise(table, game, card, d.roll, rolls_left)
                    .expect("a checked record's turn is on an open card");
                Ok(ranked
                    .into_iter()
                    .map(|r| Valued { choice: r.choice, points: r.points, value: r.expected_final })
                    .collect())
            };
            let Ok((chosen, best, loss)) = judge_checked(&d, rank);
            out.push(DecisionReview {
                turn: i + 1,
                at: turn.at,
                player: turn.player,
                card: card.clone(),
                roll: d.roll,
                rolls_left: d.rolls_left,
                chosen,
                best,
                loss,
                source: Source::SoloTable,
            });
        }
    }
    out
}

fn duel_decisions(
    record: &Record,
    options: ReviewOptions,
    progress: &dyn Progress,
) -> Result<Vec<DecisionReview>, ReviewError> {
    let (game, data) = (record.game(), options.data);
    let cards = Cards::new(game);
    let lookup = TableLookup { given: None, data, on_the_fly: options.on_the_fly, gpu: false };
    let mut targets: Option<TargetTable> = None;
    let mut out = Vec::new();
    for (i, (turn, before)) in record.replay().into_iter().enumerate() {
        if progress.cancelled() {
            return Err(ReviewError::Cancelled);
        }
        // The mover's card first.
        let (me, opp) = (&before[0], &before[1]);
        let position = Position::parse(&cards, &me.to_string(), &opp.to_string(), None)?;
        // The target table is read once, when a turn first needs EMP(1).
        let held = &mut targets;
        let open_targets = move || -> Result<&TargetTable, ReviewError> {
            // Moved, not borrowed: the closure runs once and hands out the table's borrow.
            let held = held;
            if held.is_none() {
                *held = Some(open_or_solve::<TargetTable>(data, game, progress).map_err(ReviewError::Targets)?);
            }
            Ok(held.as_ref().expect("read just now"))
        };
        let values = DuelTurn::new(&cards, &position, lookup, open_targets, progress)?;
        for d in turn.decisions() {
            let (chosen, best, loss) = judge_checked(&d, |rolls_left| values.rank(d.roll, rolls_left))?;
            out.push(DecisionReview {
                turn: i + 1,
                at: turn.at,
                player: turn.player,
                card: me.clone(),
                roll: d.roll,
                rolls_left: d.rolls_left,
                chosen,
                best,
                loss,
                source: values.source().clone(),
            });
        }
    }
    Ok(out)
}

/// A review in JSON form.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewJson {
    /// The rule set.
    pub rules: &'static str,
    /// The boxes in play.
    pub categories: Vec<&'static str>,
    /// How decisions are valued.
    pub measure: Measure,
    /// Each player's totals.
    pub players: Vec<PlayerTotals>,
    /// Every decision.
    pub decisions: Vec<DecisionJson>,
    /// The worst mistakes, worst first.
    pub mistakes: Vec<MistakeJson>,
}

/// A decision in JSON form.
#[derive(Clone, Debug, Serialize)]
pub struct DecisionJson {
    /// The turn, from 1.
    pub turn: usize,
    /// The line of the text record, where it came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The player's name.
    pub player: String,
    /// The mover's card before the turn.
    pub card: String,
    /// The dice showing.
    pub dice: String,
    /// Rerolls still allowed.
    pub rolls_left: u8,
    /// The choice made.
    pub chosen: ChoiceJson,
    /// Its value.
    pub chosen_value: f64,
    /// The best choice.
    pub best: ChoiceJson,
    /// Its value.
    pub best_value: f64,
    /// What the choice gave away.
    pub loss: f64,
    /// Where the values come from.
    pub source: Source,
}

/// A mistake in JSON form: the decision's index and its breakdown.
#[derive(Clone, Debug, Serialize)]
pub struct MistakeJson {
    /// Index into `decisions`.
    pub decision: usize,
    /// The breakdown.
    #[serde(flatten)]
    pub breakdown: Breakdown,
}

impl Review {
    /// The JSON form, players named from `record`.
    pub fn to_json(&self, record: &Record) -> ReviewJson {
        let rules = self.game.rules;
        ReviewJson {
            rules: rules.name(),
            categories: self.game.box_names(),
            measure: self.measure,
            players: self.players.clone(),
            decisions: self
                .decisions
                .iter()
                .map(|d| DecisionJson {
                    turn: d.turn,
                    line: match d.at {
                        Location::Line(n) => Some(n),
                        _ => None,
                    },
                    player: record.players()[d.player].clone(),
                    card: d.card.to_string(),
                    dice: d.roll.to_string(),
                    rolls_left: d.rolls_left.get(),
                    chosen: ChoiceJson::new(d.chosen.choice, &d.card, d.roll),
                    chosen_value: d.chosen.value,
                    best: ChoiceJson::new(d.best.choice, &d.card, d.roll),
                    best_value: d.best.value,
                    loss: d.loss,
                    source: d.source.clone(),
                })
                .collect(),
            mistakes: self.mistakes.iter().map(|(i, b)| MistakeJson { decision: *i, breakdown: b.clone() }).collect(),
        }
    }
}

/// A choice in words with its points: `keep 3,3`, `score fh for 25`.
pub fn describe(valued: &Valued, game: Game) -> String {
    match valued.points {
        Some(points) => format!("{} for {points}", valued.choice.describe(game.rules)),
        None => valued.choice.describe(game.rules),
    }
}
