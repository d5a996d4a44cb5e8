//! The solitaire table on disk: one `f64` per score state, by [`StateId`], in a store file.
//!
//! Its metadata is the game's [`Identity`](crate::store::Identity) and the state count;
//! opening checks the identity against the game asked for, so a table of another game or
//! version is never used.

use std::path::Path;

use serde_json::json;

use super::solve::SoloSolution;
use crate::game::{Game, ScoreState, StateId, StateIndex};
use crate::progress::Progress;
use crate::store::{self, Checksum, DataTable, FileKind, StoreError, StoreFile, TableError};

/// Solitaire tables. Bump the version when [`StateIndex`] numbers states differently or
/// the values change meaning.
pub const KIND: FileKind = FileKind {
    name: "solo-table",
    version: 1,
    remedy: "delete it or pass another --data directory",
    metadata_limit: 16 << 10,
};

/// Expected future points of a score state at the start of a turn.
pub trait FutureValue {
    /// Expected points still to come from `state` under optimal play.
    ///
    /// # Panics
    /// If the state cannot occur in the game (callers pass states built from a checked card).
    fn future_value(&self, state: ScoreState) -> f64;
}

impl FutureValue for SoloSolution {
    fn future_value(&self, state: ScoreState) -> f64 {
        self.value(state)
    }
}

/// A memory-mapped, checked solitaire table.
#[derive(Debug)]
pub struct SoloTable {
    file: StoreFile,
    index: StateIndex,
}

impl SoloTable {
    /// Writes `solution` atomically to `path` and returns its checksum.
    pub fn write(solution: &SoloSolution, path: &Path) -> Result<Checksum, StoreError> {
        let (metadata, values) = contents(solution);
        // A killed solve's temporary file of this table is taken before writing a new one.
        if let Ok(removed) = store::remove_dead_temp_files(path)
            && !removed.is_empty()
        {
            tracing::info!(?removed, "removed temporary files of killed writers");
        }
        store::write_atomic(path, KIND.name, &metadata, store::as_bytes(&values))
    }

    /// The bytes [`SoloTable::write`] would write for `solution`, in memory: for a program
    /// with no file system (the web app keeps its tables between visits this way).
    pub fn encode(solution: &SoloSolution) -> Result<Vec<u8>, StoreError> {
        let (metadata, values) = contents(solution);
        store::encode(KIND.name, &metadata, store::as_bytes(&values))
    }

    /// Opens and checks a table for `game`: header, every checksum, and that it was made
    /// for this game with this state numbering.
    pub fn open(path: &Path, game: Game) -> Result<SoloTable, TableError> {
        // SAFETY: yz replaces store files by rename and never writes one in place.
        let file = unsafe { KIND.open::<TableError>(path, game) }?;
        SoloTable::checked(file, game)
    }

    /// A table for `game` from the bytes of its file ([`SoloTable::encode`]), checked as
    /// [`SoloTable::open`] checks a file; `label` names them in errors.
    pub fn from_bytes(bytes: &[u8], label: &Path, game: Game) -> Result<SoloTable, TableError> {
        SoloTable::checked(KIND.from_bytes::<TableError>(bytes, label, game)?, game)
    }

    /// The table of a sound store `file` of `game`, once its values are checked: one per
    /// state, each an expected score the game can still earn.
    fn checked(file: StoreFile, game: Game) -> Result<SoloTable, TableError> {
        let path = file.path().to_path_buf();
        let path = path.as_path();
        let index = StateIndex::new(game);
        let table = SoloTable { file, index };
        if table.values()?.len() != table.index.len() {
            return Err(StoreError::HeaderCorrupted {
                path: path.to_path_buf(),
                detail: format!(
                    "payload holds {} values, the header promises {}",
                    table.values()?.len(),
                    table.index.len()
                ),
            }
            .into());
        }
        // Checksums catch damage, not a file rewritten with lies: every value must be an
        // expected number of points a card can still earn.
        let game = table.index.game();
        let most = game.rules.most_points(game.categories.len()) as f64;
        if let Some((id, value)) = table.values()?.iter().enumerate().find(|(_, v)| !(0.0..=most).contains(*v)) {
            return Err(TableError::Corrupt {
                path: path.to_path_buf(),
                what: format!("it holds {value} for state {id}, not an expected score of this game (0 to {most})"),
            });
        }
        Ok(table)
    }

    fn values(&self) -> Result<&[f64], StoreError> {
        self.file.payload_as::<f64>()
    }

    /// Expected start value of the game (points still to come from the first turn).
    pub fn start_value(&self) -> f64 {
        self.future_value(ScoreState::start(self.index.game()))
    }

    /// Number of states stored.
    pub fn states(&self) -> usize {
        self.index.len()
    }

    /// The file's checksum.
    pub fn checksum(&self) -> Checksum {
        self.file.checksum()
    }

    /// Where the table lives.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// What a table's file holds for `solution`: its metadata and one value per state id.
fn contents(solution: &SoloSolution) -> (serde_json::Value, Vec<f64>) {
    let game = solution.game();
    let index = StateIndex::new(game);
    let values: Vec<f64> = (0..index.len() as u32).map(|id| solution.value(index.state(StateId(id)))).collect();
    let mut metadata = KIND.metadata(game);
    metadata["value"] = json!("expected future points at the start of a turn, f64 by state id");
    metadata["states"] = json!(index.len());
    (metadata, values)
}

impl FutureValue for SoloTable {
    fn future_value(&self, state: ScoreState) -> f64 {
        let id = self.index.id(state).unwrap_or_else(|| panic!("state {state:?} is not part of the game"));
        // `open` checked that the payload holds exactly one f64 per state.
        self.values().map(|values| values[id.0 as usize]).unwrap_or(f64::NAN)
    }
}

impl DataTable for SoloTable {
    const STEM: &'static str = "solo";

    fn solve_into(game: Game, path: &Path, _progress: &dyn Progress) -> Result<Checksum, StoreError> {
        SoloTable::write(&super::solve(game), path)
    }

    fn open(path: &Path, game: Game) -> Result<SoloTable, TableError> {
        SoloTable::open(path, game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Category, Rules};
    use crate::solo::solve;

    #[test]
    fn table_round_trips_and_refuses_another_game() {
        let game =
            Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(3).unwrap().with(Category::Yahtzee) };
        let solution = solve(game);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SoloTable::file_name(game));
        SoloTable::write(&solution, &path).unwrap();
        let table = SoloTable::open(&path, game).unwrap();
        assert_eq!(table.start_value().to_bits(), solution.start_value().to_bits());
        let other = Game { rules: Rules::NO_BONUS, ..game };
        let err = SoloTable::open(&path, other).unwrap_err().to_string();
        assert!(err.contains("rules") && err.contains("no-bonus"), "{err}");
    }
}
