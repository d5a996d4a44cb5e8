//! Any table yz writes, checked: what `yz verify` (and `yz shard verify`) runs.
//!
//! A path is checked by what it holds, read from the store header of the file itself (a
//! file under the name of a two-player table's file is checked as one, whatever it holds):
//! a two-player table directory or one of its files (the manifest and every shard,
//! [`crate::duel::shard::verify_tables`]), a solitaire table, a target table, or a
//! strategy file (`yz strategy evolve`'s values, `yz strategy train`'s action table). Each
//! file's every checksum is recomputed ([`crate::store::verify`]), then the file is read
//! whole by the reader that uses it, for the game its header names: a solitaire table's
//! values ([`SoloTable::open`]), every curve of a target table, a strategy's values. So
//! damage the checksums cannot see (values no game can have, written with valid
//! checksums) is caught as a read would catch it.
//!
//! The result is a [`Verification`]: one check per file, whether all are sound, and what
//! to do about a bad one, with the exact command that produces it again or repairs it.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::coach::history;
use crate::duel::shard::{self, FileCheck, MANIFEST_KIND, SHARD_KIND, TableCheck};
use crate::game::{Game, StateId, StateIndex};
use crate::solo::SoloTable;
use crate::store::{self, FileKind, Identity, TableError};
use crate::strategy::{evolve, learned};
use crate::targets::TargetTable;

/// What a checked path holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Holds {
    /// A two-player table directory, or its manifest.
    DuelTables,
    /// One shard of two-player tables.
    DuelShard,
    /// A solitaire table (`yz solo solve`).
    SoloTable,
    /// A target table (`yz targets solve`).
    TargetTable,
    /// Evolved box values (`yz strategy evolve`).
    EvolvedStrategy,
    /// A learned action table (`yz strategy train`).
    LearnedStrategy,
    /// The games kept by `yz serve` (`history.yzs`, [`crate::coach::history`]).
    GameHistory,
}

impl Holds {
    /// What a store file of kind `kind` holds, if yz writes that kind.
    fn of_kind(kind: &str) -> Option<Holds> {
        let kinds: [(FileKind, Holds); 7] = [
            (MANIFEST_KIND, Holds::DuelTables),
            (SHARD_KIND, Holds::DuelShard),
            (crate::solo::table::KIND, Holds::SoloTable),
            (crate::targets::table::KIND, Holds::TargetTable),
            (evolve::KIND, Holds::EvolvedStrategy),
            (learned::KIND, Holds::LearnedStrategy),
            (history::KIND, Holds::GameHistory),
        ];
        kinds.iter().find(|(k, _)| k.name == kind).map(|&(_, holds)| holds)
    }

    /// The command that writes a file of this kind for the game `flags` name to `path`
    /// (two-player tables are repaired instead, [`TableCheck::remedy`]).
    fn producer(self, flags: &str, path: &Path) -> Option<String> {
        let command = match self {
            Holds::DuelTables | Holds::DuelShard | Holds::GameHistory => return None,
            Holds::SoloTable => "yz solo solve",
            Holds::TargetTable => "yz targets solve",
            Holds::EvolvedStrategy => "yz strategy evolve",
            Holds::LearnedStrategy => "yz strategy train",
        };
        let flags = if flags.is_empty() { String::new() } else { format!(" {flags}") };
        Some(format!("{command}{flags} --out {}", crate::sys::shell_word(path)))
    }
}

impl fmt::Display for Holds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Holds::DuelTables => "two-player tables",
            Holds::DuelShard => "a two-player table shard",
            Holds::SoloTable => "a solitaire table",
            Holds::TargetTable => "a target table",
            Holds::EvolvedStrategy => "an evolved strategy",
            Holds::LearnedStrategy => "a learned strategy",
            Holds::GameHistory => "a history of games",
        })
    }
}

/// The layers of two-player tables, beside their files.
#[derive(Clone, Debug, Serialize)]
pub struct Layers {
    /// Layers the manifest lists as written.
    pub layers: usize,
    /// Whether the manifest says every layer is written.
    pub complete: bool,
    /// Shard files the manifest does not list ([`TableCheck::unlisted`]).
    pub unlisted: Vec<String>,
    /// Temporary files of writers that stopped ([`TableCheck::temporary`]).
    pub temporary: Vec<String>,
    /// The command that solves the layers left, where every file is sound but not every
    /// layer is written (a solve stopped, or cut short with `--stop-after-layer`).
    pub continue_with: Option<String>,
}

/// What [`verify`] found: `yz verify --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct Verification {
    /// The path checked.
    pub path: PathBuf,
    /// What it holds, where its header says.
    pub holds: Option<Holds>,
    /// The game it was made for, where its header could be read.
    pub game: Option<Identity>,
    /// One check per file: a two-player directory's manifest first, then every shard it
    /// lists; else the file itself.
    pub files: Vec<FileCheck>,
    /// Two-player tables only: their layers and the files beside them.
    #[serde(flatten)]
    pub tables: Option<Layers>,
    /// Whether every file is sound.
    pub ok: bool,
    /// What to do about the bad files, with the exact command, if any is bad.
    pub remedy: Option<String>,
}

impl Verification {
    /// The files with a problem.
    pub fn problems(&self) -> impl Iterator<Item = &FileCheck> {
        self.files.iter().filter(|f| f.problem.is_some())
    }

