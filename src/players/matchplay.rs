//! Multi-player games: each player on its own card, turns alternating, the highest total
//! winning and a tie for the top shared equally.
//!
//! Each player of game `i` draws its dice from its own stream, `i · players + p`
//! ([`crate::simulate::game_rng`]): a player's dice do not depend on what the others did,
//! and, as in [`crate::simulate::simulate`], the result of a seed is the same on any
//! number of threads (all totals are integer counts, and a player's plan depends only on
//! the position).

use rayon::prelude::*;
use serde::Serialize;

use super::{MatchPlayer, Position, SolitairePlayer};
use std::fmt;

use crate::game::{Game, Rules};
use crate::progress::Progress;
use crate::simulate::{ScoreTally, Z_95, game_rng, play_turn};
use crate::solo::Policy;
use crate::store::TableError;

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
    /// Sum over games of twice player `p`'s rank (1 the best, players tied sharing the
    /// mean of their places, so twice the rank is an integer).
    pub double_rank_sum: Vec<u64>,
    /// Sum over games of the square of twice player `p`'s rank.
    pub double_rank_squares: Vec<u64>,
}

impl MatchTally {
    fn new(players: usize) -> MatchTally {
        MatchTally {
            games: 0,
            scores: vec![ScoreTally::default(); players],
            top: vec![vec![0; players]; players],
            double_rank_sum: vec![0; players],
            double_rank_squares: vec![0; players],
        }
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
            // Rank 1 + (players above) + ½ (others level), doubled.
            let above = scores.iter().filter(|&&s| s > score).count() as u64;
            let level = scores.iter().filter(|&&s| s == score).count() as u64 - 1;
            let double_rank = 2 + 2 * above + level;
            self.double_rank_sum[p] += double_rank;
            self.double_rank_squares[p] += double_rank * double_rank;
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
        for p in 0..self.double_rank_sum.len() {
            self.double_rank_sum[p] += other.double_rank_sum[p];
            self.double_rank_squares[p] += other.double_rank_squares[p];
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

    /// Player `p`'s mean rank (1 the best; players with equal scores share the mean of
    /// their places).
    pub fn expected_rank(&self, p: usize) -> f64 {
        self.double_rank_sum[p] as f64 / 2.0 / self.games as f64
    }

    /// Half-width of the 95% confidence interval of [`Self::expected_rank`] (normal
    /// approximation with the sample variance of the per-game rank).
    pub fn rank_half_width_95(&self, p: usize) -> f64 {
        let n = self.games as f64;
        let mean = self.expected_rank(p);
        let mean_square = self.double_rank_squares[p] as f64 / 4.0 / n;
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

/// Plays games `0..games` of seed `seed` between solitaire strategies (at least one), each
/// on its own card of `game`, turns alternating in the order given.
pub fn play_match(game: Game, players: &[&dyn Policy], games: u64, seed: u64, progress: &dyn Progress) -> MatchTally {
    let solitaire: Vec<SolitairePlayer> = players.iter().map(|&p| SolitairePlayer::new(p)).collect();
    let players: Vec<&dyn MatchPlayer> = solitaire.iter().map(|p| p as &dyn MatchPlayer).collect();
    play_match_players(game, &players, games, seed, progress).expect("solitaire players read no table")
}

/// Plays games `0..games` of seed `seed` between `players` (at least one), each on its own
/// card of `game`, turns alternating in the order given, games in parallel.
pub fn play_match_players(
    game: Game,
    players: &[&dyn MatchPlayer],
    games: u64,
    seed: u64,
    progress: &dyn Progress,
) -> Result<MatchTally, TableError> {
    let n = players.len() as u64;
    progress.start("playing", games, "games");
    let tally = (0..games)
        .into_par_iter()
        .try_fold(
            || MatchTally::new(players.len()),
            |mut tally, i| {
                let mut rngs: Vec<_> = (0..n).map(|p| game_rng(seed, i * n + p)).collect();
                let mut position = Position::start(game, players.len());
                while !position.is_over() {
                    let p = position.mover;
                    let state = position.seats[p].state;
                    let t = play_turn(game, state, &*players[p].plan(&position)?, &mut rngs[p]);
                    position = position.after(t.next, t.points);
                }
                tally.add(&position.seats.iter().map(|s| s.points).collect::<Vec<_>>());
                progress.advance(1);
                Ok(tally)
            },
        )
        .try_reduce(|| MatchTally::new(players.len()), |a, b| Ok(a.merge(b)));
    progress.finish();
    tally
}

/// A match of many games reported (`yz match`): each player's win share, expected rank
/// and mean score with their 95% intervals.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// Games played.
    pub games: u64,
    /// Seed of the dice.
    pub seed: u64,
    /// The players, in turn order.
    pub players: Vec<PlayerReport>,
    /// The share of games with a tie for the top.
    pub tie_rate: f64,
    /// Seconds the games took.
    pub seconds: f64,
    /// The same per game.
    pub seconds_per_game: f64,
}

/// One player of a [`MatchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct PlayerReport {
    /// Its name.
    pub strategy: String,
    /// Games won, a tie for the top shared equally.
    pub win_share: f64,
    /// Its 95% confidence interval.
    pub win_ci95: [f64; 2],
    /// Mean rank (1 for the top).
    pub expected_rank: f64,
    /// Its 95% confidence interval.
    pub rank_ci95: [f64; 2],
    /// Mean final score.
    pub mean_score: f64,
    /// Its 95% confidence interval.
    pub mean_ci95: [f64; 2],
    /// Standard deviation of the final score.
    pub standard_deviation: f64,
}

impl MatchReport {
    /// The report of `tally`, games of `game` between the players `names` dealt from
    /// `seed`, which took `seconds`.
    pub fn new(game: Game, names: &[String], tally: &MatchTally, seed: u64, seconds: f64) -> MatchReport {
        let around = |centre: f64, half: f64| [centre - half, centre + half];
        let players = (names.iter().enumerate())
            .map(|(p, name)| {
                let scores = &tally.scores[p];
                PlayerReport {
                    strategy: name.clone(),
                    win_share: tally.win_share(p),
                    win_ci95: around(tally.win_share(p), tally.win_half_width_95(p)),
                    expected_rank: tally.expected_rank(p),
                    rank_ci95: around(tally.expected_rank(p), tally.rank_half_width_95(p)),
                    mean_score: scores.mean(),
                    mean_ci95: around(scores.mean(), scores.half_width_95()),
                    standard_deviation: scores.standard_deviation(),
                }
            })
            .collect();
        MatchReport {
            rules: game.rules,
            categories: game.box_names(),
            games: tally.games,
            seed,
            players,
            tie_rate: tally.tie_rate(),
            seconds,
            seconds_per_game: seconds / tally.games as f64,
        }
    }
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let half = |ci: [f64; 2]| (ci[1] - ci[0]) / 2.0;
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "games       {} (seed {}), ties for the top shared", self.games, self.seed)?;
        writeln!(f, "  {:<20} {:>18} {:>18} {:>20}", "player", "win share", "expected rank", "mean score")?;
        for p in &self.players {
            writeln!(
                f,
                "  {:<20} {:>8.4} ± {:<7.4} {:>8.4} ± {:<7.4} {:>10.3} ± {:.3}",
                p.strategy,
                p.win_share,
                half(p.win_ci95),
                p.expected_rank,
                half(p.rank_ci95),
                p.mean_score,
                half(p.mean_ci95)
            )?;
        }
        writeln!(f, "ties        {:.4} of games", self.tie_rate)?;
        write!(f, "time        {:.2} s ({:.4} s per game)", self.seconds, self.seconds_per_game)
    }
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
        // Ranks 1.5, 1.5, 3 then 1, 2, 3.
        assert_eq!((t.expected_rank(0), t.expected_rank(1), t.expected_rank(2)), (1.25, 1.75, 3.0));
    }
}
