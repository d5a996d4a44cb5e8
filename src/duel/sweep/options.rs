//! What a solve does besides solving (where it starts and stops, what it writes, whether
//! it streams or runs on the GPU): given to the dispatcher ([`super::solve`]) and read by
//! the drivers below it.

use super::stream::Stream;
use crate::duel::{Space, shard};

/// What a solve does besides solving: where it starts, where it stops, what it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Continue from the last layer the manifest in the table directory lists (after
    /// checking every listed shard); start afresh where there is no manifest.
    pub resume: bool,
    /// The lowest layer to solve now (at least the space's first layer): a job can solve
    /// the last layers of a game, stop cleanly and be resumed later.
    pub stop_after: usize,
    /// Layers from this one on are written as shards; those below are solved and handed
    /// on but not kept (`0`: every layer; `usize::MAX`: none).
    pub write_from: usize,
    /// Replace tables of another game or scope found in the directory (else refused).
    pub force: bool,
    /// Most positions per shard of fresh tables ([`shard::shard_ranges`]); resumed tables
    /// keep the size their manifest records.
    pub shard_positions: u64,
    /// Whether the values carry the draw probability (`None`: where it fits, for a solve
    /// from the start; see [`crate::duel::sizing::setup::Sizing`]).
    pub draws: Option<bool>,
    /// Solve in blocks through scratch files within a memory budget
    /// ([`super::stream`]) instead of holding whole layers.
    pub stream: Option<Stream>,
    /// Solve on the GPU, layers held in memory and streamed ones alike (feature `gpu`; `f32`
    /// values without draws: [`SolveOptions::on_gpu`]); the files are the CPU's, bit for bit.
    pub gpu: bool,
}

impl SolveOptions {
    /// Every layer of `space`, all written in shards of the default size, from scratch.
    pub fn whole(space: &Space) -> SolveOptions {
        SolveOptions {
            resume: false,
            stop_after: space.first_layer(),
            write_from: 0,
            force: false,
            shard_positions: shard::SHARD_POSITIONS,
            draws: None,
            stream: None,
            gpu: false,
        }
    }
}
