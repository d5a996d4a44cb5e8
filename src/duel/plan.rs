//! Sizing a solve before running it: memory per layer and rank, traffic, core-hours.
//!
//! The cluster solve (DESIGN.md) gives each of `P` ranks a share of the cards. In layer
//! `t` a rank computes the pairs whose *opponent* it owns, reading the layer-`t + 1` pairs
//! whose *mover* it owns; after the layer, each finished pair goes to the owner of its
//! mover card. With cards spread evenly, a rank holds `1/P` of two consecutive layers and
//! sends `(P − 1)/P` of what it computed. Time is extrapolated from a measured rate of
//! lane-updates (one lane of one edge of the turn, or one scoring candidate) per second and
//! core; the per-pair work outside the kernel (successor rows) is not in the model, so the
//! calibration layer, whose windows are as wide as the full solve's, absorbs it.

use std::time::Instant;

use serde::Serialize;

use super::cards::Cards;
use super::count::LayerCount;
use super::solve::{Space, solve_layer};
use crate::game::{Game, NUM_ROLLS, Rules};
use crate::turn::kernel::edges_per_turn;

/// Bytes of one stored value (an `f32` winning chance).
pub const VALUE_BYTES: u64 = 4;

/// How much zstd shrinks the exchanged frontier (raw bytes over bytes sent), measured by
/// `scripts/bench-mpi` on the first-6 game at 2 ranks (27.8 MB raw, 9.7 MB sent; from 2.2
/// to 8.5 on its large layers). Measured on a small game only.
pub const EXCHANGE_COMPRESSION: f64 = 2.9;

/// One layer of the plan.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LayerPlan {
    /// The layer.
    pub layer: usize,
    /// Positions.
    pub positions: u64,
    /// Card pairs with at least one position.
    pub pairs: u64,
    /// Bytes of the layer's values.
    pub bytes: u64,
    /// Bytes a rank holds while solving this layer: its share of this layer and the next.
    pub bytes_per_rank: u64,
    /// Bytes of values sent between ranks after the layer, before compression.
    pub exchanged_bytes: u64,
    /// The same as sent, compressed by [`EXCHANGE_COMPRESSION`].
    pub sent_bytes: u64,
    /// Lane-updates the layer's turns take.
    pub lane_updates: u64,
}

/// The whole plan.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// Ranks assumed.
    pub ranks: u64,
    /// Per layer, in solve order (last layer first).
    pub layers: Vec<LayerPlan>,
    /// Positions in all.
    pub positions: u64,
    /// Bytes of all layers.
    pub bytes: u64,
    /// Most bytes one rank holds at once.
    pub peak_bytes_per_rank: u64,
    /// Bytes exchanged over the whole solve, before compression.
    pub exchanged_bytes: u64,
    /// The same as sent, compressed by [`EXCHANGE_COMPRESSION`].
    pub sent_bytes: u64,
    /// Lane-updates of the whole solve.
    pub lane_updates: u64,
}

/// Lane-updates of one lane of one turn of a mover with `open` boxes: the kernel's edges,
/// plus one more candidate per roll for every open box beyond the first when scoring.
pub fn lane_updates_per_lane(open: usize) -> u64 {
    edges_per_turn() as u64 + (NUM_ROLLS * open.saturating_sub(1)) as u64
}

/// Plans a solve of the layers `counts` (first layer first) of a game with `boxes` boxes
/// per player on `ranks` ranks.
pub fn plan(counts: &[LayerCount], boxes: usize, ranks: u64) -> Plan {
    let ranks = ranks.max(1);
    let layers: Vec<LayerPlan> = counts
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| {
            let next = counts.get(i + 1).map_or(0, |n| n.positions);
            let exchanged_bytes = c.positions * VALUE_BYTES / ranks * (ranks - 1);
            LayerPlan {
                layer: c.layer,
                positions: c.positions,
                pairs: c.pairs,
                bytes: c.positions * VALUE_BYTES,
                bytes_per_rank: (c.positions + next).div_ceil(ranks) * VALUE_BYTES,
                exchanged_bytes,
                sent_bytes: (exchanged_bytes as f64 / EXCHANGE_COMPRESSION) as u64,
                lane_updates: c.lanes * lane_updates_per_lane(boxes - c.mover_filled),
            }
        })
        .collect();
    Plan {
        ranks,
        positions: layers.iter().map(|l| l.positions).sum(),
        bytes: layers.iter().map(|l| l.bytes).sum(),
        peak_bytes_per_rank: layers.iter().map(|l| l.bytes_per_rank).max().unwrap_or(0),
        exchanged_bytes: layers.iter().map(|l| l.exchanged_bytes).sum(),
        sent_bytes: layers.iter().map(|l| l.sent_bytes).sum(),
        lane_updates: layers.iter().map(|l| l.lane_updates).sum(),
        layers,
    }
}

/// A measured solve rate.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rate {
    /// Lane-updates per second and core.
    pub lane_updates_per_core_second: f64,
    /// Positions per second and core.
    pub positions_per_core_second: f64,
    /// Threads the measurement ran on.
    pub threads: usize,
    /// Positions solved to measure.
    pub positions: u64,
    /// Seconds the measured layer took.
    pub seconds: f64,
    /// CPU seconds it took, all threads together: what the rate divides by, so that other
    /// jobs sharing the cores slow the clock but not the rate.
    pub core_seconds: f64,
}

/// Measures the rate on real full-game positions: layer 24 of the official game (both
/// players with one box open; windows of about 180 differences, in the range of the full
/// solve's average), after solving layer 25 unmeasured.
pub fn calibrate() -> Rate {
    let cards = Cards::new(Game::full(Rules::Official));
    let space = Space::endgame(&cards, 2);
    let last = solve_layer::<f32>(&space, 25, None);
    let started = Instant::now();
    let cpu_before = process_cpu_seconds();
    let layer = solve_layer::<f32>(&space, 24, Some(&last));
    let seconds = started.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    let counts = super::count::count_layers(&space);
    let lanes = counts.iter().find(|c| c.layer == 24).map_or(0, |c| c.lanes);
    let lane_updates = lanes * lane_updates_per_lane(1);
    let threads = rayon::current_num_threads();
    let core_seconds = cpu.filter(|&c| c > 0.0).unwrap_or(seconds * threads as f64);
    Rate {
        lane_updates_per_core_second: lane_updates as f64 / core_seconds,
        positions_per_core_second: layer.shape.positions() as f64 / core_seconds,
        threads,
        positions: layer.shape.positions(),
        seconds,
        core_seconds,
    }
}

/// CPU time this process has used so far (user and system, every thread), where the
/// platform tells it.
fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
        // SAFETY: getrusage fills the struct it is given and touches nothing else.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: a zero return means the struct was filled.
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
