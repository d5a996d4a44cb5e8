//! `yz play`: a game in the terminal, coached decision by decision.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use super::GameArgs;
use super::progress::Bar;
use yz::coach::play::{Coach, Feedback, PLAYER, Session};
use yz::coach::record::Record;
use yz::coach::review;
use yz::game::{Choice, RollsLeft, Valued};
use yz::game::{Game, KeepId, parse_dice};
use yz::players::PlayerName;
use yz::players::lineup::Lineup;
use yz::progress::Silent;
use yz::solo::SoloTable;
use yz::store::open_or_solve;
use yz::targets::TargetTable;

/// `yz play`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Deal the dice from this seed [default: one drawn now, and printed].
    #[arg(long, conflicts_with = "enter_dice")]
    seed: Option<u64>,
    /// Play with real dice: type each roll in (all five dice as they lie).
    #[arg(long)]
    enter_dice: bool,
    /// An opponent on its own card: optimal, emp1 (or any empD, dynsD), or a strategy of
    /// the zoo (`yz strategy eval --help` lists them).
    #[arg(long, value_name = "NAME")]
    opponent: Option<String>,
    /// Coach for P(final total >= T) instead of the expected score.
    #[arg(long, value_name = "T")]
    target: Option<i64>,
    /// When to show what each decision cost: after each one, or only at the end.
    #[arg(long, value_enum, default_value_t = FeedbackWhen::Each)]
    feedback: FeedbackWhen,
    /// Your name in the record.
    #[arg(long, default_value = "you")]
    name: String,
    /// Where to save the game record (after every turn); a file there that is not a
    /// record is refused [default: game-SEED.txt, or game.txt with real dice, numbered
    /// game-2.txt, … where taken].
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
}

/// When the coach speaks.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FeedbackWhen {
    /// After every decision: its loss and the best choice.
    Each,
    /// Only when the game is over.
    End,
}

/// Runs `yz play`, reading moves from standard input.
pub fn run(args: PlayArgs, data: &Path) -> Result<()> {
    let game = args.game.game()?;
    let progress = Bar::new(false);
    let solo_table;
    let target_table;
    let coach = match args.target {
        None => {
            solo_table = open_or_solve::<SoloTable>(data, game, &Silent)?;
            Coach::Expected(&solo_table)
        }
        Some(target) => {
            target_table = open_or_solve::<TargetTable>(data, game, &progress)?;
            Coach::Target { table: &target_table, target }
        }
    };
    let lineup = match &args.opponent {
        Some(name) => {
            let parsed: PlayerName = name.parse()?;
            Some((name.to_ascii_lowercase(), Lineup::load(&[parsed], game, data, false, &progress)?))
        }
        None => None,
    };
    let players = lineup.as_ref().map(|(_, l)| l.players()).unwrap_or_default();
    let opponent = lineup.as_ref().map(|(name, _)| (name.as_str(), players[0].as_ref()));
    let seed = (!args.enter_dice).then(|| args.seed.unwrap_or_else(fresh_seed));
    // A record never replaces another file, and a default name never an earlier game.
    let save = match &args.save {
        Some(path) => {
            yz::coach::record::save::check_save_path(path)?;
            path.clone()
        }
        None => yz::coach::record::save::unused_path(&match seed {
            Some(seed) => PathBuf::from(format!("game-{seed}.txt")),
            None => PathBuf::from("game.txt"),
        }),
    };
    let mut session = Session::new(game, &args.name, coach, opponent, seed)?;
    match seed {
        Some(seed) => println!("yz play: {} rules, dice dealt from seed {seed}", game.rules),
        None => println!("yz play: {} rules, dice entered by you", game.rules),
    }
    let value = match args.target {
        None => "expected final score".to_string(),
        Some(t) => format!("P(final total >= {t})"),
    };
    println!("the coach values each choice by its {value}; the record goes to {}", save.display());
    println!("answers: dice to keep (33, or - for none), a box to score now (fh), best, ? for advice, q to quit");
    let mut input = std::io::stdin().lock();
    while !session.is_over() {
        if session.dice().is_none() && !roll(&mut session, &mut input)? {
            save_record(session.record(), &save)?;
            println!("game left unfinished; the record so far is in {}", save.display());
            return Ok(());
        }
        let mover = session.mover();
        if mover != PLAYER {
            let choice = session.opponent_choice()?;
            let (roll, _) = session.dice().expect("rolled");
            println!("  {} has {roll}: {}", session.record().players()[mover], choice.describe(game.rules));
            session.decide(choice)?;
            if session.mover() == PLAYER || session.is_over() {
                save_record(session.record(), &save)?;
            }
            continue;
        }
        let Some(choice) = ask(&session, &mut input)? else {
            save_record(session.record(), &save)?;
            println!("game left unfinished; the record so far is in {}", save.display());
            return Ok(());
        };
        match session.decide(choice) {
            Ok(feedback) => {
                if let Some(f) = feedback.filter(|_| args.feedback == FeedbackWhen::Each) {
                    println!("  {}", judged(&f, game, args.target.is_some()));
                }
                if matches!(choice, Choice::Score(_)) {
                    save_record(session.record(), &save)?;
                }
            }
            Err(error) => println!("  {error}"),
        }
    }
    summary(&session, game, args.target.is_some(), &save);
    Ok(())
}

