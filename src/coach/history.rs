//! Your games over time: a summary of each reviewed game (when, the rules, each player's
//! points and mean loss per decision), kept in one file of the data directory, oldest
//! first, the last [`MAX_ENTRIES`] at most.
//!
//! The file is a store file ([`crate::store`]) of kind [`KIND`]: a versioned header, the
//! entries as UTF-8 JSON (text, so no byte order arises), the checksums. It is read whole
//! and written anew, atomically, with each game added, under the exclusive lock of a file
//! beside it ([`LOCK_SUFFIX`]), so that writers in several processes (two servers on one
//! data directory) lose none of each other's games; a file that fails its checks is an
//! error and is never overwritten, so a damaged history is moved away by its owner, not
//! lost without a word.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::review::PlayerTotals;
use crate::game::Rules;
use crate::store::{self, FileKind, TableError};

/// History files. Version 1: the entries as a JSON list of [`HistoryEntry`].
pub const KIND: FileKind = FileKind {
    name: "game-history",
    version: 1,
    remedy: "move it away to start a new history",
    metadata_limit: 4 << 10,
};

/// The history's file name in a data directory.
pub const FILE_NAME: &str = "history.yzs";

/// What the history's lock file adds to its name: `history.yzs.lock`, held while a game is
/// added (the history itself is replaced by rename, so its own lock would not hold).
pub const LOCK_SUFFIX: &str = ".lock";

/// How long a writer waits for another's lock on the history (adding a game takes
/// milliseconds) before it gives up with an error.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Most games kept: adding one more drops the oldest.
pub const MAX_ENTRIES: usize = 1000;

/// Largest history file read: [`MAX_ENTRIES`] games of two players with the longest names
/// take less than half of it.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// One game of the history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// When it was added, in seconds since the Unix epoch.
    pub when: u64,
    /// The rule set's name.
    pub rules: String,
    /// Each player, in the record's order.
    pub players: Vec<PlayerSummary>,
}

/// One player's game, as the history keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerSummary {
    /// The player's name.
    pub name: String,
    /// Points on the card at the end of the record.
    pub points: u32,
    /// Decisions reviewed.
    pub decisions: usize,
    /// The mean loss per decision ([`PlayerTotals::mean_loss`]).
    pub mean_loss: f64,
}

impl HistoryEntry {
    /// The entry of a game under `rules` whose review found `players`, added at `when`.
    pub fn new(when: u64, rules: Rules, players: &[PlayerTotals]) -> HistoryEntry {
        let players = players
            .iter()
            .map(|p| PlayerSummary {
                name: p.name.clone(),
                points: p.points,
                decisions: p.decisions,
                mean_loss: p.mean_loss,
            })
            .collect();
        HistoryEntry { when, rules: rules.name().to_owned(), players }
    }
}

/// Why the history could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The file is there but is no sound history: unreadable, damaged, too large, another
    /// kind of file or another version.
    #[error("the history {} cannot be read: {fault}; move it away to start a new history", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        fault: String,
    },
    /// The history could not be written.
    #[error("the history could not be written: {0}")]
    Write(#[source] store::StoreError),
}

/// The history in `path`, oldest first; none where there is no file yet.
pub fn read(path: &Path) -> Result<Vec<HistoryEntry>, HistoryError> {
    let unreadable = |fault: String| HistoryError::Unreadable { path: path.to_owned(), fault };
    let len = match std::fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(unreadable(error.to_string())),
    };
    if len > MAX_FILE_BYTES {
        return Err(unreadable(format!("it holds {len} bytes, more than the {MAX_FILE_BYTES} a history can")));
    }
    // SAFETY: yz replaces a history by rename and never writes one in place.
    let file = unsafe { KIND.open_without_game::<TableError>(path) }.map_err(|e| unreadable(e.fault()))?;
    let entries: Vec<HistoryEntry> = serde_json::from_slice(file.payload())
        .map_err(|e| unreadable(format!("its entries are not a history's ({e})")))?;
    Ok(entries)
}

/// Adds `entry` to the history in `path` (made where there is none), dropping the oldest
/// beyond [`MAX_ENTRIES`], and returns the history now kept, oldest first. A history that
/// cannot be read is left as it is.
pub fn append(path: &Path, entry: HistoryEntry) -> Result<Vec<HistoryEntry>, HistoryError> {
    append_keeping(path, entry, MAX_ENTRIES)
}

/// `entries` with `entry` added, dropping the oldest beyond [`MAX_ENTRIES`]: the history
/// a page keeps in the browser, where there is no data directory, grows as the file does.
pub fn with_entry(entries: Vec<HistoryEntry>, entry: HistoryEntry) -> Vec<HistoryEntry> {
    keeping_last(entries, entry, MAX_ENTRIES)
}

