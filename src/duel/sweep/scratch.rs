//! A streamed solve's scratch directory, owned by one solve at a time.
//!
//! Rank 0 claims the directory before anything is solved: it refuses a symbolic link, the
//! table directory itself, and a directory holding files that are not a solve's scratch;
//! it takes the directory's advisory lock (`flock`) for as long as the solve runs, so that
//! a second solve on it is refused, naming the first; and it writes an owner record
//! ([`OWNER_FILE`]) naming the tables the scratch belongs to. The record stays when a solve
//! is killed, so that only a resume of the same tables continues from the scratch, and it
//! goes with the directory when the solve finishes. Within a claimed directory the solve
//! removes only its own block files.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::duel::cluster::error::ClusterError;
use crate::duel::shard::{self, ShardError};
use crate::store::{self, StoreFile};

/// The owner record's file name in the scratch directory.
pub const OWNER_FILE: &str = "owner.yzs";
/// The owner record's store kind.
const OWNER_KIND: &str = "duel-scratch-owner";
/// How long a solve waits for another holder of the scratch's lock (a killed job's
/// processes ending).
const SCRATCH_LOCK_WAIT: Duration = Duration::from_secs(10);

/// Who a scratch directory belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Owner {
    /// The table directory of the solve (canonical).
    tables: PathBuf,
    /// The process that claimed it last.
    pid: u32,
    /// The machine it ran on.
    host: String,
    /// When it claimed it, in seconds since 1970.
    claimed_unix: u64,
}

impl Owner {
    fn describe(&self) -> String {
        format!("the solve into {} (process {} on {})", self.tables.display(), self.pid, self.host)
    }
}

/// A scratch directory claimed by this solve: its lock, held while this lives.
#[derive(Debug)]
pub(super) struct ScratchClaim {
    scratch: PathBuf,
    _lock: File,
}

impl ScratchClaim {
    /// The solve finished: its block files go (a run killed once its last layer was listed,
    /// then resumed, never reaches the end of a pass that removes them), and the temporary
    /// files of writers killed mid-write, then the owner record, and the directory with it
    /// where nothing else is left in it (a directory the user gave, holding other files,
    /// stays). Called once every rank has written its last file.
    pub(super) fn release(self) -> Result<(), ClusterError> {
        remove_scratch_files(&self.scratch, |name| is_block_file(name, None))?;
        store::remove_stale_temp_files(&self.scratch).map_err(|source| {
            ClusterError::Shard(ShardError::from(store::StoreError::Io {
                path: self.scratch.clone(),
                action: "clean",
                source,
            }))
        })?;
        self.remove_record();
        tracing::info!(scratch = %self.scratch.display(), "solve finished; scratch removed");
        Ok(())
    }

    fn remove_record(&self) {
        let _ = std::fs::remove_file(self.scratch.join(OWNER_FILE));
        let _ = std::fs::remove_dir(&self.scratch);
    }
}

impl Drop for ScratchClaim {
    /// A solve that stopped (an error, or a panic) keeps its claim only where its scratch
    /// holds block files a resume would continue from; a solve refused before it wrote any
    /// leaves the directory unclaimed.
    fn drop(&mut self) {
        let holds_blocks = std::fs::read_dir(&self.scratch)
            .is_ok_and(|entries| entries.flatten().any(|e| is_block_file(&e.file_name().to_string_lossy(), None)));
        if !holds_blocks {
            self.remove_record();
        }
    }
}

