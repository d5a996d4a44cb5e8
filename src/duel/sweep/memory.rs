//! Whole layers in memory: the [`Frontier`] of a solve whose layers fit, over MPI ranks or
//! one process alone (see the [module docs](super) for the partition and the exchange).
//!
//! Each rank solves one block per layer (every mover against its share of the opponents)
//! from the rows it holds of the layer after it, then the exchange turns every rank's
//! block into the rows each rank holds for the layer before. What becomes of a finished
//! layer is a [`Keep`]: [`Tables`] writes its shards in the background and lists it in the
//! manifest one layer later; [`EachLayer`] hands it, whole, to a function (a solve below a
//! position, move errors, the plan's cost samples).

use std::path::Path;
use std::sync::Arc;

use bytemuck::Pod;
use crossbeam_channel::{Receiver, Sender, bounded};

use super::driver::{Begun, Frontier, sweep};
use super::kernel::Kernel;
use super::outcome::{LayerReport, Outcome};
use super::shards::{Held, Pending, WriteJob, Written, WrittenShard, read_held, record, write_shards};
use crate::duel::cluster::error::ClusterError;
use crate::duel::cluster::exchange::exchange;
use crate::duel::cluster::partition::RankShares;
use crate::duel::cluster::ranks::{Alone, Ranks};
use crate::duel::shard::{Manifest, ShardError, ShardSpan};
use crate::duel::solve::{LayerRows, LayerValues};
use crate::duel::{DuelValue, LayerShape, Space, Tile};

/// What becomes of each finished layer of an in-memory sweep.
trait Keep<V> {
    /// The shard size of layer `layer` if its shards are written (its rows then also go to
    /// the ranks that write them), else `None`.
    fn shard_positions(&self, layer: usize) -> Option<u64>;

    /// Takes the rows this rank holds of a finished layer, with the shards of it this rank
    /// writes (`None` where the layer is not written), and hands them back shared for
    /// solving the layer before.
    fn take(&mut self, held: Held<V>, to_write: Option<Vec<(usize, ShardSpan)>>) -> Result<Arc<Held<V>>, ClusterError>;

    /// Records a finished layer once the layer before it is computed (so that writing
    /// overlaps computing), or at the end of the sweep.
    fn record(&mut self, pending: Pending) -> Result<(), ClusterError>;
}

/// The layer being solved.
struct Current {
    shape: Arc<LayerShape>,
    /// The shape of the layer solved next, if any.
    before: Option<LayerShape>,
    shares: RankShares,
    writes: bool,
    started: crate::sys::Stopwatch,
}

/// Whole layers in memory over `ranks`, each finished layer kept by `K`.
struct InMemory<'s, 'a, V, R, K> {
    space: &'s Space<'a>,
    ranks: &'s R,
    /// The lowest layer of the sweep.
    last: usize,
    keep: K,
    /// The rows of the last finished layer this rank holds.
    held: Option<Arc<Held<V>>>,
    /// The shape of the layer solved next and its compute bounds, made by the layer after it.
    next: Option<(LayerShape, Vec<usize>)>,
    current: Option<Current>,
    /// The last finished layer, not recorded yet.
    pending: Option<Pending>,
}

impl<'s, 'a, V: DuelValue + Pod, R: Ranks, K: Keep<V>> InMemory<'s, 'a, V, R, K> {
    /// A sweep down to `last` over `ranks`, starting from `held` (the rows this rank holds of
    /// the layer the sweep starts below; none at the end of the game).
    fn new(
        space: &'s Space<'a>,
        ranks: &'s R,
        last: usize,
        keep: K,
        held: Option<Arc<Held<V>>>,
    ) -> InMemory<'s, 'a, V, R, K> {
        InMemory { space, ranks, last, keep, held, next: None, current: None, pending: None }
    }

    /// The rows this rank holds of the last layer solved (or of the starting layer).
    fn into_held(self) -> Option<Arc<Held<V>>> {
        self.held
    }
}

impl<V: DuelValue + Pod, R: Ranks, K: Keep<V>> Frontier<V> for InMemory<'_, '_, V, R, K> {
    fn begin(&mut self, layer: usize) -> Result<Begun, ClusterError> {
        let (space, me, size) = (self.space, self.ranks.rank(), self.ranks.size());
        let started = crate::sys::Stopwatch::start();
        let (shape, columns) = match self.next.take() {
            Some((shape, columns)) => (shape, Some(columns)),
            None => (LayerShape::new(space, layer), None),
        };
        let shape = Arc::new(shape);
        let before = (layer > self.last).then(|| LayerShape::new(space, layer - 1));
        let written = self.keep.shard_positions(layer);
        let shares = RankShares::new(space, &shape, columns, before.as_ref(), size, written);
        let blocks = vec![(me, shares.computed(me))];
        self.current = Some(Current { shape: shape.clone(), before, shares, writes: written.is_some(), started });
        Ok(Begun { movers: 0..shape.movers.len(), shape, blocks })
    }

