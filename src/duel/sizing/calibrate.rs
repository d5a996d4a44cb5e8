//! Measuring the solve rate of every layer on a sample of its real pairs.
//!
//! What a layer costs per lane-update depends on its windows (a pair's turn works on 462
//! lane vectors of the window's width: 180 differences fit a core's L2, 1,500 do not), on
//! how many successor cards a mover has, and on the per-pair work outside the kernel
//! (filling the successor rows, the mover's plan). So each layer is measured on its own
//! cards: a sample of tiles, each one random mover against a run of [`RUN`] consecutive
//! opponents (the mover-major order in which a rank computes, so a mover's plan is shared
//! as in the solve), solved by the solver's own [`solve_tile`]. The next layer's values are
//! synthetic ([`SyntheticNext`]): the pairs' real windows at the places the solve keeps
//! them, read from a pool far larger than the caches, since the values themselves do not
//! change the work.
//!
//! The rate divides lane-updates by the CPU seconds the process used (so other jobs
//! sharing the cores slow the clock but not the rate), each sample solved on one thread (so
//! no thread waits for another at the end of a small tile, as none does in the solve's
//! large ones). A solve keeps every core busy, and a core among busy ones is slower than an
//! idle one (the clock drops, the L3 and the memory are shared), so the timed runs solve the
//! sample on `cores` threads at once, one copy each, and the rate is the per-core rate under
//! that load; one run on one thread alone is reported apart as the idle rate.
//! Two errors are reported apart:
//!
//! - **sampling**: tiles differ in their rate, so the first run times each tile and the
//!   sample grows until the rate's relative standard error (a ratio estimator over the
//!   tiles) is under [`TARGET_ERROR`], or it has grown [`MAX_GROWTH`] times;
//! - **timing**: the whole sample is timed `runs` times under load; the spread between runs
//!   is noise of the machine, not of the sample.

use std::sync::LazyLock;
use std::time::Instant;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::count::{LayerCount, tile_lane_updates};
use crate::duel::cards::{CardBounds, window};
use crate::duel::layout::{LayerShape, Tile, window_len};
use crate::duel::solve::{NextValues, solve_tile};
use crate::duel::space::Space;
use crate::duel::value::{DuelValue, WinDraw};
use crate::game::StateId;
use crate::progress::Progress;

/// Opponents per sampled tile: about what one rank computes per mover at 1,024 ranks.
pub const RUN: usize = 64;
/// The relative standard error of a layer's rate the sampling aims for.
pub const TARGET_ERROR: f64 = 0.03;
/// How many times its first size a layer's sample may grow to reach [`TARGET_ERROR`].
pub const MAX_GROWTH: u64 = 8;
/// Values in each pool of made-up next-layer values: 512 MiB of `f32` (1 GiB of value and
/// draw pairs). Only where the reads land matters for the work, and the pool's size sets
/// how often they miss the caches and the TLB: against real solves here (`scripts/plan-check`),
/// 2^25 values (128 MiB of `f32`) made the endgame layers sample 20-25% faster than they
/// solve, 2^26 (with draws) 22%, and 2^27 gives the solves' CPU time within 15%.
const POOL_VALUES: usize = 1 << 27;

/// `len` made-up winning chances, each made a lane by `lane`: a random block repeated.
pub fn made_up<V: Copy>(len: usize, lane: impl Fn(f32) -> V) -> Vec<V> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let block: Vec<V> = (0..4093).map(|_| lane(rng.random_range(0.0f32..1.0))).collect();
    block.iter().copied().cycle().take(len).collect()
}

/// The pool of winning chances.
static POOL: LazyLock<Vec<f32>> = LazyLock::new(|| made_up(POOL_VALUES, |v| v));
/// The pool of winning chances with a made-up draw probability beside each.
static DRAW_POOL: LazyLock<Vec<WinDraw<f32>>> =
    LazyLock::new(|| made_up(POOL_VALUES, |v| WinDraw { value: v, draw: 0.1 * (1.0 - v) }));

/// A lane type the solve runs, with its pool of made-up next-layer values, built once.
pub trait SyntheticValue: DuelValue {
    /// The pool.
    fn pool() -> &'static [Self];
}

impl SyntheticValue for f32 {
    fn pool() -> &'static [f32] {
        &POOL
    }
}

impl SyntheticValue for WinDraw<f32> {
    fn pool() -> &'static [WinDraw<f32>] {
        &DRAW_POOL
    }
}

