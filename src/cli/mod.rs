//! The `yz` subcommands, one module per family, and what they share.

pub mod analysis;
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

use anyhow::Result;
use clap::Args;

use yz::game::{Game, GameFlags, Rules};

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
pub fn print_json(value: serde_json::Value) {
    println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
}
