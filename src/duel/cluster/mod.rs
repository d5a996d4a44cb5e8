//! The two-player solve spread over ranks (MPI processes, or one process alone): partition,
//! exchange, shard writing, resume, and the check that the launcher started what it meant to.
//! [`setup`] checks a solve's options and sizes its memory before it runs.
//!
//! Every duel solve runs one layer loop, `sweep`: whole layers in memory (`memory`: over
//! ranks, or one process handing each layer to a function, [`solve_layers`]), streamed
//! through scratch files ([`stream`]), or a damaged shard's rows recomputed (`repair`).
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
//! # Layout
//!
//! No rank holds a structure with an entry per pair of a whole layer (the full game's
//! largest layers have 6e9 pairs). A rank builds the per-card [`crate::duel::LayerShape`]
//! (cards, one row start per mover), the [`partition::RankShares`] (a few numbers per rank
//! and shard), and two [`crate::duel::Tile`]s per layer: the pairs it computes and the rows
//! it keeps, `1/P` of the layer's pairs each. Row lengths and rank loads are summed over
//! bound classes. [`rehearse`] builds one rank's structures without values, to measure them.
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
//! # Shards
//!
//! Shards are fixed mover ranges of a layer, or pieces of one long row
//! ([`crate::duel::shard::shard_ranges`]), which do not depend on the number of ranks; a
//! shard is written whole by the rank that holds most of its rows
//! ([`partition::shard_owners`]; every piece of a row by the rank that keeps the row),
//! which also receives that shard's other rows in the same all-to-all. The files are therefore bit-identical for any number of
//! ranks. Rank 0 adds a layer to the manifest only once every rank reported its shards of
//! that layer written, so the manifest never lists a file that is not complete.
//!
//! # Overlap
//!
//! A background writer thread (fed over a crossbeam channel) compresses and writes a
//! layer's shards while the next layer is computed; the manifest follows one layer behind.
//! The exchange itself is not overlapped with computing: it is a few percent of a layer's
//! time or less (`scripts/bench-mpi` prints both), since a layer's turns cost thousands of
//! lane updates per value and the exchange moves each value once.
//!
//! # Failures
//!
//! `--resume` continues from the last layer the manifest lists, after every listed shard
//! was checked (split over the ranks); a layer that was being written when the job stopped
//! is solved again (so is one whose exchange found a damaged slice). A rank that fails reports its rank and the reason, and the MPI job is
//! aborted (see `cluster::mpi` in builds with the `mpi` feature).

pub mod costs;
pub mod disk;
mod error;
pub mod estimate;
mod exchange;
mod kernel;
pub mod launch;
mod memory;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
pub mod ranks;
pub mod rehearse;
mod repair;
mod report;
mod scratch;
pub mod setup;
mod shards;
pub mod solve;
mod start;
pub mod stream;
mod sweep;

pub use error::{ClusterError, Damage};
pub use memory::{solve_layers, solve_layers_on, solve_layers_until};
pub use ranks::{Alone, Ranks};
pub use report::{SolveReport, StartValue};
pub use solve::{LayerReport, Outcome, SolveOptions, solve_tables};
pub use start::resumed_game;
