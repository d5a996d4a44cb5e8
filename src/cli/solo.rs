//! `yz solo`: single player, maximum expected score.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Subcommand;

use super::progress::Bar;
use super::{GameArgs, TurnArgs, print_json, print_report};
use yz::game::{Card, Game, parse_dice};
use yz::progress::Silent;
use yz::solo::{self, SoloTable, SolveReport, StatsReport, ValueReport};
use yz::store::DataTable;
use yz::store::open_or_solve;
use yz::targets::payoff;

#[derive(Subcommand)]
pub enum SoloCommand {
    /// Solve every state and write the table.
    Solve {
        #[command(flatten)]
        game: GameArgs,
        /// Where to write the table [default: the data directory].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Rank every keep (rolls left 1 or 2) or every open box (rolls left 0).
    Advise {
        #[command(flatten)]
        game: GameArgs,
        #[command(flatten)]
        turn: TurnArgs,
    },
    /// Exact statistics of optimal play: each box's mean and variance, the bonuses, and the
    /// distribution of the final score (Glenn 2007, Tables III and IV).
    Stats {
        #[command(flatten)]
        game: GameArgs,
        /// Also draw the final-score distribution as an SVG picture in FILE.
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
    },
    /// The best reply to a known opponent when both play without seeing the other's card
    /// (Glenn 2007 §II-D): the strategy that maximises P(win) + ½ P(tie) against the
    /// opponent's final-score distribution, and that chance.
    Beat {
        #[command(flatten)]
        game: GameArgs,
        /// The opponent's strategy: optimal (the optimal solitaire strategy).
        #[arg(long)]
        opponent: String,
    },
    /// Expected final score from the start of a turn with this card.
    Value {
        #[command(flatten)]
        game: GameArgs,
        /// Filled boxes with their scores ("" for a new game).
        #[arg(long, allow_hyphen_values = true)]
        card: String,
    },
}

/// Runs one `yz solo` command.
pub fn run(command: SoloCommand, data: &Path, as_json: bool) -> Result<()> {
    match command {
        SoloCommand::Solve { game, out } => {
            let game = game.game()?;
            let started = Instant::now();
            let solution = solo::solve(game);
            let seconds = started.elapsed().as_secs_f64();
            let path = out.unwrap_or_else(|| data.join(SoloTable::file_name(game)));
            let checksum = SoloTable::write(&solution, &path)?;
            let report = SolveReport {
                rules: game.rules,
                categories: game.box_names(),
                expected_score: solution.start_value(),
                states: yz::game::StateIndex::new(game).len(),
                seconds,
                table: path,
                checksum,
            };
            print_report(&report, as_json);
        }
        SoloCommand::Advise { game, turn: TurnArgs { card, dice, rolls_left } } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let roll = parse_dice(&dice)?;
            let table = open_table(data, game)?;
            let ranked = solo::advise(&table, game, &card, roll, rolls_left)?;
            if as_json {
                print_json(serde_json::to_value(solo::advise::AdviceJson::new(&card, roll, rolls_left, &ranked))?);
            } else {
                println!("card {:?}, dice {roll}, rolls left {rolls_left}", card.to_string());
                println!("  {:<24} {:>9}  {:>8}", "choice", "expected", "gap");
                for r in &ranked {
                    let what = match r.points {
                        Some(points) => format!("{} for {points}", r.choice.describe(game.rules)),
                        None => r.choice.describe(game.rules),
                    };
                    println!("  {what:<24} {:>9.4}  {:>8.4}", r.expected_final, r.gap);
                }
            }
        }
        SoloCommand::Stats { game, plot } => {
            let game = game.game()?;
            let table = open_table(data, game)?;
            let started = Instant::now();
            let analysis =
                solo::analyze_with_progress(game, &solo::OptimalPolicy::solved(game, &table), &Bar::new(as_json))?;
            let seconds = started.elapsed().as_secs_f64();
            if let Some(path) = &plot {
                super::plot::score_distribution(path, game, analysis.distribution())?;
                eprintln!("plot written to {}", path.display());
            }
            print_report(&StatsReport::new(game, &analysis, seconds), as_json);
        }
        SoloCommand::Beat { game, opponent } => {
            let game = game.game()?;
            if opponent != "optimal" {
                let meant = yz::game::suggest::did_you_mean(&opponent, ["optimal"]);
                let opponent = yz::quote::quote(&opponent);
                bail!("unknown opponent {opponent}{meant}; accepted: optimal (the optimal solitaire strategy)");
            }
            let table = open_table(data, game)?;
            print_report(&payoff::beat(game, &table, &Bar::new(as_json))?, as_json);
        }
        SoloCommand::Value { game, card } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let table = if card.state().is_terminal() { None } else { Some(open_table(data, game)?) };
            print_report(&ValueReport::new(&card, table.as_ref()), as_json);
        }
    }
    Ok(())
}

fn open_table(data: &Path, game: Game) -> Result<SoloTable> {
    open_or_solve::<SoloTable>(data, game, &Silent).with_context(|| format!("solitaire table in {}", data.display()))
}
