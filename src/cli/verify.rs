//! `yz verify` (and `yz shard verify`): any yz table checked, one line per file.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::print_json;
use yz::verify::Verification;

/// `yz verify PATH`.
#[derive(Args)]
pub struct VerifyArgs {
    /// A two-player table directory, its manifest.yzs or one shard; a solitaire or target
    /// table (.yzt); an evolved or learned strategy file.
    path: PathBuf,
}

/// Checks the table at the path, prints a line per file, and fails naming the bad ones
/// with what to do.
pub fn run(args: VerifyArgs, as_json: bool) -> Result<()> {
    let verification = yz::verify::verify(&args.path);
    if as_json {
        print_json(serde_json::to_value(&verification)?);
    } else {
        print(&verification);
    }
    let bad: Vec<_> = verification.problems().collect();
    let remedy = verification.remedy.as_ref().map_or_else(String::new, |remedy| format!("; {remedy}"));
    match &bad[..] {
        [] => Ok(()),
        // One bad file: what is wrong with it, naming it once.
        [one] => {
            let (path, problem) = (one.path.display().to_string(), one.problem.as_deref().unwrap_or_default());
            let named = if problem.contains(&path) { problem.to_owned() } else { format!("{path}: {problem}") };
            bail!("{named}{remedy}")
        }
        bad => {
            let names: Vec<String> = bad.iter().map(|f| f.path.display().to_string()).collect();
            bail!("{} bad files: {}{remedy}", names.len(), names.join(", "))
        }
    }
}

fn print(v: &Verification) {
    println!("path       {}", v.path.display());
    if let Some(holds) = v.holds {
        println!("holds      {holds}");
    }
    if let Some(game) = &v.game {
        println!("game       {} rules, categories {}", game.rules, game.categories.join(","));
    }
    if let Some(tables) = &v.tables {
        println!(
            "layers     {} written{}",
            tables.layers,
            if tables.complete { ", complete" } else { ", not complete" }
        );
        if let Some(command) = &tables.continue_with {
            println!("continue   {command}");
        }
    }
    for file in &v.files {
        let name =
            file.path.file_name().map_or_else(|| file.path.display().to_string(), |n| n.to_string_lossy().into());
        match (&file.problem, &file.checksum) {
            (None, Some(checksum)) => println!("  ok    {name}  {checksum}"),
            (None, None) => println!("  ok    {name}"),
            (Some(problem), _) => println!("  BAD   {name}: {problem}"),
        }
    }
    for name in v.tables.iter().flat_map(|t| &t.unlisted) {
        println!("  note  {name}: not in the manifest (a layer being written when a solve stopped); never read");
    }
    for name in v.tables.iter().flat_map(|t| &t.temporary) {
        println!("  note  {name}: a temporary file of a writer that stopped; never read, the next solve removes it");
    }
}
