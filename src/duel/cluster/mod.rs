//! The ranks of a two-player solve (MPI processes, threads standing in for them in tests,
//! or one process alone) and what passes between them: the partition of each layer, the
//! exchange of values after it, the rank-0-decides protocol every agreement goes through,
//! the memory each rank may use, the check that the launcher started what it meant to,
//! and why a solve over ranks stops. The layer loop that runs on them is
//! [`crate::duel::sweep`]; sizing a solve before it runs, [`crate::duel::sizing`].
//!
//! # Partition
//!
//! A pair (A, B) of layer `t` reads only pairs of layer `t + 1` whose mover is B (every
//! successor of a turn of A hands the move to B), and a layer is stored mover by mover.
//! So rank `r` computes, in layer `t`, the pairs whose **opponent** lies in a range
//! `columns[r]` of the layer's opponent cards (balanced by kernel work:
//! [`partition::compute_bounds`]), reading only the **rows** (movers) of layer `t + 1` for
//! those cards, which it holds. Every rank computes every mover against its own opponents,
//! so each pair is computed alone exactly as in the single-process solve and the values do
//! not depend on the number of ranks.
//!
//! # Exchange
//!
//! After the layer, its values sit in blocks by opponent range while the layer before needs
//! them by mover. One all-to-all (in pieces of at most a set size, see [`Ranks`])
//! transposes them: the rows are split into ranges
//! ([`partition::row_bounds`]: the opponent ranges of layer `t − 1`, since its opponents are
//! layer `t`'s movers), and each rank sends every other rank the slice of its block for
//! that rank's rows (one contiguous slice, zstd-compressed), then assembles its rows from
//! all the slices. Each rank then holds exactly the rows its part of the next layer reads,
//! plus the rows of the shards it writes.
//!
//! Each slice carries the xxh3-64 of its values, computed by the sender before compression
//! and checked by the receiver after decompression, so that a fault in memory, on the
//! network or in the codec cannot reach the tables (whose own checksums are computed
//! later, over whatever arrived): one more pass over bytes that zstd reads anyway. A
//! damaged slice stops every rank together (rank 0 learns of it and tells the others)
//! before anything of the layer is written, naming the layer and both ranks.
//!
//! # Failures
//!
//! `--resume` continues from the last layer the manifest lists, after every listed shard
//! was checked (split over the ranks); a layer that was being written when the job stopped
//! is solved again (so is one whose exchange found a damaged slice). A rank that fails
//! reports its rank and the reason, and the MPI job is aborted (see `mpi` in builds with
//! the `mpi` feature).

pub mod budget;
pub mod error;
pub(crate) mod exchange;
pub mod launch;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
pub mod ranks;

pub use error::{ClusterError, Damage};
pub use ranks::{Alone, Ranks};