/// The next layer's values as a pair's turn reads them, with real window lengths and
/// made-up values of the solve's lane type `V` from its large pool
/// ([`SyntheticValue::pool`]), laid out as the solve lays out the layer: row by row (a
/// mover's pairs with every opponent), each pair at its row's start plus its opponent's
/// place times the row's mean window, wrapped round the pool. The tiles' turns read
/// neighbouring rows as the solve's do (scattered places made narrow-window layers sample
/// 20-45% slower than they solve).
pub struct SyntheticNext<V> {
    /// Bounds of the layer's movers and opponents, by position.
    movers: Vec<CardBounds>,
    opponents: Vec<CardBounds>,
    /// Where each mover's row starts, and its length, in values of the real layer.
    rows: Vec<(u64, u64)>,
    lanes: std::marker::PhantomData<V>,
}

impl<V: SyntheticValue> SyntheticNext<V> {
    /// Synthetic values for `layer` of `space`.
    pub fn new(space: &Space, layer: usize) -> SyntheticNext<V> {
        let cards = space.cards();
        let shape = LayerShape::new(space, layer);
        let bounds = |ids: &[StateId]| ids.iter().map(|&id| cards.bounds(id)).collect();
        let rows = (0..shape.movers.len()).map(|m| shape.rows(m..m + 1)).map(|r| (r.start, r.end - r.start)).collect();
        SyntheticNext {
            movers: bounds(&shape.movers),
            opponents: bounds(&shape.opponents),
            rows,
            lanes: std::marker::PhantomData,
        }
    }
}

impl<V: SyntheticValue> NextValues<V> for SyntheticNext<V> {
    fn pair(&self, m: usize, o: usize) -> &[V] {
        let len = window_len(window(self.movers[m], self.opponents[o])) as usize;
        let (row_start, row_len) = self.rows[m];
        let at = row_start + o as u64 * row_len / self.opponents.len() as u64;
        let pool = V::pool();
        let start = at as usize % (pool.len() - len);
        &pool[start..start + len]
    }
}

/// A sample of one layer's pairs: tiles of one mover against a run of opponents.
pub struct LayerSample {
    /// The layer's shape.
    pub shape: LayerShape,
    /// The sampled tiles.
    pub tiles: Vec<Tile>,
    /// Lane-updates each tile's turns take.
    pub tile_lane_updates: Vec<u64>,
    /// Lane-updates the sampled pairs' turns take.
    pub lane_updates: u64,
    /// Positions in the sampled pairs.
    pub positions: u64,
    /// Where more random tiles come from; `None` when the sample is the whole layer.
    rng: Option<ChaCha8Rng>,
}

impl LayerSample {
    /// Random tiles of `layer` (seeded by `seed`) until their turns take at least
    /// `lane_updates` lane-updates; every pair once (a tile per mover) when the whole layer
    /// (`count`) takes no more than that.
    pub fn new(space: &Space, count: &LayerCount, lane_updates: u64, seed: u64) -> LayerSample {
        let layer = count.layer;
        let shape = LayerShape::new(space, layer);
        let (movers, opponents) = (shape.movers.len(), shape.opponents.len());
        let mut sample = LayerSample {
            tiles: Vec::new(),
            tile_lane_updates: Vec::new(),
            lane_updates: 0,
            positions: 0,
            shape,
            rng: None,
        };
        if count.lane_updates(space.cards().boxes()) <= lane_updates || opponents == 0 {
            for m in 0..movers {
                sample.push(space, Tile::new(space, &sample.shape, m..m + 1, 0..opponents));
            }
            return sample;
        }
        sample.rng = Some(ChaCha8Rng::seed_from_u64(seed ^ (layer as u64) << 32));
        sample.grow(space, lane_updates);
        sample
    }

    /// Whether the sample holds every pair of the layer (then it has no sampling error).
    pub fn is_whole(&self) -> bool {
        self.rng.is_none()
    }

    /// Adds random tiles until at least `lane_updates` more lane-updates are sampled (none
    /// when the sample is the whole layer) and returns the index of the first one added.
    pub fn grow(&mut self, space: &Space, lane_updates: u64) -> usize {
        let first = self.tiles.len();
        let (movers, opponents) = (self.shape.movers.len(), self.shape.opponents.len());
        let Some(mut rng) = self.rng.take() else { return first };
        let run = RUN.min(opponents);
        let goal = self.lane_updates + lane_updates;
        while self.lane_updates < goal {
            let m = rng.random_range(0..movers);
            let o = rng.random_range(0..=opponents - run);
            self.push(space, Tile::new(space, &self.shape, m..m + 1, o..o + run));
        }
        self.rng = Some(rng);
        first
    }

