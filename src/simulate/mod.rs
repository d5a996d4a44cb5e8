//! Monte-Carlo play of any solitaire strategy: games dealt from a seed, played in parallel,
//! summed into a score histogram, with the mean's 95% confidence interval.
//!
//! Exact evaluation ([`crate::solo::analyze`]) answers "what does this strategy average?"
//! to the last digit; simulation is the independent check of it, and the only tool for
//! questions the analysis does not cover (several players on their own cards,
//! [`crate::players::matchplay`]) and for strategies that are trained by playing (the genetic algorithm,
//! the learned action table).
//!
//! **Reproducibility.** Game `i` of a run with seed `s` draws its dice from ChaCha8 keyed
//! by `s` on stream `i` ([`game_rng`]), so each game is the same whatever thread plays it,
//! and the totals are integer sums (score counts, sums and sums of squares), which do not
//! depend on the order they are added in. A run gives the same result bit for bit on any
//! number of threads.
//!
//! **Speed.** A strategy's [`TurnPlan`] for a score state is computed the first time a game
//! reaches that state and kept ([`PlanCache`]); after that a turn is a few table lookups
//! and eight random dice.

pub mod report;

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;

use crate::game::dice::{NUM_DICE, NUM_PARTIAL_KEEPS, TABLES};
use crate::game::{Game, KeepId, RollId, ScoreState, Transition};
use crate::progress::Progress;
use crate::solo::{Policy, TurnPlan};

/// Two-sided 95% quantile of the normal distribution, for the confidence intervals.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The most games one run plays. At 10^10 games the 95% interval of the optimal
/// strategy's mean (standard deviation about 60 points) is already ±0.0012 points, so a
/// larger request is a typo more often than a plan, and it is refused before any play.
pub const MAX_GAMES: u64 = 10_000_000_000;

/// A number of games outside 1 to [`MAX_GAMES`]: none to play, or more than a run plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--games must be 1 to {MAX_GAMES} (10^10); got {0}")]
pub struct GamesOutOfRange(pub u64);

/// Checks a requested number of games: at least 1 and at most [`MAX_GAMES`].
pub fn check_games(games: u64) -> Result<(), GamesOutOfRange> {
    if !(1..=MAX_GAMES).contains(&games) {
        return Err(GamesOutOfRange(games));
    }
    Ok(())
}

/// The dice of one game: ChaCha8 keyed by `seed`, on stream `game`.
///
/// ChaCha8 is a fixed, documented algorithm, so a seed deals the same games on every
/// machine and in every version of yz that uses this function.
pub fn game_rng(seed: u64, game: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(game);
    rng
}

/// Rolls the dice missing from `keep` and returns the five dice.
pub fn roll_missing(keep: KeepId, rng: &mut impl rand::Rng) -> RollId {
    let mut dice = keep;
    for _ in keep.size()..NUM_DICE {
        let face: usize = rng.random_range(0..6);
        dice = KeepId(TABLES.add_die[dice.0 as usize][face]);
    }
    RollId((dice.0 as usize - NUM_PARTIAL_KEEPS) as u8)
}

/// The turn plans a strategy has been asked for, kept so that each score state is
/// planned once. Safe to share between threads: a plan is computed outside any lock, and
/// a policy's plan for a state is always the same, so a race only wastes work.
pub struct PlanCache<'a, P: ?Sized> {
    policy: &'a P,
    hasher: RandomState,
    shards: Vec<Mutex<HashMap<ScoreState, Arc<TurnPlan>>>>,
}

const SHARDS: usize = 64;

