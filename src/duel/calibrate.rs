//! Measuring the solve rate of every layer on a sample of its real pairs.
//!
//! What a layer costs per lane-update depends on its windows (a pair's turn works on 462
//! lane vectors of the window's width: 180 differences fit a core's L2, 1,500 do not), on
//! how many successor cards a mover has, and on the per-pair work outside the kernel
//! (filling the successor rows, the mover's plan). So each layer is measured on its own
//! cards: a sample of tiles, each one random mover against a run of [`RUN`] consecutive
//! opponents (the mover-major order in which a rank computes, so a mover's plan is shared
//! as in the solve), solved by the solver's own [`solve_tile`]. The next layer's values are
//! synthetic ([`SyntheticNext`]): the pairs' real windows, read from a pool far larger than
//! the caches, since the values themselves do not change the work.
//!
//! The rate divides lane-updates by the CPU seconds the process used, so other jobs sharing
//! the cores slow the clock but not the rate; each layer is measured `runs` times, and the
//! spread between runs is reported.

use std::sync::LazyLock;
use std::time::Instant;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::cards::{CardBounds, window};
use super::count::LayerCount;
use super::layout::{LayerShape, Tile, window_len};
use super::plan::{lane_updates_per_lane, process_cpu_seconds};
use super::solve::{NextValues, Space, solve_tile};
use super::value::{DuelValue, WinDraw};
use crate::game::StateId;
use crate::progress::Progress;
use crate::turn::lanes::padded_lanes;

/// Opponents per sampled tile: about what one rank computes per mover at 1,024 ranks.
pub const RUN: usize = 64;
/// Made-up values for [`SyntheticNext`]: 128 MiB of `f32`, far more than a core's caches
/// (a random block repeated; only where a read lands matters for the work).
static POOL: LazyLock<Vec<f32>> = LazyLock::new(|| {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let block: Vec<f32> = (0..4093).map(|_| rng.random_range(0.0f32..1.0)).collect();
    block.iter().copied().cycle().take(1 << 25).collect()
});
/// [`POOL`] with a made-up draw probability beside each value.
static DRAW_POOL: LazyLock<Vec<WinDraw<f32>>> =
    LazyLock::new(|| POOL.iter().map(|&v| WinDraw { value: v, draw: 0.1 * (1.0 - v) }).collect());

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
/// ([`SyntheticValue::pool`]), at a place that depends on the pair.
pub struct SyntheticNext<V> {
    /// Bounds of the layer's movers and opponents, by position.
    movers: Vec<CardBounds>,
    opponents: Vec<CardBounds>,
    lanes: std::marker::PhantomData<V>,
}

impl<V: SyntheticValue> SyntheticNext<V> {
    /// Synthetic values for `layer` of `space`.
    pub fn new(space: &Space, layer: usize) -> SyntheticNext<V> {
        let cards = space.cards();
        let (mover_filled, opponent_filled) = super::count::layer_split(layer);
        let bounds = |ids: &[StateId]| ids.iter().map(|&id| cards.bounds(id)).collect();
        SyntheticNext {
            movers: bounds(space.movers(layer).with_filled(mover_filled)),
            opponents: bounds(space.opponents(layer).with_filled(opponent_filled)),
            lanes: std::marker::PhantomData,
        }
    }
}

