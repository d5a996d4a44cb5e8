//! The `yz` subcommands, one module per family, and what they share.

pub mod duel;
pub mod move_errors;
pub mod play;
pub mod plot;
pub mod progress;
pub mod review;
#[cfg(feature = "serve")]
pub mod serve;
pub mod shard;
pub mod simulate;
pub mod solo;
pub mod strategy;
pub mod targets;
pub mod turn;
pub mod verify;

use anyhow::Result;
use clap::Args;

use yz::game::{Game, GameFlags, Rules};

/// A solitaire position within a turn: the card, the dice and the rerolls left.
#[derive(Args)]
pub struct TurnArgs {
    /// Filled boxes with their scores, e.g. ones=3,fh=25,yahtzee=50,bonus=100 ("" for a new game).
    #[arg(long, allow_hyphen_values = true)]
    pub card: String,
    /// The five dice, e.g. 13356 or 1,3,3,5,6.
    #[arg(long)]
    pub dice: String,
    /// Rerolls still allowed this turn: 2 after the first roll, 0 to choose a box.
    #[arg(long, value_name = "R")]
    pub rolls_left: yz::game::RollsLeft,
}

/// Which game: rules and the boxes in play.
#[derive(Args)]
pub struct GameArgs {
    /// Rules: official, forced-joker, no-joker, no-bonus (Yahtzee), or yatzy (Scandinavian
    /// Yatzy) with any house rules appended: yatzy+forced-order, +five-kind-full-house,
    /// +four-kind-two-pairs [default: official].
    #[arg(long)]
    pub rules: Option<Rules>,
    /// Play only these boxes (the others start scratched with 0), e.g. ones,twos,yahtzee.
    #[arg(long, value_name = "LIST", conflicts_with = "first")]
    pub categories: Option<String>,
    /// Play only the first N boxes in card order (Yahtzee: ones … sixes, 3k, 4k, fh, ss,
    /// ls, yahtzee, chance; Yatzy: ones … sixes, pair, 2pairs, 3k, 4k, ss, ls, fh, chance,
    /// yatzy).
    #[arg(long, value_name = "N")]
    pub first: Option<usize>,
}

impl GameArgs {
    /// The game these flags name.
    pub fn game(&self) -> Result<Game> {
        Ok(self.flags().game()?)
    }

    /// The flags as given, none of them defaulted.
    pub fn flags(&self) -> GameFlags {
        GameFlags { rules: self.rules, categories: self.categories.clone(), first: self.first }
    }
}

/// Prints pretty JSON on standard output.
pub fn print_json(value: impl serde::Serialize) {
    // Through a `Value`, whose objects keep their keys sorted: every command's JSON lists
    // them alike, whatever order a report type declares its fields in.
    let value = serde_json::to_value(value).unwrap_or_default();
    println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
}

/// Prints a report: its JSON with `--json`, else its text.
pub fn print_report(report: &(impl serde::Serialize + std::fmt::Display), as_json: bool) {
    if as_json {
        print_json(report);
    } else {
        println!("{report}");
    }
}
