//! Exact move errors (Pawlewicz §4.2): how much winning chance a strategy gives away, move
//! by move, in typical two-player endgames.
//!
//! **Typical games.** Both players are "typical players": EMP(1) with noise. At each
//! decision (the keep after the first roll, after the second, the box after the last) the
//! typical player values every choice by its EMP(1) search and plays choice i with weight
//! exp(100 · (v_i − max_j v_j)): the best is the likeliest, near-equal choices are about
//! equally likely, weak ones are almost never played. Keeping all five dice ends the
//! rolling (the next decision is the box), as at a real table. Games start from empty cards.
//!
//! **Depth.** D is the number of open boxes on both cards together at the start of a turn.
//! It falls by one each turn, so every game meets each D once, at a position typical play
//! led to: game g's turn at D is a sample of depth D. Samples of one depth are independent
//! across games; the depths of one game are not, which is what the per-game total needs.
//!
//! **Exact values.** At a turn of a measured depth, the positions after the turn are solved
//! exactly below the two cards ([`Space::below`]: milliseconds up to D = 8, about 2 s at
//! D = 10 on one core). Each decision's choices are then valued by the turn kernel
//! ([`choice::rank`]); the error of a strategy's choice is v(best) − v(choice) in winning
//! chance (P(win) + ½ P(draw)). Every tested strategy is asked at every decision the typical
//! game meets, including those its own earlier choices would not have led to.
//!
//! [`report`] writes a measurement's JSON report and merges runs over disjoint games.

pub mod report;

use std::num::ParseIntError;
use std::ops::{Range, RangeInclusive};
use std::sync::Arc;

use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::duel::advise::{Solved, TurnEndings};
use crate::duel::cluster::solve_layers;
use crate::duel::shard::ShardError;
use crate::duel::{Cards, Space, SpaceError};
use crate::game::{Choice, RollsLeft, Valued};
use crate::game::{KeepId, RollId, Transition};
use crate::players::{MatchPlayer, Position};
use crate::players::{PlayerName, Searcher};
use crate::progress::Progress;
use crate::simulate::{Z_95, game_rng, roll_missing};
use crate::solo::TurnPlan;
use crate::solo::policy::plan_by;
use crate::store::TableError;
use crate::strategy::StrategyError;
use crate::turn::choice;

/// How sharply the typical player prefers better moves: Pawlewicz's 100 in
/// exp(100 · (v_i − max_j v_j)).
pub const TYPICAL_SHARPNESS: f64 = 100.0;

/// The most typical games one run measures (each takes an exact solve per depth); larger
/// studies split the games over runs (`--first-game`) and merge them.
pub const MAX_MOVE_ERROR_GAMES: u64 = 100_000_000;

/// Why a measurement failed.
#[derive(Debug, thiserror::Error)]
pub enum MoveErrorsError {
    /// The depths asked for are not those of the game.
    #[error("--empty {first}..{last} is not a range of open boxes of this game: expected 1 ≤ first ≤ last ≤ {most}")]
    Depths {
        /// First depth asked.
        first: usize,
        /// Last depth asked.
        last: usize,
        /// Open boxes on both cards at the start.
        most: usize,
    },
    /// The depths asked for are not `D` or `A..B` in whole numbers.
    #[error("--empty {text:?}: expected D or A..B with whole numbers")]
    DepthsText {
        /// The text given.
        text: String,
        /// Why a number did not parse.
        #[source]
        source: ParseIntError,
    },
    /// No strategy to test.
    #[error("--strategy needs at least one name (e.g. emp1,E)")]
    NoStrategy,
    /// A name that is no strategy.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    /// The games asked for are none, too many, or numbered past the last one.
    #[error(
        "--games {games} from --first-game {first}: expected 1 to {MAX_MOVE_ERROR_GAMES} games numbered below 2^64"
    )]
    Games {
        /// The first game's number.
        first: u64,
        /// How many.
        games: u64,
    },
    /// The target table of the typical player (or of a tested searcher) is unreadable.
    #[error(transparent)]
    Targets(#[from] TableError),
    /// An exact value could not be read.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A position broke the turn order (a bug: typical games alternate turns).
    #[error(transparent)]
    Space(#[from] SpaceError),
}

/// A strategy whose moves are scored.
pub enum Tested<'p> {
    /// The exact two-player strategy, playing by the very values that score the moves: its
    /// error is zero up to the planner's tie tolerance ([`crate::solo::policy::TIE`]), a
    /// check of the measurement itself.
    Exact,
    /// Any match player: a searcher, `E`, a strategy of the zoo.
    Player(&'p dyn MatchPlayer),
}

/// A strategy named to be tested: `exact` (the exact strategy, a check), or a player.
#[derive(Clone, Debug, PartialEq)]
pub enum TestedName {
    /// [`Tested::Exact`].
    Exact,
    /// A player to build (with [`crate::players::lineup::Lineup`]).
    Player(PlayerName),
}

/// The strategies named in `text`, `a,b,…` (blanks skipped), each with its name as given:
/// at least one.
pub fn parse_tested(text: &str) -> Result<Vec<(String, TestedName)>, MoveErrorsError> {
    let named = text
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|name| {
            let tested =
                if name.eq_ignore_ascii_case("exact") { TestedName::Exact } else { TestedName::Player(name.parse()?) };
            Ok((name.to_owned(), tested))
        })
        .collect::<Result<Vec<_>, MoveErrorsError>>()?;
    if named.is_empty() {
        return Err(MoveErrorsError::NoStrategy);
    }
    Ok(named)
}