    fn push(&mut self, space: &Space, tile: Tile) {
        let work = tile_lane_updates(space, self.shape.layer, &tile, tile.movers.clone(), tile.opponents.clone());
        self.tile_lane_updates.push(work);
        self.lane_updates += work;
        self.positions += tile.positions();
        self.tiles.push(tile);
    }

    /// Solves every sampled pair with lanes `V`, reading `next` (`None` for the last layer
    /// of the game), and returns the sum of their values (so that the work cannot be
    /// skipped).
    pub fn solve<V: SyntheticValue>(&self, space: &Space, next: Option<&SyntheticNext<V>>) -> f64 {
        self.tiles.iter().map(|tile| self.solve_one(space, next, tile)).sum()
    }

    fn solve_one<V: SyntheticValue>(&self, space: &Space, next: Option<&SyntheticNext<V>>, tile: &Tile) -> f64 {
        solve_tile::<V>(space, &self.shape, next, tile).iter().map(|&v| v.value()).sum()
    }

    /// CPU seconds of each tile from `first` on, solved one at a time on this thread.
    fn time_tiles<V: SyntheticValue>(&self, space: &Space, next: Option<&SyntheticNext<V>>, first: usize) -> Vec<f64> {
        (self.tiles[first..].iter())
            .map(|tile| cpu_seconds(1, || std::hint::black_box(self.solve_one(space, next, tile))))
            .collect()
    }

    /// CPU seconds of one copy of the whole sample, solved by every thread of `loaded` at
    /// once (each its own copy): the CPU seconds of all copies over their number.
    fn time_loaded<V: SyntheticValue>(
        &self,
        space: &Space,
        next: Option<&SyntheticNext<V>>,
        loaded: &rayon::ThreadPool,
    ) -> f64 {
        let copies = loaded.current_num_threads();
        cpu_seconds(copies, || loaded.broadcast(|_| std::hint::black_box(self.solve(space, next)))) / copies as f64
    }
}

/// The CPU seconds `work` took (every thread of the process; wall time × `threads`, the
/// threads it keeps busy, where the platform does not tell).
fn cpu_seconds<T>(threads: usize, work: impl FnOnce() -> T) -> f64 {
    let (started, before) = (Instant::now(), crate::sys::process_cpu_seconds());
    std::hint::black_box(work());
    let wall = started.elapsed().as_secs_f64() * threads as f64;
    crate::sys::process_cpu_seconds().zip(before).map_or(wall, |(after, before)| after - before).max(1e-9)
}

/// The cores a plan loads by default while it times: all this process may use.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The processor's name (`model name` in `/proc/cpuinfo`), where the platform tells.
pub fn processor_name() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = cpuinfo.lines().find(|line| line.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_owned())
}

/// The relative standard error of the rate `Σ u / Σ t` over tiles of `u` lane-updates that
/// took `t` seconds each (a ratio estimator: the spread of `u − R·t` over the tiles).
pub fn rate_error(lane_updates: &[u64], seconds: &[f64]) -> f64 {
    let n = seconds.len();
    if n < 2 {
        return f64::INFINITY;
    }
    let (u, t): (f64, f64) = (lane_updates.iter().map(|&u| u as f64).sum(), seconds.iter().sum());
    let rate = u / t;
    let residuals: f64 = lane_updates.iter().zip(seconds).map(|(&u, &t)| (u as f64 - rate * t).powi(2)).sum();
    let mean_seconds = t / n as f64;
    (residuals / (n - 1) as f64 / n as f64).sqrt() / mean_seconds / rate
}

/// The measured rate of one layer.
#[derive(Clone, Debug, Serialize)]
pub struct LayerRate {
    /// The layer.
    pub layer: usize,
    /// Pairs sampled (empty windows included).
    pub sampled_pairs: u64,
    /// Positions in the sampled pairs.
    pub sampled_positions: u64,
    /// Lane-updates of the sampled pairs.
    pub sampled_lane_updates: u64,
    /// CPU seconds of one copy of the sample in each timed run, under load.
    pub core_seconds: Vec<f64>,
    /// Lane-updates per second and core under load: the median run's.
    pub lane_updates_per_core_second: f64,
    /// Lane-updates per second of one core while the others idle: the ratio
    /// to the rate under load is what sharing the machine costs.
    pub idle_lane_updates_per_core_second: f64,
    /// The rate's relative standard error from sampling tiles (0 when every pair of the
    /// layer was timed).
    pub rate_error: f64,
    /// The layer's core-hours at the median run's rate, and at the fastest and slowest runs'.
    pub core_hours: f64,
    /// At the fastest run's rate.
    pub core_hours_min: f64,
    /// At the slowest run's rate.
    pub core_hours_max: f64,
}

