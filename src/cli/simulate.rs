//! `yz simulate` and `yz match`: strategies played by simulation.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::progress::Bar;
use super::{GameArgs, print_report};
use yz::players::MatchPlayer;
use yz::players::lineup::{Lineup, match_players};
use yz::players::matchplay::{MatchReport, play_match_players};
use yz::simulate::report::SimulateReport;
use yz::simulate::{check_games, simulate};
use yz::strategy::{STRATEGY_NAMES, Strategy, StrategyName};

/// `yz simulate`: one strategy, many games.
#[derive(Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The strategy's name.
    #[arg(long, value_name = "NAME", help = format!("The strategy: {STRATEGY_NAMES}"))]
    strategy: String,
    /// Games to play.
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Seed of the dice: the same seed plays the same games on any number of threads.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `yz match`: strategies against each other, each on its own card.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Two or more strategies, comma-separated, in turn order.
    #[arg(
        long,
        value_name = "NAMES",
        help = format!("Two or more players, comma-separated, in turn order (e.g. emp1,optimal): empD or dynsD (Pawlewicz's EMP(D), DynS(D), searching D turns deep on the target table), E (= optimal), or one of {STRATEGY_NAMES}")
    )]
    players: String,
    /// Games to play.
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `yz simulate`.
pub fn run_simulate(args: SimulateArgs, data: &Path, as_json: bool) -> Result<()> {
    let game = args.game.game()?;
    check_games(args.games)?;
    let name: StrategyName = args.strategy.parse()?;
    let strategy = Strategy::build(&name, game, data)?;
    let started = Instant::now();
    let tally = simulate(game, &strategy, args.games, args.seed, &Bar::new(as_json));
    let seconds = started.elapsed().as_secs_f64();
    print_report(&SimulateReport::new(name.to_string(), game, &tally, args.seed, seconds), as_json);
    Ok(())
}

/// Runs `yz match`.
pub fn run_match(args: MatchArgs, data: &Path, as_json: bool) -> Result<()> {
    let game = args.game.game()?;
    check_games(args.games)?;
    let (names, parsed) = match_players(&args.players)?;
    let lineup = Lineup::load(&parsed, game, data, false, &Bar::new(as_json))?;
    let boxed = lineup.players();
    let players: Vec<&dyn MatchPlayer> = boxed.iter().map(|p| p.as_ref()).collect();
    let started = Instant::now();
    let tally = play_match_players(game, &players, args.games, args.seed, &Bar::new(as_json))?;
    let seconds = started.elapsed().as_secs_f64();
    print_report(&MatchReport::new(game, &names, &tally, args.seed, seconds), as_json);
    Ok(())
}
