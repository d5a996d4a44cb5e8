//! What the target-table commands report, as types: each is its command's JSON
//! (`Serialize`) and prints as its text (`Display`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::advise::{self, TargetAdviseError};
use super::table::TargetTable;
use crate::game::{Card, Game, Rules, StateIndex};
use crate::progress::Progress;
use crate::store::{Checksum, StoreError, TableError};

/// A solved and written target table (`yz targets solve`).
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The rule set.
    pub rules: Rules,
    /// The boxes in play, in card order.
    pub categories: Vec<&'static str>,
    /// The sum over s >= 1 of the start's max P(score >= s).
    pub start_curve_mean: f64,
    /// Score states of the game.
    pub states: usize,
    /// Values stored, over every state's curve.
    pub values: usize,
    /// The table file's size.
    pub file_bytes: u64,
    /// Seconds the solve took.
    pub solve_seconds: f64,
    /// Seconds writing the table took.
    pub write_seconds: f64,
    /// Both.
    pub seconds: f64,
    /// Where the table was written.
    pub table: PathBuf,
    /// The table file's checksum.
    #[serde(serialize_with = "crate::store::checksum_as_text")]
    pub checksum: Checksum,
}

/// Solves `game`'s target table (reporting to `progress`), writes it to `path`, and
/// reports.
pub fn solve_into(game: Game, path: &Path, progress: &dyn Progress) -> Result<SolveReport, TableError> {
    let started = Instant::now();
    let curves = super::solve_with_progress::<f32>(game, progress);
    let solve_seconds = started.elapsed().as_secs_f64();
    let written = Instant::now();
    let checksum = TargetTable::write(&curves, path)?;
    let write_seconds = written.elapsed().as_secs_f64();
    let file_bytes = std::fs::metadata(path)
        .map_err(|source| StoreError::Io { path: path.to_owned(), action: "read the size of", source })?
        .len();
    Ok(SolveReport {
        rules: game.rules,
        categories: game.box_names(),
        start_curve_mean: curves.start().mean(),
        states: StateIndex::new(game).len(),
        values: curves.curves().iter().map(|c| c.values.len()).sum(),
        file_bytes,
        solve_seconds,
        write_seconds,
        seconds: solve_seconds + write_seconds,
        table: path.to_owned(),
        checksum,
    })
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules             {}", self.rules)?;
        writeln!(f, "categories        {}", self.categories.join(","))?;
        writeln!(f, "start curve mean  {:.4} (sum over s >= 1 of max P(score >= s))", self.start_curve_mean)?;
        writeln!(f, "states            {}", self.states)?;
        writeln!(f, "stored values     {}", self.values)?;
        let (bytes, ratio) = (self.file_bytes, 4.0 * self.values as f64 / self.file_bytes as f64);
        if ratio >= 1.0 {
            writeln!(f, "file bytes        {bytes} ({ratio:.2} times smaller than raw f32)")?;
        } else {
            writeln!(f, "file bytes        {bytes} (the header outweighs so few values)")?;
        }
        writeln!(f, "solve time        {:.3} s", self.solve_seconds)?;
        writeln!(f, "write time        {:.3} s", self.write_seconds)?;
        write!(f, "table             {} (checksum {})", self.table.display(), self.checksum)
    }
}

/// The chance of reaching a final total from a card (`yz targets query`).
#[derive(Clone, Debug, Serialize)]
pub struct QueryReport {
    /// The rule set.
    pub rules: Rules,
    /// The card, as written.
    pub card: String,
    /// Points on it, bonuses included.
    pub points: u32,
    /// The final total to reach.
    pub target: i64,
    /// Points still needed.
    pub needed: i64,
    /// The best chance of reaching the target.
    pub probability: f32,
}

impl QueryReport {
    /// The best chance of reaching `target` from `card` of `game`, read from `table`.
    pub fn new(table: &TargetTable, game: Game, card: &Card, target: i64) -> Result<QueryReport, TargetAdviseError> {
        Ok(QueryReport {
            rules: game.rules,
            card: card.to_string(),
            points: card.points(),
            target,
            needed: advise::needed(card, target),
            probability: advise::probability(table, game, card, target)?,
        })
    }
}

impl fmt::Display for QueryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "card {:?}: {} points on the card, {} more needed", self.card, self.points, self.needed)?;
        write!(f, "P(final >= {})  {}", self.target, probability_text(self.probability))
    }
}

/// A probability with six decimals, or four significant digits below 10⁻⁴ where six
/// decimals would show 0.
pub fn probability_text(p: f32) -> String {
    if p != 0.0 && p.abs() < 1e-4 { format!("{p:.4e}") } else { format!("{p:.6}") }
}
