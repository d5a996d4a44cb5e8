//! Multi-player games between solitaire strategies: each player on its own card, turns
//! alternating, the highest total winning and a tie for the top shared equally.
//!
//! The strategies here are solitaire strategies (they never look at the other cards), so a
//! match measures how often one strategy's score beats another's. Each player of game `i`
//! draws its dice from its own stream, `i · players + p` ([`super::game_rng`]): a player's
//! dice do not depend on what the others did, and, as in [`super::simulate`], the result of
//! a seed is the same on any number of threads (all totals are integer counts).

use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::Serialize;

use super::{PlanCache, ScoreTally, Z_95, game_rng, play_turn};
use crate::game::{Game, ScoreState};
use crate::solo::Policy;

/// What a match of many games gave each player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchTally {
    /// Games played.
    pub games: u64,
    /// Each player's final scores.
    pub scores: Vec<ScoreTally>,
    /// `top[p][k - 1]`: games in which player `p` had the top score together with `k − 1`
    /// others (`k = 1` is an outright win).
    pub top: Vec<Vec<u64>>,
}

impl MatchTally {
    fn new(players: usize) -> MatchTally {
        MatchTally { games: 0, scores: vec![ScoreTally::default(); players], top: vec![vec![0; players]; players] }
    }

    fn add(&mut self, scores: &[u32]) {
        self.games += 1;
        let best = scores.iter().copied().max().unwrap_or(0);
        let sharing = scores.iter().filter(|&&s| s == best).count();
        for (p, &score) in scores.iter().enumerate() {
            self.scores[p].add(score);
            if score == best {
                self.top[p][sharing - 1] += 1;
            }
        }
    }

    fn merge(mut self, other: MatchTally) -> MatchTally {
        self.games += other.games;
        self.scores = self.scores.into_iter().zip(other.scores).map(|(a, b)| a.merge(b)).collect();
        for (mine, theirs) in self.top.iter_mut().zip(&other.top) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self
    }

    /// Player `p`'s share of the games: a win counts 1, a tie for the top among `k`
    /// players `1/k`.
    pub fn win_share(&self, p: usize) -> f64 {
        self.top[p].iter().enumerate().map(|(k, &n)| n as f64 / (k + 1) as f64).sum::<f64>() / self.games as f64
    }

    /// Half-width of the 95% confidence interval of [`Self::win_share`] (normal
    /// approximation with the sample variance of the per-game share).
    pub fn win_half_width_95(&self, p: usize) -> f64 {
        let n = self.games as f64;
        let mean = self.win_share(p);
        let mean_square =
            self.top[p].iter().enumerate().map(|(k, &c)| c as f64 / ((k + 1) as f64).powi(2)).sum::<f64>() / n;
        let variance = (mean_square - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
        Z_95 * (variance / n).sqrt()
    }

    /// Fraction of games in which some players tied for the top.
    pub fn tie_rate(&self) -> f64 {
        let tied: f64 = self
            .top
            .iter()
            .map(|t| t.iter().enumerate().skip(1).map(|(k, &n)| n as f64 / (k + 1) as f64).sum::<f64>())
            .sum();
        tied / self.games as f64
    }
}

/// Plays games `0..games` of seed `seed` between `players` (at least one), each on its own
/// card of `game`, turns alternating in the order given.
pub fn play_match(game: Game, players: &[&dyn Policy], games: u64, seed: u64, progress: &ProgressBar) -> MatchTally {
    let caches: Vec<PlanCache<dyn Policy>> = players.iter().map(|&p| PlanCache::new(p)).collect();
    let n = players.len() as u64;
    let tally = (0..games)
        .into_par_iter()
        .fold(
            || MatchTally::new(players.len()),
            |mut tally, i| {
                let mut rngs: Vec<_> = (0..n).map(|p| game_rng(seed, i * n + p)).collect();
                let mut states = vec![ScoreState::start(game); players.len()];
                let mut scores = vec![0u32; players.len()];
                while !states[0].is_terminal() {
                    for (p, cache) in caches.iter().enumerate() {
                        let t = play_turn(game, states[p], &cache.plan(states[p]), &mut rngs[p]);
                        scores[p] += t.points;
                        states[p] = t.next;
                    }
                }
                tally.add(&scores);
                progress.inc(1);
                tally
            },
        )
        .reduce(|| MatchTally::new(players.len()), MatchTally::merge);
    progress.finish_and_clear();
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_are_shared() {
        let mut t = MatchTally::new(3);
        t.add(&[10, 10, 5]);
        t.add(&[12, 10, 5]);
        assert_eq!(t.win_share(0), 0.75);
        assert_eq!(t.win_share(1), 0.25);
        assert_eq!(t.win_share(2), 0.0);
        assert_eq!(t.tie_rate(), 0.5);
    }
}