    /// The check of two-player tables, read from a table directory or one of its files.
    fn of_tables(path: &Path, holds: Holds, check: TableCheck) -> Verification {
        let remedy = check.remedy();
        let TableCheck { dir, game, layers, complete, files, unlisted, temporary } = check;
        let ok = files.iter().all(|f| f.problem.is_none());
        let continue_with = (ok && !complete).then(|| crate::duel::shard::repair_command(&dir, false));
        let tables = Some(Layers { layers, complete, unlisted, temporary, continue_with });
        Verification { path: path.to_owned(), holds: Some(holds), game, files, tables, ok, remedy }
    }
}

/// Checks the yz table at `path` (see the [module docs](self)). Problems are reported per
/// file, never as an error: a path that holds nothing yz writes is one file with a problem.
pub fn verify(path: &Path) -> Verification {
    if path.is_dir() {
        let check = shard::verify_tables(path);
        if !path.join(shard::MANIFEST_FILE).exists() {
            return one_file(path, None, None, None, check.files.into_iter().next().and_then(|f| f.problem));
        }
        return Verification::of_tables(path, Holds::DuelTables, check);
    }
    // SAFETY: yz replaces store files by rename and never writes one in place.
    let report = unsafe { store::verify(path) };
    // What the file was meant to be, and for which game, even where it is damaged.
    let (kind, metadata) = match &report {
        Ok(report) => (Some(report.kind.clone()), Some(report.metadata.clone())),
        Err(_) => store::peek(path).map_or((None, None), |(kind, metadata)| (Some(kind), metadata)),
    };
    // A file under a two-player table's name is checked as the tables' readers see it,
    // whatever it holds: a link there to a sound table of another kind is no shard.
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let holds = match name.as_str() {
        shard::MANIFEST_FILE => Some(Holds::DuelTables),
        name if shard::parse_shard_file(name).is_some() => Some(Holds::DuelShard),
        _ => kind.as_deref().and_then(Holds::of_kind),
    };
    if let Some(holds @ (Holds::DuelTables | Holds::DuelShard)) = holds {
        return Verification::of_tables(path, holds, shard::verify_file(path));
    }
    let identity: Option<Identity> = metadata.and_then(|m| serde_json::from_value(m).ok());
    let (report, holds) = match (report, holds) {
        (Ok(report), Some(holds)) => (report, holds),
        (Err(error), holds) => return one_file(path, holds, identity, None, Some(error.fault())),
        (Ok(report), None) => {
            let problem = format!("a store file of kind {:?}, which this yz does not write", report.kind);
            return one_file(path, None, None, Some(report.checksum.to_string()), Some(problem));
        }
    };
    let checksum = Some(report.checksum.to_string());
    if holds == Holds::GameHistory {
        // Made for no one game: read whole by its own reader.
        let problem = history::read(path).err().map(|e| e.to_string());
        return one_file(path, Some(holds), None, checksum, problem);
    }
    let Some(game) = identity.as_ref().and_then(Identity::game) else {
        let problem = format!("its header names no game this yz knows ({identity:?})");
        return one_file(path, Some(holds), identity, checksum, Some(problem));
    };
    let problem = read_whole(path, holds, game).err().map(|e| e.fault());
    one_file(path, Some(holds), identity, checksum, problem)
}

/// The check of one file that is not part of two-player tables.
fn one_file(
    path: &Path,
    holds: Option<Holds>,
    game: Option<Identity>,
    checksum: Option<String>,
    problem: Option<String>,
) -> Verification {
    let ok = problem.is_none();
    // A file that is no table of yz's (or is not there) gets no advice beyond its problem.
    let remedy = problem.as_ref().and(holds).and_then(|holds| {
        let flags = game.as_ref().and_then(Identity::game).map(|g| g.flags().to_string());
        let command = holds.producer(flags.as_deref().unwrap_or_default(), path)?;
        Some(match flags {
            Some(_) => format!("`{command}` produces it again"),
            None => format!("`{command}`, with the game's flags, produces it again"),
        })
    });
    let file = FileCheck { path: path.to_owned(), layer: None, checksum, problem };
    Verification { path: path.to_owned(), holds, game, files: vec![file], tables: None, ok, remedy }
}

/// Reads the file at `path`, of `holds` made for `game`, as the reader that uses it does,
/// and whole: every value of a solitaire table or a strategy, every curve of a target
/// table.
///
/// # Panics
/// For two-player tables, which [`verify`] checks through `duel::shard` before this.
fn read_whole(path: &Path, holds: Holds, game: Game) -> Result<(), TableError> {
    match holds {
        Holds::SoloTable => SoloTable::open(path, game).map(drop),
        Holds::TargetTable => {
            let table = TargetTable::open(path, game)?;
            let (index, mut reader) = (StateIndex::new(game), table.reader());
            (0..index.len() as u32).try_for_each(|id| reader.curve(index.state(StateId(id))).map(drop))
        }
        Holds::EvolvedStrategy => evolve::load(path, game).map(drop),
        Holds::LearnedStrategy => learned::ActionTable::load(path, game).map(drop),
        Holds::DuelTables | Holds::DuelShard => unreachable!("two-player tables are checked by duel::shard"),
        Holds::GameHistory => unreachable!("a history is made for no one game"),
    }
}
