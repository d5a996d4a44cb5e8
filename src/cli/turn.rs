//! `yz turn`: one turn played for one pattern, for any faces, dice and rolls (`002_…`).

use anyhow::Result;
use clap::Args;
use serde_json::json;

use super::print_json;
use yz::pattern::{self, Notation, Pattern, Probability, Setup, Solution};

/// The flags of `yz turn`.
#[derive(Args)]
pub struct TurnArgs {
    /// The pattern to end the turn with: yahtzee, full-house, large-straight, small-straight,
    /// n-of-a-kind (at least n dice alike, e.g. 3-of-a-kind), or a multiplicity pattern whose
    /// entry i counts the faces showing on exactly i dice (011: a full house; 12,0,1 with commas
    /// when an entry exceeds 9).
    #[arg(long, value_name = "PATTERN")]
    target: String,
    /// Faces of each die, numbered from 1.
    #[arg(long, value_name = "F", default_value_t = 6)]
    faces: u32,
    /// Dice rolled.
    #[arg(long, value_name = "N", default_value_t = 5)]
    dice: u32,
    /// Rolls in the turn, the first one included.
    #[arg(long, value_name = "R", default_value_t = 3)]
    rolls: u32,
}

/// Runs `yz turn`.
pub fn run(args: TurnArgs, as_json: bool) -> Result<()> {
    let pattern: Pattern = args.target.parse()?;
    let setup = Setup { faces: args.faces, dice: args.dice, rolls: args.rolls };
    let solution = pattern::solve(&pattern, setup)?;
    if as_json {
        print_json(to_json(&solution));
    } else {
        print_text(&solution);
    }
    Ok(())
}

fn to_json(solution: &Solution) -> serde_json::Value {
    let Setup { faces, dice, rolls } = solution.setup;
    let states: Vec<_> = solution
        .states
        .iter()
        .map(|row| {
            let after: Vec<_> = (1..)
                .zip(&row.values)
                .map(|(roll, value)| {
                    let mut entry =
                        json!({ "roll": roll, "value": pattern::to_f64(value), "exact": value.to_string() });
                    if let Some(keeps) = row.best_keeps.get(roll - 1) {
                        entry["best_keeps"] = json!(keeps);
                    }
                    entry
                })
                .collect();
            json!({
                "state": row.label,
                "first_roll": pattern::to_f64(&row.first_roll),
                "first_roll_exact": row.first_roll.to_string(),
                "after": after,
            })
        })
        .collect();
    json!({
        "target": solution.pattern.to_string(),
        "meaning": solution.pattern.meaning(solution.setup),
        "faces": faces,
        "dice": dice,
        "rolls": rolls,
        "states_are": solution.notation.name(),
        "probability": pattern::to_f64(&solution.probability),
        "exact": solution.probability.to_string(),
        "states": states,
    })
}

fn print_text(solution: &Solution) {
    let Setup { faces, dice, rolls } = solution.setup;
    println!("{}: {}", solution.pattern, solution.pattern.meaning(solution.setup));
    println!(
        "{faces} faces, {dice} dice, {rolls} rolls: best chance {} = {}",
        decimal(&solution.probability),
        solution.probability
    );
    println!();
    match solution.notation {
        Notation::Multiplicities => println!(
            "States and keeps are multiplicity states: entry i counts the faces showing on exactly i dice \
             (31: one pair; 0: keep nothing)."
        ),
        Notation::Rolls => println!("States are rolls and keeps the dice to keep (none: reroll all)."),
    }
    println!("\"after r\": chance of the pattern with best play when the state shows after roll r;");
    println!("\"keep\": every best keep there, fewest dice first (--json lists them all).");
    println!();
    let mut header = vec!["state".to_string(), "first roll".to_string()];
    for roll in 1..=rolls {
        header.push(format!("after {roll}"));
        if roll < rolls {
            header.push("keep".into());
        }
    }
    let mut lines = vec![header];
    for row in &solution.states {
        let mut line = vec![row.label.clone(), decimal(&row.first_roll)];
        for (roll, value) in row.values.iter().enumerate() {
            line.push(decimal(value));
            if let Some(keeps) = row.best_keeps.get(roll) {
                line.push(keep_list(keeps));
            }
        }
        lines.push(line);
    }
    let widths: Vec<usize> =
        (0..lines[0].len()).map(|c| lines.iter().map(|line| line[c].chars().count()).max().unwrap_or(0)).collect();
    for line in &lines {
        let cells: Vec<String> = line.iter().zip(&widths).map(|(cell, &w)| format!("{cell:<w$}")).collect();
        println!("{}", cells.join("  ").trim_end());
    }
}

/// The best keeps, the first three and a count of the others when there are more than four
/// (a state that already shows an n-of-a-kind has many); `--json` lists them all.
fn keep_list(keeps: &[String]) -> String {
    if keeps.len() <= 4 { keeps.join(" ") } else { format!("{} … +{} more", keeps[..3].join(" "), keeps.len() - 3) }
}

/// Ten decimals, or six significant digits in scientific notation for tiny chances.
fn decimal(probability: &Probability) -> String {
    let value = pattern::to_f64(probability);
    if value == 0.0 || value >= 1e-4 { format!("{value:.10}") } else { format!("{value:.6e}") }
}