/// The players among `named`, in order: those a line-up builds for [`tested`].
pub fn players(named: &[(String, TestedName)]) -> Vec<PlayerName> {
    named
        .iter()
        .filter_map(|(_, t)| match t {
            TestedName::Player(name) => Some(name.clone()),
            TestedName::Exact => None,
        })
        .collect()
}

/// The strategies `named` as tested: the exact one, or the next of `players` (built from
/// [`players`]`(named)`, in order).
///
/// # Panics
/// If `players` holds fewer players than `named` names.
pub fn tested<'p>(named: &[(String, TestedName)], players: &'p [Box<dyn MatchPlayer + 'p>]) -> Vec<Tested<'p>> {
    let mut players = players.iter();
    named
        .iter()
        .map(|(_, t)| match t {
            TestedName::Exact => Tested::Exact,
            TestedName::Player(_) => Tested::Player(players.next().expect("one player per name but exact").as_ref()),
        })
        .collect()
}

/// `D` or `A..B` (also `A..=B`) as a range of depths (open boxes on both cards together).
pub fn parse_depths(text: &str) -> Result<RangeInclusive<usize>, MoveErrorsError> {
    let number = |part: &str| {
        part.trim().parse::<usize>().map_err(|source| MoveErrorsError::DepthsText { text: text.to_owned(), source })
    };
    Ok(match text.split_once("..") {
        Some((first, last)) => number(first)?..=number(last.trim_start_matches('='))?,
        None => {
            let d = number(text)?;
            d..=d
        }
    })
}

/// Games `first..first + games`, checked: 1 to [`MAX_MOVE_ERROR_GAMES`] of them, numbered
/// below 2^64.
pub fn game_range(first: u64, games: u64) -> Result<Range<u64>, MoveErrorsError> {
    let end = first.checked_add(games).filter(|_| (1..=MAX_MOVE_ERROR_GAMES).contains(&games));
    Ok(first..end.ok_or(MoveErrorsError::Games { first, games })?)
}

/// The errors of one strategy in one turn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TurnErrors {
    /// Decisions met.
    pub moves: u32,
    /// Sum of their errors.
    pub error: f64,
}

/// The errors of one game: by tested strategy, then by depth (from the first measured).
pub type GameErrors = Vec<Vec<TurnErrors>>;

/// A turn being measured: its exact values, the tested strategies' plans, their errors.
struct MeasuredTurn<'c> {
    exact: TurnEndings<'c>,
    plans: Vec<Arc<TurnPlan>>,
    errors: Vec<TurnErrors>,
}

