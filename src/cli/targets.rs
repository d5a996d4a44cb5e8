//! `yz targets`: play for a target score, from the curves s ↦ max P(future points ≥ s).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;
use serde_json::json;

use super::progress::Bar;
use super::{GameArgs, print_json};
use yz::game::RollsLeft;
use yz::game::{Card, Game, StateIndex, parse_dice};
use yz::store::DataTable;
use yz::store::open_or_solve;
use yz::targets::advise::{self};
use yz::targets::{self, TargetTable};

/// The `yz targets` subcommands.
#[derive(Subcommand)]
pub enum TargetsCommand {
    /// Solve every state's curve s ↦ max P(future points ≥ s) and write the target table.
    Solve {
        #[command(flatten)]
        game: GameArgs,
        /// Where to write the table [default: the data directory].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Probability of a final total of at least S from the start of a turn with this card,
    /// playing for S.
    Query {
        #[command(flatten)]
        game: GameArgs,
        /// Filled boxes with their scores, e.g. ones=3,fh=25,yahtzee=50,bonus=100 ("" for a new game).
        #[arg(long, allow_hyphen_values = true)]
        card: String,
        /// The final total to reach, bonuses included.
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        target: String,
    },
    /// Rank every keep (rolls left 1 or 2) or every open box (rolls left 0) by the
    /// probability of a final total of at least S.
    Advise {
        #[command(flatten)]
        game: GameArgs,
        /// Filled boxes with their scores ("" for a new game).
        #[arg(long, allow_hyphen_values = true)]
        card: String,
        /// The five dice, e.g. 13356 or 1,3,3,5,6.
        #[arg(long)]
        dice: String,
        /// Rerolls still allowed this turn: 2 after the first roll, 0 to choose a box.
        #[arg(long, value_name = "R")]
        rolls_left: RollsLeft,
        /// The final total to reach, bonuses included.
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        target: String,
    },
}

/// Runs one `yz targets` command.
pub fn run(command: TargetsCommand, data: &Path, as_json: bool) -> Result<()> {
    match command {
        TargetsCommand::Solve { game, out } => {
            let game = game.game()?;
            let started = Instant::now();
            let curves = targets::solve_with_progress::<f32>(game, &Bar::new(as_json));
            let solve_seconds = started.elapsed().as_secs_f64();
            let path = out.unwrap_or_else(|| data.join(TargetTable::file_name(game)));
            let written = Instant::now();
            let checksum = TargetTable::write(&curves, &path)?;
            let write_seconds = written.elapsed().as_secs_f64();
            let bytes = std::fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?.len();
            let states = StateIndex::new(game).len();
            let values: usize = curves.curves().iter().map(|c| c.values.len()).sum();
            let mean = curves.start().mean();
            if as_json {
                print_json(json!({
                    "rules": game.rules.name(),
                    "categories": game.box_names(),
                    "start_curve_mean": mean,
                    "states": states,
                    "values": values,
                    "file_bytes": bytes,
                    "solve_seconds": solve_seconds,
                    "write_seconds": write_seconds,
                    "seconds": solve_seconds + write_seconds,
                    "table": path,
                    "checksum": checksum.to_string(),
                }));
            } else {
                println!("rules             {}", game.rules);
                println!("categories        {}", game.box_names().join(","));
                println!("start curve mean  {mean:.4} (sum over s >= 1 of max P(score >= s))");
                println!("states            {states}");
                println!("stored values     {values}");
                let ratio = 4.0 * values as f64 / bytes as f64;
                if ratio >= 1.0 {
                    println!("file bytes        {bytes} ({ratio:.2} times smaller than raw f32)");
                } else {
                    println!("file bytes        {bytes} (the header outweighs so few values)");
                }
                println!("solve time        {solve_seconds:.3} s");
                println!("write time        {write_seconds:.3} s");
                println!("table             {} (checksum {checksum})", path.display());
            }
        }
        TargetsCommand::Query { game, card, target } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let target = parse_target(&target)?;
            let table = open_table(data, game, as_json)?;
            let probability = advise::probability(&table, game, &card, target)?;
            let needed = advise::needed(&card, target);
            if as_json {
                print_json(json!({
                    "rules": game.rules.name(),
                    "card": card.to_string(),
                    "points": card.points(),
                    "target": target,
                    "needed": needed,
                    "probability": probability,
                }));
            } else {
                println!("card {:?}: {} points on the card, {needed} more needed", card.to_string(), card.points());
                println!("P(final >= {target})  {}", probability_text(probability));
            }
        }
        TargetsCommand::Advise { game, card, dice, rolls_left, target } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let roll = parse_dice(&dice)?;
            let target = parse_target(&target)?;
            let table = open_table(data, game, as_json)?;
            let ranked = advise::advise(&table, game, &card, roll, rolls_left, target)?;
            if as_json {
                print_json(serde_json::to_value(advise::TargetAdviceJson::new(
                    &card, roll, rolls_left, target, &ranked,
                ))?);
            } else {
                println!("card {:?}, dice {roll}, rolls left {rolls_left}, target {target}", card.to_string());
                let header = format!("P(final >= {target})");
                println!("  {:<24} {header:>16}  {:>10}", "choice", "gap");
                for r in &ranked {
                    let what = match r.points {
                        Some(points) => format!("{} for {points}", r.choice.describe(game.rules)),
                        None => r.choice.describe(game.rules),
                    };
                    println!("  {what:<24} {:>16}  {:>10}", probability_text(r.probability), probability_text(r.gap));
                }
            }
        }
    }
    Ok(())
}

/// A target: a whole number of points (any sign; beyond the reachable range the answer is
/// simply 0 or 1).
fn parse_target(text: &str) -> Result<i64> {
    text.trim().parse().map_err(|_| anyhow!("target {text:?} is not a whole number of points (e.g. --target 300)"))
}

/// Six decimals, or four significant digits below 10⁻⁴ where six decimals would show 0.
fn probability_text(p: f32) -> String {
    if p != 0.0 && p.abs() < 1e-4 { format!("{p:.4e}") } else { format!("{p:.6}") }
}

fn open_table(data: &Path, game: Game, as_json: bool) -> Result<TargetTable> {
    open_or_solve::<TargetTable>(data, game, &Bar::new(as_json))
        .with_context(|| format!("target table in {}", data.display()))
}
