//! `yz shard`: checking two-player table files.

use std::path::PathBuf;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;

use super::print_json;
use yz::duel::shard;

/// Commands on table files.
#[derive(Subcommand)]
pub enum ShardCommand {
    /// Recompute every shard's checksum and compare it, its game, layer and movers with the
    /// manifest; exits non-zero naming each bad file (flipped bytes, truncation, a missing
    /// shard, a manifest of another game) with the command that repairs it. The same as
    /// `yz verify`, which checks every other kind of table too.
    Verify(super::verify::VerifyArgs),
    /// Print a checksum of each layer's values (xxh3-64 of the values in layer order),
    /// whatever the shards they are cut into: tables with the same digests hold the same
    /// values, whatever shard size, ranks or budget solved them.
    Digest {
        /// A table directory.
        dir: PathBuf,
    },
}

/// Runs one `yz shard` command.
pub fn run(command: ShardCommand, as_json: bool) -> Result<()> {
    match command {
        ShardCommand::Verify(args) => super::verify::run(args, as_json),
        ShardCommand::Digest { dir } => {
            let digests = shard::layer_digests(&dir)?;
            if as_json {
                print_json(json!({ "dir": dir, "layers": digests }));
                return Ok(());
            }
            println!("  {:>5} {:>15} {:>16} {:>16}", "layer", "positions", "values", "draws");
            for d in &digests {
                println!(
                    "  {:>5} {:>15} {:>16} {:>16}",
                    d.layer,
                    d.positions,
                    d.values,
                    d.draws.as_deref().unwrap_or("-")
                );
            }
            Ok(())
        }
    }
}