/// The mover's value after each way its turn in `position` can end, solved exactly below
/// the two cards: the values every error is measured with.
pub fn exact_endings<'c>(cards: &'c Cards, position: &Position) -> Result<TurnEndings<'c>, MoveErrorsError> {
    let (me, other) = (&position.seats[position.mover], &position.seats[1 - position.mover]);
    let card = |state| cards.index().id(state).expect("a reachable score state is a card");
    let (mover, opponent) = (card(me.state), card(other.state));
    let d = me.points as i32 - other.points as i32;
    let after = cards.filled(mover) + cards.filled(opponent) + 1;
    let space = Space::below(cards, mover, opponent)?;
    let next = (after < space.end_layer())
        .then(|| solve_layers::<f64>(&space, after, |_| Ok(())).expect("a solve in memory, alone and writing nothing"));
    Ok(TurnEndings::new(&Solved { space: &space, layer: next.as_ref() }, cards, mover, opponent, d)?)
}

/// Typical two-player games and the exact errors of some strategies in them.
pub struct MoveErrors<'a> {
    cards: &'a Cards,
    typical: &'a Searcher<'a>,
    tested: Vec<Tested<'a>>,
    depths: RangeInclusive<usize>,
}

impl<'a> MoveErrors<'a> {
    /// Measures `tested` at the turns with `depths` open boxes of games between two
    /// `typical` players (an EMP(1) searcher on the game of `cards`).
    pub fn new(
        cards: &'a Cards,
        typical: &'a Searcher<'a>,
        tested: Vec<Tested<'a>>,
        depths: RangeInclusive<usize>,
    ) -> Result<MoveErrors<'a>, MoveErrorsError> {
        let most = 2 * cards.boxes();
        if *depths.start() == 0 || depths.start() > depths.end() || *depths.end() > most {
            return Err(MoveErrorsError::Depths { first: *depths.start(), last: *depths.end(), most });
        }
        Ok(MoveErrors { cards, typical, tested, depths })
    }

    /// Plays game `game` of `seed` from the start to the last measured turn and returns the
    /// errors of each tested strategy at each measured depth.
    pub fn game(&self, seed: u64, game: u64) -> Result<GameErrors, MoveErrorsError> {
        let mut rng = game_rng(seed, game);
        let mut errors = vec![vec![TurnErrors::default(); self.depths.clone().count()]; self.tested.len()];
        let mut position = Position::start(self.cards.game(), 2);
        loop {
            let open: usize = position.seats.iter().map(|s| s.state.filled.complement().len()).sum();
            if open < *self.depths.start() {
                return Ok(errors);
            }
            let t = if self.depths.contains(&open) {
                let exact = exact_endings(self.cards, &position)?;
                let plans = self.tested_plans(&position, &exact)?;
                let mut measured =
                    MeasuredTurn { exact, plans, errors: vec![TurnErrors::default(); self.tested.len()] };
                let t = self.play_turn(&position, &mut rng, Some(&mut measured))?;
                for (strategy, turn) in errors.iter_mut().zip(measured.errors) {
                    strategy[open - self.depths.start()] = turn;
                }
                t
            } else {
                self.play_turn(&position, &mut rng, None)?
            };
            position = position.after(t.next, t.points);
        }
    }

    /// Each tested strategy's plan of the mover's turn in `position`.
    fn tested_plans(&self, position: &Position, exact: &TurnEndings) -> Result<Vec<Arc<TurnPlan>>, MoveErrorsError> {
        let state = position.seats[position.mover].state;
        self.tested
            .iter()
            .map(|tested| match tested {
                Tested::Exact => Ok(Arc::new(plan_by(self.cards.game(), state, |t| exact.value(t)))),
                Tested::Player(player) => Ok(player.plan(position)?),
            })
            .collect()
    }

    /// Plays the mover's turn in `position` as the typical player; where the turn is
    /// `measured`, scores each tested plan's choice at every decision met.
    fn play_turn(
        &self,
        position: &Position,
        rng: &mut impl rand::Rng,
        mut measured: Option<&mut MeasuredTurn>,
    ) -> Result<Transition, MoveErrorsError> {
        let game = self.cards.game();
        let state = position.seats[position.mover].state;
        let typical = self.typical.ending_values(position)?;
        let mut roll = roll_missing(KeepId(0), rng);
        let mut rolls_left = RollsLeft::TWO;
        loop {
            let ranked = choice::rank(game, state, roll, rolls_left, |t| typical[&(t.next, t.points)]);
            let chosen = sample(&ranked, rng);
            if let Some(turn) = measured.as_mut() {
                let exact_ranked = choice::rank(game, state, roll, rolls_left, |t| turn.exact.value(t));
                let best = exact_ranked[0].value;
                for (plan, errors) in turn.plans.iter().zip(turn.errors.iter_mut()) {
                    let planned = planned_choice(plan, roll, rolls_left);
                    let value = exact_ranked
                        .iter()
                        .find(|v| v.choice == planned)
                        .expect("a plan chooses among the choices of the roll")
                        .value;
                    errors.moves += 1;
                    errors.error += best - value;
                }
            }
            match chosen {
                Choice::Score(category) => {
                    return Ok(state.score(game, category, roll).expect("a ranked box takes the roll"));
                }
                Choice::Keep(keep) if keep == roll.as_keep() => rolls_left = RollsLeft::NONE,
                Choice::Keep(keep) => {
                    roll = roll_missing(keep, rng);
                    rolls_left = rolls_left.after_reroll();
                }
            }
        }
    }

    /// Plays `games` of `seed` (numbered from `first_game`) in parallel and sums up the
    /// errors; the result is the same on any number of threads.
    pub fn measure(
        &self,
        seed: u64,
        first_game: u64,
        games: u64,
        progress: &dyn Progress,
    ) -> Result<MoveErrorReport, MoveErrorsError> {
        let range = game_range(first_game, games)?;
        progress.start("playing", games, "games");
        let per_game = range
            .into_par_iter()
            .map(|g| {
                let errors = self.game(seed, g);
                progress.advance(1);
                errors
            })
            .collect::<Result<Vec<GameErrors>, MoveErrorsError>>();
        progress.finish();
        Ok(MoveErrorReport::new(seed, first_game, self.depths.clone(), self.tested.len(), &per_game?))
    }
}