impl<V: SyntheticValue> NextValues<V> for SyntheticNext<V> {
    fn pair(&self, m: usize, o: usize) -> &[V] {
        let len = window_len(window(self.movers[m], self.opponents[o])) as usize;
        // A fixed, scattered place per pair (a multiplicative hash of the pair).
        let at = ((m as u64 * 0x9E37_79B9_7F4A_7C15) ^ (o as u64 * 0xC2B2_AE3D_27D4_EB4F)) >> 40;
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
    /// Lane-updates the sampled pairs' turns take.
    pub lane_updates: u64,
    /// Positions in the sampled pairs.
    pub positions: u64,
}

impl LayerSample {
    /// Random tiles of `layer` (seeded by `seed`) until their turns take at least
    /// `lane_updates` lane-updates; every pair once (a tile per mover) when the whole layer
    /// (`count`) takes no more than that.
    pub fn new(space: &Space, count: &LayerCount, lane_updates: u64, seed: u64) -> LayerSample {
        let layer = count.layer;
        let shape = LayerShape::new(space, layer);
        let per_lane = lane_updates_per_lane(space.cards().boxes() - count.mover_filled);
        let cost = |tile: &Tile| -> u64 {
            let lanes: u64 = (tile.movers.clone())
                .flat_map(|m| tile.opponents.clone().map(move |o| (m, o)))
                .map(|(m, o)| padded_lanes(tile.pair_range(m, o).len()) as u64)
                .sum();
            lanes * per_lane
        };
        let (movers, opponents) = (shape.movers.len(), shape.opponents.len());
        let mut sample = LayerSample { tiles: Vec::new(), lane_updates: 0, positions: 0, shape };
        if count.lane_updates(space.cards().boxes()) <= lane_updates || opponents == 0 {
            for m in 0..movers {
                sample.push(Tile::new(space, &sample.shape, m..m + 1, 0..opponents), &cost);
            }
            return sample;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (layer as u64) << 32);
        let run = RUN.min(opponents);
        while sample.lane_updates < lane_updates {
            let m = rng.random_range(0..movers);
            let o = rng.random_range(0..=opponents - run);
            sample.push(Tile::new(space, &sample.shape, m..m + 1, o..o + run), &cost);
        }
        sample
    }

    fn push(&mut self, tile: Tile, cost: &impl Fn(&Tile) -> u64) {
        self.lane_updates += cost(&tile);
        self.positions += tile.positions();
        self.tiles.push(tile);
    }

    /// Solves every sampled pair with lanes `V`, reading `next` (`None` for the last layer
    /// of the game), and returns the sum of their values (so that the work cannot be
    /// skipped).
    pub fn solve<V: SyntheticValue>(&self, space: &Space, next: Option<&SyntheticNext<V>>) -> f64 {
        self.tiles
            .iter()
            .map(|tile| solve_tile::<V>(space, &self.shape, next, tile).iter().map(|&v| v.value()).sum::<f64>())
            .sum()
    }
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
    /// CPU seconds of each run.
    pub core_seconds: Vec<f64>,
    /// Lane-updates per second and core: the median run's.
    pub lane_updates_per_core_second: f64,
    /// The layer's core-hours at the median run's rate, and at the fastest and slowest runs'.
    pub core_hours: f64,
    /// At the fastest run's rate.
    pub core_hours_min: f64,
    /// At the slowest run's rate.
    pub core_hours_max: f64,
}

/// Measures every layer of `counts` (a plan's layers of `space`) with the lanes `V` the
/// solve will run, on a sample of at least `lane_updates` lane-updates, `runs` times each,
/// reporting each layer to `progress`.
pub fn calibrate<V: SyntheticValue>(
    space: &Space,
    counts: &[LayerCount],
    lane_updates: u64,
    runs: usize,
    seed: u64,
    progress: &dyn Progress,
) -> Vec<LayerRate> {
    progress.start("calibration", counts.len() as u64, "layers");
    let rates = counts
        .iter()
        .rev()
        .map(|count| {
            let layer = count.layer;
            let sample = LayerSample::new(space, count, lane_updates, seed);
            let next = (layer + 1 < space.end_layer()).then(|| SyntheticNext::<V>::new(space, layer + 1));
            let core_seconds: Vec<f64> = (0..runs.max(1))
                .map(|_| {
                    let (started, before) = (Instant::now(), process_cpu_seconds());
                    std::hint::black_box(sample.solve(space, next.as_ref()));
                    let wall = started.elapsed().as_secs_f64() * rayon::current_num_threads() as f64;
                    process_cpu_seconds().zip(before).map_or(wall, |(after, before)| after - before).max(1e-9)
                })
                .collect();
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
                core_hours: hours(median),
                core_hours_min: hours(sorted[0]),
                core_hours_max: hours(sorted[sorted.len() - 1]),
                core_seconds,
            };
            progress.advance(1);
            rate
        })
        .collect();
    progress.finish();
    rates
}
