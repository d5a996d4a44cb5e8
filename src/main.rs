//! The `yz` command line: parse, call the library, print (human or `--json`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

mod cli;

/// Exact Yahtzee: optimal play, exact analysis, two-player solves.
#[derive(Parser)]
#[command(name = "yz", version, about)]
struct Cli {
    /// Directory of solved tables [default: $YZ_DATA, else $XDG_DATA_HOME/yz, else ~/.local/share/yz, else ./yz-data when none of those is set].
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Single player: maximum expected score.
    #[command(subcommand)]
    Solo(cli::solo::SoloCommand),
    /// Play for a target score: max P(final total >= S).
    #[command(subcommand)]
    Targets(cli::targets::TargetsCommand),
    /// Two players: maximum winning chance.
    #[command(subcommand)]
    Duel(cli::duel::DuelCommand),
    /// The papers' strategies, from the novice's to the optimal: exact evaluation (eval),
    /// and the strategies made by playing (evolve: genetic algorithm, train: action table).
    #[command(subcommand)]
    Strategy(cli::strategy::StrategyCommand),
    /// Play a strategy many times: mean with its 95% interval, and a histogram.
    Simulate(cli::simulate::SimulateArgs),
    /// Strategies against each other, each on its own card: win shares with intervals.
    Match(cli::simulate::MatchArgs),
    /// One turn played for one pattern (yahtzee, full-house, straights, n-of-a-kind, or a
    /// multiplicity pattern such as 011), any faces, dice and rolls: the best chance, every
    /// state's value after each roll, and the best keeps.
    Turn(cli::turn::TurnArgs),
    /// Two-player table files: check shards and manifests, digest layers.
    #[command(subcommand)]
    Shard(cli::shard::ShardCommand),
    /// Check any yz table: two-player tables (a directory, its manifest or a shard), a
    /// solitaire or target table, a strategy file. Every checksum recomputed and every
    /// value read as its reader reads it; one line per file, exit 2 naming each bad file
    /// with the command that produces it again or repairs it.
    Verify(cli::verify::VerifyArgs),
    /// Review a recorded game (one or two players): every decision against the best, the
    /// worst mistakes with what each costs box by box, the mean loss per decision.
    Review(cli::review::ReviewArgs),
    /// Play a game in the terminal, coached after each decision (or at the end), alone or
    /// against a strategy, with dealt or real dice; the game is saved as a record.
    Play(cli::play::PlayArgs),
    /// The advisors, two-player advice, target play, play with feedback and reviews as a
    /// web page on this machine (http://127.0.0.1:8080/ by default).
    #[cfg(feature = "serve")]
    Serve(cli::serve::ServeArgs),
}

fn data_dir(flag: Option<PathBuf>) -> PathBuf {
    flag.unwrap_or_else(yz::store::default_data_dir)
}

fn main() -> ExitCode {
    die_quietly_on_closed_pipe();
    fail_cleanly_on_unwritable_stdout();
    let stderr_is_terminal = std::io::stderr().is_terminal();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(stderr_is_terminal)
        .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version, asked for or shown for a missing subcommand, print as clap prints them.
        Err(error) if !error.use_stderr() || error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            error.exit()
        }
        Err(error) => {
            eprintln!("{}", long_arguments_cut(clap_error_line(&error)));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", long_arguments_cut(yz::quote::error_line(error.as_ref())));
            ExitCode::from(2)
        }
    }
}

/// Arguments longer than this are quoted cut ([`yz::quote`]) where an error repeats them.
const LONG_ARGUMENT_BYTES: usize = 256;

/// `message` with every argument of the command line longer than [`LONG_ARGUMENT_BYTES`]
/// that it repeats whole (clap's "invalid value", a path) cut to an excerpt with its length.
fn long_arguments_cut(mut message: String) -> String {
    for argument in std::env::args_os().map(|a| a.to_string_lossy().into_owned()) {
        if argument.len() > LONG_ARGUMENT_BYTES && message.contains(&argument) {
            message = message.replace(&argument, &yz::quote::quote(&argument).to_string());
        }
    }
    message
}

/// A command-line error in one line, like every other error: clap's first paragraph
/// (the message, and a list such as the missing arguments) and its tips (a similar
/// subcommand, flag or value: "did you mean"), without the usage and the hint that follow.
fn clap_error_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let mut paragraphs = rendered.split("\n\n");
    let one_line =
        |paragraph: &str| paragraph.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    let first = one_line(paragraphs.next().unwrap_or_default());
    let tips = paragraphs.map(one_line).filter(|p| p.starts_with("tip:"));
    std::iter::once(first).chain(tips).collect::<Vec<_>>().join("; ")
}

/// `yz … | head` closes stdout early: end the process as other command-line tools do,
/// instead of the Rust default (ignore SIGPIPE, then panic on the failed print).
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `yz … > /dev/full` (or any output that fails) ends with a one-line error and exit
/// status 2, where `println!` panics on the failed print.
fn fail_cleanly_on_unwritable_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // The panic message, as `PanicHookInfo::payload_as_str` (Rust 1.91) gives it.
        let payload = info.payload();
        let message =
            payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
        if let Some(reason) = message.and_then(|m| m.strip_prefix("failed printing to stdout: ")) {
            eprintln!("error: cannot write to standard output: {reason}");
            std::process::exit(2);
        }
        default(info);
    }));
}

fn run(cli: Cli) -> Result<()> {
    yz::turn::simd::requested().map_err(anyhow::Error::msg)?;
    let data = data_dir(cli.data);
    match cli.command {
        Command::Solo(command) => cli::solo::run(command, &data, cli.json),
        Command::Targets(command) => cli::targets::run(command, &data, cli.json),
        Command::Duel(command) => cli::duel::run(command, &data, cli.json),
        Command::Strategy(command) => cli::strategy::run(command, &data, cli.json),
        Command::Simulate(args) => cli::simulate::run_simulate(args, &data, cli.json),
        Command::Match(args) => cli::simulate::run_match(args, &data, cli.json),
        Command::Turn(args) => cli::turn::run(args, cli.json),
        Command::Shard(command) => cli::shard::run(command, cli.json),
        Command::Verify(args) => cli::verify::run(args, cli.json),
        Command::Review(args) => cli::review::run(args, &data, cli.json),
        Command::Play(_) if cli.json => {
            anyhow::bail!("yz play is a game in the terminal and prints no JSON; leave out --json")
        }
        Command::Play(args) => cli::play::run(args, &data),
        #[cfg(feature = "serve")]
        Command::Serve(args) => cli::serve::run(args, &data, cli.json),
    }
}
