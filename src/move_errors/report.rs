//! The JSON report of a move-error measurement (`yz --json duel move-errors`): what was
//! measured and the errors, with the sums that let runs over disjoint games merge.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Estimate, MergeError, MoveErrorReport, StrategyErrors, TYPICAL_SHARPNESS};
use crate::game::Game;
use crate::store::{StoreError, read_text};

/// What the report calls its format, checked when reports are merged. Bump the number when
/// a field changes meaning or goes away (adding one needs no bump: readers ignore it).
pub const FORMAT: &str = "yz-move-errors/1";

/// Mean errors smaller than this are the rounding between two evaluations of the same
/// exact values (the `exact` strategy scores below 1e-13 on the full game), not a choice
/// given away; reports print them as 0.
pub const RESOLUTION: f64 = 1e-12;

/// The largest report [`Report::read`] reads: a report is a few kilobytes per strategy and
/// depth, so a larger file is not one.
pub const MAX_REPORT_BYTES: u64 = 64 << 20;

/// Why a report could not be read or merged.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] StoreError),
    /// The file is not JSON of a report.
    #[error("{} is not a JSON report of `yz --json duel move-errors` (or is truncated)", file.display())]
    NotAReport {
        /// The file.
        file: PathBuf,
        /// What the parser found.
        #[source]
        source: serde_json::Error,
    },
    /// The report is of another format.
    #[error("{} is a {found:?} report; this yz merges {FORMAT:?}", file.display())]
    Format {
        /// The file.
        file: PathBuf,
        /// Its format.
        found: String,
    },
    /// Two reports measured different things.
    #[error(
        "{} measured another game, typical player or strategies than {}: only runs of one measurement merge",
        file.display(),
        first.display()
    )]
    Differ {
        /// The report that differs.
        file: PathBuf,
        /// The first report.
        first: PathBuf,
    },
    /// The errors of the reports do not merge.
    #[error(transparent)]
    Merge(#[from] MergeError),
}

/// The JSON report of a run: what was measured and the errors, by strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: String,
    /// The rules' name.
    pub rules: String,
    /// The boxes in play.
    pub categories: Vec<String>,
    /// The typical player (`emp1`).
    pub typical: String,
    /// Its sharpness ([`TYPICAL_SHARPNESS`]).
    pub typical_sharpness: f64,
    /// Seed of the games.
    pub seed: u64,
    /// Games played.
    pub games: u64,
    /// The games played, as ranges of game numbers.
    pub game_ranges: Vec<Range<u64>>,
    /// By tested strategy, in the order named.
    pub strategies: Vec<Named>,
    /// Seconds the measurement took (of every run merged, added).
    pub seconds: f64,
}

/// One strategy's errors under its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Named {
    /// The strategy's name, as given.
    pub strategy: String,
    /// Its errors.
    #[serde(flatten)]
    pub errors: StrategyErrors,
}

impl Report {
    /// The report of `errors` measured in `game` for the strategies `names` (in the order
    /// of `errors.strategies`) in `seconds`.
    pub fn new(game: Game, names: &[String], errors: MoveErrorReport, seconds: f64) -> Report {
        let categories = game.box_names().iter().map(|c| c.to_string()).collect();
        Report::with(game.rules.name().to_owned(), categories, names, errors, seconds)
    }

