//! What the solitaire commands report, as types: each is the JSON of its command
//! (`Serialize`) and prints as the command's text (`Display`), so the command line, the
//! web app and any program embedding yz report the same things.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::analysis::Analysis;
use super::table::{FutureValue, SoloTable};
use crate::game::{Card, Game, Rules};
use crate::store::Checksum;

/// Percentiles of the final score a [`StatsReport`] gives.
const PERCENTILES: [u32; 6] = [1, 5, 25, 75, 95, 99];

/// Thresholds at which a [`StatsReport`] gives P(score >= n) (Glenn's Table IV gives them).
const THRESHOLDS: [u32; 12] = [50, 100, 150, 200, 250, 300, 400, 500, 750, 1000, 1250, 1500];

/// A solved and written solitaire table (`yz solo solve`).
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// The optimal strategy's expected final score from the start.
    pub expected_score: f64,
    /// Score states of the game.
    pub states: usize,
    /// Seconds the solve took.
    pub seconds: f64,
    /// Where the table was written.
    pub table: PathBuf,
    /// The table file's checksum.
    #[serde(serialize_with = "crate::store::checksum_as_text")]
    pub checksum: Checksum,
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules           {}", self.rules)?;
        writeln!(f, "categories      {}", self.categories.join(","))?;
        writeln!(f, "expected score  {:.4}", self.expected_score)?;
        writeln!(f, "states          {}", self.states)?;
        writeln!(f, "solve time      {:.3} s", self.seconds)?;
        write!(f, "table           {} (checksum {})", self.table.display(), self.checksum)
    }
}

/// One box's points under a strategy.
#[derive(Clone, Debug, Serialize)]
pub struct BoxStats {
    /// The box.
    pub category: &'static str,
    /// Mean points written in it.
    pub mean: f64,
    /// Their variance.
    pub variance: f64,
}

/// The upper bonus under a strategy.
#[derive(Clone, Debug, Serialize)]
pub struct BonusStats {
    /// The chance of earning it.
    pub probability: f64,
    /// Its mean.
    pub mean: f64,
    /// Its variance.
    pub variance: f64,
}

/// A percentile of the final score.
#[derive(Clone, Debug, Serialize)]
pub struct Percentile {
    /// The percent.
    pub percent: u32,
    /// The least score with at least that percent of games at or below it.
    pub score: u32,
}

/// The chance of reaching a score.
#[derive(Clone, Debug, Serialize)]
pub struct Threshold {
    /// The score.
    pub n: u32,
    /// P(final score >= n).
    pub probability: f64,
    /// P(final score < n), computed apart so that tiny tails keep their digits.
    pub below: f64,
}

/// The final score's distribution, summarised.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreStats {
    /// Its mean.
    pub mean: f64,
    /// Its standard deviation.
    pub standard_deviation: f64,
    /// Its median.
    pub median: u32,
    /// The percentiles 1, 5, 25, 75, 95 and 99.
    pub percentiles: Vec<Percentile>,
    /// The chance of reaching 50, 100, ... 1,500 points.
    pub at_least: Vec<Threshold>,
}

/// The exact analysis of a strategy (`yz solo stats`, `yz strategy eval`): box means and
/// variances, bonuses, the final-score distribution.
#[derive(Clone, Debug, Serialize)]
pub struct StatsReport {
    /// The strategy analysed, where it is not the optimal one of `solo stats`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// The expected score after each round of an iterated strategy (`means-iter:N`), the
    /// last one this analysis's; empty for others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<f64>,
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// The strategy's expected final score.
    pub expected_score: f64,
    /// Seconds the analysis took.
    pub seconds: f64,
    /// Every box in play.
    pub boxes: Vec<BoxStats>,
    /// The upper bonus.
    pub upper_bonus: BonusStats,
    /// Mean Extra Yahtzee Bonus points.
    pub yahtzee_bonus_mean: f64,
    /// The final score.
    pub score: ScoreStats,
}

