//! `yz shard`: checking two-player table files.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Subcommand;
use serde_json::json;

use super::print_json;
use yz::duel::shard::{self, FileCheck, TableCheck};

/// Commands on table files.
#[derive(Subcommand)]
pub enum ShardCommand {
    /// Recompute every shard's checksum and compare it, its game, layer and movers with the
    /// manifest; exits non-zero naming each bad file (flipped bytes, truncation, a missing
    /// shard, a manifest of another game).
    Verify {
        /// A table directory, its manifest.yzs, or one shard file.
        path: PathBuf,
    },
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
        ShardCommand::Verify { path } => {
            let check = if path.is_dir() { shard::verify_tables(&path) } else { shard::verify_file(&path)? };
            report(&check, as_json);
            if let [only] = &check.files[..]
                && let Some(problem) = &only.problem
                && !only.path.exists()
            {
                bail!("{}: {problem}", check.dir.display());
            }
            let Some(remedy) = check.remedy() else { return Ok(()) };
            match check.problems().collect::<Vec<_>>()[..] {
                // One bad file: what is wrong with it, naming it once.
                [FileCheck { path, problem: Some(problem), .. }] => {
                    let path = path.display().to_string();
                    let named = if problem.contains(&path) { problem.clone() } else { format!("{path}: {problem}") };
                    bail!("{named}; {remedy}")
                }
                ref bad => {
                    let names: Vec<String> = bad.iter().map(|f| f.path.display().to_string()).collect();
                    bail!("{} bad files: {}; {remedy}", names.len(), names.join(", "))
                }
            }
        }
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

fn report(check: &TableCheck, as_json: bool) {
    if as_json {
        print_json(json!({
            "dir": check.dir,
            "game": check.game,
            "layers": check.layers,
            "complete": check.complete,
            "files": check.files,
            "unlisted": check.unlisted,
            "temporary": check.temporary,
            "ok": check.problems().next().is_none(),
        }));
        return;
    }
    println!("tables     {}", check.dir.display());
    if let Some(game) = &check.game {
        println!("game       {} rules, categories {}", game.rules, game.categories.join(","));
        println!("layers     {} written{}", check.layers, if check.complete { ", complete" } else { ", not complete" });
    }
    for file in &check.files {
        let name =
            file.path.file_name().map_or_else(|| file.path.display().to_string(), |n| n.to_string_lossy().into());
        match &file.problem {
            None => println!("  ok    {name}  {}", file.checksum.as_deref().unwrap_or("")),
            Some(problem) => println!("  BAD   {name}: {problem}"),
        }
    }
    for name in &check.unlisted {
        println!("  note  {name}: not in the manifest (a layer being written when a solve stopped); never read");
    }
    for name in &check.temporary {
        println!("  note  {name}: a temporary file of a writer that stopped; never read, the next solve removes it");
    }
}
