//! `yz duel move-errors`: exact move errors of strategies in typical endgames, measured,
//! or merged from runs over disjoint games.

use std::io::IsTerminal;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::{GameArgs, print_json};
use yz::duel::Cards;
use yz::emp::move_errors::{Estimate, MoveErrorReport, MoveErrors, StrategyErrors, TYPICAL_SHARPNESS, Tested};
use yz::emp::{Evaluation, PlayerName, Searcher};
use yz::simulate::lineup::Lineup;
use yz::simulate::progress_bar;
use yz::strategy::STRATEGY_NAMES;

/// `yz duel move-errors`.
#[derive(Args)]
pub struct MoveErrorsArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Strategies to score, comma-separated.
    #[arg(
        long,
        value_name = "NAMES",
        required_unless_present = "merge",
        help = format!("Strategies to score, comma-separated (e.g. emp1,E,dyns1): empD or dynsD (EMP(D), DynS(D)), E (= optimal), exact (the exact strategy: error zero, a check), or one of {STRATEGY_NAMES}")
    )]
    strategy: Option<String>,
    /// Open boxes on both cards together at the turns measured: D, or a range such as 1..6.
    /// Each measured turn solves the game below it: milliseconds up to D = 8, seconds at 10,
    /// about a minute at 12 on the full game.
    #[arg(long, value_name = "D|A..B", required_unless_present = "merge")]
    empty: Option<String>,
    /// Typical games to play (each measures one turn at every depth of the range).
    #[arg(long, default_value_t = 512)]
    games: u64,
    /// Number of the first game: runs of one seed over disjoint game ranges (on several
    /// machines, say) merge with --merge.
    #[arg(long, default_value_t = 0)]
    first_game: u64,
    /// Seed of the dice and of the typical player's draws.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Merge the JSON reports of runs over disjoint games instead of playing.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["strategy", "empty"])]
    merge: Vec<PathBuf>,
}

/// What the JSON report calls its format, checked when reports are merged.
const FORMAT: &str = "yz-move-errors/1";

/// The JSON report of a run: what was measured and the errors, with the sums that let runs
/// over disjoint games merge.
#[derive(Serialize, Deserialize)]
struct Report {
    format: String,
    rules: String,
    categories: Vec<String>,
    typical: String,
    typical_sharpness: f64,
    seed: u64,
    games: u64,
    game_ranges: Vec<std::ops::Range<u64>>,
    strategies: Vec<Named>,
    seconds: f64,
}

/// One strategy's errors under its name.
#[derive(Serialize, Deserialize)]
struct Named {
    strategy: String,
    #[serde(flatten)]
    errors: StrategyErrors,
}

impl Report {
    fn new(rules: String, categories: Vec<String>, names: &[String], errors: MoveErrorReport, seconds: f64) -> Report {
        Report {
            format: FORMAT.to_owned(),
            rules,
            categories,
            typical: "emp1".to_owned(),
            typical_sharpness: TYPICAL_SHARPNESS,
            seed: errors.seed,
            games: errors.games(),
            game_ranges: errors.game_ranges,
            strategies: names
                .iter()
                .zip(errors.strategies)
                .map(|(name, errors)| Named { strategy: name.clone(), errors })
                .collect(),
            seconds,
        }
    }

    /// The library's report (names left out).
    fn errors(&self) -> MoveErrorReport {
        MoveErrorReport {
            seed: self.seed,
            game_ranges: self.game_ranges.clone(),
            strategies: self.strategies.iter().map(|s| s.errors.clone()).collect(),
        }
    }

    fn names(&self) -> Vec<String> {
        self.strategies.iter().map(|s| s.strategy.clone()).collect()
    }
}

/// `D` or `A..B` (also `A..=B`) as a range of depths.
fn parse_depths(text: &str) -> Result<RangeInclusive<usize>> {
    let number = |part: &str| {
        part.trim().parse::<usize>().with_context(|| format!("--empty {text:?}: expected D or A..B with whole numbers"))
    };
    Ok(match text.split_once("..") {
        Some((first, last)) => number(first)?..=number(last.trim_start_matches('='))?,
        None => {
            let d = number(text)?;
            d..=d
        }
    })
}

