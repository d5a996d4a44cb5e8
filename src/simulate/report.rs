//! What `yz simulate` reports, as a type: its JSON (`Serialize`) and its text (`Display`).

use std::fmt;

use serde::Serialize;

use super::ScoreTally;
use crate::game::{Game, Rules};

/// Games of one strategy played (`yz simulate`): the mean with its 95% interval, the spread
/// and the score histogram.
#[derive(Clone, Debug, Serialize)]
pub struct SimulateReport {
    /// The strategy played.
    pub strategy: String,
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// Games played.
    pub games: u64,
    /// Seed of the dice.
    pub seed: u64,
    /// Mean final score.
    pub mean: f64,
    /// Its 95% confidence interval.
    pub ci95: [f64; 2],
    /// Half the interval's width.
    #[serde(skip)]
    pub half_width_95: f64,
    /// Standard deviation of the final score.
    pub standard_deviation: f64,
    /// Lowest final score seen.
    pub min: u32,
    /// Highest final score seen.
    pub max: u32,
    /// Games by final score, from `min` to `max`.
    pub counts: Counts,
    /// The same in bins of a round width, about 40 of them.
    pub histogram: Histogram,
    /// Seconds the games took.
    pub seconds: f64,
}

/// Games by final score, one count a score from `from` on.
#[derive(Clone, Debug, Serialize)]
pub struct Counts {
    /// The first score counted.
    pub from: u32,
    /// Games per score.
    pub games: Vec<u64>,
}

/// Games by final score in bins.
#[derive(Clone, Debug, Serialize)]
pub struct Histogram {
    /// Points a bin spans.
    pub bin_width: u32,
    /// The bins, lowest first.
    pub bins: Vec<Bin>,
}

/// One bin of a [`Histogram`].
#[derive(Clone, Debug, Serialize)]
pub struct Bin {
    /// Its lowest score.
    pub from: u32,
    /// Games in it.
    pub games: u64,
}

impl SimulateReport {
    /// The report of `tally`, games of `strategy` in `game` dealt from `seed`, which took
    /// `seconds`.
    pub fn new(strategy: String, game: Game, tally: &ScoreTally, seed: u64, seconds: f64) -> SimulateReport {
        let (mean, half) = (tally.mean(), tally.half_width_95());
        let (min, max) = tally.range().unwrap_or((0, 0));
        let bin_width = bin_width(tally);
        SimulateReport {
            strategy,
            rules: game.rules,
            categories: game.box_names(),
            games: tally.games,
            seed,
            mean,
            ci95: [mean - half, mean + half],
            half_width_95: half,
            standard_deviation: tally.standard_deviation(),
            min,
            max,
            counts: Counts { from: min, games: tally.counts[min as usize..=max as usize].to_vec() },
            histogram: Histogram {
                bin_width,
                bins: tally.histogram(bin_width).into_iter().map(|(from, games)| Bin { from, games }).collect(),
            },
            seconds,
        }
    }
}

/// Bins of a round width giving at most about 40 bars over the scores seen.
fn bin_width(tally: &ScoreTally) -> u32 {
    let span = tally.range().map_or(0, |(lo, hi)| hi - lo + 1);
    [1, 2, 5, 10, 20, 25, 50, 100].into_iter().find(|&w| span.div_ceil(w) <= 40).unwrap_or(200)
}

impl fmt::Display for SimulateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mean, [lo, hi]) = (self.mean, self.ci95);
        writeln!(f, "strategy    {}", self.strategy)?;
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "games       {} (seed {})", self.games, self.seed)?;
        writeln!(f, "mean        {mean:.4} ± {:.4} (95% CI {lo:.4} to {hi:.4})", self.half_width_95)?;
        writeln!(f, "sd          {:.4}", self.standard_deviation)?;
        writeln!(f, "range       {} to {}", self.min, self.max)?;
        writeln!(f, "time        {:.2} s", self.seconds)?;
        write!(f, "histogram   (bins of {} points)", self.histogram.bin_width)?;
        let most = self.histogram.bins.iter().map(|b| b.games).max().unwrap_or(1).max(1);
        for bin in &self.histogram.bins {
            let bar = "#".repeat((bin.games as f64 / most as f64 * 50.0).round() as usize);
            write!(f, "\n  {:>5}-{:<5} {:>9}  {bar}", bin.from, bin.from + self.histogram.bin_width - 1, bin.games)?;
        }
        Ok(())
    }
}