/// A seed from the clock, for a game nobody asked to replay.
fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    now.as_nanos() as u64 % 1_000_000
}

/// Rolls for the mover: dealt, or typed in until valid; `false` when the player quits
/// (`q`) instead.
fn roll(session: &mut Session, input: &mut impl BufRead) -> Result<bool> {
    if session.deals() {
        session.roll(None)?;
        return Ok(true);
    }
    let who = session.record().players()[session.mover()].clone();
    loop {
        let kept = session.kept().filter(|k| k.size() > 0).map(|k| format!(" (kept {k})")).unwrap_or_default();
        let whose = if who == "you" { "your".to_owned() } else { format!("{who}'s") };
        let line = prompt(input, &format!("{whose} dice{kept}, all five (q to quit): "))?.context("no dice entered")?;
        if matches!(line.trim(), "q" | "quit") {
            return Ok(false);
        }
        match parse_dice(&line).map(|roll| session.roll(Some(roll))) {
            Ok(Ok(_)) => return Ok(true),
            Ok(Err(error)) => println!("  {error}"),
            Err(error) => println!("  {error}"),
        }
    }
}

/// Asks the player for a decision until one parses; `None` to quit.
fn ask(session: &Session, input: &mut impl BufRead) -> Result<Option<Choice>> {
    let game = session.record().game();
    let (roll, rolls_left) = session.dice().expect("rolled");
    let record = session.record();
    let cards: Vec<String> = record
        .players()
        .iter()
        .zip(record.cards())
        .map(|(name, card)| format!("{name} {} ({} points)", show_card(&card.to_string()), card.points()))
        .collect();
    if rolls_left == RollsLeft::TWO {
        println!("turn {}: {}", record.turns().len() / record.players().len() + 1, cards.join("  |  "));
    }
    loop {
        let question = match rolls_left.get() {
            0 => format!("dice {roll}, no reroll left: box? "),
            n => format!("dice {roll}, rerolls left {n}: keep? "),
        };
        let Some(line) = prompt(input, &question)? else { return Ok(None) };
        let answer = line.trim();
        match answer {
            "q" | "quit" => return Ok(None),
            "?" => show_options(&session.options()?, game),
            "best" => return Ok(Some(session.options()?[0].choice)),
            _ => match read_choice(answer, game, rolls_left) {
                Ok(choice) => return Ok(Some(choice)),
                Err(error) => println!("  {error}"),
            },
        }
    }
}