/// What `plan` does holding `roll` with `rolls_left` rerolls.
fn planned_choice(plan: &TurnPlan, roll: RollId, rolls_left: RollsLeft) -> Choice {
    let r = roll.0 as usize;
    match rolls_left.get() {
        2 => Choice::Keep(plan.keep_after_first[r]),
        1 => Choice::Keep(plan.keep_after_second[r]),
        _ => Choice::Score(plan.box_for_roll[r]),
    }
}

/// A choice drawn with weight exp([`TYPICAL_SHARPNESS`] · (v − best)) from `ranked` (best first).
fn sample(ranked: &[Valued], rng: &mut impl rand::Rng) -> Choice {
    let best = ranked[0].value;
    let weights: Vec<f64> = ranked.iter().map(|v| (TYPICAL_SHARPNESS * (v.value - best)).exp()).collect();
    let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
    for (v, w) in ranked.iter().zip(&weights) {
        if x < *w {
            return v.choice;
        }
        x -= w;
    }
    ranked[0].choice
}

/// A mean with the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95% normal confidence interval.
    pub half_width_95: f64,
}

/// Sums over games of one sample per game (the errors of one turn, or of a game's measured
/// turns, with the moves they span), from which the estimates follow. Sums of disjoint
/// sets of games add up, so runs on several machines merge ([`MoveErrorReport::merge`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorSums {
    /// Games summed.
    pub games: u64,
    /// Σ moves.
    pub moves: u64,
    /// Σ moves².
    pub moves_squared: u64,
    /// Σ error.
    pub error: f64,
    /// Σ error².
    pub error_squared: f64,
    /// Σ error · moves.
    pub error_times_moves: f64,
}

impl ErrorSums {
    /// Adds one game's sample.
    fn add(&mut self, error: f64, moves: u64) {
        self.games += 1;
        self.moves += moves;
        self.moves_squared += moves * moves;
        self.error += error;
        self.error_squared += error * error;
        self.error_times_moves += error * moves as f64;
    }

    /// The sums of two disjoint sets of games together.
    fn merge(self, other: ErrorSums) -> ErrorSums {
        ErrorSums {
            games: self.games + other.games,
            moves: self.moves + other.moves,
            moves_squared: self.moves_squared + other.moves_squared,
            error: self.error + other.error,
            error_squared: self.error_squared + other.error_squared,
            error_times_moves: self.error_times_moves + other.error_times_moves,
        }
    }

