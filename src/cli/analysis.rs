//! The exact analysis of a strategy as `solo stats` and `strategy eval` print it: box means
//! and variances, bonuses, the final-score distribution.

use serde_json::json;

use yz::game::Game;
use yz::solo::Analysis;

/// Percentiles and thresholds of the final score reported (Glenn's Table IV gives
/// P(score >= n) at the thresholds).
const PERCENTILES: [u32; 6] = [1, 5, 25, 75, 95, 99];
const THRESHOLDS: [u32; 12] = [50, 100, 150, 200, 250, 300, 400, 500, 750, 1000, 1250, 1500];

/// The analysis as JSON, with the seconds it took.
pub fn to_json(game: Game, analysis: &Analysis, seconds: f64) -> serde_json::Value {
    let boxes = game.categories.iter().map(|c| (c, analysis.box_mean(c), analysis.box_variance(c)));
    let score = analysis.distribution();
    let percentiles = PERCENTILES.map(|q| (q, score.percentile(q as f64)));
    let thresholds = THRESHOLDS.map(|n| (n, score.at_least(n), score.below(n)));
    json!({
        "rules": game.rules.name(),
        "categories": game.box_names(),
        "expected_score": analysis.expected_score(),
        "seconds": seconds,
        "boxes": boxes.map(|(c, mean, variance)| json!({"category": c.name(), "mean": mean, "variance": variance}))
            .collect::<Vec<_>>(),
        "upper_bonus": {
            "probability": analysis.upper_bonus_probability(),
            "mean": analysis.upper_bonus_mean(),
            "variance": analysis.upper_bonus_variance(),
        },
        "yahtzee_bonus_mean": analysis.yahtzee_bonus_mean(),
        "score": {
            "mean": score.mean(),
            "standard_deviation": score.standard_deviation(),
            "median": score.median(),
            "percentiles": percentiles.map(|(q, n)| json!({"percent": q, "score": n})),
            "at_least": thresholds.map(|(n, p, below)| json!({"n": n, "probability": p, "below": below})),
        },
    })
}

/// Prints the analysis as text, with the seconds it took.
pub fn print(game: Game, analysis: &Analysis, seconds: f64) {
    let score = analysis.distribution();
    println!("rules           {}", game.rules);
    println!("categories      {}", game.box_names().join(","));
    println!("expected score  {:.4}", analysis.expected_score());
    println!("analysis time   {seconds:.3} s");
    println!();
    println!("  {:<14} {:>9} {:>10}", "box", "mean", "variance");
    for c in game.categories.iter() {
        println!("  {:<14} {:>9.4} {:>10.4}", c.name(), analysis.box_mean(c), analysis.box_variance(c));
    }
    let (mean, variance) = (analysis.upper_bonus_mean(), analysis.upper_bonus_variance());
    println!("  {:<14} {mean:>9.4} {variance:>10.4}", "upper bonus");
    println!("  {:<14} {:>9.4}", "yahtzee bonus", analysis.yahtzee_bonus_mean());
    println!("  upper bonus earned with probability {:.6}", analysis.upper_bonus_probability());
    println!();
    println!(
        "final score: mean {:.4}, standard deviation {:.4}, median {}",
        score.mean(),
        score.standard_deviation(),
        score.median()
    );
    let percentiles: Vec<String> =
        PERCENTILES.iter().map(|&q| format!("{q}%: {}", score.percentile(q as f64))).collect();
    println!("percentiles: {}", percentiles.join(", "));
    println!("  {:>6} {:>14} {:>14}", "n", "P(score >= n)", "P(score < n)");
    for n in THRESHOLDS {
        println!("  {n:>6} {:>14} {:>14}", probability(score.at_least(n)), probability(score.below(n)));
    }
}

/// A probability with six decimals, or in scientific notation when it is below 0.001.
fn probability(p: f64) -> String {
    if p == 0.0 || p >= 1e-3 { format!("{p:.6}") } else { format!("{p:.6e}") }
}