    fn with(rules: String, categories: Vec<String>, names: &[String], errors: MoveErrorReport, seconds: f64) -> Report {
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

    /// Reads the report in `file` (at most [`MAX_REPORT_BYTES`]) and checks its format.
    pub fn read(file: &Path) -> Result<Report, ReportError> {
        let text = read_text(file, MAX_REPORT_BYTES)?;
        let report: Report =
            serde_json::from_str(&text).map_err(|source| ReportError::NotAReport { file: file.to_owned(), source })?;
        if report.format != FORMAT {
            return Err(ReportError::Format { file: file.to_owned(), found: report.format });
        }
        Ok(report)
    }

    /// The reports in `files`, of runs of one measurement over disjoint games, as one
    /// report (their times added).
    pub fn merge_files(files: &[PathBuf]) -> Result<Report, ReportError> {
        let reports = files.iter().map(|file| Report::read(file)).collect::<Result<Vec<Report>, _>>()?;
        let first = reports.first().ok_or(MergeError::Empty)?;
        for (report, file) in reports.iter().zip(files).skip(1) {
            let same = report.rules == first.rules
                && report.categories == first.categories
                && report.typical == first.typical
                && report.typical_sharpness == first.typical_sharpness
                && report.names() == first.names();
            if !same {
                return Err(ReportError::Differ { file: file.clone(), first: files[0].clone() });
            }
        }
        let merged = MoveErrorReport::merge(&reports.iter().map(Report::errors).collect::<Vec<_>>())?;
        let seconds = reports.iter().map(|r| r.seconds).sum();
        Ok(Report::with(first.rules.clone(), first.categories.clone(), &first.names(), merged, seconds))
    }

    /// The library's report (names left out).
    fn errors(&self) -> MoveErrorReport {
        MoveErrorReport {
            seed: self.seed,
            game_ranges: self.game_ranges.clone(),
            strategies: self.strategies.iter().map(|s| s.errors.clone()).collect(),
        }
    }

    /// The strategies' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.strategies.iter().map(|s| s.strategy.clone()).collect()
    }
}

impl fmt::Display for Report {
    /// The report as tables by depth: the error per move and per turn, the moves scored,
    /// and the error per game.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ranges: Vec<String> = self.game_ranges.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
        writeln!(f, "rules       {}", self.rules)?;
        writeln!(f, "categories  {}", self.categories.join(","))?;
        writeln!(f, "games       {} (seed {}, games {})", self.games, self.seed, ranges.join(", "))?;
        writeln!(f, "typical     EMP(1), each move drawn with weight exp({} · (v − best))", self.typical_sharpness)?;
        let added = if self.game_ranges.len() > 1 { " (the merged runs' times added)" } else { "" };
        writeln!(f, "time        {:.1} s{added}", self.seconds)?;
        writeln!(f, "D           open boxes on both cards together at the turn measured")?;
        writeln!(
            f,
            "resolution  errors below {RESOLUTION:.0e} print as 0: they are the rounding between two evaluations of the same exact values"
        )?;
        let depths: Vec<usize> = self.strategies[0].errors.depths.iter().map(|d| d.empty).collect();
        let table = |f: &mut fmt::Formatter<'_>, title: &str, cell: &dyn Fn(&StrategyErrors, usize) -> String| {
            writeln!(f, "{title}")?;
            write!(f, "  {:>3}", "D")?;
            for s in &self.strategies {
                write!(f, "  {:>24}", s.strategy)?;
            }
            writeln!(f)?;
            for (i, d) in depths.iter().enumerate() {
                write!(f, "  {d:>3}")?;
                for s in &self.strategies {
                    write!(f, "  {:>24}", cell(&s.errors, i))?;
                }
                writeln!(f)?;
            }
            Ok(())
        };
        let shown = |e: Estimate| match e.mean {
            mean if mean.abs() < RESOLUTION => "0".to_owned(),
            mean => format!("{mean:.3e} ± {:.1e}", e.half_width_95),
        };
        table(f, "error per move (winning chance given away; 95% intervals)", &|s, i| shown(s.depths[i].per_move))?;
        table(f, "error per turn", &|s, i| shown(s.depths[i].per_turn))?;
        table(f, "moves scored", &|s, i| s.depths[i].sums.moves.to_string())?;
        let (first, last) = (depths[0], depths[depths.len() - 1]);
        write!(f, "error per game (summed over the turns at D = {first}..{last}, both players')")?;
        for s in &self.strategies {
            write!(f, "\n  {:<8} {}", s.strategy, shown(s.errors.per_game))?;
        }
        Ok(())
    }
}