impl StatsReport {
    /// The report of `analysis` of `game`, which took `seconds`.
    pub fn new(game: Game, analysis: &Analysis, seconds: f64) -> StatsReport {
        let score = analysis.distribution();
        StatsReport {
            strategy: None,
            rounds: Vec::new(),
            rules: game.rules,
            categories: game.box_names(),
            expected_score: analysis.expected_score(),
            seconds,
            boxes: game
                .categories
                .iter()
                .map(|c| BoxStats {
                    category: c.name(),
                    mean: analysis.box_mean(c),
                    variance: analysis.box_variance(c),
                })
                .collect(),
            upper_bonus: BonusStats {
                probability: analysis.upper_bonus_probability(),
                mean: analysis.upper_bonus_mean(),
                variance: analysis.upper_bonus_variance(),
            },
            yahtzee_bonus_mean: analysis.yahtzee_bonus_mean(),
            score: ScoreStats {
                mean: score.mean(),
                standard_deviation: score.standard_deviation(),
                median: score.median(),
                percentiles: PERCENTILES
                    .iter()
                    .map(|&percent| Percentile { percent, score: score.percentile(percent as f64) })
                    .collect(),
                at_least: THRESHOLDS
                    .iter()
                    .map(|&n| Threshold { n, probability: score.at_least(n), below: score.below(n) })
                    .collect(),
            },
        }
    }
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(strategy) = &self.strategy {
            writeln!(f, "strategy        {strategy}")?;
        }
        if !self.rounds.is_empty() {
            let averages: Vec<String> = self.rounds.iter().map(|a| format!("{a:.4}")).collect();
            writeln!(f, "rounds 0..={}     {}", self.rounds.len() - 1, averages.join(", "))?;
        }
        writeln!(f, "rules           {}", self.rules)?;
        writeln!(f, "categories      {}", self.categories.join(","))?;
        writeln!(f, "expected score  {:.4}", self.expected_score)?;
        writeln!(f, "analysis time   {:.3} s", self.seconds)?;
        writeln!(f)?;
        writeln!(f, "  {:<14} {:>9} {:>10}", "box", "mean", "variance")?;
        for b in &self.boxes {
            writeln!(f, "  {:<14} {:>9.4} {:>10.4}", b.category, b.mean, b.variance)?;
        }
        let bonus = &self.upper_bonus;
        writeln!(f, "  {:<14} {:>9.4} {:>10.4}", "upper bonus", bonus.mean, bonus.variance)?;
        writeln!(f, "  {:<14} {:>9.4}", "yahtzee bonus", self.yahtzee_bonus_mean)?;
        writeln!(f, "  upper bonus earned with probability {:.6}", bonus.probability)?;
        writeln!(f)?;
        let score = &self.score;
        writeln!(
            f,
            "final score: mean {:.4}, standard deviation {:.4}, median {}",
            score.mean, score.standard_deviation, score.median
        )?;
        let percentiles: Vec<String> =
            score.percentiles.iter().map(|p| format!("{}%: {}", p.percent, p.score)).collect();
        writeln!(f, "percentiles: {}", percentiles.join(", "))?;
        write!(f, "  {:>6} {:>14} {:>14}", "n", "P(score >= n)", "P(score < n)")?;
        for t in &score.at_least {
            write!(f, "\n  {:>6} {:>14} {:>14}", t.n, probability(t.probability), probability(t.below))?;
        }
        Ok(())
    }
}

/// A probability with six decimals, or in scientific notation when it is below 0.001.
fn probability(p: f64) -> String {
    if p == 0.0 || p >= 1e-3 { format!("{p:.6}") } else { format!("{p:.6e}") }
}

/// A card's value under optimal play (`yz solo value`).
#[derive(Clone, Debug, Serialize)]
pub struct ValueReport {
    /// The card, as written.
    pub card: String,
    /// Points on it, bonuses included.
    pub points: u32,
    /// Expected points still to come.
    pub expected_future: f64,
    /// Expected final score: the points plus the future.
    pub expected_final: f64,
}

impl ValueReport {
    /// The value of `card`, its future read from `table` (none for a full card).
    pub fn new(card: &Card, table: Option<&SoloTable>) -> ValueReport {
        let state = card.state();
        let expected_future = match table {
            Some(table) if !state.is_terminal() => table.future_value(state),
            _ => 0.0,
        };
        let points = card.points();
        ValueReport { card: card.to_string(), points, expected_future, expected_final: points as f64 + expected_future }
    }
}

impl fmt::Display for ValueReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "points on card  {}", self.points)?;
        writeln!(f, "expected future {:.4}", self.expected_future)?;
        write!(f, "expected final  {:.4}", self.expected_final)
    }
}
