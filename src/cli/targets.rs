//! `yz targets`: play for a target score, from the curves s ↦ max P(future points ≥ s).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;

use super::progress::Bar;
use super::{GameArgs, TurnArgs, print_json, print_report};
use yz::game::{Card, Game, parse_dice};
use yz::store::{DataTable, open_or_solve};
use yz::targets::TargetTable;
use yz::targets::advise;
use yz::targets::report::{self, QueryReport, probability_text};

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
        /// Report progress as lines `progress DONE TOTAL` on standard error, for a program
        /// that runs this one (yz serve builds its target tables so).
        #[arg(long, hide = true)]
        progress_lines: bool,
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
        #[command(flatten)]
        turn: TurnArgs,
        /// The final total to reach, bonuses included.
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        target: String,
    },
}

/// Runs one `yz targets` command.
pub fn run(command: TargetsCommand, data: &Path, as_json: bool) -> Result<()> {
    match command {
        TargetsCommand::Solve { game, out, progress_lines } => {
            let game = game.game()?;
            let path = out.unwrap_or_else(|| data.join(TargetTable::file_name(game)));
            let solved = if progress_lines {
                report::solve_into(game, &path, &yz::progress::Lines::default())
            } else {
                report::solve_into(game, &path, &Bar::new(as_json))
            };
            print_report(&solved?, as_json);
        }
        TargetsCommand::Query { game, card, target } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let target = parse_target(&target)?;
            let table = open_table(data, game, as_json)?;
            print_report(&QueryReport::new(&table, game, &card, target)?, as_json);
        }
        TargetsCommand::Advise { game, turn: TurnArgs { card, dice, rolls_left }, target } => {
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
    text.trim()
        .parse()
        .map_err(|_| anyhow!("target {} is not a whole number of points (e.g. --target 300)", yz::quote::quote(text)))
}

fn open_table(data: &Path, game: Game, as_json: bool) -> Result<TargetTable> {
    open_or_solve::<TargetTable>(data, game, &Bar::new(as_json))
        .with_context(|| format!("target table in {}", data.display()))
}
