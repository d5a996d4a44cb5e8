//! What can go wrong reading or writing a store file.

use std::io;
use std::path::PathBuf;

use super::identity::IdentityError;
use crate::game::ScoreState;

/// What to do with a damaged file, as every message of damage ends: a reader that knows a
/// better remedy (a damaged shard is recomputed by a resume) shows [`StoreError::fault`].
const REMEDY: &str = "; delete it and produce it again";

/// Why a store file could not be written, opened or viewed.
///
/// Every variant names the file and says what was wrong and what was expected, in one
/// line, so the message can be shown to a user as it is.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The operating system refused an operation on the file or its directory.
    #[error("could not {action} {}: {source}", .path.display())]
    Io {
        /// The file or directory operated on.
        path: PathBuf,
        /// What was being done, e.g. "open" or "rename into place".
        action: &'static str,
        /// The underlying error.
        source: io::Error,
    },

    /// The path is not a regular file (a FIFO, a device, a directory): opening it could
    /// block or read something else, so it is refused before it is opened.
    #[error("{} is not a regular file but a {what}; yz reads regular files only", .path.display())]
    NotARegularFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        what: &'static str,
    },

    /// A file given from outside is larger than what it can hold.
    #[error("{} holds {len} bytes, more than the {max} such a file can", .path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The most accepted.
        max: u64,
    },

    /// The file does not start with the store magic bytes: it is not a yz store file.
    #[error("{} is not a yz store file (it does not start with the YZSTORE magic bytes)", .path.display())]
    NotAStoreFile {
        /// The file.
        path: PathBuf,
    },

    /// The file's byte-order mark reads swapped: it was written with big-endian numbers,
    /// which yz never reads.
    #[error(
        "store file {} holds big-endian numbers (its byte-order mark is swapped); yz reads little-endian \
         store files only: produce it again with yz on a little-endian machine",
        .path.display()
    )]
    ByteOrder {
        /// The file.
        path: PathBuf,
    },

    /// This host is big-endian: store payloads are little-endian numbers used in place.
    #[error(
        "cannot use store file {}: this machine is big-endian, and yz reads and writes its little-endian \
         tables in place, so it keeps them on little-endian machines only (x86-64, AArch64, RISC-V)",
        .path.display()
    )]
    BigEndianHost {
        /// The file.
        path: PathBuf,
    },

    /// The file was written in a format version this build of yz does not read.
    #[error(
        "store file {} has format version {found}, but this yz reads version {expected} (produce it again with this yz)",
        .path.display()
    )]
    VersionMismatch {
        /// The file.
        path: PathBuf,
        /// The version this build reads, [`FORMAT_VERSION`](super::FORMAT_VERSION).
        expected: u32,
        /// The version in the file.
        found: u32,
    },

    /// The file is a valid store file of another kind than the caller asked for.
    #[error("store file {} holds a {found:?}, but a {expected:?} was expected (wrong file?)", .path.display())]
    KindMismatch {
        /// The file.
        path: PathBuf,
        /// The kind the caller asked for.
        expected: String,
        /// The kind in the file's header.
        found: String,
    },

    /// The file's length differs from what its header implies: too short (a partial
    /// write or copy) or too long (bytes appended).
    #[error("{}", length_message(.path, *.expected, *.found))]
    Truncated {
        /// The file.
        path: PathBuf,
        /// The length the header implies or, when the file ends inside the header, the
        /// length needed to read the header that far.
        expected: u64,
        /// The file's actual length.
        found: u64,
    },

    /// The header fails its own hash, or a field in it is impossible.
    #[error("store file {} has a corrupted header ({detail}){REMEDY}", .path.display())]
    HeaderCorrupted {
        /// The file.
        path: PathBuf,
        /// Which check failed.
        detail: String,
    },

    /// A chunk of the payload does not match its stored hash.
    #[error(
        "store file {} is corrupted: payload chunk {chunk} does not match its hash{REMEDY}",
        .path.display()
    )]
    ChunkCorrupted {
        /// The file.
        path: PathBuf,
        /// Index of the first bad chunk (chunk `i` covers payload bytes from
        /// `i * chunk_size`).
        chunk: u64,
    },

    /// The chunk hash table does not match the hash of hashes stored after it.
    #[error(
        "store file {} is corrupted: its chunk hash table does not match its checksum{REMEDY}",
        .path.display()
    )]
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
    },

    /// The caller asked to write something the format cannot hold, or misused a
    /// [`StoreWriter`](super::StoreWriter).
    #[error("cannot write store file {}: {reason}", .path.display())]
    InvalidInput {
        /// The file that was to be written.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },

    /// The payload cannot be viewed as a slice of the requested type.
    #[error("the payload of store file {} ({len} bytes) cannot be viewed as [{type_name}]: {reason}", .path.display())]
    PayloadLayout {
        /// The file.
        path: PathBuf,
        /// The requested element type.
        type_name: &'static str,
        /// The payload length in bytes.
        len: usize,
        /// Why not.
        reason: &'static str,
    },
}

impl StoreError {
    /// The message without its remedy for damage ("delete it and produce it again"): what
    /// is wrong, for a reader that says what to do itself.
    pub fn fault(&self) -> String {
        self.to_string().replace(REMEDY, "")
    }
}

impl TableError {
    /// The message without its remedy for damage, as [`StoreError::fault`].
    pub fn fault(&self) -> String {
        self.to_string().replace(REMEDY, "")
    }
}

fn length_message(path: &std::path::Path, expected: u64, found: u64) -> String {
    let path = path.display();
    if found < expected {
        format!(
            "store file {path} is truncated: expected {expected} bytes, found {found} \
             (it may be a partial write{REMEDY})"
        )
    } else {
        format!(
            "store file {path} is too long: expected {expected} bytes, found {found} \
             (something was appended to it{REMEDY})"
        )
    }
}

/// Why a table (a solitaire or target table, a strategy) could not be read: the one error
/// of every table reader, whatever its kind.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file itself is unreadable, corrupt, truncated, or not a file of this kind.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A sound file made for another game or by another version.
    #[error(transparent)]
    Identity(#[from] IdentityError),
    /// A sound file (its checksums hold) whose contents are not what its header promises:
    /// damage the checksums cannot see, or a forgery.
    #[error("{} is corrupted: {what}{REMEDY}", .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the expected and found values.
        what: String,
    },
    /// A lookup of a state that cannot occur in the table's game.
    #[error("state {state:?} is not part of the game of table {}", .path.display())]
    UnknownState {
        /// The table file.
        path: PathBuf,
        /// The state asked for.
        state: ScoreState,
    },
}
