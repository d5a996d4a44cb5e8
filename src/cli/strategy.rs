//! `yz strategy`: the papers' strategies by name, evaluated exactly.

use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;

use super::{GameArgs, print_json};
use yz::strategy::{Strategy, StrategyName};

#[derive(Subcommand)]
pub enum StrategyCommand {
    /// Exact mean, standard deviation, box means and bonuses of a strategy, by forward
    /// analysis (Glenn 2007 §II-C, Table VII).
    Eval {
        /// The strategy: optimal, greedy, means, means-iter[:ROUNDS], means-var, upper-lower,
        /// rules, novice. means-iter also prints the average of every round from 0 (means).
        name: String,
        #[command(flatten)]
        game: GameArgs,
    },
}

/// Runs one `yz strategy` command.
pub fn run(command: StrategyCommand, as_json: bool) -> Result<()> {
    match command {
        StrategyCommand::Eval { name, game } => {
            let name: StrategyName = name.parse()?;
            let game = game.game()?;
            let started = Instant::now();
            let strategy = Strategy::build(name, game);
            let analysis = strategy.analyze();
            let seconds = started.elapsed().as_secs_f64();
            let mut rounds = strategy.earlier_rounds().to_vec();
            if !rounds.is_empty() {
                rounds.push(analysis.expected_score());
            }
            if as_json {
                let mut report = super::analysis::to_json(game, &analysis, seconds);
                report["strategy"] = json!(name.to_string());
                if !rounds.is_empty() {
                    report["rounds"] = json!(rounds);
                }
                print_json(report);
            } else {
                println!("strategy        {name}");
                if !rounds.is_empty() {
                    let averages: Vec<String> = rounds.iter().map(|a| format!("{a:.4}")).collect();
                    println!("rounds 0..={}     {}", rounds.len() - 1, averages.join(", "));
                }
                super::analysis::print(game, &analysis, seconds);
            }
        }
    }
    Ok(())
}
