//! Sizing a solve before running it: memory per layer and rank, traffic, core-hours.
//!
//! The cluster solve (DESIGN.md) gives each of `P` ranks a share of the cards. In layer
//! `t` a rank computes the pairs whose *opponent* it owns, reading the layer-`t + 1` pairs
//! whose *mover* it owns; after the layer, each finished pair goes to the owner of its
//! mover card. With cards spread evenly, a rank holds `1/P` of two consecutive layers'
//! values and of their pairs' offsets (the layout, [`crate::duel::layout`]), plus per-card
//! tables, and sends `(P − 1)/P` of what it computed. Time is counted in lane-updates (one
//! lane of one edge of the turn, or one scoring candidate) and turned into core-hours by
//! each layer's own measured rate ([`super::calibrate`]), which includes the per-pair work
//! outside the kernel.

use rayon::prelude::*;
use serde::Serialize;

use super::count::LayerCount;

/// Bytes of one stored value (an `f32` winning chance).
pub const VALUE_BYTES: u64 = 4;

/// How much zstd shrinks the exchanged frontier, the scratch frames and the shards (raw
/// bytes over bytes sent or stored), for planning bytes on the wire and on disk and the
/// compressed parts held during the exchange: below the worst ratio measured on layers
/// like the middle of the game, taken for every layer. Measured (docs/benchmarks.md,
/// "Compression"): the full game's last layers compress 26.1 (layer 25), 9.3 (24), 3.7 (23)
/// and 1.89 (22) times; the 7-box game (`--first 7`, the largest game solved whole here,
/// whose middle layers look most like the full game's) 1.119 to 1.22 times on its layers of
/// over a million positions (layer 4: 1.119, the widest, 6 to 8: 1.15 to 1.22), its shards
/// at zstd level 1, the exchange's level (level 3 gave 1.126 and 1.16 to 1.25). The ratio falls
/// as the game grows (the first-6 game's widest layers give 2.2 to 2.4), so every layer of
/// the full game is planned at 1.1. `duel plan` also reports the ratio it measures on its
/// own sample of real values.
pub const EXCHANGE_COMPRESSION: f64 = 1.1;

/// Where [`EXCHANGE_COMPRESSION`] comes from, in a line a plan prints beside it.
pub const COMPRESSION_SOURCE: &str = "below the worst measured on layers of a million positions or more of the 7-box \
     game (1.119, layer 4; 1.15-1.22 on its widest) and of the full game's last layers (1.89 at layer 22): \
     docs/benchmarks.md, Compression";

/// How much more than `1/P` of a layer the busiest rank holds: the partition balances
/// kernel work, not positions or pairs. Measured by `yz duel plan --rehearse-rank 511
/// --ranks 1024` on the full game: values 5% and tiles 16% above the even share at layer
/// 14 (docs/cluster.md, "Rehearsal").
const VALUE_IMBALANCE: f64 = 1.1;
/// The same for the tiles (one offset per pair).
const TILE_IMBALANCE: f64 = 1.2;
/// Bytes of one offset of a [`crate::duel::Tile`] (a `u64` per pair).
const OFFSET_BYTES: u64 = 8;
/// Bytes per computed pair of the list of outputs a tile's solve hands its threads (the
/// pair and its slice of values: two `usize` and a fat pointer); all a tile's solve may hold
/// per pair beside its values (`tests/duel_memory.rs` checks it).
pub const OUTPUT_BYTES: u64 = 32;
/// Bytes per card of a [`crate::duel::LayerShape`]: the card id and its row start.
const CARD_BYTES: u64 = 12;

/// One layer of the plan.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LayerPlan {
    /// The layer.
    pub layer: usize,
    /// Positions.
    pub positions: u64,
    /// Card pairs with at least one position.
    pub pairs: u64,
    /// Bytes of the layer's stored values (4-byte `f32`s).
    pub bytes: u64,
    /// Whether the layer is written to disk.
    pub written: bool,
    /// Bytes of values a rank holds at once while solving this layer: its computed pairs
    /// with the rows of the next layer it reads, then with the rows it receives and, during
    /// the exchange, the compressed parts it sends and receives.
    pub value_bytes_per_rank: u64,
    /// Bytes of layout structures a rank holds at once: the tiles of the pairs it computes
    /// and of the rows it keeps of this layer and the next (one offset per pair, `1/P` of
    /// the layers' pairs each), the list of outputs of the pairs it computes, the
    /// exchange's per-row segments, and the per-card shapes.
    pub layout_bytes_per_rank: u64,
    /// Their sum: what a rank needs for this layer.
    pub bytes_per_rank: u64,
    /// Of the layout, the per-card tables (shapes, row starts): what a rank holds whether
    /// the layer is in memory or streamed.
    pub card_bytes_per_rank: u64,
    /// Whether the layer streams through scratch frames ([`Plan::streamed`]): its pair
    /// of layers does not fit the memory budget whole.
    pub streamed: bool,
    /// Bytes of values that go through scratch frames, before compression (every value of
    /// a streamed layer, none otherwise).
    pub framed_bytes: u64,
    /// Scratch held at most while the layer's frames are written, compressed by
    /// [`EXCHANGE_COMPRESSION`]: the pass that writes them reads the layer above's frames,
    /// whose block files go when the pass ends, so both are held at once at its end.
    pub scratch_bytes: u64,
    /// Bytes read from disk for this layer (all ranks): its frames, and the layer above's
    /// shards where a run of streamed layers starts below a layer solved in memory.
    pub disk_read_bytes: u64,
    /// Bytes written to disk for this layer (all ranks): its frames and its shards.
    pub disk_written_bytes: u64,
    /// Bytes of values sent between ranks after the layer, before compression, at the
    /// solve's bytes per value.
    pub exchanged_bytes: u64,
    /// The same as sent, compressed by [`EXCHANGE_COMPRESSION`].
    pub sent_bytes: u64,
    /// Lane-updates the layer's turns take.
    pub lane_updates: u64,
}