    /// The mean error of a sample (a turn, a game) with its interval.
    pub fn per_sample(&self) -> Estimate {
        let n = self.games as f64;
        let mean = self.error / n;
        let variance = (self.error_squared - self.error * mean).max(0.0) / (n - 1.0).max(1.0);
        Estimate { mean, half_width_95: Z_95 * (variance / n).sqrt() }
    }

    /// The mean error of a move, Σ error / Σ moves, with the delta-method interval of a ratio.
    pub fn per_move(&self) -> Estimate {
        if self.moves == 0 {
            return Estimate { mean: 0.0, half_width_95: 0.0 };
        }
        let (n, moves) = (self.games as f64, self.moves as f64);
        let ratio = self.error / moves;
        // Σ (error − ratio · moves)², expanded.
        let residual =
            self.error_squared - 2.0 * ratio * self.error_times_moves + ratio * ratio * self.moves_squared as f64;
        let variance = residual.max(0.0) / (n - 1.0).max(1.0);
        Estimate { mean: ratio, half_width_95: Z_95 * (variance / n).sqrt() / (moves / n) }
    }
}

/// One strategy's errors at one depth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthErrors {
    /// Open boxes on both cards together.
    pub empty: usize,
    /// Average error of a decision.
    pub per_move: Estimate,
    /// Average error summed over the turn.
    pub per_turn: Estimate,
    /// What both follow from.
    pub sums: ErrorSums,
}

impl DepthErrors {
    fn new(empty: usize, sums: ErrorSums) -> DepthErrors {
        DepthErrors { empty, per_move: sums.per_move(), per_turn: sums.per_sample(), sums }
    }
}

/// One strategy's errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyErrors {
    /// By depth, as measured.
    pub depths: Vec<DepthErrors>,
    /// Average error summed over a game's measured turns (both players').
    pub per_game: Estimate,
    /// What it follows from.
    pub game_sums: ErrorSums,
}

impl StrategyErrors {
    fn new(depths: Vec<DepthErrors>, game_sums: ErrorSums) -> StrategyErrors {
        StrategyErrors { depths, per_game: game_sums.per_sample(), game_sums }
    }
}

/// Why reports cannot be merged.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no reports to merge")]
    Empty,
    /// The reports measured different things.
    #[error("the reports differ in {0}: only runs of the same measurement (seed, depths, strategies) merge")]
    Differ(&'static str),
    /// A report that measures no strategy, a strategy at no depth, or its strategies at
    /// different depths: no run writes one.
    #[error("a report {0}; a run measures every strategy it names at the same depths, at least one")]
    Unmeasured(&'static str),
    /// A game range that ends before it starts.
    #[error("a report lists games {start}..{end}, a range that ends before it starts")]
    BackwardRange {
        /// Its first game.
        start: u64,
        /// One past its last game.
        end: u64,
    },
    /// Two reports share games.
    #[error("games {first}..{end} are in two reports: give each run its own --first-game range")]
    Overlap {
        /// First game counted twice.
        first: u64,
        /// One past the last.
        end: u64,
    },
}

/// The errors of every tested strategy over a number of games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveErrorReport {
    /// Seed of the games.
    pub seed: u64,
    /// The games played, as ranges of game numbers.
    pub game_ranges: Vec<std::ops::Range<u64>>,
    /// By tested strategy.
    pub strategies: Vec<StrategyErrors>,
}

