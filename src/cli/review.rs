//! `yz review`: every decision of a recorded game judged against the best.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::print_json;
use super::progress::Bar;
use yz::coach::record::{Location, MAX_RECORD_BYTES, Record};
use yz::coach::review::{self, Measure, Review, ReviewOptions};

/// `yz review RECORD`.
#[derive(Args)]
pub struct ReviewArgs {
    /// The game record, text or JSON (`-` for standard input); its format is in
    /// docs/players.md ("Game records").
    record: PathBuf,
    /// How many of the worst mistakes to rank and break down.
    #[arg(long, default_value_t = 5, value_name = "N")]
    top: usize,
}

/// Runs `yz review`.
pub fn run(args: ReviewArgs, data: &Path, as_json: bool) -> Result<()> {
    let text = read_record(&args.record)?;
    let record = Record::parse(&text).with_context(|| format!("record {}", args.record.display()))?;
    let options = ReviewOptions {
        data,
        top: args.top,
        tolerance: review::DEFAULT_TOLERANCE,
        on_the_fly: yz::duel::source::ON_THE_FLY_POSITIONS,
    };
    let review = review::review(&record, options, &Bar::new(as_json))?;
    if as_json {
        print_json(serde_json::to_value(review.to_json(&record))?);
    } else {
        print_review(&record, &review);
    }
    Ok(())
}

/// The record's text, from a file or standard input, refused beyond [`MAX_RECORD_BYTES`].
pub fn read_record(path: &Path) -> Result<String> {
    if path != Path::new("-") {
        return Ok(yz::store::read_text(path, MAX_RECORD_BYTES as u64)?);
    }
    let mut text = String::new();
    std::io::stdin().take(MAX_RECORD_BYTES as u64 + 1).read_to_string(&mut text).context("reading the record")?;
    if text.len() > MAX_RECORD_BYTES {
        bail!("the record on standard input has more than the {MAX_RECORD_BYTES} bytes a record may have");
    }
    Ok(text)
}

fn print_review(record: &Record, review: &Review) {
    let game = review.game;
    let two = record.players().len() > 1;
    let (unit, digits) = match review.measure {
        Measure::ExpectedPoints => ("points of expected final score", 4),
        Measure::WinningChance => ("winning chance (P(win) + P(draw)/2)", 6),
    };
    let players = match record.players().len() {
        1 => "1 player".to_string(),
        n => format!("{n} players"),
    };
    let (turns, decisions) = (record.turns().len(), review.decisions.len());
    println!(
        "{} rules, {players}, {turns} turn{}, {decisions} decision{}; losses in {unit}",
        game.rules,
        if turns == 1 { "" } else { "s" },
        if decisions == 1 { "" } else { "s" },
    );
    let mut sources: Vec<String> = review.decisions.iter().map(|d| d.source.describe()).collect();
    sources.dedup();
    sources.sort();
    sources.dedup();
    println!("values: {}", sources.join("; "));
    println!();
    let player = if two { format!("{:<8} ", "player") } else { String::new() };
    println!(
        "{:>4} {:>5} {player}{:<10} {:>2}  {:<22} {:<22} {:>10}",
        "turn", "line", "dice", "rl", "chosen", "best", "loss"
    );
    for d in &review.decisions {
        let best = if d.loss > 0.0 { review::describe(&d.best, game) } else { "=".into() };
        let player = if two { format!("{:<8} ", record.players()[d.player]) } else { String::new() };
        println!(
            "{:>4} {:>5} {player}{:<10} {:>2}  {:<22} {:<22} {:>10.digits$}",
            d.turn,
            where_(d.at),
            d.roll.to_string(),
            d.rolls_left,
            review::describe(&d.chosen, game),
            best,
            d.loss,
        );
    }
    println!();
    println!("{:<10} {:>9} {:>7} {:>12} {:>14}", "player", "decisions", "points", "loss (game)", "mean loss");
    for p in &review.players {
        println!(
            "{:<10} {:>9} {:>7} {:>12.digits$} {:>14.digits$}",
            p.name, p.decisions, p.points, p.total_loss, p.mean_loss
        );
    }
    if review.mistakes.is_empty() {
        println!("\nno mistakes: every decision was a best one");
        return;
    }
    println!("\nworst mistakes (aspects: the rest of the game played for the highest expected score)");
    for (rank, (d, b)) in review.worst().enumerate() {
        let who = if two { format!("{}, ", record.players()[d.player]) } else { String::new() };
        println!(
            "{:>2}. turn {} ({}line {}), dice {}, rolls left {}: {} instead of {}: loses {:.digits$}",
            rank + 1,
            d.turn,
            who,
            where_(d.at),
            d.roll,
            d.rolls_left,
            review::describe(&d.chosen, game),
            review::describe(&d.best, game),
            d.loss
        );
        let row = |name: &str, chosen: f64, best: f64| {
            if (chosen - best).abs() >= 5e-5 {
                println!("      {name:<18} {chosen:>9.4} instead of {best:>9.4}  ({:+.4})", chosen - best);
            }
        };
        row("expected final", b.chosen.expected_final, b.best.expected_final);
        row("P(upper bonus)", b.chosen.upper_bonus, b.best.upper_bonus);
        if let (Some(c), Some(best)) = (b.chosen.five_of_a_kind, b.best.five_of_a_kind) {
            row(&format!("P({} scored)", game.rules.box_name(yz::game::Category::Yahtzee)), c, best);
        }
        row("extra bonus", b.chosen.extra_bonus, b.best.extra_bonus);
        for (c, best) in b.chosen.boxes.iter().zip(&b.best.boxes) {
            row(&format!("{} points", c.name), c.expected, best.expected);
        }
    }
}

/// `12` for a line of a text record, `t3` for a turn of a JSON one.
fn where_(at: Location) -> String {
    match at {
        Location::Line(n) => n.to_string(),
        Location::Turn(n) => format!("t{n}"),
        Location::Record => String::new(),
    }
}
