//! EMP(d) and DynS(d) (Pawlewicz §4.1, §4.3): a turn planned by searching `d` turns deep,
//! the evaluation applied at the leaves.
//!
//! The root player's turn is planned by the one turn kernel ([`plan_by`]) against the value
//! of each way the turn can end (a [`Transition`]: its next state and points). That value is
//! the evaluation of the position reached, for d = 0; for d ≥ 1 the game is played on for
//! `d · n − 1` more turns (n players) first: each opponent moves by the depth-0 rule of the
//! same evaluation (maximising its own value of the position right after its turn, as
//! EMP(0) or DynS(0) would), the root player maximises its value of the remaining search
//! (expectimax), the dice are averaged, and the evaluation is applied where the search
//! stops. A turn's expected outcome under a plan comes from the plan's final-roll
//! probabilities (`solo::analysis::final_rolls`); no turn is solved twice.
//!
//! Cost: d = 0 evaluates each distinct transition of one turn once (a few hundred
//! evaluations of a few hundred thresholds). d = 1 runs one opponent turn per root
//! transition: in a two-player game, a few hundred d = 0 turns per decision; with n players
//! it grows as that to the power n − 1.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use super::eval::{Evaluation, FinalScore};
use crate::game::{Game, ScoreState, Transition};
use crate::players::{MatchPlayer, Position};
use crate::solo::TurnPlan;
use crate::solo::analysis::final_rolls;
use crate::solo::policy::plan_by;
use crate::store::TableError;
use crate::strategy::{StrategyError, StrategyName};
use crate::targets::{Curve, TargetTable};

/// A player of `yz match` by name: a searcher or a solitaire strategy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PlayerName {
    /// EMP(d) (`empD`) or DynS(d) (`dynsD`).
    Search {
        /// What is maximised at the leaves.
        evaluation: Evaluation,
        /// Turns searched beyond the own one.
        depth: u32,
    },
    /// A solitaire strategy of [`crate::strategy::STRATEGY_NAMES`]; `E` (Pawlewicz's name) is `optimal`.
    Solitaire(StrategyName),
}

/// The deepest search a player name may ask for (`emp3`, `dyns3`).
pub const MAX_SEARCH_DEPTH: u32 = 3;

impl FromStr for PlayerName {
    type Err = StrategyError;

    /// `empD`, `dynsD` (D a depth, e.g. `emp1`), `E`, or a strategy name; case-insensitive.
    fn from_str(text: &str) -> Result<PlayerName, StrategyError> {
        let lower = text.trim().to_ascii_lowercase();
        let search = |prefix: &str, evaluation| {
            let depth = lower.strip_prefix(prefix)?.parse::<u32>().ok()?;
            Some(PlayerName::Search { evaluation, depth })
        };
        if let Some(name) =
            search("emp", Evaluation::ExpectedMatchPoints).or_else(|| search("dyns", Evaluation::DynamicScore))
        {
            if let PlayerName::Search { depth, .. } = name
                && depth > MAX_SEARCH_DEPTH
            {
                return Err(StrategyError::OutOfRange(format!(
                    "{text}: a search looks 0 to {MAX_SEARCH_DEPTH} rounds ahead (each round multiplies its work by \
                     hundreds)"
                )));
            }
            return Ok(name);
        }
        if lower == "e" {
            return Ok(PlayerName::Solitaire(StrategyName::Optimal));
        }
        text.parse().map(PlayerName::Solitaire).map_err(|error| match error {
            StrategyError::Unknown(name) => StrategyError::UnknownPlayer(name),
            other => other,
        })
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerName::Search { evaluation: Evaluation::ExpectedMatchPoints, depth } => write!(f, "emp{depth}"),
            PlayerName::Search { evaluation: Evaluation::DynamicScore, depth } => write!(f, "dyns{depth}"),
            PlayerName::Solitaire(name) => name.fmt(f),
        }
    }
}

/// Shards of the shared caches, so that threads rarely wait on each other.
const SHARDS: usize = 64;