    fn solve(
        &mut self,
        _: usize,
        solve: impl FnOnce(Option<LayerRows<'_, V>>) -> Result<Vec<V>, ClusterError>,
    ) -> Result<Vec<V>, ClusterError> {
        solve(self.held.as_ref().map(|held| held.rows()))
    }

    fn hand(&mut self, _: usize, tile: &Tile, values: Vec<V>) -> Result<(), ClusterError> {
        let (space, ranks) = (self.space, self.ranks);
        let me = ranks.rank();
        let Current { shape, before, shares, writes, started } = self.current.take().expect("a layer was begun");
        let compute_seconds = started.elapsed().as_secs_f64();
        if let Some(previous) = self.pending.take() {
            self.keep.record(previous)?;
        }
        // The next layer's rows are read and written: free them before the exchange.
        let (held_values, held_layout) = self.held.take().map_or((0, 0), |h| (h.values.len() as u64, h.kept.bytes()));
        let exchange_started = crate::sys::Stopwatch::start();
        let kept = shares.kept_tile(space, &shape, me);
        let exchanged = exchange(ranks, space, &shape, &shares, tile, values)?;
        let exchange_seconds = exchange_started.elapsed().as_secs_f64();
        let value_bytes =
            std::mem::size_of::<V>() as u64 * (tile.positions() + held_values.max(exchanged.values.len() as u64));
        let tile_bytes = tile.bytes() + kept.bytes() + held_layout;
        let card_bytes = shape.bytes() + before.as_ref().map_or(0, LayerShape::bytes) + exchanged.segment_bytes;
        let mine =
            Held { shape: shape.clone(), kept, first_mover: shares.received[me].start, values: exchanged.values };
        let to_write = writes
            .then(|| shares.shards.iter().cloned().enumerate().filter(|&(i, _)| shares.owners[i] == me).collect());
        self.held = Some(self.keep.take(mine, to_write)?);
        let written = Written {
            shards: Vec::new(),
            draws: Vec::new(),
            tile_bytes,
            card_bytes,
            value_bytes,
            compute_seconds,
            exchange_seconds,
            raw_bytes: exchanged.raw_bytes,
            bytes: exchanged.bytes,
        };
        let shards = shares.shards.len();
        self.pending = Some(Pending { layer: shape.layer, positions: shape.positions(), written, writes, shards });
        self.next = before.map(|before| (before, shares.rows.clone()));
        Ok(())
    }

    fn end(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        match self.pending.take() {
            Some(last) => self.keep.record(last),
            None => Ok(()),
        }
    }
}

/// The layers' shards written into a table directory by a background thread, each layer
/// listed in the manifest once every rank's shards of it are in place.
struct Tables<'t, V, R, P> {
    ranks: &'t R,
    dir: &'t Path,
    manifest: &'t mut Manifest,
    /// Layers from this one on are written.
    write_from: usize,
    outcome: &'t mut Outcome<V>,
    progress: &'t mut P,
    jobs: Sender<WriteJob<V>>,
    done: Receiver<Result<Vec<WrittenShard>, ShardError>>,
}

impl<V: DuelValue, R: Ranks, P: FnMut(&LayerReport)> Keep<V> for Tables<'_, V, R, P> {
    fn shard_positions(&self, layer: usize) -> Option<u64> {
        (layer >= self.write_from).then_some(self.manifest.shard_positions)
    }

    fn take(&mut self, held: Held<V>, to_write: Option<Vec<(usize, ShardSpan)>>) -> Result<Arc<Held<V>>, ClusterError> {
        let held = Arc::new(held);
        if let Some(to_write) = to_write {
            self.jobs.send((held.clone(), to_write)).map_err(|_| ClusterError::WriterStopped)?;
        }
        Ok(held)
    }

    fn record(&mut self, pending: Pending) -> Result<(), ClusterError> {
        record(self.ranks, self.dir, self.manifest, pending, &self.done, self.outcome, self.progress)
    }
}

