//! Tables kept in a data directory under a name that follows from their game, solved the
//! first time anyone asks for them: the solitaire table and the target table.

use std::path::{Path, PathBuf};

use super::{Checksum, StoreError, TableError};
use crate::game::Game;
use crate::progress::Progress;

/// A table of one game, written once to a data directory and read many times.
pub trait DataTable: Sized {
    /// What the table's file names start with (`solo`, `targets`), and what logs call it.
    const STEM: &'static str;

    /// Solves `game` and writes its table to `path`, reporting to `progress`.
    fn solve_into(game: Game, path: &Path, progress: &dyn Progress) -> Result<Checksum, StoreError>;

    /// Opens the table at `path`, checked to be `game`'s.
    fn open(path: &Path, game: Game) -> Result<Self, TableError>;

    /// The file name of `game`'s table inside a data directory.
    fn file_name(game: Game) -> String {
        format!("{}.yzt", game.file_stem(Self::STEM))
    }
}

/// The data directory when none is named: `$YZ_DATA`, else `$XDG_DATA_HOME/yz`, else
/// `~/.local/share/yz`, else `./yz-data` (each variable counted only when set and not
/// empty). The command line, the server and the Python package all start from it.
pub fn default_data_dir() -> PathBuf {
    let env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("YZ_DATA")
        .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("yz")))
        .or_else(|| env("HOME").map(|h| h.join(".local/share/yz")))
        .unwrap_or_else(|| PathBuf::from("yz-data"))
}

/// The table of `game` in `data_dir`, solved and written first where there is none yet. A
/// table that is there but fails its checks is an error, never silently replaced.
pub fn open_or_solve<T: DataTable>(data_dir: &Path, game: Game, progress: &dyn Progress) -> Result<T, TableError> {
    let path = data_dir.join(T::file_name(game));
    if !path.exists() {
        tracing::info!(path = %path.display(), table = T::STEM, "no table yet; solving");
        let started = std::time::Instant::now();
        let checksum = T::solve_into(game, &path, progress)?;
        tracing::info!(path = %path.display(), %checksum, seconds = started.elapsed().as_secs_f64(), "wrote table");
    }
    T::open(&path, game)
}