/// A map shared between threads, in shards; a value is computed outside any lock, and as
/// it depends only on its key, a race only wastes work.
struct SharedMap<K, V> {
    hasher: RandomState,
    shards: Vec<Mutex<HashMap<K, V>>>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Clone> SharedMap<K, V> {
    fn new() -> SharedMap<K, V> {
        SharedMap { hasher: RandomState::new(), shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect() }
    }

    fn get_or_try<E>(&self, key: &K, make: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        let shard = &self.shards[self.hasher.hash_one(key) as usize % SHARDS];
        if let Some(value) = shard.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            return Ok(value.clone());
        }
        let value = make()?;
        Ok(shard.lock().unwrap_or_else(|e| e.into_inner()).entry(key.clone()).or_insert(value).clone())
    }
}

/// EMP(d) or DynS(d) on the target table of a game: a [`MatchPlayer`] that sees every card.
///
/// Caches, shared by all the games of a match: every curve read from the table (decoded
/// once per state), and the searches of the positions every game can meet (no box filled yet
/// beyond the first turn of the first player), which are the most expensive ones.
pub struct Searcher<'t> {
    game: Game,
    evaluation: Evaluation,
    depth: u32,
    table: &'t TargetTable,
    curves: SharedMap<ScoreState, Arc<Curve<f32>>>,
    opening_values: SharedMap<Position, Arc<EndingValues>>,
}

/// A distinct way a turn can end: the next state and the points earned.
pub type Ending = (ScoreState, u32);

/// The mover's value of each way its turn can end, as a search finds it.
pub type EndingValues = HashMap<Ending, f64>;

