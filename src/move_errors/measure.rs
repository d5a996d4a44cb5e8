//! The typical games played, and at each measured turn every tested strategy's choices
//! scored against the exact values below the position.

use crate::duel::advise::{Solved, TurnEndings};
use crate::duel::sweep::solve_layers;
use crate::duel::{Cards, Space};
use crate::game::{Choice, RollsLeft, Valued};
use crate::game::{KeepId, RollId, Transition};
use crate::players::{MatchPlayer, Position};
use crate::players::{PlayerName, Searcher};
use crate::progress::Progress;
use crate::simulate::{game_rng, roll_missing};
use crate::solo::TurnPlan;
use crate::solo::policy::plan_by;
use crate::turn::choice;
use rand::RngExt;
use rayon::prelude::*;
use std::ops::{Range, RangeInclusive};
use std::str::FromStr;
use std::sync::Arc;

use super::MoveErrorsError;
use super::stats::{GameErrors, MoveErrorReport, TurnErrors};

/// How sharply the typical player prefers better moves: Pawlewicz's 100 in
/// exp(100 · (v_i − max_j v_j)).
pub const TYPICAL_SHARPNESS: f64 = 100.0;

/// The most typical games one run measures (each takes an exact solve per depth); larger
/// studies split the games over runs (`--first-game`) and merge them.
pub const MAX_MOVE_ERROR_GAMES: u64 = 100_000_000;

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

/// The strategies to test, each with its name as given: at least one. Parsed from
/// `a,b,…` (blanks skipped; `exact` or a player's name).
#[derive(Clone, Debug, PartialEq)]
pub struct TestedNames(pub Vec<(String, TestedName)>);

impl FromStr for TestedNames {
    type Err = MoveErrorsError;

    fn from_str(text: &str) -> Result<TestedNames, MoveErrorsError> {
        let named = text
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|name| {
                let tested = if name.eq_ignore_ascii_case("exact") {
                    TestedName::Exact
                } else {
                    TestedName::Player(name.parse()?)
                };
                Ok((name.to_owned(), tested))
            })
            .collect::<Result<Vec<_>, MoveErrorsError>>()?;
        if named.is_empty() {
            return Err(MoveErrorsError::NoStrategy);
        }
        Ok(TestedNames(named))
    }
}

impl TestedNames {
    /// The players among them, in order: those a line-up builds for [`TestedNames::tested`].
    pub fn players(&self) -> Vec<PlayerName> {
        (self.0.iter())
            .filter_map(|(_, t)| match t {
                TestedName::Player(name) => Some(name.clone()),
                TestedName::Exact => None,
            })
            .collect()
    }

    /// The strategies as tested: the exact one, or the next of `players` (built from
    /// [`TestedNames::players`], in order).
    ///
    /// # Panics
    /// If `players` holds fewer players than are named.
    pub fn tested<'p>(&self, players: &'p [Box<dyn MatchPlayer + 'p>]) -> Vec<Tested<'p>> {
        let mut players = players.iter();
        (self.0.iter())
            .map(|(_, t)| match t {
                TestedName::Exact => Tested::Exact,
                TestedName::Player(_) => {
                    Tested::Player(players.next().expect("one player per name but exact").as_ref())
                }
            })
            .collect()
    }

    /// The names as given.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|(name, _)| name.clone()).collect()
    }
}

/// The depths measured (open boxes on both cards together): `D` or `A..B` (also `A..=B`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Depths(pub RangeInclusive<usize>);

impl FromStr for Depths {
    type Err = MoveErrorsError;

    fn from_str(text: &str) -> Result<Depths, MoveErrorsError> {
        let number = |part: &str| {
            part.trim().parse::<usize>().map_err(|source| MoveErrorsError::DepthsText { text: text.to_owned(), source })
        };
        Ok(Depths(match text.split_once("..") {
            Some((first, last)) => number(first)?..=number(last.trim_start_matches('='))?,
            None => {
                let d = number(text)?;
                d..=d
            }
        }))
    }
}

/// Games `first..first + games`, checked: 1 to [`MAX_MOVE_ERROR_GAMES`] of them, numbered
/// below 2^64.
pub fn game_range(first: u64, games: u64) -> Result<Range<u64>, MoveErrorsError> {
    let end = first.checked_add(games).filter(|_| (1..=MAX_MOVE_ERROR_GAMES).contains(&games));
    Ok(first..end.ok_or(MoveErrorsError::Games { first, games })?)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_parsed_and_checked() {
        let depths = |text: &str| text.parse::<Depths>().map(|d| d.0);
        assert_eq!(depths("4").unwrap(), 4..=4);
        assert_eq!(depths(" 1..6").unwrap(), 1..=6);
        assert_eq!(depths("2..=3").unwrap(), 2..=3);
        assert!(matches!(depths("a..b"), Err(MoveErrorsError::DepthsText { .. })));
        assert_eq!(game_range(5, 3).unwrap(), 5..8);
        assert!(matches!(game_range(0, 0), Err(MoveErrorsError::Games { .. })));
        assert!(matches!(game_range(u64::MAX, 1), Err(MoveErrorsError::Games { .. })));
        assert!(matches!(" , ".parse::<TestedNames>(), Err(MoveErrorsError::NoStrategy)));
        let named: TestedNames = "exact, emp1".parse().unwrap();
        assert_eq!(named.0[0], ("exact".to_owned(), TestedName::Exact));
        assert_eq!(named.players().len(), 1);
        assert_eq!(named.names(), ["exact", "emp1"]);
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
