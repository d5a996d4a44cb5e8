//! `yz solo`: single player, maximum expected score.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use serde_json::json;

use super::progress::Bar;
use super::{GameArgs, print_json};
use yz::game::RollsLeft;
use yz::game::{Card, Game, parse_dice};
use yz::progress::Silent;
use yz::solo::{self, FutureValue, SoloTable};
use yz::store::DataTable;
use yz::store::open_or_solve;
use yz::targets::payoff::{self, Payoff};

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
        /// Filled boxes with their scores, e.g. ones=3,fh=25,yahtzee=50,bonus=100 ("" for a new game).
        #[arg(long, allow_hyphen_values = true)]
        card: String,
        /// The five dice, e.g. 13356 or 1,3,3,5,6.
        #[arg(long)]
        dice: String,
        /// Rerolls still allowed this turn: 2 after the first roll, 0 to choose a box.
        #[arg(long, value_name = "R")]
        rolls_left: RollsLeft,
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
            let states = yz::game::StateIndex::new(game).len();
            if as_json {
                print_json(json!({
                    "rules": game.rules.name(),
                    "categories": game.box_names(),
                    "expected_score": solution.start_value(),
                    "states": states,
                    "seconds": seconds,
                    "table": path,
                    "checksum": checksum.to_string(),
                }));
            } else {
                println!("rules           {}", game.rules);
                println!("categories      {}", game.box_names().join(","));
                println!("expected score  {:.4}", solution.start_value());
                println!("states          {states}");
                println!("solve time      {seconds:.3} s");
                println!("table           {} (checksum {checksum})", path.display());
            }
        }
        SoloCommand::Advise { game, card, dice, rolls_left } => {
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
                solo::analyze_with_progress(game, &solo::OptimalPolicy::solved(game, &table), &Bar::new(as_json));
            let seconds = started.elapsed().as_secs_f64();
            if let Some(path) = &plot {
                super::plot::score_distribution(path, game, analysis.distribution())?;
                eprintln!("plot written to {}", path.display());
            }
            if as_json {
                print_json(super::analysis::to_json(game, &analysis, seconds));
            } else {
                super::analysis::print(game, &analysis, seconds);
            }
        }
        SoloCommand::Beat { game, opponent } => {
            let game = game.game()?;
            if opponent != "optimal" {
                let meant = yz::game::suggest::did_you_mean(&opponent, ["optimal"]);
                bail!("unknown opponent {opponent:?}{meant}; accepted: optimal (the optimal solitaire strategy)");
            }
            let table = open_table(data, game)?;
            let started = Instant::now();
            let distribution =
                solo::analyze_with_progress(game, &solo::OptimalPolicy::solved(game, &table), &Bar::new(as_json))
                    .distribution()
                    .clone();
            // f32 lanes: on the full game 2.2 times as fast as f64, and 3e-7 away from it.
            let win = payoff::solve_with_progress::<f32>(game, &Payoff::beat(&distribution), &Bar::new(as_json));
            let seconds = started.elapsed().as_secs_f64();
            if as_json {
                print_json(json!({
                    "rules": game.rules.name(),
                    "categories": game.box_names(),
                    "opponent": opponent,
                    "opponent_mean": distribution.mean(),
                    "win_probability": win,
                    "seconds": seconds,
                }));
            } else {
                println!("rules           {}", game.rules);
                println!("categories      {}", game.box_names().join(","));
                println!("opponent        {opponent}, mean score {:.4}", distribution.mean());
                println!("best reply wins {win:.6} (ties count half)");
                println!("time            {seconds:.1} s");
            }
        }
        SoloCommand::Value { game, card } => {
            let game = game.game()?;
            let card = Card::parse(&card, game)?;
            let state = card.state();
            let future = if state.is_terminal() { 0.0 } else { open_table(data, game)?.future_value(state) };
            let points = card.points();
            if as_json {
                print_json(json!({
                    "card": card.to_string(),
                    "points": points,
                    "expected_future": future,
                    "expected_final": points as f64 + future,
                }));
            } else {
                println!("points on card  {points}");
                println!("expected future {future:.4}");
                println!("expected final  {:.4}", points as f64 + future);
            }
        }
    }
    Ok(())
}

fn open_table(data: &Path, game: Game) -> Result<SoloTable> {
    open_or_solve::<SoloTable>(data, game, &Silent).with_context(|| format!("solitaire table in {}", data.display()))
}