impl MoveErrorReport {
    /// Sums up `per_game` (the errors of games `first_game..`, in order) for `strategies`
    /// strategies.
    fn new(
        seed: u64,
        first_game: u64,
        depths: RangeInclusive<usize>,
        strategies: usize,
        per_game: &[GameErrors],
    ) -> MoveErrorReport {
        let strategies = (0..strategies)
            .map(|s| {
                let mut by_depth = vec![ErrorSums::default(); depths.clone().count()];
                let mut by_game = ErrorSums::default();
                for game in per_game {
                    for (sums, turn) in by_depth.iter_mut().zip(&game[s]) {
                        sums.add(turn.error, u64::from(turn.moves));
                    }
                    let (error, moves) =
                        game[s].iter().fold((0.0, 0), |(e, m), t| (e + t.error, m + u64::from(t.moves)));
                    by_game.add(error, moves);
                }
                let depths = depths.clone().zip(by_depth).map(|(empty, sums)| DepthErrors::new(empty, sums)).collect();
                StrategyErrors::new(depths, by_game)
            })
            .collect();
        let games = first_game..first_game + per_game.len() as u64;
        MoveErrorReport { seed, game_ranges: vec![games], strategies }
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.game_ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// The reports of runs over disjoint games of the same measurement as one report.
    pub fn merge(reports: &[MoveErrorReport]) -> Result<MoveErrorReport, MergeError> {
        let first = reports.first().ok_or(MergeError::Empty)?;
        let depths_of = |r: &MoveErrorReport| -> Vec<Vec<usize>> {
            r.strategies.iter().map(|s| s.depths.iter().map(|d| d.empty).collect()).collect()
        };
        for report in reports {
            let depths = depths_of(report);
            if depths.is_empty() {
                return Err(MergeError::Unmeasured("lists no strategies"));
            } else if depths[0].is_empty() {
                return Err(MergeError::Unmeasured("lists a strategy measured at no depth"));
            } else if depths.iter().any(|d| *d != depths[0]) {
                return Err(MergeError::Unmeasured("lists strategies measured at different depths"));
            }
            if let Some(r) = report.game_ranges.iter().find(|r| r.start > r.end) {
                return Err(MergeError::BackwardRange { start: r.start, end: r.end });
            }
        }
        for other in &reports[1..] {
            if other.seed != first.seed {
                return Err(MergeError::Differ("seed"));
            }
            if depths_of(other) != depths_of(first) {
                return Err(MergeError::Differ("strategies or depths"));
            }
        }
        let mut ranges: Vec<std::ops::Range<u64>> = reports.iter().flat_map(|r| r.game_ranges.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        for pair in ranges.windows(2) {
            if pair[1].start < pair[0].end {
                return Err(MergeError::Overlap { first: pair[1].start, end: pair[0].end.min(pair[1].end) });
            }
        }
        let strategies = (0..first.strategies.len())
            .map(|s| {
                let depths = (0..first.strategies[s].depths.len())
                    .map(|i| {
                        let sums = reports
                            .iter()
                            .map(|r| r.strategies[s].depths[i].sums)
                            .fold(ErrorSums::default(), ErrorSums::merge);
                        DepthErrors::new(first.strategies[s].depths[i].empty, sums)
                    })
                    .collect();
                let game_sums =
                    reports.iter().map(|r| r.strategies[s].game_sums).fold(ErrorSums::default(), ErrorSums::merge);
                StrategyErrors::new(depths, game_sums)
            })
            .collect();
        Ok(MoveErrorReport { seed: first.seed, game_ranges: ranges, strategies })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_parsed_and_checked() {
        assert_eq!(parse_depths("4").unwrap(), 4..=4);
        assert_eq!(parse_depths(" 1..6").unwrap(), 1..=6);
        assert_eq!(parse_depths("2..=3").unwrap(), 2..=3);
        assert!(matches!(parse_depths("a..b"), Err(MoveErrorsError::DepthsText { .. })));
        assert_eq!(game_range(5, 3).unwrap(), 5..8);
        assert!(matches!(game_range(0, 0), Err(MoveErrorsError::Games { .. })));
        assert!(matches!(game_range(u64::MAX, 1), Err(MoveErrorsError::Games { .. })));
        assert!(matches!(parse_tested(" , "), Err(MoveErrorsError::NoStrategy)));
        let named = parse_tested("exact, emp1").unwrap();
        assert_eq!(named[0], ("exact".to_owned(), TestedName::Exact));
        assert_eq!(players(&named).len(), 1);
    }

    #[test]
    fn estimates_from_sums_are_the_textbook_ones() {
        let mut sums = ErrorSums::default();
        for (error, moves) in [(0.3, 3), (0.1, 2), (0.0, 3)] {
            sums.add(error, moves);
        }
        let per_move = sums.per_move();
        assert!((per_move.mean - 0.05).abs() < 1e-15);
        // Residuals 0.15, 0.0, −0.15: variance 0.0225, over n = 3 and mean moves 8/3.
        let expected = Z_95 * (0.0225f64 / 3.0).sqrt() / (8.0 / 3.0);
        assert!((per_move.half_width_95 - expected).abs() < 1e-12);
        // Errors 0.3, 0.1, 0.0: mean 4/30, sample variance 7/300.
        let per_sample = sums.per_sample();
        assert!((per_sample.mean - 4.0 / 30.0).abs() < 1e-15);
        assert!((per_sample.half_width_95 - Z_95 * (7.0f64 / 300.0 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn reports_of_disjoint_games_merge_into_the_whole() {
        let turn = |error, moves| TurnErrors { moves, error };
        let games: Vec<GameErrors> =
            (0..6).map(|g| vec![vec![turn(0.01 * g as f64, 3), turn(0.0, 2 + g % 2)]]).collect();
        let whole = MoveErrorReport::new(9, 0, 1..=2, 1, &games);
        let parts =
            [MoveErrorReport::new(9, 0, 1..=2, 1, &games[..4]), MoveErrorReport::new(9, 4, 1..=2, 1, &games[4..])];
        let merged = MoveErrorReport::merge(&parts).unwrap();
        assert_eq!(merged.games(), 6);
        assert_eq!(merged.game_ranges, vec![0..4, 4..6]);
        for (a, b) in merged.strategies[0].depths.iter().zip(&whole.strategies[0].depths) {
            assert_eq!(a.sums.moves, b.sums.moves);
            assert!((a.per_move.mean - b.per_move.mean).abs() < 1e-15);
            assert!((a.per_turn.half_width_95 - b.per_turn.half_width_95).abs() < 1e-15);
        }
        assert!((merged.strategies[0].per_game.mean - whole.strategies[0].per_game.mean).abs() < 1e-15);
        let overlapping = [parts[0].clone(), parts[0].clone()];
        assert_eq!(MoveErrorReport::merge(&overlapping), Err(MergeError::Overlap { first: 0, end: 4 }));
        let other_seed = MoveErrorReport { seed: 8, ..parts[1].clone() };
        assert_eq!(MoveErrorReport::merge(&[parts[0].clone(), other_seed]), Err(MergeError::Differ("seed")));
    }

    #[test]
    fn reports_no_run_writes_are_refused() {
        let games: Vec<GameErrors> = vec![vec![vec![TurnErrors { moves: 2, error: 0.1 }; 2]; 2]];
        let report = MoveErrorReport::new(9, 0, 1..=2, 2, &games);
        let merge = |edit: &dyn Fn(&mut MoveErrorReport)| {
            let mut forged = report.clone();
            edit(&mut forged);
            MoveErrorReport::merge(&[forged])
        };
        assert!(merge(&|_| {}).is_ok());
        assert_eq!(merge(&|r| r.strategies.clear()), Err(MergeError::Unmeasured("lists no strategies")));
        let no_depth = merge(&|r| r.strategies.iter_mut().for_each(|s| s.depths.clear()));
        assert_eq!(no_depth, Err(MergeError::Unmeasured("lists a strategy measured at no depth")));
        let fewer = merge(&|r| r.strategies[1].depths.truncate(1));
        assert_eq!(fewer, Err(MergeError::Unmeasured("lists strategies measured at different depths")));
        let backward = merge(&|r| r.game_ranges[0] = std::ops::Range { start: 5, end: 2 });
        assert_eq!(backward, Err(MergeError::BackwardRange { start: 5, end: 2 }));
    }

    #[test]
    fn sampling_prefers_the_best_sharply() {
        let keep = |k| Choice::Keep(KeepId(k));
        let ranked = [
            Valued { choice: keep(1), points: None, value: 0.50 },
            Valued { choice: keep(2), points: None, value: 0.50 },
            Valued { choice: keep(3), points: None, value: 0.40 },
        ];
        let mut rng = game_rng(7, 0);
        let mut counts = [0u32; 4];
        for _ in 0..20_000 {
            match sample(&ranked, &mut rng) {
                Choice::Keep(k) => counts[k.0 as usize] += 1,
                Choice::Score(_) => unreachable!(),
            }
        }
        // Weights 1, 1, e^−10 ≈ 4.5e−5: the two best about evenly, the third about never.
        assert!((9_500..10_500).contains(&counts[1]) && (9_500..10_500).contains(&counts[2]), "{counts:?}");
        assert!(counts[3] <= 5, "{counts:?}");
    }
}