impl<'t> Searcher<'t> {
    /// The player maximising `evaluation` with a search `depth` turns deep, on `table`'s game.
    pub fn new(table: &'t TargetTable, evaluation: Evaluation, depth: u32) -> Searcher<'t> {
        Searcher {
            game: table.game(),
            evaluation,
            depth,
            table,
            curves: SharedMap::new(),
            opening_values: SharedMap::new(),
        }
    }

    /// Every player's evaluation of `position` (the turn order does not matter to it).
    pub fn evaluate(&self, position: &Position) -> Result<Vec<f64>, TableError> {
        let scores = position
            .seats
            .iter()
            .map(|seat| Ok(FinalScore::from_curve(&*self.curve(seat.state)?, seat.points)))
            .collect::<Result<Vec<_>, TableError>>()?;
        Ok(self.evaluation.values(&scores))
    }

    /// The curve of `state`, decoded on first use; a full card has no more points to make.
    fn curve(&self, state: ScoreState) -> Result<Arc<Curve<f32>>, TableError> {
        if state.is_terminal() {
            return Ok(Arc::new(Curve { first: 1, values: Vec::new() }));
        }
        self.curves.get_or_try(&state, || self.table.curve(state).map(Arc::new))
    }

    /// The distinct endings of a turn from `state`.
    fn endings(&self, state: ScoreState) -> Vec<Ending> {
        let mut endings: Vec<Ending> = state
            .filled
            .complement()
            .iter()
            .flat_map(|c| crate::game::RollId::all().filter_map(move |r| state.score(self.game, c, r)))
            .map(|t| (t.next, t.points))
            .collect();
        endings.sort_by_key(|&(next, points)| (next.filled.0, next.upper_total, next.yahtzee_50, points));
        endings.dedup();
        endings
    }

    /// The plan of the mover of `position` that maximises `values[ending][lane]`.
    fn best_plan(&self, state: ScoreState, values: &HashMap<Ending, Vec<f64>>, lane: usize) -> TurnPlan {
        plan_by(self.game, state, |t: Transition| values[&(t.next, t.points)][lane])
    }

    /// Each player's value of `position` (between turns) when `remaining` more turns are
    /// searched from it for the root player `root`.
    fn value(&self, position: &Position, root: usize, remaining: u32) -> Result<Vec<f64>, TableError> {
        if remaining == 0 || position.is_over() {
            return self.evaluate(position);
        }
        let mover = position.mover;
        let state = position.seats[mover].state;
        if state.is_terminal() {
            return self.value(&position.passed(), root, remaining - 1);
        }
        let endings = self.endings(state);
        let continuation = |&(next, points): &Ending| self.value(&position.after(next, points), root, remaining - 1);
        let (plan, values) = if mover == root {
            let values =
                endings.iter().map(|e| Ok((*e, continuation(e)?))).collect::<Result<HashMap<_, _>, TableError>>()?;
            (self.best_plan(state, &values, root), values)
        } else {
            let immediate = endings
                .iter()
                .map(|&(next, points)| Ok(((next, points), self.evaluate(&position.after(next, points))?)))
                .collect::<Result<HashMap<_, _>, TableError>>()?;
            let plan = self.best_plan(state, &immediate, mover);
            if remaining == 1 {
                (plan, immediate)
            } else {
                let mut values = HashMap::new();
                for t in self.scored(state, &plan) {
                    if let std::collections::hash_map::Entry::Vacant(slot) = values.entry(t) {
                        slot.insert(continuation(&t)?);
                    }
                }
                (plan, values)
            }
        };
        let mut expected = vec![0.0; position.seats.len()];
        for (roll, p) in crate::game::RollId::all().zip(final_rolls(&plan, state)) {
            if p > 0.0 {
                let ending = self.scored_roll(state, &plan, roll);
                for (e, v) in expected.iter_mut().zip(&values[&ending]) {
                    *e += p * v;
                }
            }
        }
        Ok(expected)
    }

    /// How the plan scores `roll`.
    fn scored_roll(&self, state: ScoreState, plan: &TurnPlan, roll: crate::game::RollId) -> Ending {
        let t =
            state.score(self.game, plan.box_for_roll[roll.0 as usize], roll).expect("a plan scores in allowed boxes");
        (t.next, t.points)
    }

    /// The endings a plan gives the final rolls.
    fn scored(&self, state: ScoreState, plan: &TurnPlan) -> Vec<Ending> {
        crate::game::RollId::all().map(|r| self.scored_roll(state, plan, r)).collect()
    }

    /// The mover's value of each way its turn in `position` can end, searched fresh.
    fn search(&self, position: &Position) -> Result<EndingValues, TableError> {
        let root = position.mover;
        let state = position.seats[root].state;
        let remaining = (self.depth * position.seats.len() as u32).saturating_sub(1);
        self.endings(state)
            .into_iter()
            .map(|(next, points)| {
                Ok(((next, points), self.value(&position.after(next, points), root, remaining)?[root]))
            })
            .collect()
    }

    /// The mover's value of each way its turn in `position` can end: what the search
    /// maximises, and what weighs the moves of a typical player ([`crate::move_errors`]).
    pub fn ending_values(&self, position: &Position) -> Result<Arc<EndingValues>, TableError> {
        if self.is_opening(position) {
            return self.opening_values.get_or_try(position, || self.search(position).map(Arc::new));
        }
        self.search(position).map(Arc::new)
    }

    /// Whether `position` is one that many games meet: nothing scored yet but, perhaps, the
    /// first player's first turn.
    fn is_opening(&self, position: &Position) -> bool {
        let start = ScoreState::start(self.game);
        let first_turn_at_most = |state: ScoreState| state.filled.0.count_ones() <= start.filled.0.count_ones() + 1;
        first_turn_at_most(position.seats[0].state) && position.seats[1..].iter().all(|s| s.state == start)
    }
}

impl MatchPlayer for Searcher<'_> {
    fn plan(&self, position: &Position) -> Result<Arc<TurnPlan>, TableError> {
        let values = self.ending_values(position)?;
        let state = position.seats[position.mover].state;
        Ok(Arc::new(plan_by(self.game, state, |t: Transition| values[&(t.next, t.points)])))
    }
}