/// The whole plan.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// How the solve runs.
    pub spec: PlanSpec,
    /// Per layer, in solve order (last layer first).
    pub layers: Vec<LayerPlan>,
    /// Positions in all.
    pub positions: u64,
    /// Bytes of all layers.
    pub bytes: u64,
    /// Bytes of the layers written to disk (before compression).
    pub written_bytes: u64,
    /// Most bytes one rank holds at once (values and layout).
    pub peak_bytes_per_rank: u64,
    /// The memory budget per rank layers stream under, if any ([`Plan::streamed`]).
    pub stream_budget: Option<u64>,
    /// Most scratch held at once (all ranks).
    pub scratch_bytes: u64,
    /// Most disk held at once, scratch and tables ([`Plan::peak_disk_bytes`]).
    pub peak_disk_bytes: u64,
    /// Bytes read from disk over the solve.
    pub disk_read_bytes: u64,
    /// Bytes written to disk over the solve.
    pub disk_written_bytes: u64,
    /// Bytes exchanged over the whole solve, before compression.
    pub exchanged_bytes: u64,
    /// The same as sent, compressed by [`EXCHANGE_COMPRESSION`].
    pub sent_bytes: u64,
    /// Lane-updates of the whole solve.
    pub lane_updates: u64,
}

/// How a planned solve runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PlanSpec {
    /// MPI ranks.
    pub ranks: u64,
    /// Bytes of a value while solving: 4 for an `f32`, 8 with the draw probability.
    pub value_bytes: u64,
    /// Layers from this one on are written to disk.
    pub write_from: usize,
}

/// Plans a solve of the layers `counts` (first layer first) of a game with `boxes` boxes
/// per player.
pub fn plan(counts: &[LayerCount], boxes: usize, spec: PlanSpec) -> Plan {
    let PlanSpec { ranks, value_bytes, write_from } = spec;
    let ranks = ranks.max(1);
    let share = |n: u64| n.div_ceil(ranks);
    let layers: Vec<LayerPlan> = counts
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| {
            let next = counts.get(i + 1);
            let next_positions = next.map_or(0, |n| n.positions);
            let next_pairs = next.map_or(0, |n| n.movers * n.opponents);
            let pairs = c.movers * c.opponents;
            let exchanged_bytes = c.positions * value_bytes / ranks * (ranks - 1);
            // Beside the computed and received values during the exchange: the compressed
            // parts sent and those received.
            let parts = 2.0 * (exchanged_bytes as f64 / ranks as f64) / EXCHANGE_COMPRESSION;
            // While computing: its pairs and the next layer's rows; during an exchange (more
            // than one rank): its pairs and the rows it receives. One rank alone holds the
            // whole layer with no imbalance, and keeps its computed values as its rows.
            let (after, value_imbalance, tile_imbalance) = match ranks {
                1 => (next_positions, 1.0, 1.0),
                _ => (c.positions.max(next_positions), VALUE_IMBALANCE, TILE_IMBALANCE),
            };
            let values = value_bytes * (share(c.positions) + share(after));
            let value_bytes_per_rank = ((values as f64 + parts) * value_imbalance) as u64;
            let tiles = OFFSET_BYTES * (2 * share(pairs) + share(next_pairs)) + OUTPUT_BYTES * share(pairs);
            let card_bytes_per_rank = OFFSET_BYTES * c.movers + CARD_BYTES * 2 * (c.movers + c.opponents);
            let layout_bytes_per_rank = (tiles as f64 * tile_imbalance) as u64 + card_bytes_per_rank;
            let written = c.layer >= write_from;
            LayerPlan {
                layer: c.layer,
                positions: c.positions,
                pairs: c.pairs,
                bytes: c.positions * VALUE_BYTES,
                written,
                value_bytes_per_rank,
                layout_bytes_per_rank,
                bytes_per_rank: value_bytes_per_rank + layout_bytes_per_rank,
                card_bytes_per_rank,
                streamed: false,
                framed_bytes: 0,
                scratch_bytes: 0,
                disk_read_bytes: 0,
                disk_written_bytes: if written { compressed(c.positions * value_bytes) } else { 0 },
                exchanged_bytes,
                sent_bytes: (exchanged_bytes as f64 / EXCHANGE_COMPRESSION) as u64,
                lane_updates: c.lane_updates(boxes),
            }
        })
        .collect();
    Plan {
        spec: PlanSpec { ranks, ..spec },
        stream_budget: None,
        scratch_bytes: 0,
        peak_disk_bytes: peak_disk(&layers, value_bytes == DRAW_VALUE_BYTES),
        disk_read_bytes: 0,
        disk_written_bytes: layers.iter().map(|l| l.disk_written_bytes).sum(),
        positions: layers.iter().map(|l| l.positions).sum(),
        bytes: layers.iter().map(|l| l.bytes).sum(),
        written_bytes: layers.iter().filter(|l| l.written).map(|l| l.bytes).sum(),
        peak_bytes_per_rank: layers.iter().map(|l| l.bytes_per_rank).max().unwrap_or(0),
        exchanged_bytes: layers.iter().map(|l| l.exchanged_bytes).sum(),
        sent_bytes: layers.iter().map(|l| l.sent_bytes).sum(),
        lane_updates: layers.iter().map(|l| l.lane_updates).sum(),
        layers,
    }
}

