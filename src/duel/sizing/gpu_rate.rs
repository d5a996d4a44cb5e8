//! The GPU's rate on sampled pairs of each layer, for `yz duel plan --gpu`.
//!
//! A layer's sample is one tile of real pairs: a random run of movers against a random run
//! of [`OPPONENTS`] opponents, grown until its turns take the lane-updates asked for (a GPU
//! needs tens of thousands of strips at once to be busy, so the sample is one large launch
//! rather than the CPU calibration's many small tiles). The next layer's rows it reads are
//! those of its opponents against every card, with the real windows and made-up values
//! ([`crate::duel::sizing::calibrate::made_up`]): the work depends on where the reads land, not on
//! the values. The rows are copied to the device once (timed: the host-to-device
//! bandwidth), the tile solved once to warm up, then timed `runs` times; the rate is the
//! median run's, in lane-updates as the plan counts them.

use std::time::Instant;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use super::calibrate::made_up;
use super::count::{LayerCount, tile_lane_updates};
use super::plan::{ASSUMED_PCIE_BYTES_PER_SECOND, GpuLayerRate, GpuRates};
use crate::duel::gpu::device::{Gpu, GpuError};
use crate::duel::gpu::host::solve_tile_on_host;
use crate::duel::solve::LayerRows;
use crate::duel::{LayerShape, Space, Tile};
use crate::progress::Progress;

/// Opponents of a sampled tile: few, so that the next layer's rows they read stay small
/// (eight rows of the full game's widest layer are about 160 MB).
pub const OPPONENTS: usize = 8;

/// What measures: a GPU, or the kernel's source run on the host (`YZ_GPU=host`: slow, for
/// checking the measurement without a GPU).
pub enum Device<'a> {
    /// A GPU.
    Gpu(&'a Gpu),
    /// The host.
    Host,
}

impl Device<'_> {
    /// What it is, in words.
    pub fn name(&self) -> String {
        match self {
            Device::Gpu(gpu) => gpu.name.clone(),
            Device::Host => "the GPU kernel's source on the host (YZ_GPU=host)".to_owned(),
        }
    }
}

/// A layer's sample: the tile, the next layer's rows it reads, and its lane-updates.
pub struct GpuSample {
    /// The layer's shape.
    pub shape: LayerShape,
    /// The sampled pairs.
    pub tile: Tile,
    /// The next layer's rows of the tile's opponents, made-up values (none at the end of
    /// the game).
    pub next: Option<(Tile, Vec<f32>)>,
    /// Lane-updates of the tile's turns.
    pub lane_updates: u64,
}

impl GpuSample {
    /// A sample of `layer` of `space` taking at least `lane_updates` (all of the run of
    /// opponents' pairs where they take less), drawn with `seed`; `None` where the layer
    /// has no pairs.
    pub fn new(space: &Space, layer: usize, lane_updates: u64, seed: u64) -> Option<GpuSample> {
        let shape = LayerShape::new(space, layer);
        let (movers, opponents) = (shape.movers.len(), shape.opponents.len());
        if movers == 0 || opponents == 0 {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (layer as u64) << 32);
        let width = OPPONENTS.min(opponents);
        let first = rng.random_range(0..=opponents - width);
        let them = first..first + width;
        // Every mover against the run, to find a run of movers with the work asked for.
        let all = Tile::new(space, &shape, 0..movers, them.clone());
        let mover_work: Vec<u64> =
            (0..movers).map(|m| tile_lane_updates(space, layer, &all, m..m + 1, them.clone())).collect();
        let start = rng.random_range(0..movers);
        let (mut from, mut to, mut work) = (start, start, 0);
        while work < lane_updates && (to < movers || from > 0) {
            if to < movers {
                work += mover_work[to];
                to += 1;
            } else {
                from -= 1;
                work += mover_work[from];
            }
        }
        let tile = Tile::new(space, &shape, from..to, them.clone());
        let next = (layer + 1 < space.end_layer()).then(|| {
            let next_shape = LayerShape::new(space, layer + 1);
            let rows = Tile::new(space, &next_shape, them, 0..next_shape.opponents.len());
            let values = made_up(rows.positions() as usize, |v| v);
            (rows, values)
        });
        Some(GpuSample { shape, tile, next, lane_updates: work })
    }