impl<'a, P: Policy + ?Sized> PlanCache<'a, P> {
    /// An empty cache in front of `policy`.
    pub fn new(policy: &'a P) -> PlanCache<'a, P> {
        PlanCache {
            policy,
            hasher: RandomState::new(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    /// The policy's plan for `state`, computed on first use.
    pub fn plan(&self, state: ScoreState) -> Arc<TurnPlan> {
        let shard = &self.shards[self.hasher.hash_one(state) as usize % SHARDS];
        if let Some(plan) = shard.lock().unwrap_or_else(|e| e.into_inner()).get(&state) {
            return Arc::clone(plan);
        }
        let plan = Arc::new(self.policy.plan(state));
        shard.lock().unwrap_or_else(|e| e.into_inner()).entry(state).or_insert(plan).clone()
    }

    /// Number of score states planned so far.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len()).sum()
    }

    /// True before the first plan.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The cache plays as its policy does, each state planned once: an analysis run many
/// times over the same states ([`crate::solo::analyze_from`]) plans them once.
impl<P: Policy + ?Sized> Policy for PlanCache<'_, P> {
    fn plan(&self, state: ScoreState) -> TurnPlan {
        TurnPlan::clone(&PlanCache::plan(self, state))
    }

    fn plays_by_state_class(&self) -> bool {
        self.policy.plays_by_state_class()
    }
}

/// Plays one turn from `state` by `plan`: roll, keep, reroll, keep, reroll, score.
///
/// # Panics
/// If the plan keeps dice that are not in the roll or scores in a box the rules forbid.
pub fn play_turn(game: Game, state: ScoreState, plan: &TurnPlan, rng: &mut impl rand::Rng) -> Transition {
    let first = roll_missing(KeepId(0), rng);
    let keep = plan.keep_after_first[first.0 as usize];
    assert!(keep.is_within(first), "the strategy keeps {keep} from {first} in {state:?}");
    let second = roll_missing(keep, rng);
    let keep = plan.keep_after_second[second.0 as usize];
    assert!(keep.is_within(second), "the strategy keeps {keep} from {second} in {state:?}");
    let last = roll_missing(keep, rng);
    let category = plan.box_for_roll[last.0 as usize];
    state
        .score(game, category, last)
        .unwrap_or_else(|| panic!("the strategy scores {last} in {category}, which {state:?} does not allow"))
}

/// Plays a whole game of `game` with the plans of `cache` and returns the final score.
pub fn play_game<P: Policy + ?Sized>(game: Game, cache: &PlanCache<P>, rng: &mut impl rand::Rng) -> u32 {
    let mut state = ScoreState::start(game);
    let mut score = 0;
    while !state.is_terminal() {
        let t = play_turn(game, state, &cache.plan(state), rng);
        score += t.points;
        state = t.next;
    }
    score
}

/// Integer tallies of final scores: exact, and the same whatever order they are added in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ScoreTally {
    /// Games tallied.
    pub games: u64,
    /// Sum of the scores.
    pub sum: u64,
    /// Sum of the squared scores.
    pub sum_of_squares: u64,
    /// `counts[n]`: games that ended with `n` points.
    pub counts: Vec<u64>,
}

impl ScoreTally {
    /// Adds one final score.
    pub fn add(&mut self, score: u32) {
        self.games += 1;
        self.sum += u64::from(score);
        self.sum_of_squares += u64::from(score).pow(2);
        if self.counts.len() <= score as usize {
            self.counts.resize(score as usize + 1, 0);
        }
        self.counts[score as usize] += 1;
    }

    /// Adds another tally.
    pub fn merge(mut self, other: ScoreTally) -> ScoreTally {
        self.games += other.games;
        self.sum += other.sum;
        self.sum_of_squares += other.sum_of_squares;
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self
    }

    /// Sample mean.
    pub fn mean(&self) -> f64 {
        self.sum as f64 / self.games as f64
    }

    /// Sample standard deviation (with the n − 1 divisor).
    pub fn standard_deviation(&self) -> f64 {
        if self.games < 2 {
            return f64::NAN;
        }
        let n = self.games as f64;
        let squares = self.sum_of_squares as f64 - (self.sum as f64).powi(2) / n;
        (squares.max(0.0) / (n - 1.0)).sqrt()
    }

    /// Half-width of the 95% confidence interval of the mean (normal approximation).
    pub fn half_width_95(&self) -> f64 {
        Z_95 * self.standard_deviation() / (self.games as f64).sqrt()
    }

    /// Lowest and highest score seen.
    pub fn range(&self) -> Option<(u32, u32)> {
        let lo = self.counts.iter().position(|&c| c > 0)?;
        let hi = self.counts.iter().rposition(|&c| c > 0)?;
        Some((lo as u32, hi as u32))
    }

    /// Game counts in bins of `width` points: `(first score of the bin, games)`, from the bin
    /// of the lowest score to that of the highest.
    pub fn histogram(&self, width: u32) -> Vec<(u32, u64)> {
        let Some((lo, hi)) = self.range() else { return Vec::new() };
        let width = width.max(1);
        (lo / width..=hi / width)
            .map(|bin| {
                let start = bin * width;
                let end = ((start + width) as usize).min(self.counts.len());
                (start, self.counts[start as usize..end].iter().sum())
            })
            .collect()
    }
}

/// Plays games `0..games` of seed `seed` with `policy` in parallel and tallies their scores.
pub fn simulate<P: Policy + ?Sized>(
    game: Game,
    policy: &P,
    games: u64,
    seed: u64,
    progress: &dyn Progress,
) -> ScoreTally {
    let cache = PlanCache::new(policy);
    progress.start("playing", games, "games");
    let tally = (0..games)
        .into_par_iter()
        .fold(ScoreTally::default, |mut tally, i| {
            tally.add(play_game(game, &cache, &mut game_rng(seed, i)));
            progress.advance(1);
            tally
        })
        .reduce(ScoreTally::default, ScoreTally::merge);
    progress.finish();
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolled_dice_are_uniform_and_contain_the_keep() {
        let mut rng = game_rng(7, 0);
        let keep = KeepId::from_counts([0, 0, 2, 0, 0, 0]);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            let roll = roll_missing(keep, &mut rng);
            assert!(keep.is_within(roll));
            let faces = roll.counts();
            for (f, c) in counts.iter_mut().enumerate() {
                *c += u32::from(faces[f] - keep.counts()[f]);
            }
        }
        // 180,000 fresh dice: each face 30,000 ± 4.5 standard deviations (about 700).
        for c in counts {
            assert!((c as i64 - 30_000).abs() < 700, "{counts:?}");
        }
        assert_eq!(roll_missing(RollId(17).as_keep(), &mut rng), RollId(17));
    }

    #[test]
    fn tallies_give_mean_deviation_and_bins() {
        let mut t = ScoreTally::default();
        for s in [10, 12, 14, 25] {
            t.add(s);
        }
        assert_eq!(t.mean(), 15.25);
        let sd = ((5.25f64.powi(2) + 3.25f64.powi(2) + 1.25f64.powi(2) + 9.75f64.powi(2)) / 3.0).sqrt();
        assert!((t.standard_deviation() - sd).abs() < 1e-12);
        assert_eq!(t.histogram(10), vec![(10, 3), (20, 1)]);
        assert_eq!(t.clone().merge(t.clone()).counts[12], 2);
    }
}
