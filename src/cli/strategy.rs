//! `yz strategy`: the papers' strategies by name, evaluated exactly (`eval`), and the
//! strategies made by playing (`evolve`, `train`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;

use super::progress::Bar;
use super::{GameArgs, print_json};
use yz::progress::Progress;
use yz::solo::analyze;
use yz::strategy::evolve::{self, EvolveParams};
use yz::strategy::learned::{self, ActionTable, LearnedPolicy};
use yz::strategy::{STRATEGY_NAMES, Strategy, StrategyName};

#[derive(Subcommand)]
pub enum StrategyCommand {
    /// Exact mean, standard deviation, box means and bonuses of a strategy, by forward
    /// analysis (Glenn 2007 §II-C, Table VII).
    Eval {
        /// The strategy's name.
        #[arg(
            value_name = "NAME",
            help = format!("The strategy: {STRATEGY_NAMES}. means-iter also prints the average of every round from 0 (means)")
        )]
        name: String,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Evolve the box values (one per box) of Glenn's Eq. 13 with a genetic algorithm (Glenn 2007
    /// §III-B.1), write the champion and print its exact average.
    Evolve {
        #[command(flatten)]
        game: GameArgs,
        /// Generations after the random first one.
        #[arg(long, default_value_t = 30)]
        generations: usize,
        /// Individuals per generation.
        #[arg(long, default_value_t = 256)]
        population: usize,
        /// Simulated games per individual and generation (the fitness sample).
        #[arg(long, default_value_t = 100)]
        sample: u64,
        /// Seed of the dice and of the genetic operators.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Candidates analysed exactly to choose the champion: the fittest of the last
        /// generation and the best of each of the last generations.
        #[arg(long, default_value_t = 4)]
        finalists: usize,
        /// Step sizes of the exact polish of the champion (coordinate search from 1 point,
        /// halving; 26 exact analyses per improvement); 0 for none.
        #[arg(long, default_value_t = 6)]
        polish: usize,
        /// Where to write the champion [default: the data directory, read by `evolved`].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Train Brown et al.'s Monte-Carlo action table by simulated games, write it and print
    /// the trained agent's exact average.
    Train {
        #[command(flatten)]
        game: GameArgs,
        /// Training games.
        #[arg(long, default_value_t = 1_000_000)]
        games: u64,
        /// Seed of the training dice and exploration.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the table [default: the data directory, read by `learned`].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// Runs one `yz strategy` command; `data` holds the optimal tables and the trained
/// strategies' files.
pub fn run(command: StrategyCommand, data: &Path, as_json: bool) -> Result<()> {
    let show_progress = std::io::stderr().is_terminal();
    match command {
        StrategyCommand::Eval { name, game } => {
            let name: StrategyName = name.parse()?;
            let game = game.game()?;
            let started = Instant::now();
            let strategy = Strategy::build(&name, game, data)?;
            let analysis = yz::solo::analyze_with_progress(game, &strategy, &Bar::new(as_json));
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
        StrategyCommand::Evolve { game, generations, population, sample, seed, finalists, polish, out } => {
            let game = game.game()?;
            let params = EvolveParams { generations, population, sample, seed, finalists, polish };
            params.check().map_err(anyhow::Error::msg)?;
            let started = Instant::now();
            let evolution = evolve::evolve(game, params, |g| {
                if show_progress {
                    eprintln!(
                        "generation {:>4}: best {:>8.2}, mean {:>8.2}",
                        g.generation, g.best_fitness, g.mean_fitness
                    );
                }
            });
            let seconds = started.elapsed().as_secs_f64();
            let path = out.unwrap_or_else(|| data.join(evolve::file_name(game)));
            let about = json!({
                "generations": generations, "population": population, "sample": sample, "seed": seed,
                "finalists": finalists, "polish": polish, "exact_mean": evolution.champion_mean, "seconds": seconds,
            });
            let checksum = evolve::write(&path, game, &evolution.champion, about)?;
            if as_json {
                let history: Vec<_> = evolution
                    .history
                    .iter()
                    .map(|g| json!({"generation": g.generation, "best_fitness": g.best_fitness, "mean_fitness": g.mean_fitness}))
                    .collect();
                let finalists: Vec<_> = evolution
                    .finalists
                    .iter()
                    .map(|(a, mean)| json!({"anchors": a.to_json(game.rules), "exact_mean": mean}))
                    .collect();
                print_json(json!({
                    "rules": game.rules.name(),
                    "categories": game.box_names(),
                    "champion": evolution.champion.to_json(game.rules),
                    "exact_mean": evolution.champion_mean,
                    "finalists": finalists,
                    "genetic_mean": evolution.finalists[0].1,
                    "polish_analyses": evolution.polish_analyses,
                    "history": history,
                    "seconds": seconds,
                    "file": path,
                    "checksum": checksum.to_string(),
                }));
            } else {
                println!("rules       {}", game.rules);
                println!("categories  {}", game.box_names().join(","));
                println!("search      {generations} generations of {population}, {sample} games each (seed {seed})");
                println!(
                    "champion    exact average {:.4} ({:.4} from the genetic algorithm, then {} exact analyses of the polish)",
                    evolution.champion_mean, evolution.finalists[0].1, evolution.polish_analyses
                );
                for c in game.categories.iter() {
                    println!("  s({:<7}) {:>9.4}", c.name(), evolution.champion.0[c.index()]);
                }
                println!("time        {seconds:.1} s");
                println!("file        {} (checksum {checksum})", path.display());
            }
        }
        StrategyCommand::Train { game, games, seed, out } => {
            let game = game.game()?;
            yz::simulate::check_games(games)?;
            let started = Instant::now();
            let mut table = ActionTable::new(game);
            let progress = Bar::new(as_json);
            progress.start("training", games, "games");
            table.train(games, seed, 0, |done| progress.set_position(done));
            progress.finish();
            let seconds = started.elapsed().as_secs_f64();
            let path = out.unwrap_or_else(|| data.join(learned::file_name(game)));
            let checksum = table.write(&path, json!({ "games": games, "seed": seed, "seconds": seconds }))?;
            let exact = analyze(game, &LearnedPolicy::new(table)).expected_score();
            if as_json {
                print_json(json!({
                    "rules": game.rules.name(),
                    "categories": game.box_names(),
                    "games": games,
                    "seed": seed,
                    "exact_mean": exact,
                    "seconds": seconds,
                    "file": path,
                    "checksum": checksum.to_string(),
                }));
            } else {
                println!("rules       {}", game.rules);
                println!("categories  {}", game.box_names().join(","));
                println!("training    {games} games (seed {seed}) in {seconds:.1} s");
                println!("agent       exact average {exact:.4}");
                println!("file        {} (checksum {checksum})", path.display());
            }
        }
    }
    Ok(())
}
