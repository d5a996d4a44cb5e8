//! `yz simulate` and `yz match`: strategies played by simulation.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use serde_json::json;

use super::progress::Bar;
use super::{GameArgs, print_json};
use yz::players::MatchPlayer;
use yz::players::lineup::{Lineup, match_players};
use yz::players::matchplay::play_match_players;
use yz::simulate::{ScoreTally, check_games, simulate};
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

/// Bins of a round width giving at most about 40 bars over the scores seen.
fn bin_width(tally: &ScoreTally) -> u32 {
    let span = tally.range().map_or(0, |(lo, hi)| hi - lo + 1);
    [1, 2, 5, 10, 20, 25, 50, 100].into_iter().find(|&w| span.div_ceil(w) <= 40).unwrap_or(200)
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
    let (mean, half) = (tally.mean(), tally.half_width_95());
    let (lo, hi) = tally.range().unwrap_or((0, 0));
    let width = bin_width(&tally);
    let bins = tally.histogram(width);
    if as_json {
        print_json(json!({
            "strategy": name.to_string(),
            "rules": game.rules.name(),
            "categories": game.box_names(),
            "games": tally.games,
            "seed": args.seed,
            "mean": mean,
            "ci95": [mean - half, mean + half],
            "standard_deviation": tally.standard_deviation(),
            "min": lo,
            "max": hi,
            "counts": { "from": lo, "games": &tally.counts[lo as usize..=hi as usize] },
            "histogram": { "bin_width": width, "bins": bins.iter().map(|&(from, n)| json!({"from": from, "games": n})).collect::<Vec<_>>() },
            "seconds": seconds,
        }));
        return Ok(());
    }
    println!("strategy    {name}");
    println!("rules       {}", game.rules);
    println!("categories  {}", game.box_names().join(","));
    println!("games       {} (seed {})", tally.games, args.seed);
    println!("mean        {mean:.4} ± {half:.4} (95% CI {:.4} to {:.4})", mean - half, mean + half);
    println!("sd          {:.4}", tally.standard_deviation());
    println!("range       {lo} to {hi}");
    println!("time        {seconds:.2} s");
    println!("histogram   (bins of {width} points)");
    let most = bins.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    for (from, n) in bins {
        let bar = "#".repeat((n as f64 / most as f64 * 50.0).round() as usize);
        println!("  {from:>5}-{:<5} {n:>9}  {bar}", from + width - 1);
    }
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
    if as_json {
        let rows: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(p, name)| {
                let (share, half) = (tally.win_share(p), tally.win_half_width_95(p));
                let scores = &tally.scores[p];
                let (rank, rank_half) = (tally.expected_rank(p), tally.rank_half_width_95(p));
                json!({
                    "strategy": name,
                    "win_share": share,
                    "win_ci95": [share - half, share + half],
                    "expected_rank": rank,
                    "rank_ci95": [rank - rank_half, rank + rank_half],
                    "mean_score": scores.mean(),
                    "mean_ci95": [scores.mean() - scores.half_width_95(), scores.mean() + scores.half_width_95()],
                    "standard_deviation": scores.standard_deviation(),
                })
            })
            .collect();
        print_json(json!({
            "rules": game.rules.name(),
            "categories": game.box_names(),
            "games": tally.games,
            "seed": args.seed,
            "players": rows,
            "tie_rate": tally.tie_rate(),
            "seconds": seconds,
            "seconds_per_game": seconds / tally.games as f64,
        }));
        return Ok(());
    }
    println!("rules       {}", game.rules);
    println!("categories  {}", game.box_names().join(","));
    println!("games       {} (seed {}), ties for the top shared", tally.games, args.seed);
    println!("  {:<20} {:>18} {:>18} {:>20}", "player", "win share", "expected rank", "mean score");
    for (p, name) in names.iter().enumerate() {
        let scores = &tally.scores[p];
        println!(
            "  {name:<20} {:>8.4} ± {:<7.4} {:>8.4} ± {:<7.4} {:>10.3} ± {:.3}",
            tally.win_share(p),
            tally.win_half_width_95(p),
            tally.expected_rank(p),
            tally.rank_half_width_95(p),
            scores.mean(),
            scores.half_width_95()
        );
    }
    println!("ties        {:.4} of games", tally.tie_rate());
    println!("time        {seconds:.2} s ({:.4} s per game)", seconds / tally.games as f64);
    Ok(())
}