/// Most disk the `layers` (in solve order) hold at once, scratch and tables: while a
/// streamed layer's frames are written, the tables written so far and its scratch
/// ([`LayerPlan::scratch_bytes`]); after each layer, the value shards written so far and,
/// `with_draws`, the draw shards of that layer and the one above (a draw shard is removed
/// one layer after it is written).
fn peak_disk(layers: &[LayerPlan], with_draws: bool) -> u64 {
    let shards = |l: &LayerPlan| if l.written { compressed(l.bytes) } else { 0 };
    let (mut tables, mut peak, mut draws_above) = (0, 0, 0);
    for l in layers {
        if l.streamed {
            peak = peak.max(tables + l.scratch_bytes);
        }
        tables += shards(l);
        let draws = if with_draws { shards(l) } else { 0 };
        peak = peak.max(tables + draws + draws_above);
        draws_above = draws;
    }
    peak
}

/// Bytes on disk or on the wire of `raw` bytes of values, at [`EXCHANGE_COMPRESSION`].
fn compressed(raw: u64) -> u64 {
    (raw as f64 / EXCHANGE_COMPRESSION) as u64
}

/// What a plan may use of `available` bytes per rank: nine tenths, a tenth left for the
/// rest of the process.
pub fn usable(available: u64) -> u64 {
    available / 10 * 9
}

/// Bytes of a stored value (an `f32` winning chance).
pub const PLAIN_VALUE_BYTES: u64 = 4;
/// Bytes of a value carrying the draw probability beside it.
pub const DRAW_VALUE_BYTES: u64 = 8;

/// Core-seconds per byte of the work around the kernel, measured on this machine on real
/// values ([`crate::duel::sizing::costs::measure`]): what a layer costs beside its turns.
#[derive(Clone, Debug, Serialize)]
pub struct ByteCosts {
    /// Which values were measured.
    pub sample: String,
    /// Bytes of those values, at the solve's bytes per value.
    pub sample_bytes: u64,
    /// Raw bytes over bytes sent, for the exchange's parts of the sample (zstd level 1).
    pub exchange_ratio: f64,
    /// Per raw byte exchanged: compressing and hashing a part on the sender, then
    /// decompressing, hashing and placing it on the receiver.
    pub exchange_seconds_per_byte: f64,
    /// Raw bytes over bytes stored, for the sample's shards (zstd level 1).
    pub shard_ratio: f64,
    /// Per raw byte written (4 bytes per stored number): compressing, hashing, writing and
    /// syncing shard files.
    pub write_seconds_per_byte: f64,
    /// Per raw byte written: reading a shard back, decompressing and checking it, as a
    /// resume (or `yz duel shard verify`) does for every listed shard.
    pub check_seconds_per_byte: f64,
}

/// One layer's core-hours, by part.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LayerHours {
    /// The layer.
    pub layer: usize,
    /// The turns ([`super::calibrate`]).
    pub kernel: f64,
    /// Compressing, hashing, decompressing and placing the exchanged values.
    pub exchange: f64,
    /// Writing the layer's shards (values, and draws where carried).
    pub writing: f64,
    /// Checking them once, as a resume does.
    pub checking: f64,
    /// Their sum.
    pub total: f64,
}

impl LayerHours {
    /// The parts summed over `layers` (layer 0 stands for the whole).
    pub fn sum(layers: &[LayerHours]) -> LayerHours {
        let sum = |part: fn(&LayerHours) -> f64| layers.iter().map(part).sum::<f64>();
        LayerHours {
            layer: 0,
            kernel: sum(|h| h.kernel),
            exchange: sum(|h| h.exchange),
            writing: sum(|h| h.writing),
            checking: sum(|h| h.checking),
            total: sum(|h| h.total),
        }
    }
}

impl Plan {
    /// Stored numbers per position written: the value, and P(draw) where it is carried
    /// (draw shards are written for every written layer and removed one layer later, so
    /// that a resume after a kill still knows them).
    pub fn columns(&self) -> u64 {
        if self.spec.value_bytes == DRAW_VALUE_BYTES { 2 } else { 1 }
    }

    /// Raw bytes written to shard files over the whole solve, draw shards included.
    pub fn shard_bytes(&self) -> u64 {
        self.written_bytes * self.columns()
    }

    /// Disk the tables need at most: every written layer's value shards, and the draw
    /// shards of the two layers that exist at once, compressed by [`EXCHANGE_COMPRESSION`].
    pub fn disk_bytes(&self) -> u64 {
        let draws = if self.columns() == 2 {
            let mut written: Vec<u64> = self.layers.iter().filter(|l| l.written).map(|l| l.bytes).collect();
            written.sort_unstable_by(|a, b| b.cmp(a));
            written.iter().take(2).sum()
        } else {
            0
        };
        ((self.written_bytes + draws) as f64 / EXCHANGE_COMPRESSION) as u64
    }

