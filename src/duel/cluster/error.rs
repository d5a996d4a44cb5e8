//! Why a solve over ranks stops, and how a part of the exchange after a layer was found
//! damaged.

use serde::{Deserialize, Serialize};

use crate::duel::shard::ShardError;

/// Why a distributed solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A table file could not be written or read, or does not verify.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The ranks could not exchange what they must.
    #[error("exchange between ranks failed: {0}")]
    Exchange(String),
    /// `--resume` found tables it cannot continue.
    #[error("cannot resume in {dir}: {reason}")]
    Resume {
        /// The table directory.
        dir: String,
        /// Why not.
        reason: String,
    },
    /// The table directory holds other tables, which a fresh solve would replace.
    #[error("{dir} holds {what}; choose another --out, --resume to continue them, or --force to replace them")]
    Overwrite {
        /// The table directory.
        dir: String,
        /// What it holds.
        what: String,
    },
    /// A streamed solve's scratch directory that is not its own to use.
    #[error("scratch directory {scratch}: {reason}")]
    Scratch {
        /// The directory.
        scratch: String,
        /// Why it is refused: what it is, and what to give instead.
        reason: String,
    },
    /// A scratch file the streamed solve reads is damaged. The tables are sound; the rows
    /// the file held are solved again from them.
    #[error(
        "scratch file {path} is damaged ({reason}); the tables are sound: remove the scratch directory {scratch} \
         and run the same command with --resume, which solves the streamed layers again from the lowest layer the \
         tables list"
    )]
    DamagedScratch {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
        /// The scratch directory to remove.
        scratch: String,
    },
    /// Another solve is writing into the table directory.
    #[error(
        "another yz solve is writing into {dir} (it holds the directory's lock); wait for it, or choose another --out"
    )]
    Busy {
        /// The table directory.
        dir: String,
    },
    /// A part of the all-to-all after a layer arrived damaged (a fault in memory, on the
    /// network or in a codec between the two ranks). Nothing of the layer was written: the
    /// tables keep the layers finished before it, and `--resume` continues from them.
    #[error(
        "layer {layer}: the part rank {from} sent to rank {to} arrived damaged ({damage}); the tables keep the \
         layers finished before it, and --resume continues from them"
    )]
    DamagedPart {
        /// The layer whose values were exchanged.
        layer: usize,
        /// The sending rank.
        from: usize,
        /// The receiving rank, which found the damage.
        to: usize,
        /// What was wrong.
        damage: Damage,
    },
    /// A streamed solve's memory per rank is below what its blocks need.
    #[error(transparent)]
    Budget(#[from] super::stream::BelowFloor),
    /// The tables and scratch do not fit the disk free for them (checked up front).
    #[error(transparent)]
    Disk(#[from] super::disk::DiskError),
    /// The GPU could not be opened or failed, or was asked for what it does not do.
    #[error("GPU: {0}")]
    Gpu(String),
    /// Whoever asked for the solve has gone (a client that hung up), so it stopped.
    #[error("the solve was cancelled: whoever asked for it has gone")]
    Cancelled,
    /// Rank 0 stopped the solve (its own error says why).
    #[error("rank 0 stopped the solve; its message says why")]
    StoppedByRankZero,
}

impl From<crate::store::StoreError> for ClusterError {
    fn from(error: crate::store::StoreError) -> ClusterError {
        ClusterError::Shard(error.into())
    }
}

/// How a part of the all-to-all after a layer was found damaged on arrival: each part
/// carries the xxh3-64 of its values, which the receiver checks after decompressing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum Damage {
    /// The part decompressed, but to values whose checksum is not the sender's.
    #[error("checksum {found:#018x}, expected {expected:#018x}")]
    Checksum {
        /// The xxh3-64 of the values received.
        found: u64,
        /// The sender's, sent with them.
        expected: u64,
    },
    /// The part decompressed to another number of bytes than the receiver expects.
    #[error("{found} bytes of values, expected {expected}")]
    Size {
        /// Bytes decompressed.
        found: usize,
        /// Bytes expected.
        expected: usize,
    },
    /// The part is too short to hold its checksum.
    #[error("{bytes} bytes, too few to hold a checksum")]
    Short {
        /// Bytes received.
        bytes: usize,
    },
    /// The part does not decompress.
    #[error("it does not decompress: {0}")]
    Unreadable(String),
}