/// Runs `yz duel move-errors`.
pub fn run(args: MoveErrorsArgs, data: &Path, as_json: bool) -> Result<()> {
    if !args.merge.is_empty() {
        return merge(&args.merge, as_json);
    }
    let game = args.game.game()?;
    let depths = parse_depths(args.empty.as_deref().unwrap_or_default())?;
    let games_end = args.first_game.checked_add(args.games);
    if !(1..=yz::emp::move_errors::MAX_MOVE_ERROR_GAMES).contains(&args.games) || games_end.is_none() {
        Err(yz::emp::move_errors::MoveErrorsError::Games { first: args.first_game, games: args.games })?;
    }
    let names: Vec<String> = args
        .strategy
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        bail!("--strategy needs at least one name (e.g. emp1,E)");
    }
    let is_exact = |name: &str| name.eq_ignore_ascii_case("exact");
    let players = names
        .iter()
        .filter(|name| !is_exact(name))
        .map(|name| name.parse::<PlayerName>())
        .collect::<Result<Vec<_>, _>>()?;
    let lineup = Lineup::load(&players, game, data, true)?;
    let table = lineup.table().expect("the typical player's table was asked for");
    let typical = Searcher::new(table, Evaluation::ExpectedMatchPoints, 1);
    let boxed = lineup.players();
    let mut lined_up = boxed.iter();
    let tested: Vec<Tested> = names
        .iter()
        .map(|name| match is_exact(name) {
            true => Tested::Exact,
            false => Tested::Player(lined_up.next().expect("one player per name but exact").as_ref()),
        })
        .collect();
    let cards = Cards::new(game);
    let measure = MoveErrors::new(&cards, &typical, tested, depths)?;
    let started = Instant::now();
    let progress = progress_bar(args.games, std::io::stderr().is_terminal());
    let errors = measure.measure(args.seed, args.first_game, args.games, &progress)?;
    let seconds = started.elapsed().as_secs_f64();
    let categories = game.box_names().iter().map(|c| c.to_string()).collect();
    print_report(&Report::new(game.rules.name().to_owned(), categories, &names, errors, seconds), as_json);
    Ok(())
}

/// Merges the JSON reports in `files`.
/// The largest report `--merge` reads: a report is a few kilobytes per strategy and depth.
const MAX_REPORT_BYTES: u64 = 64 << 20;

fn merge(files: &[PathBuf], as_json: bool) -> Result<()> {
    let reports = files
        .iter()
        .map(|file| {
            let text = yz::store::read_text(file, MAX_REPORT_BYTES)?;
            let report: Report = serde_json::from_str(&text).with_context(|| {
                format!("{} is not a JSON report of `yz --json duel move-errors` (or is truncated)", file.display())
            })?;
            if report.format != FORMAT {
                bail!("{} is a {:?} report; this yz merges {FORMAT:?}", file.display(), report.format);
            }
            Ok(report)
        })
        .collect::<Result<Vec<Report>>>()?;
    let first = &reports[0];
    for (report, file) in reports.iter().zip(files).skip(1) {
        let same = report.rules == first.rules
            && report.categories == first.categories
            && report.typical == first.typical
            && report.typical_sharpness == first.typical_sharpness
            && report.names() == first.names();
        if !same {
            bail!(
                "{} measured another game, typical player or strategies than {}: only runs of one measurement merge",
                file.display(),
                files[0].display()
            );
        }
    }
    let merged = MoveErrorReport::merge(&reports.iter().map(Report::errors).collect::<Vec<_>>())?;
    let seconds = reports.iter().map(|r| r.seconds).sum();
    print_report(&Report::new(first.rules.clone(), first.categories.clone(), &first.names(), merged, seconds), as_json);
    Ok(())
}

/// Prints a report as JSON, or as tables by depth.
fn print_report(report: &Report, as_json: bool) {
    if as_json {
        print_json(serde_json::to_value(report).expect("a report is plain data"));
        return;
    }
    let ranges: Vec<String> = report.game_ranges.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
    println!("rules       {}", report.rules);
    println!("categories  {}", report.categories.join(","));
    println!("games       {} (seed {}, games {})", report.games, report.seed, ranges.join(", "));
    println!("typical     EMP(1), each move drawn with weight exp({} · (v − best))", report.typical_sharpness);
    let added = if report.game_ranges.len() > 1 { " (the merged runs' times added)" } else { "" };
    println!("time        {:.1} s{added}", report.seconds);
    let depths: Vec<usize> = report.strategies[0].errors.depths.iter().map(|d| d.empty).collect();
    let table = |title: &str, cell: &dyn Fn(&StrategyErrors, usize) -> String| {
        println!("{title}");
        print!("  {:>3}", "D");
        for s in &report.strategies {
            print!("  {:>24}", s.strategy);
        }
        println!();
        for (i, d) in depths.iter().enumerate() {
            print!("  {d:>3}");
            for s in &report.strategies {
                print!("  {:>24}", cell(&s.errors, i));
            }
            println!();
        }
    };
    let shown = |e: Estimate| match e.mean {
        0.0 => "0".to_owned(),
        mean => format!("{mean:.3e} ± {:.1e}", e.half_width_95),
    };
    table("error per move (winning chance given away; 95% intervals)", &|s, i| shown(s.depths[i].per_move));
    table("error per turn", &|s, i| shown(s.depths[i].per_turn));
    table("moves scored", &|s, i| s.depths[i].sums.moves.to_string());
    let (first, last) = (depths[0], depths[depths.len() - 1]);
    println!("error per game (summed over the turns at D = {first}..{last}, both players')");
    for s in &report.strategies {
        println!("  {:<8} {}", s.strategy, shown(s.errors.per_game));
    }
}
