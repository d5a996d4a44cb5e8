//! `yz strategy`: the papers' strategies by name, evaluated exactly (`eval`), and the
//! strategies made by playing (`evolve`, `train`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Subcommand;

use super::progress::Bar;
use super::{GameArgs, print_report};
use yz::progress::Progress;
use yz::solo::StatsReport;
use yz::strategy::evolve::{self, EvolveParams};
use yz::strategy::learned;
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
            let analysis = yz::solo::analyze_with_progress(game, &strategy, &Bar::new(as_json))?;
            let seconds = started.elapsed().as_secs_f64();
            let mut report = StatsReport::new(game, &analysis, seconds);
            report.strategy = Some(name.to_string());
            report.rounds = strategy.earlier_rounds().to_vec();
            if !report.rounds.is_empty() {
                report.rounds.push(analysis.expected_score());
            }
            print_report(&report, as_json);
        }
        StrategyCommand::Evolve { game, generations, population, sample, seed, finalists, polish, out } => {
            let game = game.game()?;
            let params = EvolveParams { generations, population, sample, seed, finalists, polish };
            params.check().map_err(anyhow::Error::msg)?;
            let path = out.unwrap_or_else(|| data.join(evolve::file_name(game)));
            let report = evolve::evolve_into(game, params, &path, |g| {
                if show_progress {
                    eprintln!(
                        "generation {:>4}: best {:>8.2}, mean {:>8.2}",
                        g.generation, g.best_fitness, g.mean_fitness
                    );
                }
            })?;
            print_report(&report, as_json);
        }
        StrategyCommand::Train { game, games, seed, out } => {
            let game = game.game()?;
            yz::simulate::check_games(games)?;
            let path = out.unwrap_or_else(|| data.join(learned::file_name(game)));
            let progress = Bar::new(as_json);
            progress.start("training", games, "games");
            let report = learned::train_into(game, games, seed, &path, |done| progress.set_position(done))?;
            progress.finish();
            print_report(&report, as_json);
        }
    }
    Ok(())
}