/// A keep (`33`, `-`) or a box name.
fn read_choice(answer: &str, game: Game, rolls_left: RollsLeft) -> Result<Choice> {
    if let Ok(category) = game.rules.parse_box(answer) {
        return Ok(Choice::Score(category));
    }
    let meant = yz::game::suggest::did_you_mean(answer, game.box_names());
    if rolls_left == RollsLeft::NONE {
        bail!("choose a box{meant}: one of {}", game.box_names().join(", "));
    }
    if answer == "-" {
        return Ok(Choice::Keep(KeepId(0)));
    }
    let mut counts = [0u8; 6];
    for c in answer.chars().filter(|c| *c != ',' && !c.is_whitespace()) {
        match c.to_digit(10) {
            Some(f @ 1..=6) if counts.iter().sum::<u8>() < 5 => counts[f as usize - 1] += 1,
            _ => bail!(
                "{}{meant} is neither dice to keep (e.g. 33, - for none) nor a box ({})",
                yz::quote::quote(answer),
                game.box_names().join(", ")
            ),
        }
    }
    Ok(Choice::Keep(KeepId::from_counts(counts)))
}

/// Longest answer line read: an answer is a few characters, so a longer line (a file or
/// device piped in by mistake) is refused before it fills the memory.
const MAX_ANSWER_BYTES: u64 = 4096;

/// Prints `question` and reads a line of at most [`MAX_ANSWER_BYTES`]; `None` at the end
/// of the input.
fn prompt(input: &mut impl BufRead, question: &str) -> Result<Option<String>> {
    print!("{question}");
    std::io::stdout().flush()?;
    let mut line = String::new();
    if input.take(MAX_ANSWER_BYTES + 1).read_line(&mut line)? == 0 {
        println!();
        return Ok(None);
    }
    if line.len() as u64 > MAX_ANSWER_BYTES {
        bail!("an answer line is longer than {MAX_ANSWER_BYTES} bytes; answer with dice, a box or a command");
    }
    Ok(Some(line))
}

fn show_card(card: &str) -> String {
    if card.is_empty() { "(empty)".into() } else { card.into() }
}

fn show_options(options: &[Valued], game: Game) {
    for v in options.iter().take(6) {
        println!("    {:<24} {:>10.4}  gap {:.4}", review::describe(v, game), v.value, options[0].value - v.value);
    }
}

/// A decision judged in words.
fn judged(f: &Feedback, game: Game, target: bool) -> String {
    let unit = if target { "of P(target)" } else { "points" };
    if f.loss <= review::DEFAULT_TOLERANCE {
        format!("{}: a best choice", review::describe(&f.chosen, game))
    } else {
        format!(
            "{}: loses {:.4} {unit}; best was {}",
            review::describe(&f.chosen, game),
            f.loss,
            review::describe(&f.best, game)
        )
    }
}

fn save_record(record: &Record, path: &Path) -> Result<()> {
    yz::store::write_text_atomic(path, &record.to_text())
        .with_context(|| format!("saving the game to {}", path.display()))
}

fn summary(session: &Session, game: Game, target: bool, save: &Path) {
    let record = session.record();
    println!("game over");
    for (name, card) in record.players().iter().zip(record.cards()) {
        println!("  {name:<10} {} points", card.points());
    }
    let feedback = session.feedback();
    let total: f64 = feedback.iter().map(|f| f.loss).sum();
    println!(
        "your {} decisions lost {total:.4} in all, {:.4} per decision ({})",
        feedback.len(),
        total / feedback.len().max(1) as f64,
        if target { "of P(target)" } else { "points of expected score" }
    );
    let mut worst: Vec<&Feedback> = feedback.iter().filter(|f| f.loss > review::DEFAULT_TOLERANCE).collect();
    worst.sort_by(|a, b| b.loss.total_cmp(&a.loss));
    for f in worst.iter().take(3) {
        println!("  dice {}, rerolls left {}: {}", f.roll, f.rolls_left, judged(f, game, target));
    }
    println!("game saved to {}; review it with: yz review {}", save.display(), save.display());
}
