//! `yz duel move-errors`: exact move errors of strategies in typical endgames, measured,
//! or merged from runs over disjoint games.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::progress::Bar;
use super::{GameArgs, print_json};
use yz::duel::Cards;
use yz::move_errors::report::{RESOLUTION, Report};
use yz::move_errors::{Estimate, MoveErrors, StrategyErrors, game_range, parse_depths, parse_tested, players, tested};
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
    let depths = parse_depths(args.empty.as_deref().unwrap_or_default())?;
    game_range(args.first_game, args.games)?;
    let named = parse_tested(args.strategy.as_deref().unwrap_or_default())?;
    let lineup = Lineup::load(&players(&named), game, data, true, &Bar::new(as_json))?;
    let table = lineup.table().expect("the typical player's table was asked for");
    let typical = Searcher::new(table, Evaluation::ExpectedMatchPoints, 1);
    let boxed = lineup.players();
    let cards = Cards::new(game);
    let measure = MoveErrors::new(&cards, &typical, tested(&named, &boxed), depths)?;
    let errors = measure.measure(args.seed, args.first_game, args.games, &Bar::new(as_json))?;
    let seconds = started.elapsed().as_secs_f64();
    let names: Vec<String> = named.into_iter().map(|(name, _)| name).collect();
    print_report(&Report::new(game, &names, errors, seconds), as_json);
    Ok(())
}

/// Prints a report as JSON, or as tables by depth.
fn print_report(report: &Report, as_json: bool) {
    if as_json {
        print_json(serde_json::to_value(report).expect("a report is plain data"));
        return;
    }
    let ranges: Vec<String> = report.game_ranges.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
    println!("rules       {}", report.rules);
    println!("categories  {}", report.categories.join(","));
    println!("games       {} (seed {}, games {})", report.games, report.seed, ranges.join(", "));
    println!("typical     EMP(1), each move drawn with weight exp({} · (v − best))", report.typical_sharpness);
    let added = if report.game_ranges.len() > 1 { " (the merged runs' times added)" } else { "" };
    println!("time        {:.1} s{added}", report.seconds);
    println!("D           open boxes on both cards together at the turn measured");
    println!(
        "resolution  errors below {RESOLUTION:.0e} print as 0: they are the rounding between two evaluations of the same exact values"
    );
    let depths: Vec<usize> = report.strategies[0].errors.depths.iter().map(|d| d.empty).collect();
    let table = |title: &str, cell: &dyn Fn(&StrategyErrors, usize) -> String| {
        println!("{title}");
        print!("  {:>3}", "D");
        for s in &report.strategies {
            print!("  {:>24}", s.strategy);
        }
        println!();
        for (i, d) in depths.iter().enumerate() {
            print!("  {d:>3}");
            for s in &report.strategies {
                print!("  {:>24}", cell(&s.errors, i));
            }
            println!();
        }
    };
    let shown = |e: Estimate| match e.mean {
        mean if mean.abs() < RESOLUTION => "0".to_owned(),
        mean => format!("{mean:.3e} ± {:.1e}", e.half_width_95),
    };
    table("error per move (winning chance given away; 95% intervals)", &|s, i| shown(s.depths[i].per_move));
    table("error per turn", &|s, i| shown(s.depths[i].per_turn));
    table("moves scored", &|s, i| s.depths[i].sums.moves.to_string());
    let (first, last) = (depths[0], depths[depths.len() - 1]);
    println!("error per game (summed over the turns at D = {first}..{last}, both players')");
    for s in &report.strategies {
        println!("  {:<8} {}", s.strategy, shown(s.errors.per_game));
    }
}
