//! The disk a solve needs, checked before it starts: the most its tables and scratch hold
//! at once ([`Plan::peak_disk_bytes`]), less what is already there (a resume), against the
//! space free on the file systems that hold them.

use std::io;
use std::path::{Path, PathBuf};

use super::plan::{EXCHANGE_COMPRESSION, Plan};
use crate::duel::units::gib;

/// A solve whose tables and scratch do not fit the disk free for them.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{what} need about {needed_gib:.1} GiB more disk at once (planned at zstd ratio {EXCHANGE_COMPRESSION}), \
     but {free_gib:.1} GiB are free on {}; free some space, give --scratch on another disk, or solve fewer \
     layers (--max-empty, --stop-after-layer); `yz duel plan` gives the disk of each layer",
    path.display()
)]
pub struct DiskTooSmall {
    /// What needs the space: "the tables and scratch", "the tables" or "the scratch".
    pub what: &'static str,
    /// Bytes still needed.
    pub needed: u64,
    /// The same in GiB.
    pub needed_gib: f64,
    /// Bytes free there.
    pub free: u64,
    /// The same in GiB.
    pub free_gib: f64,
    /// The directory checked.
    pub path: PathBuf,
}

/// Why the disk could not be checked or does not suffice.
#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    /// The solve does not fit.
    #[error(transparent)]
    TooSmall(#[from] DiskTooSmall),
    /// The free space of a directory could not be read.
    #[error("reading the free space of {}: {source}", path.display())]
    Unreadable {
        /// The directory.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
}

/// Checks that the solve `plan` fits the disk: its tables go to `dir` and, where it
/// streams, its scratch files to `scratch`. Files already under either (a resume) count
/// toward what is needed. Where both are on one file system, the most they hold together
/// must fit it; else each its own.
pub fn check_disk(plan: &Plan, dir: &Path, scratch: Option<&Path>) -> Result<(), DiskError> {
    let (free, device) = free_space(dir)?;
    let present_dir = bytes_under(dir);
    let scratch = scratch.filter(|_| plan.scratch_bytes > 0);
    let Some(scratch) = scratch else {
        return fits("the tables", plan.peak_disk_bytes, present_dir, free, dir);
    };
    let (scratch_free, scratch_device) = free_space(scratch)?;
    let present_scratch = if scratch.starts_with(dir) { 0 } else { bytes_under(scratch) };
    if scratch_device == device {
        return fits("the tables and scratch", plan.peak_disk_bytes, present_dir + present_scratch, free, dir);
    }
    fits("the tables", plan.disk_bytes(), present_dir, free, dir)?;
    fits("the scratch", plan.scratch_bytes, present_scratch, scratch_free, scratch)
}

fn fits(what: &'static str, peak: u64, present: u64, free: u64, path: &Path) -> Result<(), DiskError> {
    let needed = peak.saturating_sub(present);
    if needed <= free {
        return Ok(());
    }
    let (needed_gib, free_gib) = (gib(needed), gib(free));
    Err(DiskTooSmall { what, needed, needed_gib, free, free_gib, path: path.to_owned() }.into())
}

/// Bytes free to this user on the file system of `path` (or of its nearest existing
/// ancestor, for a directory not made yet), and that file system's device number
/// ([`crate::sys::free_disk`]).
pub fn free_space(path: &Path) -> Result<(u64, u64), DiskError> {
    crate::sys::free_disk(path).map_err(|source| DiskError::Unreadable { path: path.to_owned(), source })
}

/// Bytes of the files under `path` (none if it does not exist), links not followed.
fn bytes_under(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => bytes_under(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::sizing::count::count_layers;
    use crate::duel::sizing::plan::{PLAIN_VALUE_BYTES, PlanSpec, plan};
    use crate::duel::{Cards, Space};
    use crate::game::{Game, Rules};

    fn first_five() -> Plan {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 5).unwrap());
        let counts = count_layers(&Space::whole_game(&cards));
        plan(&counts, 5, PlanSpec { ranks: 1, value_bytes: PLAIN_VALUE_BYTES, write_from: 0 })
    }

    /// A solve that fits passes; one whose peak is over the free space is refused with
    /// both figures, even for a directory not made yet; files already there (a resume)
    /// count toward it.
    #[test]
    fn a_solve_over_the_free_disk_is_refused_with_the_figures() {
        let dir = tempfile::tempdir().unwrap();
        let planned = first_five();
        assert!(planned.peak_disk_bytes > 0);
        check_disk(&planned, dir.path(), None).unwrap();
        let (free, _) = free_space(dir.path()).unwrap();
        let huge = Plan { peak_disk_bytes: free + (1 << 40), ..planned.clone() };
        match check_disk(&huge, &dir.path().join("not/made/yet"), None) {
            Err(DiskError::TooSmall(e)) => {
                assert!(e.needed > e.free && e.free > 0, "{e:?}");
                assert!(e.to_string().contains("GiB more disk"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        // What is there already counts: 100 bytes at peak, 40 there, 60 free fits; 59 not.
        fits("the tables", 100, 40, 60, dir.path()).unwrap();
        assert!(fits("the tables", 100, 40, 59, dir.path()).is_err());
    }

    #[test]
    fn files_under_a_directory_are_summed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a"), [0u8; 10]).unwrap();
        std::fs::write(dir.path().join("sub/b"), [0u8; 7]).unwrap();
        assert_eq!(bytes_under(dir.path()), 17);
        assert_eq!(bytes_under(&dir.path().join("missing")), 0);
    }
}