/// Claims `scratch` for the streamed solve into the table directory `dir` (see the
/// module's docs), creating it where missing.
pub(super) fn claim_scratch(scratch: &Path, dir: &Path) -> Result<ScratchClaim, ClusterError> {
    let refuse = |reason: String| ClusterError::Scratch { scratch: scratch.display().to_string(), reason };
    let io = |action: &'static str| {
        move |e: std::io::Error| ClusterError::Scratch {
            scratch: scratch.display().to_string(),
            reason: format!("cannot {action}: {e}"),
        }
    };
    match std::fs::symlink_metadata(scratch) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(refuse("is a symbolic link; give a real directory of its own (--scratch DIR)".into()));
        }
        Ok(meta) if !meta.is_dir() => return Err(refuse("is not a directory; give a directory of its own".into())),
        _ => {}
    }
    std::fs::create_dir_all(scratch).map_err(io("create it"))?;
    let (real_scratch, real_dir) =
        (scratch.canonicalize().map_err(io("resolve it"))?, dir.canonicalize().map_err(io("resolve the tables"))?);
    if real_scratch == real_dir {
        return Err(refuse(
            "is the table directory: the solve would mix its scratch with its tables; give a directory of its own \
             (by default a `scratch` directory inside the table directory)"
                .into(),
        ));
    }
    let owner_path = scratch.join(OWNER_FILE);
    let owner = read_owner(&owner_path);
    let lock = match lock_dir(scratch, SCRATCH_LOCK_WAIT) {
        Ok(lock) => lock,
        Err(ClusterError::Busy { .. }) => {
            let who = owner.as_ref().map_or_else(|| "another solve".to_owned(), Owner::describe);
            return Err(refuse(format!("is in use by {who}; wait for it, or give another --scratch")));
        }
        Err(e) => return Err(e),
    };
    match owner {
        Some(owner) if owner.tables != real_dir => {
            return Err(refuse(format!(
                "holds the scratch of {}, stopped before it finished; resume that solve (--resume), or remove the \
                 directory if it is no longer wanted, or give another --scratch",
                owner.describe()
            )));
        }
        Some(_) => {}
        None => {
            let foreign = foreign_files(scratch).map_err(io("list it"))?;
            if !foreign.is_empty() {
                return Err(refuse(format!(
                    "holds files that are not a yz solve's scratch ({}); give an empty or new directory",
                    foreign.join(", ")
                )));
            }
        }
    }
    let claimed_unix = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let owner = Owner { tables: real_dir, pid: std::process::id(), host: host_name(), claimed_unix };
    let metadata = serde_json::to_value(&owner).expect("an owner record serialises");
    store::write_atomic(&owner_path, OWNER_KIND, &metadata, &[])
        .map_err(|e| refuse(format!("cannot write its owner record: {e}")))?;
    Ok(ScratchClaim { scratch: scratch.to_owned(), _lock: lock })
}

/// The owner record at `path`, where there is a sound one.
fn read_owner(path: &Path) -> Option<Owner> {
    // SAFETY: the record is written by rename and never in place.
    let file = unsafe { StoreFile::open(path, OWNER_KIND) }.ok()?;
    serde_json::from_value(file.metadata().clone()).ok()
}

/// Up to three names in `scratch` that a streamed solve does not write (its block files
/// and temporary files are its own).
fn foreign_files(scratch: &Path) -> std::io::Result<Vec<String>> {
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(scratch)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !(is_block_file(&name, None) || store::is_temp_name(&name) || name == OWNER_FILE) {
            foreign.push(name);
        }
    }
    foreign.sort();
    foreign.truncate(3);
    Ok(foreign)
}

/// This machine's name, for an owner record.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map_or_else(|_| "this machine".to_owned(), |h| h.trim().to_owned())
}

/// Creates the table directory if needed and takes its advisory lock (`flock`), waiting
/// up to `wait` for another holder to let go, so that a second solve into the same
/// directory is refused instead of mixing files; the lock goes with the returned file.
pub(super) fn lock_dir(dir: &Path, wait: Duration) -> Result<std::fs::File, ClusterError> {
    let io = |action: &'static str| {
        move |source| ShardError::from(store::StoreError::Io { path: dir.to_owned(), action, source })
    };
    std::fs::create_dir_all(dir).map_err(io("create"))?;
    let file = std::fs::File::open(dir).map_err(io("open"))?;
    let waiting = || tracing::info!(dir = %dir.display(), "waiting for another writer's lock on the table directory");
    if store::lock_exclusive(&file, wait, waiting).map_err(io("lock"))? {
        Ok(file)
    } else {
        Err(ClusterError::Busy { dir: dir.display().to_string() })
    }
}