/// `entries` with `entry` added, the last `most` of them.
fn keeping_last(mut entries: Vec<HistoryEntry>, entry: HistoryEntry, most: usize) -> Vec<HistoryEntry> {
    entries.push(entry);
    let excess = entries.len().saturating_sub(most);
    entries.drain(..excess);
    entries
}

/// [`append`], keeping the last `most` games.
fn append_keeping(path: &Path, entry: HistoryEntry, most: usize) -> Result<Vec<HistoryEntry>, HistoryError> {
    let _lock = lock(path)?;
    let entries = keeping_last(read(path)?, entry, most);
    let payload = serde_json::to_vec(&entries).expect("a history serialises");
    store::write_atomic(path, KIND.name, &KIND.metadata_without_game(), &payload).map_err(HistoryError::Write)?;
    Ok(entries)
}

/// The exclusive lock of the history at `path` (its lock file made where there is none),
/// held until the file returned is dropped.
fn lock(path: &Path) -> Result<std::fs::File, HistoryError> {
    let mut name = path.as_os_str().to_owned();
    name.push(LOCK_SUFFIX);
    let lock_path = PathBuf::from(name);
    let failed =
        |action, source| HistoryError::Write(store::StoreError::Io { path: lock_path.clone(), action, source });
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| failed("open", e))?;
    match store::lock_exclusive(&file, LOCK_WAIT, || {}) {
        Ok(true) => Ok(file),
        Ok(false) => Err(failed("lock", std::io::Error::new(std::io::ErrorKind::WouldBlock, "held by another writer"))),
        Err(e) => Err(failed("lock", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(when: u64) -> HistoryEntry {
        let ann = PlayerTotals { name: "ann".into(), decisions: 39, total_loss: 3.9, mean_loss: 0.1, points: 250 };
        HistoryEntry::new(when, Rules::OFFICIAL, &[ann])
    }

    #[test]
    fn games_are_kept_in_order_and_the_oldest_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        assert_eq!(read(&path).unwrap(), Vec::new());
        append(&path, entry(1)).unwrap();
        assert_eq!(append(&path, entry(2)).unwrap(), vec![entry(1), entry(2)]);
        assert_eq!(read(&path).unwrap(), vec![entry(1), entry(2)]);
        for when in 3..=7 {
            append_keeping(&path, entry(when), 4).unwrap();
        }
        let kept: Vec<u64> = read(&path).unwrap().iter().map(|e| e.when).collect();
        assert_eq!(kept, [4, 5, 6, 7]);
        // A whole history of the longest names fits the file limit with room to spare.
        let longest =
            PlayerTotals { name: "n".repeat(32), decisions: 39, total_loss: 1.0, mean_loss: 1.0, points: 1575 };
        let game = HistoryEntry::new(u64::MAX, Rules::OFFICIAL, &[longest.clone(), longest]);
        let whole = serde_json::to_vec(&vec![game; MAX_ENTRIES]).unwrap();
        assert!((whole.len() as u64) < MAX_FILE_BYTES / 2, "{}", whole.len());
    }

    /// Writers adding games at once, each through its own open file (as two servers on one
    /// data directory do), keep every game: none reads the history while another writes.
    #[test]
    fn concurrent_writers_lose_no_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let (writers, each) = (8u64, 10u64);
        std::thread::scope(|scope| {
            for w in 0..writers {
                let path = &path;
                scope.spawn(move || {
                    for i in 0..each {
                        append(path, entry(w * each + i)).unwrap();
                    }
                });
            }
        });
        let mut kept: Vec<u64> = read(&path).unwrap().iter().map(|e| e.when).collect();
        kept.sort_unstable();
        assert_eq!(kept, (0..writers * each).collect::<Vec<_>>());
    }

    #[test]
    fn a_damaged_history_is_an_error_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        append(&path, entry(1)).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 20;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        for error in [read(&path).unwrap_err(), append(&path, entry(2)).unwrap_err()] {
            let message = error.to_string();
            assert!(message.contains("cannot be read") && message.contains("move it away"), "{message}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "left as it was");
        std::fs::write(&path, vec![b'x'; MAX_FILE_BYTES as usize + 1]).unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("more than the"));
        // A sound store file of another kind, or a history whose entries are not JSON.
        store::write_atomic(&path, "solo-table", &KIND.metadata_without_game(), b"[]").unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("solo-table"));
        store::write_atomic(&path, KIND.name, &KIND.metadata_without_game(), b"[{").unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("not a history's"));
    }
}