    /// The plan under a memory budget of `budget` bytes per rank, as `yz duel solve
    /// --mem-per-rank` runs it: layers whose pair of layers fits what the budget allows
    /// ([`usable`]) stay in memory; the others stream ([`crate::duel::sweep::stream`]). A
    /// streamed layer holds the budget in blocks beside its per-card tables, exchanges
    /// nothing between ranks, and sends every value through compressed scratch frames,
    /// written once and read once; where a run of streamed layers starts, the rows of the
    /// layer above are read back from its shards. A layer not written cannot hand its rows
    /// to a run below it but through frames, so where one streams, every layer not written
    /// streams.
    pub fn streamed(mut self, budget: u64) -> Plan {
        let columns = self.columns();
        let over = |l: &LayerPlan| l.bytes_per_rank > usable(budget);
        let unwritten_stream = self.layers.iter().any(|l| over(l) && !l.written);
        let streams = |l: &LayerPlan| over(l) || (unwritten_stream && !l.written);
        let mut above: Option<LayerPlan> = None;
        for l in &mut self.layers {
            if streams(l) {
                let framed = l.positions * self.spec.value_bytes;
                *l = LayerPlan {
                    streamed: true,
                    value_bytes_per_rank: budget,
                    layout_bytes_per_rank: l.card_bytes_per_rank,
                    bytes_per_rank: budget + l.card_bytes_per_rank,
                    exchanged_bytes: 0,
                    sent_bytes: 0,
                    framed_bytes: framed,
                    scratch_bytes: compressed(framed) + above.as_ref().map_or(0, |a| compressed(a.framed_bytes)),
                    disk_read_bytes: compressed(framed)
                        + above.as_ref().filter(|a| !a.streamed).map_or(0, |a| compressed(a.bytes * columns)),
                    disk_written_bytes: compressed(framed) + l.disk_written_bytes,
                    ..*l
                };
            }
            above = Some(*l);
        }
        Plan {
            stream_budget: Some(budget),
            peak_bytes_per_rank: self.layers.iter().map(|l| l.bytes_per_rank).max().unwrap_or(0),
            exchanged_bytes: self.layers.iter().map(|l| l.exchanged_bytes).sum(),
            sent_bytes: self.layers.iter().map(|l| l.sent_bytes).sum(),
            scratch_bytes: self.layers.iter().map(|l| l.scratch_bytes).max().unwrap_or(0),
            peak_disk_bytes: peak_disk(&self.layers, self.columns() == 2),
            disk_read_bytes: self.layers.iter().map(|l| l.disk_read_bytes).sum(),
            disk_written_bytes: self.layers.iter().map(|l| l.disk_written_bytes).sum(),
            ..self
        }
    }

    /// Hours of disk reads and writes over the solve at `bandwidth` bytes per second.
    pub fn disk_hours(&self, bandwidth: f64) -> f64 {
        (self.disk_read_bytes + self.disk_written_bytes) as f64 / bandwidth / 3600.0
    }

    /// The layers that stream.
    pub fn streamed_layers(&self) -> Vec<usize> {
        self.layers.iter().filter(|l| l.streamed).map(|l| l.layer).collect()
    }

    /// Core-hours of each layer by part: `kernel_hours(layer)` for the turns (measured),
    /// the rest from the bytes each layer exchanges (or, streamed, sends through scratch
    /// frames, at the same codec's cost), writes and checks at the measured `costs`.
    pub fn hours(&self, kernel_hours: impl Fn(usize) -> f64, costs: &ByteCosts) -> Vec<LayerHours> {
        let hours = |bytes: u64, seconds_per_byte: f64| bytes as f64 * seconds_per_byte / 3600.0;
        (self.layers.iter())
            .map(|l| {
                let written = if l.written { l.bytes * self.columns() } else { 0 };
                let (kernel, exchange, writing, checking) = (
                    kernel_hours(l.layer),
                    hours(l.exchanged_bytes + l.framed_bytes, costs.exchange_seconds_per_byte),
                    hours(written, costs.write_seconds_per_byte),
                    hours(written, costs.check_seconds_per_byte),
                );
                LayerHours {
                    layer: l.layer,
                    kernel,
                    exchange,
                    writing,
                    checking,
                    total: kernel + exchange + writing + checking,
                }
            })
            .collect()
    }
}

/// A machine a solve is priced on: nodes alike, each with its cores, memory, ranks and disk.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Machine {
    /// What it is, in words.
    pub name: &'static str,
    /// Nodes.
    pub nodes: u64,
    /// MPI ranks per node (each runs threads on its share of the cores).
    pub ranks_per_node: u64,
    /// Cores per node.
    pub cores_per_node: u64,
    /// Memory per node, shared by its ranks.
    pub memory_per_node: u64,
    /// Disk per node for scratch and tables, where it is stated.
    pub disk_per_node: Option<u64>,
    /// Bytes per second a node reads or writes its disk, where it is stated (else the
    /// bandwidth measured on the scratch directory or given).
    pub disk_bandwidth: Option<f64>,
}

/// The machines `yz duel plan` prices a solve on. The second and third are built of the
/// same node (64 cores, 256 GiB): 16 of them with a rank per core, and the 1,024 ranks of
/// 64 GiB the plan assumes by default (256 nodes of 4 ranks).
pub const MACHINES: [Machine; 3] = [
    Machine {
        name: "1 node: 128 cores, 1 TiB, 30 TB of NVMe at 8 GB/s",
        nodes: 1,
        ranks_per_node: 128,
        cores_per_node: 128,
        memory_per_node: 1 << 40,
        disk_per_node: Some(30_000_000_000_000),
        disk_bandwidth: Some(8e9),
    },
    Machine {
        name: "16 nodes: 64 cores, 256 GiB",
        nodes: 16,
        ranks_per_node: 64,
        cores_per_node: 64,
        memory_per_node: 256 << 30,
        disk_per_node: None,
        disk_bandwidth: None,
    },
    Machine {
        name: "1,024 ranks of 64 GiB: 256 nodes of 64 cores, 256 GiB",
        nodes: 256,
        ranks_per_node: 4,
        cores_per_node: 64,
        memory_per_node: 256 << 30,
        disk_per_node: None,
        disk_bandwidth: None,
    },
];

