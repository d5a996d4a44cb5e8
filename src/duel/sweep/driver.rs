//! The duel's one layer loop: every two-player solve (in memory, over MPI ranks, streamed
//! through scratch files, below a position, for move errors) sweeps its layers here, from
//! the last one down.
//!
//! Per layer, a rank solves *blocks* of the layer's opponent cards: each block is every
//! mover against its opponents ([`solve_tile`](crate::duel::solve::solve_tile)), and reads only the rows of the layer
//! after it whose movers are those opponents. How rows reach a block and where a solved
//! block goes is a [`Frontier`]'s business:
//! - [`super::memory`]: one block per rank, the rows held in memory and exchanged between
//!   ranks after each layer (one rank alone: nothing to send);
//! - [`super::stream`]: blocks cut to a memory budget, their rows and columns passed
//!   through scratch files.
//!
//! Both write the same shards, bit for bit, since each pair's value depends only on the
//! layer after it ([`crate::duel::solve`]). A [`Kernel`] says what solves a block: the CPU,
//! or (feature `gpu`, `f32` values) the GPU, whose kernel computes the same values.

use std::ops::Range;
use std::sync::Arc;

use super::kernel::Kernel;
use crate::duel::cluster::error::ClusterError;
use crate::duel::solve::LayerRows;
use crate::duel::{DuelValue, LayerShape, Space, Tile};

/// A layer begun: its shape, the movers solved (every one, but for a repair), and the
/// blocks of its opponents this rank solves now, each with the index the frontier knows it by.
pub(super) struct Begun {
    pub(super) shape: Arc<LayerShape>,
    pub(super) movers: Range<usize>,
    pub(super) blocks: Vec<(usize, Range<usize>)>,
}

/// How a sweep's values move from a layer to the one before it: where a block reads its
/// rows, where its solved column goes, and what ends a layer.
pub(super) trait Frontier<V: DuelValue> {
    /// Begins layer `layer`.
    fn begin(&mut self, layer: usize) -> Result<Begun, ClusterError>;

    /// Solves block `b` of the layer begun: `solve` gets the rows of the layer after it
    /// that the block reads (none at the end of the game).
    fn solve(
        &mut self,
        b: usize,
        solve: impl FnOnce(Option<LayerRows<'_, V>>) -> Result<Vec<V>, ClusterError>,
    ) -> Result<Vec<V>, ClusterError>;

    /// Takes block `b`'s values, in the order of `tile` (every mover against its opponents).
    fn hand(&mut self, b: usize, tile: &Tile, values: Vec<V>) -> Result<(), ClusterError>;

    /// Ends the layer begun, once this rank handed every block of it.
    fn end(&mut self) -> Result<(), ClusterError>;

    /// Ends the sweep once its lowest layer ended (or at once, when no layer was left).
    fn finish(&mut self) -> Result<(), ClusterError>;
}

/// Solves the layers `layers` of `space`, from the highest down, moving values through
/// `frontier`, each block solved by `kernel`, unless `stop` says to give up (asked before
/// each pair's turn on the CPU: [`ClusterError::Cancelled`]).
pub(super) fn sweep<V: DuelValue>(
    space: &Space,
    layers: Range<usize>,
    frontier: &mut impl Frontier<V>,
    stop: &(dyn Fn() -> bool + Sync),
    kernel: &Kernel,
) -> Result<(), ClusterError> {
    for layer in layers.rev() {
        let Begun { shape, movers, blocks } = frontier.begin(layer)?;
        for (b, opponents) in blocks {
            let tile = Tile::new(space, &shape, movers.clone(), opponents);
            let values = frontier.solve(b, |rows| kernel.solve(space, &shape, rows.as_ref(), &tile, stop))?;
            frontier.hand(b, &tile, values)?;
        }
        frontier.end()?;
    }
    frontier.finish()
}
