//! The memory each rank of a solve may use: the figure every sizing decision and the
//! streamed solve's blocks are measured against.

use serde::Serialize;

use crate::sys::RankMemory;

/// The memory of each rank of a solve, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// Given per rank (`--mem-per-rank`): every rank may use this many bytes, wherever it
    /// runs.
    PerRank(u64),
    /// A share of this machine's memory ([`crate::sys::rank_memory`]).
    Machine(RankMemory),
}

impl Budget {
    /// Bytes each rank may use.
    pub fn per_rank(self) -> u64 {
        match self {
            Budget::PerRank(bytes) => bytes,
            Budget::Machine(memory) => memory.per_rank,
        }
    }
}