    /// The next layer's rows as the solve hands them over.
    pub fn rows(&self) -> Option<LayerRows<'_, f32>> {
        self.next.as_ref().map(|(tile, values)| LayerRows { tile, values })
    }

    /// The sample's values, solved on `device`.
    ///
    /// # Errors
    /// A failed call of the driver.
    pub fn solve(&self, space: &Space, device: &Device<'_>) -> Result<Vec<f32>, GpuError> {
        let next = self.rows();
        match device {
            Device::Gpu(gpu) => gpu.solve_tile(space, &self.shape, next.as_ref(), &self.tile),
            Device::Host => Ok(solve_tile_on_host(space, &self.shape, next.as_ref(), &self.tile, usize::MAX)),
        }
    }
}

/// Measures `device`'s rate on every layer of `counts` (of `space`) with samples of at
/// least `lane_updates` each, timed `runs` times, reporting each layer to `progress`.
///
/// # Errors
/// A failed call of the driver.
pub fn measure(
    space: &Space,
    counts: &[LayerCount],
    device: &Device<'_>,
    (lane_updates, runs): (u64, usize),
    seed: u64,
    progress: &dyn Progress,
) -> Result<GpuRates, GpuError> {
    progress.start("GPU rates", counts.len() as u64, "layers");
    let (mut layers, mut copied, mut copy_seconds) = (Vec::new(), 0u64, 0.0);
    for count in counts.iter().rev() {
        let Some(sample) = GpuSample::new(space, count.layer, lane_updates, seed) else {
            progress.advance(1);
            continue;
        };
        let next = sample.rows();
        let seconds = match device {
            Device::Gpu(gpu) => {
                let started = Instant::now();
                let rows = gpu.upload_rows(next.as_ref())?;
                copy_seconds += started.elapsed().as_secs_f64();
                copied += next.map_or(0, |n| (n.values.len() * 4 + n.tile.offsets().len() * 8) as u64);
                let solve = || gpu.solve_tile_from(space, &sample.shape, next.as_ref(), &rows, &sample.tile);
                std::hint::black_box(solve()?);
                timed_runs(runs, solve)?
            }
            Device::Host => timed_runs(runs, || sample.solve(space, device))?,
        };
        layers.push(GpuLayerRate {
            layer: count.layer,
            lane_updates_per_second: sample.lane_updates as f64 / seconds.max(1e-9),
            sampled_lane_updates: sample.lane_updates,
            sampled_positions: sample.tile.positions(),
        });
        progress.advance(1);
    }
    progress.finish();
    layers.reverse();
    let pcie_measured = copied > 0 && copy_seconds > 0.0;
    Ok(GpuRates {
        source: format!(
            "measured on {}: samples of {lane_updates:.1e} lane-updates a layer, the median of {} timed run{}",
            device.name(),
            runs.max(1),
            if runs > 1 { "s" } else { "" }
        ),
        layers,
        pcie_bytes_per_second: if pcie_measured { copied as f64 / copy_seconds } else { ASSUMED_PCIE_BYTES_PER_SECOND },
        pcie_measured,
    })
}

/// The median wall seconds of `runs` runs of `solve`.
fn timed_runs(runs: usize, solve: impl Fn() -> Result<Vec<f32>, GpuError>) -> Result<f64, GpuError> {
    let mut seconds = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        std::hint::black_box(solve()?);
        seconds.push(started.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    Ok(seconds[seconds.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::Cards;
    use crate::duel::solve::solve_tile;
    use crate::game::{Game, Rules};

    /// The sample is real pairs reading rows the solve could hand over: the CPU kernel
    /// solves it, and the GPU kernel's source on the host gives the same bits; its
    /// lane-updates are at least those asked for, or the whole run of opponents.
    #[test]
    fn a_gpu_sample_is_solved_alike_by_the_cpu_and_the_kernels_source() {
        let cards = Cards::new(Game::full(Rules::OFFICIAL));
        let space = Space::endgame(&cards, 3);
        for layer in space.first_layer()..space.end_layer() {
            let sample = GpuSample::new(&space, layer, 2_000_000, 7).expect("every layer has pairs");
            let whole = sample.tile.movers.len() == sample.shape.movers.len();
            assert!(sample.lane_updates >= 2_000_000 || whole, "layer {layer}: {} lane-updates", sample.lane_updates);
            assert_eq!(sample.next.is_none(), layer + 1 == space.end_layer());
            let cpu = solve_tile(&space, &sample.shape, sample.rows().as_ref(), &sample.tile);
            let host = sample.solve(&space, &Device::Host).unwrap();
            assert_eq!(cpu.len() as u64, sample.tile.positions());
            let differ = cpu.iter().zip(&host).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            assert_eq!(differ, 0, "layer {layer}: {differ} of {} values differ", cpu.len());
        }
    }
}
