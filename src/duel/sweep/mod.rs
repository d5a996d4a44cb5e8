//! The two-player solve's layer loop, from the last layer down: whole layers in memory
//! (`memory`: over ranks, or one process handing each layer to a function,
//! [`solve_layers`]), streamed through scratch files ([`stream`]), or a damaged shard's
//! rows recomputed (`repair`), all driven by one loop (`driver`) over the ranks of
//! [`crate::duel::cluster`] (one process alone is [`crate::duel::cluster::Alone`]).
//! [`solve_tables`] dispatches a solve to its frontiers, writes the shards and the
//! manifest, and resumes a stopped one.
//!
//! # Layout
//!
//! No rank holds a structure with an entry per pair of a whole layer (the full game's
//! largest layers have 6e9 pairs). A rank builds the per-card [`crate::duel::LayerShape`]
//! (cards, one row start per mover), the [`RankShares`](crate::duel::cluster::partition::RankShares)
//! (a few numbers per rank and shard), and two [`crate::duel::Tile`]s per layer: the pairs
//! it computes and the rows it keeps, `1/P` of the layer's pairs each. Row lengths and rank
//! loads are summed over bound classes. [`crate::duel::sizing::rehearse`] builds one rank's
//! structures without values, to measure them.
//!
//! # Shards
//!
//! Shards are fixed mover ranges of a layer, or pieces of one long row
//! ([`crate::duel::shard::shard_ranges`]), which do not depend on the number of ranks; a
//! shard is written whole by the rank that holds most of its rows
//! ([`shard_owners`](crate::duel::cluster::partition::shard_owners); every piece of a row
//! by the rank that keeps the row), which also receives that shard's other rows in the same
//! all-to-all. The files are therefore bit-identical for any number of ranks. Rank 0 adds a layer to the manifest only once every rank reported its shards of
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
//! How the ranks split a layer and exchange its values: [`crate::duel::cluster`].

mod driver;
mod kernel;
mod memory;
pub mod options;
pub mod outcome;
mod repair;
pub mod report;
mod scratch;
mod shards;
pub mod solve;
mod start;
pub mod stream;

pub use memory::{solve_layers, solve_layers_on, solve_layers_until};
pub use options::SolveOptions;
pub use outcome::{LayerReport, Outcome};
pub use report::{SolveReport, StartValue};
pub use solve::solve_tables;
pub use start::resumed_game;
