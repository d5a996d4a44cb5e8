//! Why a solve over ranks stops, and how a part of the exchange after a layer was found
//! damaged.

use serde::{Deserialize, Serialize};

use super::budget::Budget;
use super::ranks::RanksError;
use crate::duel::shard::ShardError;
use crate::duel::units::size;
use crate::sys::RankMemory;

/// Why a distributed solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A table file could not be written or read, or does not verify.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The ranks could not pass what they must.
    #[error("exchange between ranks failed: {0}")]
    Ranks(#[from] RanksError),
    /// Values could not be compressed to be sent or written.
    #[error("compressing {what}: {source}")]
    Compress {
        /// What was compressed.
        what: String,
        /// The compressor's error.
        #[source]
        source: std::io::Error,
    },
    /// A record the ranks shared does not read back.
    #[error("the {what} the ranks shared do not read back: {source}")]
    Record {
        /// What the record holds.
        what: &'static str,
        /// Why it does not read.
        #[source]
        source: serde_json::Error,
    },
    /// The manifest rank 0 shared does not read back.
    #[error("the manifest rank 0 shared does not read back: {0}")]
    SharedManifest(String),
    /// The thread writing shards stopped before its work was done.
    #[error("the shard writer stopped before the layer's shards were written")]
    WriterStopped,
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
    Budget(#[from] BelowFloor),
    /// The GPU could not be opened or failed, or was asked for what it does not do.
    #[error("GPU: {0}")]
    Gpu(String),
    /// Whoever asked for the solve has gone (a client that hung up), so it stopped.
    #[error("the solve was cancelled: whoever asked for it has gone")]
    Cancelled,
    /// Another rank failed (rank 0 reports it, with that rank's message).
    #[error("rank {rank} stopped: {reason}")]
    RankStopped {
        /// The rank that failed.
        rank: usize,
        /// Its error, in words.
        reason: String,
    },
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

/// Why a streamed solve cannot run in its budget.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "this streamed solve needs at least {} ({needed} bytes) a rank for layer {layer}: twice one row and one column of \
     it, cut at shard boundaries, besides the per-card tables; {} in all at {ranks} rank(s), but {}",
    size(*needed),
    size(needed * ranks),
    match budget {
        Budget::PerRank(bytes) => {
            format!("--mem-per-rank gives each rank {} ({} in all); give at least that", size(*bytes), size(bytes * ranks))
        }
        Budget::Machine(RankMemory { machine, per_rank, ranks_here }) => format!(
            "this machine has {} available ({} for each of its {ranks_here} rank(s)); run where each rank has at least \
             that",
            size(*machine),
            size(*per_rank)
        ),
    }
)]
pub struct BelowFloor {
    /// The ranks of the solve.
    pub ranks: u64,
    /// The memory of each rank.
    pub budget: Budget,
    /// The least budget that streams every pass.
    pub needed: u64,
    /// The same in GiB.
    pub needed_gib: f64,
    /// The layer whose block needs it.
    pub layer: usize,
}

impl BelowFloor {
    /// The refusal of `ranks` ranks of `budget` each, where layer `layer` needs `needed`
    /// bytes a rank.
    pub fn new(ranks: u64, budget: Budget, needed: u64, layer: usize) -> BelowFloor {
        BelowFloor { ranks, budget, needed, needed_gib: needed as f64 / (1u64 << 30) as f64, layer }
    }
}
