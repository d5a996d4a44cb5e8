//! Where a played game's record is saved: never over a file that is not a record, and by
//! default never over an earlier game's record.

use std::path::{Path, PathBuf};

use super::{MAX_RECORD_BYTES, Record};

/// A save path that holds something other than a game record.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} exists and is not a game record ({reason}); give another --save path: a record never replaces \
     another file",
    path.display()
)]
pub struct NotARecord {
    /// The path.
    pub path: PathBuf,
    /// Why what is there is no record.
    pub reason: String,
}

/// Refuses `path` as the place to save a record if something other than a record (of
/// any game) is there; nothing there, or a record, may be replaced.
pub fn check_save_path(path: &Path) -> Result<(), NotARecord> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let not_a_record = |reason: String| NotARecord { path: path.to_owned(), reason };
    let text = crate::store::read_text(path, MAX_RECORD_BYTES as u64).map_err(|e| not_a_record(e.to_string()))?;
    Record::parse(&text).map(|_| ()).map_err(|e| not_a_record(e.to_string()))
}

/// `path` if nothing is there, else the first of `STEM-2.EXT`, `STEM-3.EXT`, … that is
/// free: a new game's default record never replaces an earlier game's.
pub fn unused_path(path: &Path) -> PathBuf {
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if !taken(path) {
        return path.to_owned();
    }
    let stem = path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let ext = path.extension().map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    (2u64..)
        .map(|n| path.with_file_name(format!("{stem}-{n}{ext}")))
        .find(|p| !taken(p))
        .expect("a free name among 2^64")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Rules};

    #[test]
    fn a_record_replaces_only_a_record_and_defaults_never_replace() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game.txt");
        check_save_path(&game).unwrap();
        assert_eq!(unused_path(&game), game);
        let record = Record::new(Game::first(Rules::OFFICIAL, 3).unwrap(), vec!["you".into()]).unwrap();
        std::fs::write(&game, record.to_text()).unwrap();
        check_save_path(&game).unwrap();
        assert_eq!(unused_path(&game), dir.path().join("game-2.txt"));
        std::fs::write(dir.path().join("game-2.txt"), "").unwrap();
        assert_eq!(unused_path(&game), dir.path().join("game-3.txt"));
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "my notes").unwrap();
        let refused = check_save_path(&notes).unwrap_err().to_string();
        assert!(refused.contains("notes.txt exists and is not a game record"), "{refused}");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
    }
}
