//! `yz duel move-errors`: exact move errors of strategies in typical endgames, measured,
//! or merged from runs over disjoint games.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::progress::Bar;
use super::{GameArgs, print_report};
use yz::duel::Cards;
use yz::move_errors::report::Report;
use yz::move_errors::{Depths, MoveErrors, TestedNames, game_range};
use yz::players::lineup::Lineup;
use yz::players::{Evaluation, Searcher};
use yz::strategy::STRATEGY_NAMES;

/// `yz duel move-errors`.
#[derive(Args)]
pub struct MoveErrorsArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Strategies to score, comma-separated.
    #[arg(
        long,
        value_name = "NAMES",
        required_unless_present = "merge",
        help = format!("Strategies to score, comma-separated (e.g. emp1,E,dyns1): empD or dynsD (EMP(D), DynS(D)), E (= optimal), exact (the exact strategy: error zero, a check), or one of {STRATEGY_NAMES}")
    )]
    strategy: Option<String>,
    /// Open boxes on both cards together at the turns measured: D, or a range such as 1..6.
    /// Each measured turn solves the game below it: milliseconds up to D = 8, seconds at 10,
    /// about a minute at 12 on the full game.
    #[arg(long, value_name = "D|A..B", required_unless_present = "merge")]
    empty: Option<String>,
    /// Typical games to play (each measures one turn at every depth of the range).
    #[arg(long, default_value_t = 512)]
    games: u64,
    /// Number of the first game: runs of one seed over disjoint game ranges (on several
    /// machines, say) merge with --merge.
    #[arg(long, default_value_t = 0)]
    first_game: u64,
    /// Seed of the dice and of the typical player's draws.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Merge the JSON reports of runs over disjoint games instead of playing.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["strategy", "empty"])]
    merge: Vec<PathBuf>,
}

/// Runs `yz duel move-errors`.
pub fn run(args: MoveErrorsArgs, data: &Path, as_json: bool) -> Result<()> {
    if !args.merge.is_empty() {
        print_report(&Report::merge_files(&args.merge)?, as_json);
        return Ok(());
    }
    // The time reported covers the whole command, the tables built on first use included.
    let started = Instant::now();
    let game = args.game.game()?;
    let Depths(depths) = args.empty.as_deref().unwrap_or_default().parse()?;
    game_range(args.first_game, args.games)?;
    let named: TestedNames = args.strategy.as_deref().unwrap_or_default().parse()?;
    let lineup = Lineup::load(&named.players(), game, data, true, &Bar::new(as_json))?;
    let table = lineup.table().expect("the typical player's table was asked for");
    let typical = Searcher::new(table, Evaluation::ExpectedMatchPoints, 1);
    let boxed = lineup.players();
    let cards = Cards::new(game);
    let measure = MoveErrors::new(&cards, &typical, named.tested(&boxed), depths)?;
    let errors = measure.measure(args.seed, args.first_game, args.games, &Bar::new(as_json))?;
    let seconds = started.elapsed().as_secs_f64();
    print_report(&Report::new(game, &named.names(), errors, seconds), as_json);
    Ok(())
}