/// A solve priced on a [`Machine`].
#[derive(Clone, Debug, Serialize)]
pub struct MachinePrice {
    /// The machine.
    pub machine: Machine,
    /// Ranks in all.
    pub ranks: u64,
    /// Memory per rank.
    pub mem_per_rank: u64,
    /// The layers that stream there.
    pub streamed: Vec<usize>,
    /// Most bytes a rank holds: a streamed layer's budget in blocks and its per-card
    /// tables (the budget plus a few hundred MiB at full scale).
    pub peak_bytes_per_rank: u64,
    /// Whether every layer fits: in memory (those that stay there fit by construction),
    /// or streamed with a budget at or above the floor.
    pub fits_memory: bool,
    /// Most scratch held at once, all nodes together.
    pub scratch_bytes: u64,
    /// Disk the tables take, all nodes together.
    pub table_bytes: u64,
    /// Whether scratch and tables fit the nodes' disks (unknown where not stated).
    pub fits_disk: Option<bool>,
    /// Core-hours of compute.
    pub core_hours: f64,
    /// The share of the compute's wall time the cores are busy: each layer's core-hours
    /// weighted by the balance of its work over the ranks (its blocks as dealt where it
    /// streams, its columns where it is in memory), 1 for a perfect balance.
    pub balance: f64,
    /// Hours of compute: each layer's core-hours over every core, over its balance.
    pub compute_hours: f64,
    /// Hours of disk reads and writes at the nodes' bandwidth, all nodes at once.
    pub disk_hours: f64,
    /// Their sum: the disk is not counted as overlapping the compute.
    pub wall_hours: f64,
}

/// The machines `yz duel plan --gpu` prices a solve on: nodes of eight H100s, one rank per
/// GPU (`ranks_per_node` are the GPUs), the node's cores left for the work around the
/// kernel (exchange, shards, checks) and its memory shared by the ranks.
pub const GPU_MACHINES: [Machine; 2] = [
    Machine {
        name: "1 node: 8 H100, 128 cores, 2 TiB, 30 TB of NVMe at 8 GB/s",
        nodes: 1,
        ranks_per_node: 8,
        cores_per_node: 128,
        memory_per_node: 2 << 40,
        disk_per_node: Some(30_000_000_000_000),
        disk_bandwidth: Some(8e9),
    },
    Machine {
        name: "8 nodes: 8 H100, 128 cores, 2 TiB, 30 TB of NVMe at 8 GB/s",
        nodes: 8,
        ranks_per_node: 8,
        cores_per_node: 128,
        memory_per_node: 2 << 40,
        disk_per_node: Some(30_000_000_000_000),
        disk_bandwidth: Some(8e9),
    },
];

/// Bytes per second between host and GPU a plan assumes where none was measured: half of
/// PCIe 5.0 x16's 64 GB/s a direction, about what copies from pageable host memory reach.
pub const ASSUMED_PCIE_BYTES_PER_SECOND: f64 = 25e9;

/// The kernel's rate on one GPU, by layer: measured on sampled pairs (`yz duel plan --gpu`)
/// or given (`--gpu-rate`).
#[derive(Clone, Debug, Serialize)]
pub struct GpuRates {
    /// Where the rates come from, in words: the device measured, or the rate given.
    pub source: String,
    /// Each layer's rate.
    pub layers: Vec<GpuLayerRate>,
    /// Bytes per second copied from host to device: measured with the rates, else
    /// [`ASSUMED_PCIE_BYTES_PER_SECOND`] or given.
    pub pcie_bytes_per_second: f64,
    /// Whether [`GpuRates::pcie_bytes_per_second`] was measured.
    pub pcie_measured: bool,
}

/// One layer's rate on one GPU.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GpuLayerRate {
    /// The layer.
    pub layer: usize,
    /// Lane-updates per second (as the plan counts them: lanes padded as on the CPU), the
    /// median of the timed runs.
    pub lane_updates_per_second: f64,
    /// Lane-updates of the sampled pairs (0 where the rate was given).
    pub sampled_lane_updates: u64,
    /// Positions of the sampled pairs (0 where the rate was given).
    pub sampled_positions: u64,
}

impl GpuRates {
    /// Every layer of `layers` at `lane_updates_per_second` (`--gpu-rate`), with
    /// `pcie_bytes_per_second` between host and device.
    pub fn given(layers: &[usize], lane_updates_per_second: f64, pcie_bytes_per_second: f64) -> GpuRates {
        GpuRates {
            source: format!("given: {lane_updates_per_second:.3e} lane-updates/s on every layer (--gpu-rate)"),
            layers: (layers.iter())
                .map(|&layer| GpuLayerRate {
                    layer,
                    lane_updates_per_second,
                    sampled_lane_updates: 0,
                    sampled_positions: 0,
                })
                .collect(),
            pcie_bytes_per_second,
            pcie_measured: false,
        }
    }