/// Measures every layer of `counts` (a plan's layers of `space`) with the lanes `V` the
/// solve will run, on a sample of at least `lane_updates` lane-updates, timed `runs` times
/// each with `cores` copies at once, reporting each layer to `progress`.
pub fn calibrate<V: SyntheticValue>(
    space: &Space,
    counts: &[LayerCount],
    lane_updates: u64,
    (runs, cores): (usize, usize),
    seed: u64,
    progress: &dyn Progress,
) -> Vec<LayerRate> {
    progress.start("calibration", counts.len() as u64, "layers");
    // One thread per sample: a sampled tile's few pairs, split over several threads, end in
    // a wait for the slowest, which the CPU time counts; the solve's tiles are a rank's whole
    // share of a layer, where that wait vanishes.
    let one_core = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool of one thread starts");
    let loaded = rayon::ThreadPoolBuilder::new().num_threads(cores.max(1)).build().expect("a pool of threads starts");
    let rates = counts
        .iter()
        .rev()
        .map(|count| {
            one_core.install(|| {
                let layer = count.layer;
                let mut sample = LayerSample::new(space, count, lane_updates, seed);
                let next = (layer + 1 < space.end_layer()).then(|| SyntheticNext::<V>::new(space, layer + 1));
                // The first run, tile by tile, grown until the sampling error is small enough.
                let mut tile_seconds = sample.time_tiles(space, next.as_ref(), 0);
                let mut rate_error = 0.0;
                if !sample.is_whole() {
                    rate_error = self::rate_error(&sample.tile_lane_updates, &tile_seconds);
                    while rate_error > TARGET_ERROR && sample.lane_updates < MAX_GROWTH * lane_updates {
                        let first = sample.grow(space, sample.lane_updates);
                        tile_seconds.extend(sample.time_tiles(space, next.as_ref(), first));
                        rate_error = self::rate_error(&sample.tile_lane_updates, &tile_seconds);
                    }
                }
                let core_seconds: Vec<f64> =
                    (0..runs.max(1)).map(|_| sample.time_loaded(space, next.as_ref(), &loaded)).collect();
                // The whole sample on this thread alone, after the loaded runs (as warm as
                // they are: the first run of a sample pays its buffers' page faults).
                let idle_seconds = cpu_seconds(1, || sample.solve(space, next.as_ref()));
                let mut sorted = core_seconds.clone();
                sorted.sort_by(f64::total_cmp);
                let hours = |seconds: f64| {
                    count.lane_updates(space.cards().boxes()) as f64 / (sample.lane_updates as f64 / seconds) / 3600.0
                };
                let median = sorted[sorted.len() / 2];
                let rate = LayerRate {
                    layer,
                    sampled_pairs: sample.tiles.iter().map(|t| (t.movers.len() * t.opponents.len()) as u64).sum(),
                    sampled_positions: sample.positions,
                    sampled_lane_updates: sample.lane_updates,
                    lane_updates_per_core_second: sample.lane_updates as f64 / median,
                    idle_lane_updates_per_core_second: sample.lane_updates as f64 / idle_seconds,
                    rate_error,
                    core_hours: hours(median),
                    core_hours_min: hours(sorted[0]),
                    core_hours_max: hours(sorted[sorted.len() - 1]),
                    core_seconds,
                };
                progress.advance(1);
                rate
            })
        })
        .collect();
    progress.finish();
    rates
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiles all at one rate have no sampling error; spread rates give the textbook
    /// standard error of a ratio estimator, which shrinks as 1/√n with more tiles.
    #[test]
    fn the_rate_error_is_the_ratio_estimators() {
        assert_eq!(rate_error(&[100, 200, 300], &[1.0, 2.0, 3.0]), 0.0);
        assert!(rate_error(&[100], &[1.0]).is_infinite(), "one tile tells no error");
        // Rates 80 and 120 at equal times: R = 100, residuals ±20, s² = 800, SE = √(800/2)/1.
        let error = rate_error(&[80, 120], &[1.0, 1.0]);
        assert!((error - 0.2).abs() < 1e-12, "{error}");
        let many: Vec<u64> = (0..200).map(|i| if i % 2 == 0 { 80 } else { 120 }).collect();
        let error = rate_error(&many, &[1.0; 200]);
        assert!((error - 20.0 * (200.0f64 / 199.0).sqrt() / 200f64.sqrt() / 100.0).abs() < 1e-12, "{error}");
    }
}