/// Solves the layers of `space` from what `manifest` lists (nothing: the game's end) down
/// to `last` with whole layers in memory, spread over `ranks`, writes those from
/// `write_from` on as shards and lists each in `manifest`, each block solved by `kernel`.
#[allow(clippy::too_many_arguments)]
pub(super) fn solve_into_tables<V: DuelValue + Pod>(
    space: &Space,
    ranks: &impl Ranks,
    dir: &Path,
    write_from: usize,
    manifest: &mut Manifest,
    last: usize,
    outcome: &mut Outcome<V>,
    progress: &mut impl FnMut(&LayerReport),
    kernel: &Kernel,
) -> Result<(), ClusterError> {
    let (me, size) = (ranks.rank(), ranks.size());
    let game = space.cards().game();
    let (mut top, mut held) = (space.end_layer(), None);
    if let Some(entry) = manifest.layers.last() {
        top = entry.layer;
        let shape = Arc::new(LayerShape::new(space, top));
        let before = (top > last).then(|| LayerShape::new(space, top - 1));
        held = Some(Arc::new(read_held(space, dir, entry, shape, before.as_ref(), size, me)?));
        tracing::info!(layer = top, rank = me, "reading the rows of the tables' last layer");
    }
    let held = std::thread::scope(|scope| -> Result<_, ClusterError> {
        let (jobs, job_inbox) = bounded::<WriteJob<V>>(1);
        let (done_outbox, done) = bounded(1);
        scope.spawn(move || write_shards(dir, game, job_inbox, done_outbox));
        let keep = Tables { ranks, dir, manifest, write_from, outcome: &mut *outcome, progress, jobs, done };
        let mut frontier = InMemory::new(space, ranks, last, keep, held);
        sweep(space, last..top, &mut frontier, &|| false, kernel)?;
        // Dropping the keep closes the writer's inbox, so the thread ends.
        Ok(frontier.into_held())
    })?;
    if let Some(held) = &held
        && held.first_mover == 0
        && held.shape.layer == space.first_layer()
        && let Some(&value) = held.values.first()
    {
        outcome.first_value = Some(value);
    }
    Ok(())
}

/// Each finished layer, whole, handed to a function: one rank alone, nothing written.
struct EachLayer<F>(F);

impl<V, F: FnMut(&LayerValues<V>) -> Result<(), ClusterError>> Keep<V> for EachLayer<F> {
    fn shard_positions(&self, _: usize) -> Option<u64> {
        None
    }

    fn take(&mut self, held: Held<V>, _: Option<Vec<(usize, ShardSpan)>>) -> Result<Arc<Held<V>>, ClusterError> {
        // One rank alone holds every row of the layer, as one tile.
        assert_eq!(held.first_mover, 0, "one rank holds the whole layer");
        let layer = LayerValues { shape: held.shape, tile: held.kept, values: held.values };
        (self.0)(&layer)?;
        Ok(Arc::new(Held { shape: layer.shape, kept: layer.tile, first_mover: 0, values: layer.values }))
    }

    fn record(&mut self, pending: Pending) -> Result<(), ClusterError> {
        let Pending { layer, positions, written, .. } = pending;
        let seconds = written.compute_seconds;
        tracing::info!(layer, positions, seconds, "layer solved");
        Ok(())
    }
}

/// Solves the layers of `space` from the last one down to `last` (at least the space's
/// first layer) in this process, writing nothing, hands every finished layer to
/// `finished` (which may stop the solve with its error), and returns layer `last`.
pub fn solve_layers<V: DuelValue + Pod>(
    space: &Space,
    last: usize,
    finished: impl FnMut(&LayerValues<V>) -> Result<(), ClusterError>,
) -> Result<LayerValues<V>, ClusterError> {
    solve_layers_until(space, last, &|| false, finished)
}

/// [`solve_layers`] that gives up with [`ClusterError::Cancelled`] once `stop` says so
/// (whoever asked has gone): `stop` is asked before each pair's turn, so the solve stops
/// within a turn, not at the end of a layer that may take seconds.
pub fn solve_layers_until<V: DuelValue + Pod>(
    space: &Space,
    last: usize,
    stop: &(dyn Fn() -> bool + Sync),
    finished: impl FnMut(&LayerValues<V>) -> Result<(), ClusterError>,
) -> Result<LayerValues<V>, ClusterError> {
    solve_layers_on(space, last, false, stop, finished)
}

/// [`solve_layers_until`] on the GPU where `gpu` says so (feature `gpu`, `f32` values:
/// [`ClusterError::Gpu`] otherwise), with the same values bit for bit.
pub fn solve_layers_on<V: DuelValue + Pod>(
    space: &Space,
    last: usize,
    gpu: bool,
    stop: &(dyn Fn() -> bool + Sync),
    finished: impl FnMut(&LayerValues<V>) -> Result<(), ClusterError>,
) -> Result<LayerValues<V>, ClusterError> {
    assert!(last >= space.first_layer() && last < space.end_layer(), "layer {last} is outside the space");
    let kernel = Kernel::open(gpu, V::DRAWS, 0)?;
    let mut frontier = InMemory::new(space, &Alone, last, EachLayer(finished), None);
    sweep(space, last..space.end_layer(), &mut frontier, stop, &kernel)?;
    let held = frontier.into_held().expect("at least one layer was solved");
    let Held { shape, kept, values, .. } = Arc::into_inner(held).expect("nothing else holds the last layer");
    Ok(LayerValues { shape, tile: kept, values })
}