    /// Layer `layer`'s rate (`None` where the layer was not measured: it has no pairs).
    pub fn rate(&self, layer: usize) -> Option<f64> {
        self.layers.iter().find(|r| r.layer == layer).map(|r| r.lane_updates_per_second)
    }
}

/// A solve priced on a [`Machine`] of GPUs ([`GPU_MACHINES`]), one rank per GPU. Each layer
/// takes the longest of three things done at once: its turns on the GPUs, its rows copied
/// to and its values from them, and the work around the kernel on the node's cores; the
/// disk comes beside, as on cores.
#[derive(Clone, Debug, Serialize)]
pub struct GpuPrice {
    /// The machine's ranks, memory, streaming and disk, as for cores (its `core_hours` are
    /// what the same solve costs on CPU cores).
    pub ranks: MachinePrice,
    /// GPUs in all.
    pub gpus: u64,
    /// GPU-hours of the turns, all GPUs together.
    pub gpu_hours: f64,
    /// Hours of the turns: each layer's GPU-hours over the GPUs and its balance.
    pub kernel_hours: f64,
    /// Hours of copies between host and GPU: each layer's next rows to the GPU and its
    /// values back, a GPU's share (at least: a streamed layer's blocks may read rows twice).
    pub pcie_hours: f64,
    /// Hours of the work around the kernel (exchange, writing and checking shards) over
    /// every core of the nodes.
    pub host_hours: f64,
    /// Each layer's longest of the three, summed.
    pub compute_hours: f64,
    /// Layers whose longest is the GPU, the copies, and the host's cores.
    pub bound_by: [usize; 3],
    /// Hours of disk reads and writes, as on cores.
    pub disk_hours: f64,
    /// Compute and disk.
    pub wall_hours: f64,
}

/// A solve priced on a [`Machine`] ([`Machine::price`]): its [`MachinePrice`] on the
/// machine's cores, and the layers it was summed from, to price the same ranks on GPUs
/// ([`Priced::on_gpus`]).
#[derive(Clone, Debug)]
pub struct Priced {
    /// The price on the machine's cores.
    pub price: MachinePrice,
    plan: Plan,
    hours: Vec<LayerHours>,
    /// Each layer's balance (as [`MachinePrice::balance`]), in the order of `hours`.
    balances: Vec<f64>,
}

impl Priced {
    /// The same solve on the machine's GPUs, one per rank (`ranks_per_node` are the GPUs),
    /// at `gpu`'s rates: each layer's turns take its lane-updates over the rate, its copies
    /// its bytes over the host-device bandwidth.
    pub fn on_gpus(self, gpu: &GpuRates) -> GpuPrice {
        let Priced { price, plan, hours, balances } = self;
        let gpus = price.ranks;
        let cores = (price.machine.nodes * price.machine.cores_per_node) as f64;
        let (mut gpu_hours, mut kernel, mut pcie, mut host, mut compute) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut bound_by = [0; 3];
        for (i, (l, h)) in plan.layers.iter().zip(&hours).enumerate() {
            let layer_gpu_hours = gpu.rate(l.layer).map_or(0.0, |rate| l.lane_updates as f64 / rate / 3600.0);
            let next_bytes = plan.layers.get(i + 1).map_or(0, |n| n.bytes);
            let times = [
                layer_gpu_hours / gpus as f64 / balances[i],
                (l.bytes + next_bytes) as f64 / gpus as f64 / gpu.pcie_bytes_per_second / 3600.0,
                (h.exchange + h.writing + h.checking) / cores,
            ];
            let longest = times.iter().copied().fold(0.0, f64::max);
            bound_by[times.iter().position(|&t| t == longest).unwrap_or(0)] += 1;
            gpu_hours += layer_gpu_hours;
            (kernel, pcie, host, compute) = (kernel + times[0], pcie + times[1], host + times[2], compute + longest);
        }
        GpuPrice {
            gpus,
            gpu_hours,
            kernel_hours: kernel,
            pcie_hours: pcie,
            host_hours: host,
            compute_hours: compute,
            bound_by,
            disk_hours: price.disk_hours,
            wall_hours: compute + price.disk_hours,
            ranks: price,
        }
    }
}