/// The file of block `block` of the pass reading layer `upper`: its frames of layer
/// `upper − 1`, then its done record.
pub(super) fn block_file(scratch: &Path, upper: usize, block: usize) -> PathBuf {
    scratch.join(format!("block-{upper:02}-{block:06}.yzs"))
}

/// Removes the scratch files of the streamed solve whose names `doomed` picks (among its
/// own: a caller's `doomed` never picks a name that is not a block file's).
pub(super) fn remove_scratch_files(scratch: &Path, doomed: impl Fn(&str) -> bool) -> Result<(), ClusterError> {
    let list_error =
        |source| ShardError::from(store::StoreError::Io { path: scratch.to_owned(), action: "list", source });
    for entry in std::fs::read_dir(scratch).map_err(list_error)? {
        let name = entry.map_err(list_error)?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".yzs") && doomed(&name) {
            shard::remove_file(&scratch.join(name)).map_err(ShardError::from)?;
        }
    }
    Ok(())
}

/// Whether `name` is the name of a block file of the pass reading layer `upper` (any pass
/// for `None`).
pub(super) fn is_block_file(name: &str, upper: Option<usize>) -> bool {
    let Some(rest) = name.strip_prefix("block-").and_then(|r| r.strip_suffix(".yzs")) else { return false };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    match rest.split_once('-') {
        Some((layer, block)) => digits(layer, 2) && digits(block, 6) && upper.is_none_or(|u| layer.parse() == Ok(u)),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory is refused where it is a link, the table directory, another
    /// solve's (locked, or stopped with finished blocks and its owner record), or a
    /// directory of other files; a solve stopped before any block leaves it unclaimed; its
    /// own solve's resume reclaims it, and a finished solve's release removes it.
    #[test]
    fn a_scratch_directory_is_claimed_by_one_solve() {
        let root = tempfile::tempdir().unwrap();
        let (tables, other) = (root.path().join("tables"), root.path().join("other"));
        std::fs::create_dir_all(&tables).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let scratch = tables.join("scratch");
        let reason = |result: Result<ScratchClaim, ClusterError>| result.unwrap_err().to_string();

        assert!(reason(claim_scratch(&tables, &tables)).contains("is the table directory"));
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert!(reason(claim_scratch(&link, &tables)).contains("symbolic link"));
        std::fs::write(other.join("history.yzs"), b"a user's file").unwrap();
        let refused = reason(claim_scratch(&other, &tables));
        assert!(refused.contains("not a yz solve's scratch (history.yzs)"), "{refused}");
        assert!(other.join("history.yzs").exists());

        let claim = claim_scratch(&scratch, &tables).unwrap();
        let busy = reason(claim_scratch(&scratch, &other));
        assert!(busy.contains("is in use by the solve into") && busy.contains("tables"), "{busy}");
        drop(claim); // stopped before it wrote a block: unclaimed
        assert!(!scratch.exists());
        let claim = claim_scratch(&scratch, &tables).unwrap();
        std::fs::write(scratch.join("block-07-000003.yzs"), b"a finished block").unwrap();
        drop(claim); // stopped with a finished block: the record stays
        let stopped = reason(claim_scratch(&scratch, &other));
        assert!(stopped.contains("stopped before it finished") && stopped.contains("--resume"), "{stopped}");
        let again = claim_scratch(&scratch, &tables).unwrap();
        std::fs::write(scratch.join(".block-07-000004.yzs.tmp.4242.0"), b"a killed write").unwrap();
        again.release().unwrap(); // its block and temporary files go with it

        assert!(!scratch.exists(), "a finished solve's scratch goes");
        claim_scratch(&scratch, &other).unwrap().release().unwrap();
    }
}