impl Machine {
    /// The solve of `counts` (first layer first; `boxes` per player, values of
    /// `value_bytes`, layers from `write_from` written) on this machine, its ranks
    /// streaming what does not fit their memory when that is at least `floor(streamed
    /// layers)` bytes: core-hours from `kernel_hours` and `costs` as [`Plan::hours`], each
    /// layer's wall time over its `balance(layer, streamed layers, memory per rank)` (see
    /// [`MachinePrice::balance`]), disk at `bandwidth` bytes per second per node where the
    /// machine states none.
    #[allow(clippy::too_many_arguments)]
    pub fn price(
        &self,
        counts: &[LayerCount],
        boxes: usize,
        (value_bytes, write_from): (u64, usize),
        (floor, balance): (impl Fn(&[usize]) -> u64, impl Fn(usize, &[usize], u64) -> f64 + Sync),
        bandwidth: f64,
        kernel_hours: impl Fn(usize) -> f64,
        costs: &ByteCosts,
    ) -> Priced {
        let ranks = self.nodes * self.ranks_per_node;
        let mem_per_rank = self.memory_per_node / self.ranks_per_node;
        let planned = plan(counts, boxes, PlanSpec { ranks, value_bytes, write_from }).streamed(mem_per_rank);
        let streamed = planned.streamed_layers();
        let fits_memory = streamed.is_empty() || floor(&streamed) <= mem_per_rank;
        let hours = planned.hours(kernel_hours, costs);
        let core_hours = LayerHours::sum(&hours).total;
        // Where the budget is below the floor nothing streams as planned: the layers are
        // priced as if in memory.
        let streams: &[usize] = if fits_memory { &streamed } else { &[] };
        // Each layer's balance builds its partition or its pass's blocks: layers at once.
        let balances: Vec<f64> = hours.par_iter().map(|h| balance(h.layer, streams, mem_per_rank)).collect();
        let busy_hours: f64 = hours.iter().zip(&balances).map(|(h, b)| h.total / b).sum();
        let bandwidth = self.disk_bandwidth.unwrap_or(bandwidth) * self.nodes as f64;
        let disk_hours = planned.disk_hours(bandwidth);
        let compute_hours = busy_hours / (self.nodes * self.cores_per_node) as f64;
        let table_bytes = planned.disk_bytes();
        let price = MachinePrice {
            machine: *self,
            ranks,
            mem_per_rank,
            fits_memory,
            streamed,
            peak_bytes_per_rank: planned.peak_bytes_per_rank,
            scratch_bytes: planned.scratch_bytes,
            table_bytes,
            fits_disk: self.disk_per_node.map(|disk| planned.peak_disk_bytes <= disk * self.nodes),
            core_hours,
            balance: if busy_hours > 0.0 { core_hours / busy_hours } else { 1.0 },
            compute_hours,
            disk_hours,
            wall_hours: compute_hours + disk_hours,
        };
        Priced { price, plan: planned, hours, balances }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duel::sizing::count::count_layers;
    use crate::duel::{Cards, Space};
    use crate::game::{Game, Rules};

    fn made_up_costs() -> ByteCosts {
        ByteCosts {
            sample: "made up".to_owned(),
            sample_bytes: 1,
            exchange_ratio: 2.0,
            exchange_seconds_per_byte: 1e-9,
            shard_ratio: 2.0,
            write_seconds_per_byte: 2e-9,
            check_seconds_per_byte: 3e-9,
        }
    }

    /// Under a budget, the layers whose pair does not fit stream: they hold the budget and
    /// their per-card tables, exchange nothing, and send every value through scratch
    /// frames written and read once; the others are planned as in memory.
    #[test]
    fn layers_that_do_not_fit_the_budget_stream_through_scratch() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 5).unwrap());
        let counts = count_layers(&Space::whole_game(&cards));
        let spec = PlanSpec { ranks: 2, value_bytes: DRAW_VALUE_BYTES, write_from: 3 };
        let whole = plan(&counts, 5, spec);
        let mut sizes: Vec<u64> = whole.layers.iter().map(|l| l.bytes_per_rank).collect();
        sizes.sort_unstable();
        let budget = sizes[sizes.len() / 2] * 10 / 9 + 10;
        let planned = whole.clone().streamed(budget);
        assert_eq!(planned.stream_budget, Some(budget));
        let streamed = planned.streamed_layers();
        assert!(!streamed.is_empty() && streamed.len() < planned.layers.len(), "{streamed:?}");
        let framed = |l: &LayerPlan| compressed(l.positions * DRAW_VALUE_BYTES);
        let shards = |l: &LayerPlan| if l.layer >= 3 { compressed(l.positions * DRAW_VALUE_BYTES) } else { 0 };
        // Where a layer not written (below 3) streams, all of them do.
        let over = |l: &LayerPlan, budget: u64| l.bytes_per_rank > usable(budget);
        let layer_2 = whole.layers.iter().find(|l| l.layer == 2).unwrap();
        let tight_budget = layer_2.bytes_per_rank * 10 / 9 - 10;
        assert!(over(layer_2, tight_budget));
        let tight = whole.clone().streamed(tight_budget);
        for (l, w) in tight.layers.iter().zip(&whole.layers) {
            assert_eq!(l.streamed, over(w, tight_budget) || l.layer < 3, "layer {}", l.layer);
        }
        assert!(whole.layers.iter().any(|l| l.layer < 3 && !over(l, tight_budget)), "the rule is exercised");
        for (i, (l, w)) in planned.layers.iter().zip(&whole.layers).enumerate() {
            let unwritten_over = whole.layers.iter().any(|l| l.layer < 3 && over(l, budget));
            assert_eq!(l.streamed, over(w, budget) || (unwritten_over && l.layer < 3), "layer {}", l.layer);
            if !l.streamed {
                assert_eq!(
                    (l.bytes_per_rank, l.exchanged_bytes, l.framed_bytes),
                    (w.bytes_per_rank, w.exchanged_bytes, 0)
                );
                assert_eq!((l.scratch_bytes, l.disk_read_bytes, l.disk_written_bytes), (0, 0, shards(l)));
                continue;
            }
            let above = i.checked_sub(1).map(|a| &planned.layers[a]);
            assert_eq!(l.bytes_per_rank, budget + w.card_bytes_per_rank);
            assert_eq!((l.exchanged_bytes, l.sent_bytes, l.framed_bytes), (0, 0, l.positions * DRAW_VALUE_BYTES));
            let above_frames = above.filter(|a| a.streamed).map_or(0, framed);
            assert_eq!(l.scratch_bytes, framed(l) + above_frames);
            let read_back = above.filter(|a| !a.streamed).map_or(0, |a| compressed(a.bytes * 2));
            assert_eq!(l.disk_read_bytes, framed(l) + read_back);
            assert_eq!(l.disk_written_bytes, framed(l) + shards(l));
        }
        assert_eq!(planned.disk_read_bytes, planned.layers.iter().map(|l| l.disk_read_bytes).sum::<u64>());
        assert_eq!(planned.scratch_bytes, planned.layers.iter().map(|l| l.scratch_bytes).max().unwrap());
        // The disk held at once: the tables alone in memory (with two layers' draw shards),
        // and with scratch at least its peak but less than the two peaks summed.
        let values: u64 = whole.layers.iter().map(shards).sum::<u64>() / 2;
        assert!(whole.peak_disk_bytes > values && whole.peak_disk_bytes <= whole.disk_bytes());
        assert!(planned.peak_disk_bytes >= planned.scratch_bytes.max(values));
        assert!(planned.peak_disk_bytes < planned.scratch_bytes + planned.disk_bytes());
        assert!(planned.exchanged_bytes < whole.exchanged_bytes);
        // Frames cost the exchange's codec: streaming moves the bytes, not the work.
        let costs = made_up_costs();
        let (a, b) = (LayerHours::sum(&planned.hours(|_| 0.0, &costs)), LayerHours::sum(&whole.hours(|_| 0.0, &costs)));
        let framed_total: u64 = planned.layers.iter().map(|l| l.framed_bytes + l.exchanged_bytes).sum();
        assert!((a.exchange - framed_total as f64 * 1e-9 / 3600.0).abs() < 1e-12 && a.exchange > b.exchange);
    }

    /// A machine's price: its ranks and memory per rank, its compute spread over every
    /// core at the layers' balance, its disk time at its nodes' bandwidth, and refusals below the floor or the disk.
    #[test]
    fn machines_are_priced_from_their_shape() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 5).unwrap());
        let counts = count_layers(&Space::whole_game(&cards));
        let costs = made_up_costs();
        let machine = Machine {
            name: "test",
            nodes: 2,
            ranks_per_node: 3,
            cores_per_node: 6,
            memory_per_node: 3 << 14,
            disk_per_node: Some(1 << 40),
            disk_bandwidth: None,
        };
        let price = machine.price(&counts, 5, (4, 0), (|_| 1 << 10, |_, _, _| 0.5), 1e6, |l| l as f64, &costs).price;
        assert_eq!((price.ranks, price.mem_per_rank), (6, 1 << 14));
        let planned = plan(&counts, 5, PlanSpec { ranks: 6, value_bytes: 4, write_from: 0 }).streamed(1 << 14);
        assert_eq!(price.streamed, planned.streamed_layers());
        let core_hours = LayerHours::sum(&planned.hours(|l| l as f64, &costs)).total;
        assert!((price.compute_hours - core_hours / 12.0 / 0.5).abs() < 1e-9, "the cores busy half the time");
        assert!((price.balance - 0.5).abs() < 1e-12);
        let disk = (planned.disk_read_bytes + planned.disk_written_bytes) as f64 / 2e6 / 3600.0;
        assert!((price.disk_hours - disk).abs() < 1e-12);
        assert!((price.wall_hours - price.compute_hours - price.disk_hours).abs() < 1e-12);
        assert!(price.fits_memory && price.fits_disk == Some(true));
        assert!(!price.streamed.is_empty(), "the test streams");
        let tight = Machine { disk_per_node: Some(1), disk_bandwidth: Some(1e9), ..machine };
        let price = tight.price(&counts, 5, (4, 0), (|_| 1 << 20, |_, _, _| 1.0), 1e6, |l| l as f64, &costs).price;
        assert!(!price.fits_memory && price.fits_disk == Some(false));
        assert!((price.disk_hours - disk / 1000.0).abs() < 1e-12, "the machine's own bandwidth");
    }

    /// Each part of a layer's hours is its bytes at the measured cost: exchange at the
    /// value size, writing and checking for written layers only, twice with draws.
    #[test]
    fn hours_price_each_layers_bytes() {
        let cards = Cards::new(Game::first(Rules::OFFICIAL, 4).unwrap());
        let counts = count_layers(&Space::whole_game(&cards));
        let costs = made_up_costs();
        for (value_bytes, columns) in [(PLAIN_VALUE_BYTES, 1.0), (DRAW_VALUE_BYTES, 2.0)] {
            let planned = plan(&counts, 4, PlanSpec { ranks: 3, value_bytes, write_from: 4 });
            let hours = planned.hours(|layer| layer as f64, &costs);
            for (h, l) in hours.iter().zip(&planned.layers) {
                let written = if l.layer >= 4 { (4 * l.positions) as f64 * columns } else { 0.0 };
                assert_eq!(h.kernel, l.layer as f64);
                assert!((h.exchange - l.exchanged_bytes as f64 * 1e-9 / 3600.0).abs() < 1e-15);
                assert!((h.writing - written * 2e-9 / 3600.0).abs() < 1e-15, "layer {}", l.layer);
                assert!((h.checking - written * 3e-9 / 3600.0).abs() < 1e-15);
                assert!((h.total - (h.kernel + h.exchange + h.writing + h.checking)).abs() < 1e-12);
            }
            assert!(hours.iter().any(|h| h.exchange > 0.0) && hours.iter().any(|h| h.writing == 0.0));
            let sum = LayerHours::sum(&hours);
            assert!((sum.total - hours.iter().map(|h| h.total).sum::<f64>()).abs() < 1e-12);
            assert_eq!(planned.shard_bytes() as f64, planned.written_bytes as f64 * columns);
        }
    }
}
